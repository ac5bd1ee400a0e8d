# The rigs' cache, sourced by the scripts that make a rig (scripts/vm/prepare.sh, scripts/arm64/):
# what they download and build from Debian's registry — the arm64 toolchain, the arm64 roots, the
# guests' kernels, modules and images — lives outside the clone, one folder per rig and key, so a
# second run on the same machine (another clone too) takes it instead of making it again.
#
#   $RECORDERD_CACHE, else /var/cache/recorderd as root, else ${XDG_CACHE_HOME:-~/.cache}/recorderd
#     NAME-KEY/         the rig; KEY is the first 16 hex digits of the SHA-256 of its inputs: the
#                       scripts that make it (this one included) and the versions of the host's
#                       packages that make it (debootstrap, mmdebstrap, qemu-user-static, the
#                       kernel package apt offers: rig_key's arguments)
#     NAME-KEY/ready    written last: the key, and the SHA-256 of the listing (paths and sizes)
#                       of the parts that matter, checked before each use
#     NAME-KEY/versions the package versions it took (dpkg's view of each root it holds)
#
# A rig whose check fails (a folder half made, a file gone or cut short) is made again; a new key
# removes the rig's other keys.
# Usage (sourced): rig_key NAME FILE... [-- WORD...]; rig_entry NAME KEY; rig_ready ENTRY PART...;
# rig_seal ENTRY PART...; rig_link TARGET LINK; rig_prune ENTRY.

rig_cache_root() {
  if [ -n "${RECORDERD_CACHE:-}" ]; then echo "$RECORDERD_CACHE"
  elif [ "$(id -u)" = 0 ]; then echo /var/cache/recorderd
  else echo "${XDG_CACHE_HOME:-$HOME/.cache}/recorderd"; fi
}

# The versions of the host's packages PACKAGE... (one word each, "name=version", absent: "name=").
rig_host_versions() {
  local p
  for p in "$@"; do printf '%s=%s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)"; done
}

# NAME FILE... [-- WORD...]: the key of a rig made by FILE... (their contents, with this file's)
# and of WORD... (versions, options).
rig_key() {
  local name=$1; shift
  local files=() words=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do files+=("$1"); shift; done
  [ "${1:-}" != -- ] || { shift; words=("$@"); }
  { echo "$name"; cat "${BASH_SOURCE[0]}" "${files[@]}"; printf '%s\n' ${words[@]+"${words[@]}"}; } | sha256sum | cut -c1-16
}

rig_entry() { echo "$(rig_cache_root)/$1-$2"; }

# ENTRY PART...: the listing (relative paths and sizes, sorted) of the PARTs of ENTRY, hashed.
rig_listing() {
  local entry=$1; shift
  (cd "$entry" && find "$@" -printf '%p %s %y\n' 2>/dev/null | LC_ALL=C sort | sha256sum | cut -d' ' -f1)
}

# ENTRY PART...: true when ENTRY was sealed with its key and its PARTs are as they were then.
rig_ready() {
  local entry=$1; shift
  local key=${entry##*-}
  [ -f "$entry/ready" ] || return 1
  [ "$(sed -n 1p "$entry/ready")" = "key $key" ] || return 1
  [ "$(sed -n 2p "$entry/ready")" = "listing $(rig_listing "$entry" "$@")" ] || {
    echo "cache: $entry differs from what was made (a part missing or changed): made again" >&2; return 1; }
}

# ENTRY PART...: records the key and the listing (after everything else is in place).
rig_seal() {
  local entry=$1; shift
  local part
  for part in "$@"; do [ -e "$entry/$part" ] || { echo "cache: $entry/$part was not made" >&2; return 1; }; done
  printf 'key %s\nlisting %s\nmade %s\n' "${entry##*-}" "$(rig_listing "$entry" "$@")" "$(date -u +%FT%TZ)" > "$entry/ready.new"
  mv "$entry/ready.new" "$entry/ready"
}

# ENTRY: an empty folder for a rig about to be made (what a failed attempt left is removed).
rig_fresh() {
  local entry=$1
  [ ! -e "$entry" ] || rm -rf --one-file-system "$entry"
  mkdir -p "$entry"
}

# ENTRY: removes the rig's entries of other keys (same NAME), once ENTRY is sealed.
rig_prune() {
  local entry=$1 other
  for other in "${entry%-*}"-*; do
    [ "$other" = "$entry" ] || [ ! -d "$other" ] || [ "${#other}" != "${#entry}" ] || rm -rf --one-file-system "$other"
  done
}

# TARGET LINK: LINK (a path in the clone, where the tests and scripts look) points at TARGET;
# a folder there from before the cache is removed.
rig_link() {
  local target=$1 link=$2
  mkdir -p "$(dirname "$link")"
  if [ -d "$link" ] && [ ! -L "$link" ]; then rm -rf --one-file-system "$link"; fi
  ln -sfn "$target" "$link"
}

# ROOT: the package versions dpkg installed in ROOT (a folder), one "name version" a line.
rig_root_versions() { dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${Package}:${Architecture} ${Version}\n' 2>/dev/null | LC_ALL=C sort; }
