#!/usr/bin/env bash
# What moving a store from SQLite to PostgreSQL costs: fills a SQLite store with EVENTS events
# (default 1000000: 1000 profiles of 1000 counter events, the default retention's limit, each
# with its counter value), then times `navprefs export` from it and `navprefs import` into a fresh
# PostgreSQL database on a throwaway cluster (scripts/lib/postgres.sh, fsync on), and, for
# comparison, the import into a new SQLite file and the export back from PostgreSQL.
#
#   bench/transfer/move-cost.sh [EVENTS]        # needs a release build: swift build -c release
#
# Not part of scripts/test: it takes minutes and a few hundred MB of disk. NAVPREFS_BINARY picks
# the binary (default .build/release/navprefs); KEEP=1 keeps the work directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
events=${1:-1000000}
profiles=1000
per_profile=$(( (events + profiles - 1) / profiles ))
binary=${NAVPREFS_BINARY:-$root/.build/release/navprefs}
[ -x "$binary" ] || { echo "move-cost: no $binary (swift build -c release)" >&2; exit 2; }
work=$(mktemp -d /var/tmp/navprefs-move.XXXXXX)
cluster=""
cleanup() {
  [ -n "$cluster" ] && bash "$root/scripts/lib/postgres.sh" stop "$cluster" >/dev/null 2>&1 || true
  [ "${KEEP:-0}" = 1 ] && echo "move-cost: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
seconds() { python3 -c 'import sys, time; print(f"{time.time():.3f}")'; }
timed() {  # timed NAME COMMAND...: runs it, prints NAME and its wall time
  local name=$1 start end
  shift
  start=$(seconds); "$@"; end=$(seconds)
  python3 -c "print(f'move-cost: $name took {$end - $start:.1f} s')" >&2
}

# The schema, as navprefs makes it (the first token creates the database), then rows written by
# sqlite3 directly: what a store of this size holds, without a million HTTP requests.
"$binary" tokens create --admin --label bench --database "sqlite:$work/source.sqlite" >/dev/null 2>&1
sqlite3 "$work/source.sqlite" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < $profiles)
INSERT INTO profiles (name, created_at, last_event_id, defaults_version, preferences_version)
  SELECT 'user' || i, CAST(unixepoch('now') AS INTEGER) * 1000, $per_profile, 0, $per_profile FROM p;
INSERT INTO preferences (profile, key, value, version)
  SELECT name, 'numIndex', json_quote('$per_profile'), $per_profile FROM profiles WHERE name LIKE 'user%';
WITH RECURSIVE e(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM e WHERE i < $per_profile)
INSERT INTO events (profile, id, type, data, created_at)
  SELECT p.name, e.i, 'counter',
         json_object('profile', p.name, 'key', 'numIndex', 'operation', 'increment', 'by', 1, 'value', e.i,
                     'stringValue', CAST(e.i AS TEXT), 'version', e.i),
         CAST(unixepoch('now') AS INTEGER) * 1000 - ($per_profile - e.i) * 1000
  FROM profiles p, e WHERE p.name LIKE 'user%';
COMMIT;
SQL
echo "move-cost: $(sqlite3 "$work/source.sqlite" 'SELECT count(*) FROM events') events in $profiles profiles," \
  "$(du -h "$work/source.sqlite" | cut -f1) of SQLite; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

exports=$(bash "$root/scripts/lib/postgres.sh" start)
eval "$exports"
cluster=$NAVPREFS_TEST_POSTGRES_DIR
psql "$NAVPREFS_TEST_POSTGRES_URL" -qc 'CREATE DATABASE moved'
target=${NAVPREFS_TEST_POSTGRES_URL/\/navprefs\?//moved?}

timed "export from SQLite" "$binary" export --output "$work/move.ndjson" --database "sqlite:$work/source.sqlite"
echo "move-cost: the file holds $(du -h "$work/move.ndjson" | cut -f1)" >&2
timed "import into PostgreSQL" "$binary" import "$work/move.ndjson" --database "$target"
timed "import into SQLite (for comparison)" "$binary" import "$work/move.ndjson" --database "sqlite:$work/copy.sqlite"
timed "export from PostgreSQL (for comparison)" "$binary" export --output "$work/back.ndjson" --database "$target"
if cmp -s <(tail -n +2 "$work/move.ndjson") <(tail -n +2 "$work/back.ndjson"); then
  echo "move-cost: PostgreSQL's export is SQLite's but for the header" >&2
else
  echo "move-cost: the exports differ" >&2; exit 1
fi
