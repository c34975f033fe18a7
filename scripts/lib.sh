# Shared by run-main-job and run-tests (sourced, not run): a virtual environment in .venv with
# the pinned versions of constraints.txt, on a fresh Debian machine with Python 3.11+ and Java 17.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${KSPEC_VENV:-$ROOT/.venv}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# apt-get as root, or through sudo.
apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# python3 -m venv needs Debian's python3-venv (ensurepip); Debian's own Python refuses
# pip installs outside a virtual environment (PEP 668), so kspec always gets one.
make_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
      rm -rf "$VENV"
      local v
      v="$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
      apt_install "python$v-venv"
      python3 -m venv "$VENV"
    fi
  fi
  # shellcheck disable=SC1091
  source "$VENV/bin/activate"
}

# kspec with EXTRAS (e.g. "[dev,docs]"), every dependency at the version constraints.txt pins.
install_kspec() {
  python -m pip install -q -c "$ROOT/constraints.txt" -e "$ROOT$1"
}
