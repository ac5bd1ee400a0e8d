#!/usr/bin/env bash
# Installs recorderd as a systemd service: release binaries, units, udev rules, sysusers.d and
# tmpfiles.d entries, the example configuration (never overwriting an existing one) and its
# replay data, the README, bash/zsh/fish completions and man pages.
#
#   scripts/install.sh [--prefix DIR] [--destdir DIR] [--no-build] [--bin-dir DIR] [--runtime DIR]
#   scripts/install.sh --uninstall [--prefix DIR] [--destdir DIR]
#
# The executables link the Swift runtime dynamically, held once for the three of them in
# PREFIX/lib/recorderd (scripts/swift-runtime.sh: the libraries of the toolchain's runtime they
# need, taken from --runtime DIR, default the runtime of the `swift` on PATH; their run path
# points there).
# PREFIX (default /usr/local) and DESTDIR (default empty) may also come from the environment.
# With an empty DESTDIR and as root, it also creates the user, the directories, reloads systemd
# and udev. --uninstall removes what was installed and keeps /etc/recorderd/recorderd.json and
# the recorded data in /var/lib/recorderd.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
build=1
bindir=""
runtime=""
uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --destdir) destdir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --bin-dir) bindir=$2; build=0; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done

root="$destdir"
unitdir="$prefix/lib/systemd/system"
files=(
  "$prefix/bin/recorderd"
  "$prefix/bin/recorderd-services"
  "$prefix/bin/recorderctl"
  "$unitdir/recorderd.service"
  "$unitdir/recorderd.socket"
  "$prefix/lib/sysusers.d/recorderd.conf"
  "$prefix/lib/tmpfiles.d/recorderd.conf"
  "/etc/udev/rules.d/90-recorderd-iio.rules"
  "/etc/recorderd/recorderd.json.example"
  "$prefix/share/doc/recorderd/README.md"
)
for doc in docs/*.md; do files+=("$prefix/share/doc/recorderd/$doc"); done
for b in recorderd recorderctl; do
  files+=("$prefix/share/bash-completion/completions/$b" "$prefix/share/zsh/site-functions/_$b"
          "$prefix/share/fish/vendor_completions.d/$b.fish" "$prefix/share/man/man1/$b.1")
done
files+=("$prefix/share/man/man1/recorderd-services.1")
share="$prefix/share/recorderd"

if [ "$uninstall" = 1 ]; then
  if [ -z "$destdir" ] && [ "$(id -u)" = 0 ] && command -v systemctl >/dev/null; then
    systemctl disable --now recorderd.socket recorderd.service 2>/dev/null || true
  fi
  for f in "${files[@]}"; do rm -f "$root$f"; done
  rm -rf "$root$share" "$root$prefix/share/doc/recorderd" "$root$prefix/lib/recorderd"
  if [ -z "$destdir" ] && [ "$(id -u)" = 0 ]; then
    command -v systemctl >/dev/null && systemctl daemon-reload || true
    command -v udevadm >/dev/null && udevadm control --reload || true
  fi
  echo "recorderd uninstalled; kept /etc/recorderd/recorderd.json and the data in /var/lib/recorderd"
  exit 0
fi

if [ "$build" = 1 ]; then
  swift build -c release --product recorderd
  swift build -c release --product recorderd-services
  swift build -c release --product recorderctl
  bindir=.build/release
fi
bindir=${bindir:-.build/release}
for b in recorderd recorderd-services recorderctl; do
  [ -x "$bindir/$b" ] || { echo "install.sh: $bindir/$b not built (run without --no-build)" >&2; exit 1; }
done

install -d "$root$prefix/bin" "$root$unitdir" "$root$prefix/lib/sysusers.d" "$root$prefix/lib/tmpfiles.d" \
  "$root/etc/udev/rules.d" "$root/etc/recorderd" "$root$prefix/share/doc/recorderd"
# recorderd starts recorderd-services (the web page, the fleet link) from beside itself.
install -m 0755 "$bindir/recorderd" "$bindir/recorderd-services" "$bindir/recorderctl" "$root$prefix/bin/"
# The Swift runtime once, beside them (what they need of it); the run paths point there.
if [ -z "$runtime" ]; then
  swift=$(command -v swift) || { echo "install.sh: no swift on PATH to take the runtime from (--runtime DIR)" >&2; exit 69; }
  runtime=$(dirname "$(dirname "$(readlink -f "$swift")")")/lib/swift/linux
fi
./scripts/swift-runtime.sh "$runtime" "$root$prefix/lib/recorderd" \
  "$root$prefix/bin/recorderd" "$root$prefix/bin/recorderd-services" "$root$prefix/bin/recorderctl" > /dev/null
installed="$root$prefix/bin"
sed -e "s|/usr/local/bin/recorderd|$prefix/bin/recorderd|g" -e "s|/usr/local/share/doc|$prefix/share/doc|g" \
  systemd/recorderd.service > "$root$unitdir/recorderd.service"
chmod 0644 "$root$unitdir/recorderd.service"
install -m 0644 systemd/recorderd.socket "$root$unitdir/"
install -m 0644 systemd/sysusers.d/recorderd.conf "$root$prefix/lib/sysusers.d/recorderd.conf"
install -m 0644 systemd/tmpfiles.d/recorderd.conf "$root$prefix/lib/tmpfiles.d/recorderd.conf"
install -m 0644 udev/90-recorderd-iio.rules "$root/etc/udev/rules.d/"
install -m 0644 README.md "$root$prefix/share/doc/recorderd/README.md"
install -d "$root$prefix/share/doc/recorderd/docs"
install -m 0644 docs/*.md "$root$prefix/share/doc/recorderd/docs/"
# The example configuration replays a bundled walk until a hardware device is configured.
install -D -m 0644 Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv \
  "$root$share/Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv"
# recorderctl demo replays a walk that ends standing.
install -D -m 0644 Tests/Fixtures/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv \
  "$root$share/Tests/Fixtures/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv"
install -m 0644 Tests/Fixtures/imu/mobgap/LICENSE Tests/Fixtures/imu/mobgap/PROVENANCE.md "$root$share/Tests/Fixtures/imu/mobgap/"
install -d "$root$share/config/tasks"
install -m 0644 config/tasks/*.json "$root$share/config/tasks/"
# Device-tree overlays for IMU boards on a Raspberry Pi, as sources (docs/raspberry-pi.md).
install -d "$root$share/overlays"
install -m 0644 config/overlays/*.dts "$root$share/overlays/"
sed -e "s|/usr/local/share/recorderd|$share|g" config/recorderd.json > "$root/etc/recorderd/recorderd.json.example"
chmod 0644 "$root/etc/recorderd/recorderd.json.example"
# Shell completions, from the installed binaries themselves (swift-argument-parser).
install -d "$root$prefix/share/bash-completion/completions" "$root$prefix/share/zsh/site-functions" \
  "$root$prefix/share/fish/vendor_completions.d" "$root$prefix/share/man/man1"
for b in recorderd recorderctl; do
  "$installed/$b" --generate-completion-script bash > "$root$prefix/share/bash-completion/completions/$b"
  "$installed/$b" --generate-completion-script zsh > "$root$prefix/share/zsh/site-functions/_$b"
  "$installed/$b" --generate-completion-script fish > "$root$prefix/share/fish/vendor_completions.d/$b.fish"
  chmod 0644 "$root$prefix/share/bash-completion/completions/$b" "$root$prefix/share/zsh/site-functions/_$b" \
    "$root$prefix/share/fish/vendor_completions.d/$b.fish"
done
# Man pages: swift-argument-parser's generate-manual (the tool behind its GenerateManual plugin),
# built from the package's own checkout in a scratch directory of its own (so that it works while
# another build or `swift test` holds .build), run on the installed binaries.
sap=${SWIFTPM_CHECKOUTS:-.build/checkouts}/swift-argument-parser
if [ -d "$sap/Tools/generate-manual" ] && command -v swift >/dev/null; then
  swift build --package-path "$sap" --scratch-path "$sap/../../generate-manual" --product generate-manual -c release >/dev/null
  manual="$sap/../../generate-manual/release/generate-manual"
  for b in recorderd recorderctl recorderd-services; do
    "$manual" "$installed/$b" --output-directory "$root$prefix/share/man/man1"
    chmod 0644 "$root$prefix/share/man/man1/$b.1"
  done
else
  echo "install.sh: man pages not installed (needs swift and .build/checkouts/swift-argument-parser: build once first)" >&2
fi
if [ -e "$root/etc/recorderd/recorderd.json" ]; then
  echo "kept the existing /etc/recorderd/recorderd.json (the new example is recorderd.json.example)"
else
  install -m 0644 "$root/etc/recorderd/recorderd.json.example" "$root/etc/recorderd/recorderd.json"
fi

if [ -z "$destdir" ] && [ "$(id -u)" = 0 ]; then
  command -v systemd-sysusers >/dev/null && systemd-sysusers "$prefix/lib/sysusers.d/recorderd.conf"
  command -v systemd-tmpfiles >/dev/null && systemd-tmpfiles --create "$prefix/lib/tmpfiles.d/recorderd.conf" || true
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
  if command -v udevadm >/dev/null && [ -S /run/udev/control ]; then udevadm control --reload && udevadm trigger --subsystem-match=iio || true; fi
  echo "installed; start with: systemctl enable --now recorderd.socket recorderd.service"
else
  echo "installed into ${destdir:-/}$prefix"
fi
