#!/usr/bin/env bash
# Installs the system packages recorderd builds and tests against (Debian 12 / Raspberry Pi OS).
# The Swift 6 toolchain itself must be on PATH (swift.org); Swift packages resolve by SwiftPM.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
updated=""
# install LIST [apt-get options]: the packages of LIST that are not installed yet.
install() {
  local list=$1; shift
  mapfile -t wanted < <(grep -v '^\s*#' "$list" | sed '/^\s*$/d')
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ -n "$updated" ] || { $SUDO apt-get update -qq; updated=1; }
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" "${missing[@]}"
  fi
  count=$(( ${count:-0} + ${#wanted[@]} ))
}
install scripts/apt-packages.txt
install scripts/apt-packages-no-recommends.txt --no-install-recommends
# Python test tools (PyPI): installed for the python3 on PATH (Debian's own python3 refuses
# system-wide pip installs without --break-system-packages; a pyenv or venv python does not).
python_requirements() { python3 -c 'import ahrs, imufusion, mcap, zstandard, fhir.resources, selenium' 2>/dev/null; }
if ! python_requirements; then
  python3 -m pip install -q --disable-pip-version-check -r scripts/python-requirements.txt 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check --break-system-packages -r scripts/python-requirements.txt
  python_requirements
fi
# The guest tests' rig (Debian's kernel unpacked, not installed; a debootstrapped guest image) in
# the rigs' cache, .build-vm pointing at it: when asked (`scripts/setup.sh --vm`; it needs root).
# CI's full run (scripts/ci/full) prepares it beside its builds; the gate needs none.
if [ "${1:-}" = --vm ]; then
  $SUDO ./scripts/vm/prepare.sh > /dev/null
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH; install the Swift 6 toolchain (swift.org)" >&2; exit 1; }
echo "setup: system packages present ($count); $(swift --version 2>&1 | head -1)"
