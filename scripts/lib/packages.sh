# Shared by scripts/serve, scripts/install and scripts/test: make sure Debian packages are installed.
# As root, missing packages are installed with apt-get; otherwise the exact command is printed and
# the script stops with status 1. It never fails without saying which packages are missing.

# installed_packages PACKAGE...: prints, one a line, those of the named packages dpkg has installed.
# dpkg-query exits 1 when any named package is unknown or not installed, and under `set -o
# pipefail` that status would end the caller before it could name what is missing: the status is
# read here, and only the listing counts.
installed_packages() {
  { dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null || true; } |
    awk '/ install ok installed$/ { sub(/:.*/, "", $1); print $1 }'
}

ensure_packages() {
  local missing=() package installed
  # One dpkg-query for all of them (scripts/serve runs this at every start: a query per package
  # was a fifth of a second).
  installed=$'\n'$(installed_packages "$@")$'\n'
  for package in "$@"; do
    [[ $installed == *$'\n'"$package"$'\n'* ]] || missing+=("$package")
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

# What the Swift toolchain needs on Debian 12 beyond what debootstrap installs (the bare-machine
# check of scripts/test found them): swift, swift-build and the driver load libncurses, libsqlite3,
# libcurl and libxml2; swiftc links with binutils' ld against glibc's start files (libc6-dev) and
# libgcc (libgcc-12-dev). swift.org lists more for Debian 12 (gcc, git, libstdc++-12-dev, python3
# for lldb...): NavPrefs builds, and its tests build and run, without them.
TOOLCHAIN_PACKAGES=(binutils libc6-dev libgcc-12-dev libcurl4 libxml2 libncurses6 libsqlite3-0)
# What `swift build` of NavPrefs needs: the toolchain's packages, and the libraries NavPrefs is
# built on (Package.swift's systemLibrary targets; libyaml only for the console's build tool).
BUILD_PACKAGES=("${TOOLCHAIN_PACKAGES[@]}" libmicrohttpd-dev libsqlite3-dev libjansson-dev libpq-dev libssl-dev libyaml-dev pkg-config)
