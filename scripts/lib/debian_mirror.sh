# Shared by scripts/verify-container.sh and scripts/check-bare-machine.sh, which debootstrap a
# Debian 12 root: the mirror this machine's apt uses, and the sources a root gets from it.

# debian_mirror SUITE_REGEX EXCLUDE_REGEX: the URI of the first enabled source for the suite
# (deb822 first, then one-line sources); nothing when there is none.
debian_mirror() {
  local m=""
  [ -r /etc/apt/sources.list.d/debian.sources ] && m=$(awk -v want="$1" -v not="$2" 'BEGIN { RS = "" }
      $0 ~ ("Suites:[^\n]*[[:space:]]" want "([[:space:]]|$)") && (not == "" || $0 !~ not) && $0 !~ /Enabled:[[:space:]]*no/ {
          if (match($0, /URIs:[[:space:]]*[^[:space:]]+/)) { s = substr($0, RSTART, RLENGTH); sub(/URIs:[[:space:]]*/, "", s); print s; exit } }' \
      /etc/apt/sources.list.d/debian.sources)
  [ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk -v want="$1" -v not="$2" '
      $1 == "deb" && (not == "" || $0 !~ not) {
          for (i = 2; i < NF; i++) if ($i ~ /^(https?|ftp|file):/ && $(i + 1) ~ ("^" want "$")) { print $i; exit } }')
  echo "$m"
}

# write_debian_sources ROOTFS MIRROR [SECURITY_MIRROR]: deb822 sources for bookworm and
# bookworm-updates (and bookworm-security when there is a mirror for it), as an installed Debian
# 12 has them, in place of debootstrap's one-line sources.list.
write_debian_sources() {
  rm -f "$1/etc/apt/sources.list"
  {
    printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$2"
    if [ -n "${3:-}" ]; then
      printf '\nTypes: deb\nURIs: %s\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$3"
    fi
  } >"$1/etc/apt/sources.list.d/debian.sources"
}
