#!/usr/bin/env bash
# bench/floor/profile.sh - where the floor's write and navprefs' increment spend their CPU: perf
# samples with call chains under wrk load, one after the other, then one table of µs per request
# by activity (bench/floor/profile-table.py) and each target's top functions.
#
#   bash bench/floor/profile.sh                                  # c=64, 8 s each, four targets
#   TARGETS="floor-full navprefs-full" CONNS_PROFILED=16 bash bench/floor/profile.sh
#   NAVPREFS=/path/navprefs FLOOR=/path/floor bash bench/floor/profile.sh
#   NICE=-10 bash bench/floor/profile.sh     # when other processes are busy on the machine (root)
#
# Needs perf (Debian: apt-get install linux-perf). Writes $OUT/perf-TARGET.data, profile-TARGET.txt
# (functions, self and inclusive) and table.md (printed).
set -uo pipefail
FLOOR_DIR=$(cd "$(dirname "$0")" && pwd)
BENCH=$(dirname "$FLOOR_DIR")
source "$BENCH/lib.sh"

TARGETS=${TARGETS:-"floor-full navprefs-full floor-normal navprefs-normal"}
CONNS_PROFILED=${CONNS_PROFILED:-64}
SECONDS_PROFILED=${SECONDS_PROFILED:-8}
BASE_PORT=${BASE_PORT:-27650}
OUT=${OUT:-$(mktemp -d /tmp/navprefs-floor-profile.XXXXXX)}
mkdir -p "$OUT"
niced_session "$0" "$@"   # NICE=-10: the run at that niceness, in a session of its own
trap 'stop_all; rm -rf "$OUT/db"' EXIT
trap 'exit 130' INT TERM

command -v perf >/dev/null || die "perf is missing: apt-get install -y linux-perf"
need_tools
raise_fd_limit
build_navprefs
if [ -z "${FLOOR:-}" ]; then
  (cd "$FLOOR_DIR" && swift build -c release >"$OUT/build-floor.log" 2>&1) || die "the floor does not build"
  FLOOR=$FLOOR_DIR/.build/release/floor
fi
demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }

POST_PATH=/v1/profiles/bench/counter/increment
port=$BASE_PORT
columns=()
for target in $TARGETS; do
  port=$((port + 1))
  mkdir -p "$OUT/db/$target"
  db=$OUT/db/$target/bench.sqlite
  case $target in
    floor-full|floor-normal) cmd=("$FLOOR" --port "$port" --database "$db" --synchronous "${target#floor-}") ;;
    navprefs-full|navprefs-normal) cmd=("$NAVPREFS" --host 127.0.0.1 --port "$port" --database "sqlite:$db"
                                        --sqlite-synchronous "${target#navprefs-}") ;;
    *) die "unknown target $target (floor-full, floor-normal, navprefs-full, navprefs-normal)" ;;
  esac
  start_server "$target" "$port" "$SERVER_CPU" "${cmd[@]}"
  curl -s -o /dev/null --max-time 5 -X POST -H 'Content-Type: application/json' -d '{"by":1}' "http://127.0.0.1:$port$POST_PATH"
  # load for 3 s longer than the profile, which starts after 1 s: perf sees steady state only
  run_wrk "$target" "$target" POST "http://127.0.0.1:$port$POST_PATH" "$CONNS_PROFILED" $((SECONDS_PROFILED + 3)) >"$OUT/wrk-$target.txt" &
  wrk_job=$!
  sleep 1
  t0=$(proc_ticks "${PIDS[$target]}")
  perf record -F 1999 -g -p "${PIDS[$target]}" -o "$OUT/perf-$target.data" -- sleep "$SECONDS_PROFILED" \
    >/dev/null 2>"$OUT/perf-record-$target.log"
  t1=$(proc_ticks "${PIDS[$target]}")
  wait "$wrk_job"
  read -r requests rps _ p99 _ _ upr spct _ <"$OUT/wrk-$target.txt"
  perf script -i "$OUT/perf-$target.data" -F comm,tid,ip,sym,dso 2>/dev/null | demangle >"$OUT/script-$target.txt"
  columns+=("$target=$OUT/script-$target.txt:$upr")
  {
    echo "# $target, c=$CONNS_PROFILED: $rps req/s, p99 ${p99} us, ${upr} us/req, server ${spct}% of a core (perf running)"
    echo
    echo "## self time, top 30 (by function)"
    perf report -i "$OUT/perf-$target.data" --no-children --sort dso,symbol --stdio -g none 2>/dev/null |
      grep '%' | head -30 | demangle | cut -c1-180
    echo
    echo "## inclusive time (children), top 50 user-space frames"
    perf report -i "$OUT/perf-$target.data" --children --sort symbol --stdio -g none 2>/dev/null |
      grep '%' | grep -v '\[k\]' | grep -vE '\] (0x)?[0-9a-f]{8,}([[:space:]]|$)' | head -50 | demangle | cut -c1-180
  } >"$OUT/profile-$target.txt"
  stop_server "$target"
  log "$target: $rps req/s, $upr us/req under perf; $OUT/profile-$target.txt"
done
{
  echo "Server CPU per request by activity, c=$CONNS_PROFILED, perf record -F 1999 -g for ${SECONDS_PROFILED} s each ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  python3 "$FLOOR_DIR/profile-table.py" "${columns[@]}"
} >"$OUT/table.md"
cat "$OUT/table.md"
log "results: $OUT/table.md, $OUT/profile-*.txt"
