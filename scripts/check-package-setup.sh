#!/usr/bin/env bash
# check-package-setup.sh: scripts/lib/packages.sh never fails silently (issue 30).
#
#   scripts/check-package-setup.sh                # the packages.sh of this checkout
#   scripts/check-package-setup.sh FILE           # another one, e.g. <(git show 6ab9e52:scripts/lib/packages.sh)
#
# Runs ensure_packages, and every script that sources packages.sh, with Debian packages missing,
# against stand-ins on PATH: nothing is installed, nothing is built.
#   dpkg-query  answers like dpkg's: every package is installed but libjansson-dev (unknown to
#               dpkg: "no packages found", exit status 1) and libpq-dev (removed, its
#               configuration files left: "deinstall ok config-files")
#   apt-get     records what it was asked to do (update, install PACKAGES) and succeeds (or,
#               with STANDIN_APT_FAILS set, fails its install as apt-get does: status 100)
#   swift, python3  record that they ran and exit 97: a script that gets past its packages
#               stops at its build or first step
# As root: ensure_packages installs exactly the missing packages (one apt-get update, then one
# apt-get install), and the caller goes on; scripts/serve and scripts/install install them and
# reach their build. Not as root (as nobody through setpriv when this runs as root; otherwise
# as the user running it, with a stand-in `id` for the root cases): ensure_packages prints the
# exact `apt-get install` line, never calls apt-get, and the caller stops with a non-zero status;
# so do scripts/serve, scripts/install, scripts/test, scripts/console-screenshots.sh and
# `scripts/lib/postgres.sh start`, each before building or starting anything.
# The scripts run from a copy of scripts/ holding the packages.sh under test.
# One line per check, then 'check-package-setup: N passed, N failed' (exit 0 only if none failed).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
under_test=$work/packages.sh
cat "${1:-$repo/scripts/lib/packages.sh}" >"$under_test" || { echo "check-package-setup: cannot read ${1:-}" >&2; exit 2; }

passed=0 failed=0
check() {  # check STATUS DESCRIPTION [DETAILS FILE...]: one line; the files' contents on failure
  local status=$1 description=$2 file; shift 2
  if [ "$status" = 0 ]; then passed=$((passed + 1)); echo "PASS $description"; return; fi
  failed=$((failed + 1)); echo "FAIL $description"
  for file in "$@"; do [ -s "$file" ] && sed 's/^/    | /' "$file"; done
  return 0
}

# ------------------------------------------------------------------------------ stand-ins
standins=$work/bin
records=$work/records  # written by the stand-ins, also as nobody
mkdir -p "$standins" "$records" "$work/prefix"
chmod 0755 "$work" "$standins"; chmod 1777 "$records" "$work/prefix"
cat >"$standins/dpkg-query" <<'EOF'
#!/usr/bin/env bash
# dpkg-query -W -f=FORMAT PACKAGE...: ${Package} and ${Status} of each; status 1 if any is unknown.
format='${Package}\t${Status}\n' status=0 packages=()
for argument in "$@"; do
  case $argument in
    -W|--show) ;;
    -f=*|--showformat=*) format=${argument#*=} ;;
    -*) echo "dpkg-query stand-in: unexpected option $argument" >&2; exit 2 ;;
    *) packages+=("$argument") ;;
  esac
done
for package in "${packages[@]}"; do
  case $package in
    libjansson-dev) echo "dpkg-query: no packages found matching $package" >&2; status=1; continue ;;
    libpq-dev) state='deinstall ok config-files' ;;
    *) state='install ok installed' ;;
  esac
  line=${format//'${Package}'/$package}
  printf '%b' "${line//'${Status}'/$state}"
done
exit $status
EOF
cat >"$standins/apt-get" <<'EOF'
#!/usr/bin/env bash
# Records "COMMAND [PACKAGE...]" without apt-get's options (-o NAME=VALUE, -y, -q, ...).
words=()
while [ $# -gt 0 ]; do
  case $1 in -o) shift 2 ;; -*) shift ;; *) words+=("$1"); shift ;; esac
done
echo "${words[*]}" >>RECORDS/apt-get
if [ "${words[0]}" = install ] && [ -n "${STANDIN_APT_FAILS:-}" ]; then
  echo "E: Unable to locate package ${words[1]}" >&2; exit 100
fi
EOF
for tool in swift python3; do
  printf '#!/usr/bin/env bash\necho "%s $*" >>RECORDS/ran\nexit 97\n' "$tool" >"$standins/$tool"
done
# Where they record, written into them: scripts/serve runs swift with an environment of its own.
sed -i "s|RECORDS/|$records/|" "$standins/apt-get" "$standins/swift" "$standins/python3"
# For the root cases when this does not run as root: `id -u` says 0, the rest is the real id.
mkdir -p "$work/as-root"
printf '#!/usr/bin/env bash\n[ "$*" = -u ] && { echo 0; exit 0; }\nexec %q "$@"\n' "$(command -v id)" >"$work/as-root/id"
chmod 0755 "$standins"/* "$work/as-root" "$work/as-root/id"

# A copy of scripts/ with the packages.sh under test, readable by nobody.
tree=$work/tree
mkdir -p "$tree"
cp -r "$repo/scripts" "$tree/scripts"
cp "$under_test" "$tree/scripts/lib/packages.sh"
chmod -R a+rX "$tree"

# as ROLE COMMAND...: runs it with the stand-ins first on PATH, as root or as a user who is not;
# stdout and stderr go to $work/out and $work/err, the records start empty; prints nothing.
as() {
  local role=$1 path=$standins:$PATH; shift
  rm -f "$records"/*
  if [ "$role" = root ]; then
    [ "$(id -u)" = 0 ] || path=$work/as-root:$path
    (cd "$work" && env -u NAVPREFS_APT_UPDATED PATH="$path" "$@")
  elif [ "$(id -u)" = 0 ]; then
    (cd "$work" && setpriv --reuid=65534 --regid=65534 --clear-groups \
      env -u NAVPREFS_APT_UPDATED HOME=/nonexistent PATH="$path" "$@")
  else
    (cd "$work" && env -u NAVPREFS_APT_UPDATED PATH="$path" "$@")
  fi >"$work/out" 2>"$work/err"
}
# A caller as scripts/serve is: strict mode, packages.sh, ensure_packages ARGUMENTS, then a word.
caller() {  # caller ENSURE_PACKAGES_CALLS: a bash -c script
  printf 'set -euo pipefail\nsource %q\n%s\necho "went on"\n' "$tree/scripts/lib/packages.sh" "$1"
}
recorded() { cat "$records/$1" 2>/dev/null; }
# The line that names the missing packages, with nothing after them.
names_line() { grep -E "apt-get install (-[a-z]+ )*$1\$" "$work/err" >/dev/null; }

# ---------------------------------------------------------------------- ensure_packages itself
build_packages='libmicrohttpd-dev libsqlite3-dev libjansson-dev libpq-dev libssl-dev libyaml-dev pkg-config'

as root bash -c "$(caller "ensure_packages $build_packages")"; status=$?
[ $status = 0 ] && [ "$(cat "$work/out")" = "went on" ]
check $? "as root, libjansson-dev and libpq-dev missing: ensure_packages returns and the caller goes on (exit $status)" "$work/err"
[ "$(recorded apt-get)" = $'update\ninstall libjansson-dev libpq-dev' ]
check $? "as root: one apt-get update, then apt-get install with exactly the missing packages (got: $(recorded apt-get | paste -sd '|'))"
grep -q 'libjansson-dev libpq-dev' "$work/err"
check $? "as root: it says which packages it installs ($(head -1 "$work/err"))"

as root bash -c "$(caller "ensure_packages libjansson-dev; ensure_packages libpq-dev")"; status=$?
[ $status = 0 ] && [ "$(recorded apt-get)" = $'update\ninstall libjansson-dev\ninstall libpq-dev' ]
check $? "as root, two calls: apt-get update once, each install with its own missing package (exit $status; $(recorded apt-get | paste -sd '|'))" "$work/err"

as root bash -c "$(caller "ensure_packages libmicrohttpd-dev pkg-config")"; status=$?
[ $status = 0 ] && [ "$(cat "$work/out")" = "went on" ] && [ -z "$(recorded apt-get)" ] && [ ! -s "$work/err" ]
check $? "as root, nothing missing: no apt-get, no word, the caller goes on (exit $status)" "$work/err"

# apt-get itself failing (no network, a held package) stops the caller, after saying what it tried.
as root env STANDIN_APT_FAILS=1 bash -c "$(caller "ensure_packages $build_packages")"; status=$?
[ $status != 0 ] && [ ! -s "$work/out" ] && grep -q 'libjansson-dev libpq-dev' "$work/err"
check $? "as root, apt-get install failing: the caller stops (exit $status) after naming the packages" "$work/err"

as nobody bash -c "$(caller "ensure_packages $build_packages")"; status=$?
[ $status != 0 ] && [ ! -s "$work/out" ]
check $? "not as root, packages missing: the caller stops with a non-zero status (exit $status)" "$work/out" "$work/err"
names_line 'libjansson-dev libpq-dev'
check $? "not as root: it prints the exact line, 'apt-get install -y libjansson-dev libpq-dev'" "$work/err"
[ -z "$(recorded apt-get)" ]
check $? "not as root: apt-get is never called"

as nobody bash -c "$(caller "ensure_packages libmicrohttpd-dev pkg-config")"; status=$?
[ $status = 0 ] && [ "$(cat "$work/out")" = "went on" ] && [ ! -s "$work/err" ]
check $? "not as root, nothing missing: no word, the caller goes on (exit $status)" "$work/err"

# ------------------------------------------------------------- the scripts that source it
# Not as root each stops at its packages, naming them, before building or starting anything.
entry_points=(
  "scripts/serve|libjansson-dev libpq-dev"
  "scripts/install --prefix $work/prefix|libjansson-dev libpq-dev"
  "scripts/test|libjansson-dev libpq-dev"
  "scripts/console-screenshots.sh|libjansson-dev libpq-dev"
  "scripts/lib/postgres.sh start|libpq-dev"
)
for entry in "${entry_points[@]}"; do
  command=${entry%%|*} missing=${entry#*|}
  # shellcheck disable=SC2086  # the command's words
  as nobody timeout 60 "$tree"/$command; status=$?
  [ $status != 0 ] && [ $status != 124 ] && names_line "$missing" && [ -z "$(recorded apt-get)" ] && [ -z "$(recorded ran)" ]
  check $? "not as root, $command: stops (exit $status) with 'apt-get install -y $missing', before building or starting anything$(recorded ran | sed 's/^/; ran: /' | head -1)" "$work/err"
done
# As root, scripts/serve and scripts/install install what is missing and go on to their build.
for command in scripts/serve "scripts/install --prefix $work/prefix"; do
  # shellcheck disable=SC2086
  as root timeout 60 "$tree"/$command; status=$?
  [ "$(recorded apt-get)" = $'update\ninstall libjansson-dev libpq-dev' ] && recorded ran | grep -q '^swift build'
  check $? "as root, $command: installs exactly libjansson-dev and libpq-dev, then builds (exit $status; apt-get: $(recorded apt-get | paste -sd '|'))" "$work/err"
done

# --------------------------------------------------------------------- README's list
# README's "Two commands" names every package the scripts install: BUILD_PACKAGES, and each name
# given literally to ensure_packages or in a `packages=(...)` list anywhere in scripts/ (not this
# file's own).
listed=$(
  (source "$under_test" && printf '%s\n' "${BUILD_PACKAGES[@]}")
  grep -rh --exclude=check-package-setup.sh -E '^[[:space:]]*[^#[:space:]]' "$repo/scripts" \
    | grep -oE '(^[[:space:]]*|[;&|][[:space:]]*)(ensure_packages|(local )?packages\+?=\()[^#;|&)]*' \
    | sed -E 's/^[[:space:];&|]*(ensure_packages|(local )?packages\+?=\()//' | tr ' ' '\n' \
    | grep -E '^[a-z0-9][a-z0-9.+-]+$'
)
section=$(awk '/^## / { on = ($0 == "## Two commands"); next } on' "$repo/README.md")
unnamed=$(for package in $(echo "$listed" | sort -u); do grep -qE "(^|[ \`])${package//+/\\+}([ \`,;]|\$)" <<<"$section" || echo "$package"; done)
[ -n "$listed" ] && [ -z "$unnamed" ]
check $? "README's 'Two commands' names every package the scripts install ($(echo "$listed" | sort -u | wc -l) names${unnamed:+; not named: $(echo $unnamed)})"

echo "check-package-setup: $passed passed, $failed failed"
[ "$failed" = 0 ]
