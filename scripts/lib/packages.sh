# Shared by scripts/serve and scripts/test: make sure Debian packages are installed.
# As root, missing packages are installed with apt-get; otherwise the exact command is printed.

ensure_packages() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "installing Debian packages: ${missing[*]}" >&2
  if [ -z "${NAVPREFS_APT_UPDATED:-}" ]; then
    apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
    export NAVPREFS_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# The libraries NavPrefs is built on (Package.swift's systemLibrary targets).
BUILD_PACKAGES=(libmicrohttpd-dev libsqlite3-dev libjansson-dev libpq-dev libssl-dev pkg-config)
