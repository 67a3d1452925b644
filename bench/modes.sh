#!/usr/bin/env bash
# bench/modes.sh - which libmicrohttpd mode, measured (the justification in bench/README.md).
#
#  1. throughput: the C reference's GET (bench/reference/counter.c) in
#       runwait          MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, our thread loops MHD_run_wait(d, 50)
#                        (navprefs' mode)
#       internal         MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL (MHD's own thread)
#       pool2            the same with a thread pool of 2, pinned to the server core
#       pool2-unpinned   the same, free to use both cores (wrk stays on its core)
#  2. the epoll-128 stall (bench/stall.py): K = 127, 128, 256 requests ready at once, against
#     counter.c runwait, counter.c internal and navprefs
#  3. resume wake-up (bench/reference/resume.c): every request deferred to a worker thread that
#     calls MHD_resume_connection(), as navprefs does for writes; runwait (navprefs' loop as is),
#     internal, and wake (own epoll over MHD's epoll fd + an eventfd written after each resume)
#
#   bash bench/modes.sh                      # DUR=5 REPS=3 CONNS="16 64", about 4 min
#   PARTS="stall resume" bash bench/modes.sh
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
source "$BENCH/lib.sh"

DUR=${DUR:-5}
REPS=${REPS:-3}
CONNS=${CONNS:-"16 64"}
RESUME_DUR=${RESUME_DUR:-3}
RESUME_CONNS=${RESUME_CONNS:-"1 16 64"}
PARTS=${PARTS:-"throughput stall resume"}
BASE_PORT=${BASE_PORT:-27100}
OUT=${OUT:-$(mktemp -d /tmp/navprefs-modes.XXXXXX)}
mkdir -p "$OUT"
trap 'stop_all; rm -rf "$OUT/db"' EXIT
trap 'exit 130' INT TERM

NEED_SWIFT=0 need_tools
raise_fd_limit
check_quiet
build_reference
gcc -O2 -g -Wall -Wextra -o "$OUT/resume" "$BENCH/reference/resume.c" \
  $(pkg-config --cflags --libs libmicrohttpd) -lpthread || die "cannot compile resume.c"
log "results in $OUT"
GET_PATH=/v1/profiles/bench/counter
POST_PATH=/v1/profiles/bench/counter/increment

# start_counter NAME PORT CPUS MODE: counter.c with a fresh database and the bench profile
start_counter() {
  mkdir -p "$OUT/db/$1"
  start_server "$1" "$2" "$3" "$COUNTER" "$2" "$4" "$OUT/db/$1/bench.sqlite" normal
  curl -s -o /dev/null --max-time 5 -X POST -H 'Content-Type: application/json' -d '{"by":1}' \
    "http://127.0.0.1:$2$POST_PATH"
}

RESULTS=$OUT/results.tsv
printf 'group\ttarget\tserver\tconns\trep\trequests\trps\tp50_us\tp99_us\terrors\tnon2xx\tus_per_req\tserver_pct\tcpu0_pct\tcpu1_pct\n' >"$RESULTS"
record() {  # GROUP TARGET SERVER CONNS REP URL METHOD DURATION
  local row requests rps p50 p99 errors non2xx upr spct c0 c1
  row=$(run_wrk "$2" "$3" GET "$6" "$4" "$8") || return 0
  read -r requests rps p50 p99 errors non2xx upr spct c0 c1 <<<"$row"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" \
    "$requests" "$rps" "$p50" "$p99" "$errors" "$non2xx" "$upr" "$spct" "$c0" "$c1" >>"$RESULTS"
  log "rep $5 c=$4 $1 $2: $rps req/s p50 ${p50}us p99 ${p99}us ${upr}us/req server ${spct}% cpu0 ${c0}% cpu1 ${c1}%"
}

if [[ " $PARTS " == *" throughput "* ]]; then
  start_counter runwait $((BASE_PORT + 1)) "$SERVER_CPU" runwait
  start_counter internal $((BASE_PORT + 2)) "$SERVER_CPU" internal
  start_counter pool2 $((BASE_PORT + 3)) "$SERVER_CPU" pool2
  start_counter pool2-unpinned $((BASE_PORT + 4)) - pool2
  for ((rep = 1; rep <= REPS; rep++)); do
    for c in $CONNS; do
      for name in runwait internal pool2 pool2-unpinned; do
        record GET "$name" "$name" "$c" "$rep" "http://127.0.0.1:${PORTS[$name]}$GET_PATH" GET "$DUR"
      done
    done
  done
  stop_all
fi

if [[ " $PARTS " == *" stall "* ]]; then
  NEED_SWIFT=1 need_tools
  build_navprefs
  start_counter stall-runwait $((BASE_PORT + 11)) "$SERVER_CPU" runwait
  start_counter stall-internal $((BASE_PORT + 12)) "$SERVER_CPU" internal
  mkdir -p "$OUT/db/stall-navprefs"
  start_server stall-navprefs $((BASE_PORT + 13)) "$SERVER_CPU" "$NAVPREFS" --host 127.0.0.1 \
    --port $((BASE_PORT + 13)) --database "sqlite:$OUT/db/stall-navprefs/bench.sqlite" --log-level warning
  curl -s -o /dev/null --max-time 5 -X POST -H 'Content-Type: application/json' -d '{"by":1}' \
    "http://127.0.0.1:$((BASE_PORT + 13))$POST_PATH"
  : >"$OUT/stall.txt"
  for name in stall-runwait stall-internal stall-navprefs; do
    log "stall check: ${name#stall-}"
    python3 "$BENCH/stall.py" "${PORTS[$name]}" "${PIDS[$name]}" "$GET_PATH" 127 128 256 --deadline 3 |
      sed "s/^/${name#stall-} /" | tee -a "$OUT/stall.txt" >&2
  done
  stop_all
fi

if [[ " $PARTS " == *" resume "* ]]; then
  start_server resume-runwait $((BASE_PORT + 21)) "$SERVER_CPU" "$OUT/resume" $((BASE_PORT + 21)) runwait
  start_server resume-internal $((BASE_PORT + 22)) "$SERVER_CPU" "$OUT/resume" $((BASE_PORT + 22)) internal
  start_server resume-wake $((BASE_PORT + 23)) "$SERVER_CPU" "$OUT/resume" $((BASE_PORT + 23)) wake
  for ((rep = 1; rep <= REPS; rep++)); do
    for c in $RESUME_CONNS; do
      for name in resume-runwait resume-internal resume-wake; do
        record resume "${name#resume-}" "$name" "$c" "$rep" "http://127.0.0.1:${PORTS[$name]}/deferred" GET "$RESUME_DUR"
      done
    done
  done
  stop_all
fi

{
  echo "## libmicrohttpd modes ($REPS reps; throughput ${DUR}s at c = $CONNS; resume ${RESUME_DUR}s at c = $RESUME_CONNS)"
  echo
  machine_info
  echo
  if grep -q '^GET' "$RESULTS"; then
    echo "### 1. C reference GET by mode (ratios against runwait, navprefs' mode)"
    echo
    grep -v '^resume' "$RESULTS" >"$OUT/throughput.tsv"
    python3 "$BENCH/summarize.py" "$OUT/throughput.tsv" --baseline runwait --no-goals
    echo
  fi
  if [ -s "$OUT/stall.txt" ]; then
    echo "### 2. epoll-128 stall: K requests ready at once, answered within 3 s"
    echo
    echo '```'
    cat "$OUT/stall.txt"
    echo '```'
    echo
  fi
  if grep -q '^resume' "$RESULTS"; then
    echo "### 3. Deferred answers: MHD_resume_connection() from a worker thread (ratios against runwait)"
    echo
    { head -1 "$RESULTS"; grep '^resume' "$RESULTS"; } >"$OUT/resume.tsv"
    python3 "$BENCH/summarize.py" "$OUT/resume.tsv" --baseline runwait --no-goals
  fi
} >"$OUT/summary.md"
cat "$OUT/summary.md"
log "results: $OUT/summary.md"
