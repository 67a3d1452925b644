#!/usr/bin/env bash
# check-bare-machine.sh: README's two commands on a bare Debian 12, as a new user runs them
# (issue 30). CI's own machine has every package already, so only this shows whether
# scripts/serve and scripts/test install what a fresh machine lacks.
#
#   scripts/check-bare-machine.sh                      # the commit checked out here (HEAD)
#   scripts/check-bare-machine.sh --packages-sh FILE   # the clone's scripts/lib/packages.sh
#                                                      # replaced by FILE, to show the check fails:
#       scripts/check-bare-machine.sh --packages-sh <(git show 6ab9e52:scripts/lib/packages.sh)
#
# The machine: a Debian 12 root with nothing but what `debootstrap bookworm` installs (its
# default variant, from this machine's mirror, with bookworm-updates and bookworm-security as
# an installed Debian has them), and the Swift toolchain at /opt/swift, bind-mounted read-only
# and on the PATH. The debootstrap result is kept in BARE_CACHE and never changed: each run
# works on an overlay over it (about 4 minutes the first time, nothing after). Downloaded .deb
# files are kept there too (/var/cache/apt/archives), so a run installs without downloading
# them again. chroot in a mount and PID namespace of its own (unshare), with /proc, /dev, /sys
# and /etc/resolv.conf; the network is this machine's.
#
# In it, a clean `git clone` of the commit at /srv/navprefs, then, checked one line each:
#   1. `scripts/serve` as nobody: prints the exact `apt-get install` line and stops, before
#      building anything;
#   2. `scripts/serve` as root, exactly as README writes it: installs what is missing (the same
#      packages the line named), builds in release mode, and /healthz answers on localhost:8080;
#   3. README's "Try it" examples (scripts/lib/readme_try_it.py), after `apt-get install curl`
#      as README says, each printing what README shows; then SIGTERM: navprefs exits 0;
#   4. `scripts/test` as root up to the end of its first step: the packages it installs are
#      installed, and that step passed (then it is stopped).
# Needs: root, port 8080 free, git and debootstrap (installed when missing), a Debian mirror.
# One line per check, then 'bare-machine: N passed, N failed' (exit 0 only if none failed).
#
# Env: SWIFT_TOOLCHAIN (/opt/swift)  BARE_CACHE (/var/tmp/navprefs-bare)
#      BARE_SERVE_SECONDS (1200: how long scripts/serve may take until /healthz answers)
#      BARE_KEEP_LOGS=1 keeps the logs directory (kept anyway when a check fails)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SWIFT_TOOLCHAIN=${SWIFT_TOOLCHAIN:-/opt/swift}
cache=${BARE_CACHE:-/var/tmp/navprefs-bare}
serve_seconds=${BARE_SERVE_SECONDS:-1200}
# The PATH of a root shell on Debian, with the toolchain first (README: "the Swift 6.3 toolchain
# on the PATH").
root_path=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

started=$(date +%s%N)
say() { printf 'bare-machine: [%6.1fs] %s\n' "$(awk -v ns="$(( $(date +%s%N) - started ))" 'BEGIN { print ns / 1e9 }')" "$*"; }
passed=0 failed=0
check() {  # check STATUS DESCRIPTION
  if [ "$1" = 0 ]; then passed=$((passed + 1)); say "PASS $2"; else failed=$((failed + 1)); say "FAIL $2"; fi
}
show() { [ -s "$1" ] && tail -"${2:-25}" "$1" | sed 's/^/    | /'; return 0; }

# ----------------------------------------------------------------- inside the namespaces
# bash check-bare-machine.sh --inside: run by the part below through unshare (PID 1 of a new
# PID namespace, in a mount namespace of its own: every mount, and every process started in the
# root, ends with it). Reads the exported BARE_* variables; writes its counts to $logs/counts.
if [ "${1:-}" = --inside ]; then
  base=$BARE_BASE run=$BARE_RUN logs=$BARE_LOGS commit=$BARE_COMMIT
  started=$BARE_STARTED
  fs=$run/root
  mount --make-rprivate /
  if ! mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$fs" 2>"$logs/mount.log"; then
    say "no overlay here ($(cat "$logs/mount.log")): copying the root instead"
    cp -a "$base/." "$fs/"
  fi
  mkdir -p "$fs/opt/swift" "$cache/apt-archives/partial"
  mount -t proc proc "$fs/proc" && mount --rbind /sys "$fs/sys" && mount --rbind /dev "$fs/dev" \
    && mount --bind /etc/resolv.conf "$fs/etc/resolv.conf" \
    && mount --bind "$SWIFT_TOOLCHAIN" "$fs/opt/swift" && mount -o remount,bind,ro "$fs/opt/swift" \
    && mount --bind "$cache/apt-archives" "$fs/var/cache/apt/archives" \
    || { check 1 "mounts in the bare root"; echo "$passed $failed" >"$logs/counts"; exit 1; }
  say "the bare root: $(chroot "$fs" dpkg-query -W -f='${Status}\n' | grep -c ' installed$') packages installed (debootstrap's)"
  # Before scripts/serve the toolchain cannot even start here: it is said, not checked.
  say "swift --version in it: $(chroot "$fs" env PATH="$root_path" swift --version 2>&1 | head -1)"
  ! touch "$fs/opt/swift/.bare-machine-write-test" 2>/dev/null
  check $? "the toolchain is mounted at /opt/swift, read-only"

  # "${as_root[@]}" SCRIPT: bash -c SCRIPT in the root, as root, in a clean environment; the
  # process is the script's own (chroot, env and bash exec), so $! of `... &` is its PID.
  as_root=(chroot "$fs" /usr/bin/env -i HOME=/root TERM=dumb PATH="$root_path" bash -c)
  as_nobody=(chroot --userspec=65534:65534 "$fs" /usr/bin/env -i HOME=/nonexistent TERM=dumb PATH="$root_path" bash -c)
  installed_in_root() {  # installed_in_root PACKAGE...: status 0 when dpkg has each installed
    local package
    for package in "$@"; do
      chroot "$fs" dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -qx 'install ok installed' || return 1
    done
  }

  clone=$fs/srv/navprefs
  git clone -q --no-hardlinks "$repo" "$clone" && git -C "$clone" checkout -q --detach "$commit"
  check $? "a clean git clone of $commit at /srv/navprefs"
  if [ -n "${BARE_PACKAGES_SH:-}" ]; then
    cp "$BARE_PACKAGES_SH" "$clone/scripts/lib/packages.sh"
    say "its scripts/lib/packages.sh replaced by --packages-sh $BARE_PACKAGES_SH_NAME (blob $(git hash-object "$BARE_PACKAGES_SH"))"
  fi

  # 1. Not as root: the line to run, and nothing built.
  timeout 60 "${as_nobody[@]}" 'cd /srv/navprefs && exec scripts/serve' >"$logs/serve-nobody.log" 2>&1; status=$?
  line=$(grep -oE 'apt-get install( -[a-z]+)* [a-z0-9][a-z0-9.+ -]*$' "$logs/serve-nobody.log" | tail -1)
  named=$(echo "$line" | sed -E 's/^apt-get install( -[a-z]+)* //')
  [ $status != 0 ] && [ $status != 124 ] && [ -n "$named" ] && [ ! -e "$clone/.build" ]
  check $? "scripts/serve as nobody: exit $status, before building, with the line '${line:-(none)}'"
  [ -n "$named" ] || show "$logs/serve-nobody.log"

  # 2. As root, README's first command exactly: until /healthz answers.
  if (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null; then
    check 1 "port 8080 is free for scripts/serve (something on this machine listens there)"
  fi
  t0=$(date +%s)
  "${as_root[@]}" 'cd /srv/navprefs && exec scripts/serve' >"$logs/serve.log" 2>&1 &
  serve=$!
  healthz=
  while [ $(( $(date +%s) - t0 )) -lt "$serve_seconds" ] && kill -0 "$serve" 2>/dev/null; do
    healthz=$(curl -s --max-time 2 http://127.0.0.1:8080/healthz 2>/dev/null) && [ -n "$healthz" ] && break
    healthz=
    sleep 1
  done
  serve_took=$(( $(date +%s) - t0 ))
  if [ -n "$healthz" ]; then
    outcome="/healthz answers $healthz after $serve_took s"
  elif kill -0 "$serve" 2>/dev/null; then
    kill -KILL "$serve"; wait "$serve"; outcome="/healthz did not answer within $serve_took s"
  else
    wait "$serve"; outcome="it ended with exit status $? after $serve_took s, /healthz never answered"
  fi
  installing=$(sed -n 's/^installing Debian packages: //p' "$logs/serve.log" | head -1)
  build=$(grep -oE "Build of product 'navprefs' complete! \([0-9.]+s\)" "$logs/serve.log")
  [ "$healthz" = '{"status":"ok"}' ]
  check $? "scripts/serve as root: $outcome (${build:-no build}; installed: ${installing:-nothing})"
  if [ -z "$healthz" ]; then
    [ -s "$logs/serve.log" ] && say "its output:" && show "$logs/serve.log" 40 || say "it printed nothing"
  fi
  if [ -n "$installing" ]; then
    # shellcheck disable=SC2086  # package names
    [ "$installing" = "$named" ] && installed_in_root $installing
    check $? "scripts/serve installed exactly the packages the line for nobody named, and dpkg has them"
  fi

  # 3. README's "Try it", against that service, in another terminal of the same machine.
  if [ -n "$healthz" ]; then
    "${as_root[@]}" 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q curl' >"$logs/curl.log" 2>&1
    check $? "apt-get install curl, as README's 'Try it' says"
    python3 "$repo/scripts/lib/readme_try_it.py" "$clone/README.md" \
      "${as_root[@]}" >"$logs/try-it.log" 2>&1
    status=$?; sed 's/^/    /' "$logs/try-it.log"
    check $status "README's 'Try it' examples print what README shows ($(tail -1 "$logs/try-it.log"))"
    kill -TERM "$serve"; wait "$serve"; status=$?
    check $status "navprefs stops on SIGTERM with exit $status"
  else
    check 1 "README's 'Try it' examples (no service to run them against)"
  fi

  # 4. README's second command, as root, until its first step ends.
  t0=$(date +%s)
  # In a process group of its own (setsid execs, so $! leads it): stopped as a whole.
  setsid "${as_root[@]}" 'cd /srv/navprefs && exec scripts/test' >"$logs/test.log" 2>&1 &
  tests=$!
  first=
  while [ $(( $(date +%s) - t0 )) -lt 900 ] && kill -0 "$tests" 2>/dev/null; do
    first=$(grep -m1 '^<== ' "$logs/test.log") && break
    sleep 0.2
  done
  if kill -0 "$tests" 2>/dev/null; then
    ended="then stopped"
    kill -TERM -- "-$tests" 2>/dev/null; sleep 1; kill -KILL -- "-$tests" 2>/dev/null; wait "$tests" 2>/dev/null
  else
    wait "$tests"; ended="it ended by itself with exit status $?"
  fi
  sed -n '1,/^<== /p' "$logs/test.log" | grep -vE '^(PASS|check-package-setup:) ' | sed 's/^/    /'
  test_installing=$(sed -n 's/^installing Debian packages: //p' "$logs/test.log" | paste -sd ' ')
  # shellcheck disable=SC2086
  [ -n "$test_installing" ] && installed_in_root $test_installing && ! grep -q '^missing Debian packages' "$logs/test.log"
  check $? "scripts/test as root installed its packages (${test_installing:-none installed}), and dpkg has them"
  [[ $first == *": passed ("* ]]
  check $? "scripts/test's first step passed after $(( $(date +%s) - t0 )) s (${first:-no step ended}); $ended"
  if [ -z "$first" ]; then [ -s "$logs/test.log" ] && show "$logs/test.log" || say "it printed nothing"; fi
  echo "$passed $failed" >"$logs/counts"
  exit 0
fi

# ----------------------------------------------------------------- outside: the cached root
packages_sh=
while [ $# -gt 0 ]; do
  case $1 in
    --packages-sh) packages_sh=${2:?--packages-sh needs a file}; shift 2 ;;
    -h|--help) sed -n '2,32s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "check-bare-machine: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "check-bare-machine: run as root (debootstrap, mounts, chroot)" >&2; exit 2; }
[ -x "$SWIFT_TOOLCHAIN/usr/bin/swift" ] || { echo "check-bare-machine: no Swift toolchain at $SWIFT_TOOLCHAIN" >&2; exit 2; }
source "$repo/scripts/lib/packages.sh"
source "$repo/scripts/lib/debian_mirror.sh"
ensure_packages debootstrap git curl python3

mkdir -p "$cache"
logs=$(mktemp -d /tmp/navprefs-bare-logs.XXXXXX)
commit=$(git -C "$repo" rev-parse HEAD) || exit 2
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] \
  || say "note: uncommitted changes here are not in the clone; it tests $commit as committed"
if [ -n "$packages_sh" ]; then
  cp "$packages_sh" "$logs/packages.sh" || exit 2  # also a <(...) that can be read once
  export BARE_PACKAGES_SH=$logs/packages.sh BARE_PACKAGES_SH_NAME=$packages_sh
fi

# debootstrap's default variant, once per recipe: later runs find it complete in the cache.
mirror=$(debian_mirror bookworm debian-security); mirror=${mirror:-http://deb.debian.org/debian}
security=$(debian_mirror bookworm-security "")
recipe="bookworm default variant, $mirror, security ${security:-none}, 1"  # the last number: bump when the recipe changes
base=$cache/root-$(echo "$recipe" | sha256sum | cut -c1-12)
(
  flock 9
  [ -f "$base.complete" ] && exit 0
  say "debootstrap bookworm (default variant) from $mirror into $base (once; later runs reuse it)"
  rm -rf "$base" && t0=$(date +%s)
  if ! debootstrap bookworm "$base" "$mirror" >"$logs/debootstrap.log" 2>&1; then
    show "$logs/debootstrap.log"; rm -rf "$base"; exit 1
  fi
  write_debian_sources "$base" "$mirror" "$security"
  echo "$recipe" >"$base.complete"
  say "debootstrap took $(( $(date +%s) - t0 )) s"
) 9>"$cache/lock" || { check 1 "debootstrap bookworm"; echo "bare-machine: $passed passed, $failed failed"; exit 1; }

run=$(mktemp -d "$cache/run.XXXXXX")
mkdir -p "$run/root" "$run/upper" "$run/work"
export BARE_BASE=$base BARE_RUN=$run BARE_LOGS=$logs BARE_COMMIT=$commit BARE_STARTED=$started BARE_CACHE=$cache
export SWIFT_TOOLCHAIN BARE_SERVE_SECONDS=$serve_seconds
unshare --mount --pid --fork --kill-child -- bash "$0" --inside
read -r inside_passed inside_failed <"$logs/counts" 2>/dev/null || { inside_passed=0; inside_failed=1; say "FAIL the run in the bare root ended early"; }
passed=$((passed + inside_passed)) failed=$((failed + inside_failed))

# The namespace is gone with its mounts; what the run wrote is in its overlay's upper directory.
if grep -q " $run/" /proc/self/mountinfo; then
  say "something is still mounted under $run: left in place"
else
  rm -rf "$run"
fi
if [ "$failed" != 0 ] || [ "${BARE_KEEP_LOGS:-}" = 1 ]; then say "logs kept in $logs"; else rm -rf "$logs"; fi
say "total $(awk -v ns="$(( $(date +%s%N) - started ))" 'BEGIN { printf "%.0f", ns / 1e9 }') s"
echo "bare-machine: $passed passed, $failed failed"
[ "$failed" = 0 ]
