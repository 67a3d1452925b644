#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests: initdb and pg_ctl in a directory of its own, no
# systemd, listening on 127.0.0.1 only, on a free port, trust authentication for `postgres`.
#
#   eval "$(scripts/lib/postgres.sh start)"     # exports NAVPREFS_TEST_POSTGRES_URL and _DIR
#   scripts/lib/postgres.sh start DIR           # starts the cluster in DIR again (same port), e.g. after stop --keep or kill -9
#   scripts/lib/postgres.sh stop DIR [--keep]   # stops it; removes DIR unless --keep
#   scripts/lib/postgres.sh status DIR          # exit status 0 if it answers
#
# Installs Debian's postgresql and libpq-dev when missing (as root; otherwise prints the
# apt-get line and stops). NAVPREFS_POSTGRES_STATS=1 loads pg_stat_statements (benchmarks).
# NAVPREFS_POSTGRES_FAST=1 turns fsync off: faster, but a crash of the
# machine may corrupt the cluster; never for crash tests. Messages go to stderr; only the export
# line goes to stdout.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/packages.sh"

say() { echo "postgres.sh: $*" >&2; }

bindir() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }; done
  return 1
}

# Runs a command as the postgres OS user when we are root (initdb refuses to run as root).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

url_of() {  # DIR -> the URL of the `navprefs` database
  echo "postgresql://postgres@127.0.0.1:$(cat "$1/port")/navprefs?sslmode=disable"
}

answers() {  # DIR
  [ -f "$1/port" ] && "$BIN/pg_isready" -q -h 127.0.0.1 -p "$(cat "$1/port")" -d postgres -U postgres
}

# After kill -9 of the postmaster its pid can linger as a zombie (containers often have no
# reaping init) and block the next start through the lock files: remove lock files whose owner
# is gone or a zombie.
clear_stale_locks() {  # DIR
  local file pid state
  for file in "$1/data/postmaster.pid" "$1"/.s.PGSQL.*.lock; do
    [ -f "$file" ] || continue
    pid=$(head -1 "$file" 2>/dev/null || true)
    state=$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1 || true)
    if [ -z "$state" ] || [ "$state" = Z ]; then rm -f "$file"; fi
  done
}

init_cluster() {  # DIR
  local dir=$1
  as_owner "$BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-instructions \
    >"$dir/initdb.log" 2>&1 \
    || as_owner "$BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C --no-instructions \
      >"$dir/initdb.log" 2>&1 \
    || { say "initdb failed:"; tail -20 "$dir/initdb.log" >&2; return 1; }
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$dir'"
    echo "max_connections = 400"
    echo "shared_buffers = 64MB"
    echo "log_min_messages = warning"
    # Benchmarks: per-statement counts and times (pg_stat_statements, in Debian's package).
    if [ "${NAVPREFS_POSTGRES_STATS:-0}" = 1 ]; then
      echo "shared_preload_libraries = 'pg_stat_statements'"; echo "pg_stat_statements.track = all"
      echo "track_io_timing = on"
    fi
    if [ "${NAVPREFS_POSTGRES_FAST:-0}" = 1 ]; then
      echo "fsync = off"; echo "synchronous_commit = off"; echo "full_page_writes = off"
    fi
  } | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
}

start_cluster() {  # DIR: starts it on its recorded port, or on a new free one
  local dir=$1 attempt port
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    [ -f "$dir/port" ] || free_port >"$dir/port"
    port=$(cat "$dir/port")
    clear_stale_locks "$dir"
    if as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
      return 0
    fi
    # The port may have been taken since it was picked (a fresh cluster may move), or the
    # previous postmaster's backends are still exiting: wait and try again.
    grep -q "could not bind" "$dir/server.log" 2>/dev/null && [ ! -f "$dir/keep-port" ] && rm -f "$dir/port"
    sleep 0.5
  done
  say "pg_ctl start failed:"; tail -20 "$dir/server.log" >&2 || true
  return 1
}

cmd_start() {
  ensure_packages postgresql libpq-dev
  BIN=$(bindir) || { say "no initdb under /usr/lib/postgresql/*/bin"; exit 1; }
  local dir=${1:-}
  if [ -z "$dir" ]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/navprefs-postgres.XXXXXX")
  fi
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
  if ! answers "$dir"; then
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      init_cluster "$dir"
    else
      touch "$dir/keep-port"  # an existing cluster comes back on its own port: clients hold its URL
    fi
    start_cluster "$dir"
    for _ in $(seq 1 100); do answers "$dir" && break; sleep 0.1; done
    answers "$dir" || { say "the server did not become ready"; tail -20 "$dir/server.log" >&2; exit 1; }
    if ! "$BIN/psql" -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'navprefs'" | grep -q 1; then
      "$BIN/createdb" -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres navprefs
    fi
    say "ready on 127.0.0.1:$(cat "$dir/port") (data in $dir/data, log $dir/server.log)"
  fi
  echo "export NAVPREFS_TEST_POSTGRES_URL='$(url_of "$dir")' NAVPREFS_TEST_POSTGRES_DIR='$dir'"
}

cmd_stop() {
  local dir=${1:?usage: postgres.sh stop DIR [--keep]} keep=${2:-}
  BIN=$(bindir) || exit 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 \
      || as_owner "$BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ "$keep" = --keep ]; then
    say "stopped (kept $dir)"
  else
    case "$dir" in
      */navprefs-postgres.*) rm -rf "$dir"; say "stopped, removed $dir" ;;
      *) say "stopped; not removing $dir (not made by this script)" ;;
    esac
  fi
}

cmd_status() {
  BIN=$(bindir) || exit 1
  answers "${1:?usage: postgres.sh status DIR}"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  *) echo "usage: $0 start [DIR] | stop DIR [--keep] | status DIR" >&2; exit 2 ;;
esac
