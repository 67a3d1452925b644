#!/usr/bin/env bash
# bench/profile.sh - where navprefs spends its CPU under wrk load: perf samples with call graphs
# (frame pointers), reported per function, self and inclusive, Swift names demangled.
#
#   bash bench/profile.sh                         # targets: get get-quiet post-normal
#   TARGETS="get" SECONDS_PROFILED=10 bash bench/profile.sh
#
# Needs perf (Debian: apt-get install linux-perf) and, for readable names, `swift demangle`.
# Writes $OUT/perf-TARGET.data and $OUT/profile-TARGET.txt.
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
source "$BENCH/lib.sh"

TARGETS=${TARGETS:-"get get-quiet post-normal"}
CONNS_PROFILED=${CONNS_PROFILED:-16}
SECONDS_PROFILED=${SECONDS_PROFILED:-6}
BASE_PORT=${BASE_PORT:-27300}
OUT=${OUT:-$(mktemp -d /tmp/navprefs-profile.XXXXXX)}
mkdir -p "$OUT"
trap 'stop_all; rm -rf "$OUT/db"' EXIT
trap 'exit 130' INT TERM

command -v perf >/dev/null || die "perf is missing: apt-get install -y linux-perf (or use valgrind --tool=callgrind)"
need_tools
raise_fd_limit
build_navprefs
demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }

port=$BASE_PORT
for target in $TARGETS; do
  port=$((port + 1))
  case $target in
    get) args=(--sqlite-synchronous full); method=GET ;;
    get-quiet) args=(--sqlite-synchronous full --log-level warning); method=GET ;;
    post-full) args=(--sqlite-synchronous full); method=POST ;;
    post-normal) args=(--sqlite-synchronous normal); method=POST ;;
    post-normal-quiet) args=(--sqlite-synchronous normal --log-level warning); method=POST ;;
    *) die "unknown target $target" ;;
  esac
  name=profile-$target
  mkdir -p "$OUT/db/$name"
  start_server "$name" "$port" "$SERVER_CPU" "$NAVPREFS" --host 127.0.0.1 --port "$port" \
    --database "sqlite:$OUT/db/$name/bench.sqlite" "${args[@]}"
  curl -s -o /dev/null --max-time 5 -X POST -H 'Content-Type: application/json' -d '{"by":1}' \
    "http://127.0.0.1:$port/v1/profiles/bench/counter/increment"
  if [ "$method" = GET ]; then url=http://127.0.0.1:$port/v1/profiles/bench/counter
  else url=http://127.0.0.1:$port/v1/profiles/bench/counter/increment; fi
  # load for 2 s longer than the profile on both sides, so perf sees steady state only
  run_wrk "$target" "$name" "$method" "$url" "$CONNS_PROFILED" $((SECONDS_PROFILED + 3)) >"$OUT/wrk-$target.txt" &
  wrk_job=$!
  sleep 1
  perf record -F 1999 -g -p "${PIDS[$name]}" -o "$OUT/perf-$target.data" -- sleep "$SECONDS_PROFILED" \
    >/dev/null 2>"$OUT/perf-record-$target.log"
  wait "$wrk_job"
  read -r requests rps _ p99 _ _ upr spct _ <"$OUT/wrk-$target.txt"
  {
    echo "# navprefs $target, c=$CONNS_PROFILED: $rps req/s, p99 ${p99} us, ${upr} us/req, server ${spct}% of a core (perf running)"
    echo
    echo "## self time, top 30 (by function)"
    perf report -i "$OUT/perf-$target.data" --no-children --sort dso,symbol --stdio -g none 2>/dev/null |
      grep '%' | head -30 | demangle | cut -c1-180
    echo
    echo "## inclusive time (children), top 60 user-space frames"
    perf report -i "$OUT/perf-$target.data" --children --sort symbol --stdio -g none 2>/dev/null |
      grep '%' | grep -v '\[k\]' | grep -vE '\] (0x)?[0-9a-f]{8,}([[:space:]]|$)' | head -60 | demangle | cut -c1-180
    echo
    echo "## kernel share"
    perf report -i "$OUT/perf-$target.data" --no-children --sort dso --stdio -g none 2>/dev/null | grep '%' | head -8
  } >"$OUT/profile-$target.txt"
  stop_server "$name"
  log "profile of $target: $OUT/profile-$target.txt"
  sed -n '1,40p' "$OUT/profile-$target.txt"
done
