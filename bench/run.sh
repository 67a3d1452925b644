#!/usr/bin/env bash
# bench/run.sh - navprefs against the ceiling of its HTTP layer, side by side on loopback.
#
# Targets (each server gets a fresh database in a temporary directory):
#   c            bench/reference/counter.c: libmicrohttpd in navprefs' mode (MHD_USE_EPOLL |
#                MHD_ALLOW_SUSPEND_RESUME, one thread looping MHD_run_wait(d, 50)), same bytes,
#                GET from memory, POST = the same SQL transaction on the MHD thread
#   navprefs     .build/release/navprefs, default logging (JSON request lines to a file)
#   navprefs-quiet  the same with --log-level warning (no request lines)
# Groups: GET /v1/profiles/bench/counter; POST .../counter/increment {"by":1} with
# synchronous=FULL (navprefs' default) and with synchronous=NORMAL, C at the same setting.
#
# Server pinned to CPU $SERVER_CPU (all threads), wrk -t1 pinned to CPU $LOAD_CPU. Targets are
# interleaved inside every repetition and connection count; ratios are paired per repetition.
#
#   bash bench/run.sh                       # defaults: DUR=5 REPS=3 CONNS="16 64" (about 5 min)
#   DUR=10 REPS=5 bash bench/run.sh
#   GROUPS_RUN="GET" CONNS=64 bash bench/run.sh
#   OUT=/tmp/somewhere bash bench/run.sh    # keep the results there (default: a new /tmp dir)
#   BASELINE=/path/to/older/navprefs bash bench/run.sh   # adds target `before`: that binary,
#                                           # interleaved with the others (a before/after table)
#
# Writes $OUT/results.tsv (one row per wrk run), $OUT/summary.md (the tables), server logs.
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
source "$BENCH/lib.sh"

DUR=${DUR:-5}                 # seconds per wrk run
REPS=${REPS:-3}               # repetitions; tables report medians
CONNS=${CONNS:-"16 64"}       # keep-alive connections
WARMUP=${WARMUP:-1}           # seconds of unrecorded load per target before the first rep (0: none)
GROUPS_RUN=${GROUPS_RUN:-"GET POST-full POST-normal"}
BASE_PORT=${BASE_PORT:-27200}
OUT=${OUT:-$(mktemp -d /tmp/navprefs-bench.XXXXXX)}
KEEP_DB=${KEEP_DB:-0}         # 1: keep the databases after the run
mkdir -p "$OUT"

trap cleanup_run EXIT
trap 'exit 130' INT TERM

need_tools
raise_fd_limit
build_navprefs
build_reference
log "results in $OUT"

# name -> command (after the port); every server has its own database directory
declare -A SERVER_CMD=(
  [c-full]="$COUNTER @PORT@ runwait @DB@ full"
  [c-normal]="$COUNTER @PORT@ runwait @DB@ normal"
  [navprefs-full]="$NAVPREFS --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous full"
  [navprefs-normal]="$NAVPREFS --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous normal"
  [navprefs-full-quiet]="$NAVPREFS --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous full --log-level warning"
  [navprefs-normal-quiet]="$NAVPREFS --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous normal --log-level warning"
)
SERVER_ORDER="c-full c-normal navprefs-full navprefs-normal navprefs-full-quiet navprefs-normal-quiet"
BASELINE=${BASELINE:-}
if [ -n "$BASELINE" ]; then
  [ -x "$BASELINE" ] || die "BASELINE=$BASELINE is not an executable"
  SERVER_CMD[before-full]="$BASELINE --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous full"
  SERVER_CMD[before-normal]="$BASELINE --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous normal"
  SERVER_ORDER+=" before-full before-normal"
fi

GET_PATH=/v1/profiles/bench/counter
POST_PATH=/v1/profiles/bench/counter/increment
# group|target|server|method ; the first target of each group is its baseline (C)
CELLS=()
for g in $GROUPS_RUN; do
  case $g in
    GET) CELLS+=("GET|c|c-full|GET" "GET|navprefs|navprefs-full|GET" "GET|navprefs-quiet|navprefs-full-quiet|GET") ;;
    POST-full) CELLS+=("POST-full|c|c-full|POST" "POST-full|navprefs|navprefs-full|POST"
                       "POST-full|navprefs-quiet|navprefs-full-quiet|POST") ;;
    POST-normal) CELLS+=("POST-normal|c|c-normal|POST" "POST-normal|navprefs|navprefs-normal|POST"
                         "POST-normal|navprefs-quiet|navprefs-normal-quiet|POST") ;;
    *) die "unknown group $g (GET, POST-full, POST-normal)" ;;
  esac
  if [ -n "$BASELINE" ]; then
    case $g in
      GET) CELLS+=("GET|before|before-full|GET") ;;
      POST-full) CELLS+=("POST-full|before|before-full|POST") ;;
      POST-normal) CELLS+=("POST-normal|before|before-normal|POST") ;;
    esac
  fi
done
needed=" $(for cell in "${CELLS[@]}"; do IFS='|' read -r _ _ s _ <<<"$cell"; echo "$s"; done | sort -u | tr '\n' ' ')"

declare -A CURL_POSTS=()   # increments sent with curl, per server (for the integrity check)
port=$BASE_PORT
for name in $SERVER_ORDER; do
  [[ $needed == *" $name "* ]] || continue
  port=$((port + 1))
  mkdir -p "$OUT/db/$name"
  cmd=${SERVER_CMD[$name]//@PORT@/$port}
  cmd=${cmd//@DB@/$OUT/db/$name/bench.sqlite}
  # shellcheck disable=SC2086 # the command is split on purpose (no spaces in its paths)
  start_server "$name" "$port" "$SERVER_CPU" $cmd
  # the profile comes into being on its first write; GETs then find it in memory
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST -H 'Content-Type: application/json' \
         -d '{"by":1}' "http://127.0.0.1:$port$POST_PATH")
  [ "$code" = 200 ] || die "$name: first POST answered $code"
  CURL_POSTS[$name]=1
done

# Same bytes? Compare one GET and one POST answer of C and navprefs with the numbers, the
# request id and the date masked.
for pair in "c-full navprefs-full"; do
  read -r a b <<<"$pair"
  [ -n "${PORTS[$a]:-}" ] && [ -n "${PORTS[$b]:-}" ] || continue
  answer_shape "http://127.0.0.1:${PORTS[$a]}$GET_PATH" >"$OUT/shape-get-$a.txt"
  answer_shape "http://127.0.0.1:${PORTS[$b]}$GET_PATH" >"$OUT/shape-get-$b.txt"
  answer_shape -X POST -H 'Content-Type: application/json' -d '{"by":1}' "http://127.0.0.1:${PORTS[$a]}$POST_PATH" >"$OUT/shape-post-$a.txt"
  answer_shape -X POST -H 'Content-Type: application/json' -d '{"by":1}' "http://127.0.0.1:${PORTS[$b]}$POST_PATH" >"$OUT/shape-post-$b.txt"
  CURL_POSTS[$a]=$(( ${CURL_POSTS[$a]} + 1 )); CURL_POSTS[$b]=$(( ${CURL_POSTS[$b]} + 1 ))
  for m in get post; do
    if cmp -s "$OUT/shape-$m-$a.txt" "$OUT/shape-$m-$b.txt"; then
      log "$m answers of $a and $b have the same shape (numbers, id and date masked)"
    else
      log "warning: $m answers of $a and $b differ:"; diff "$OUT/shape-$m-$a.txt" "$OUT/shape-$m-$b.txt" >&2
    fi
  done
done

url_of() { if [ "$2" = GET ]; then echo "http://127.0.0.1:${PORTS[$1]}$GET_PATH"; else echo "http://127.0.0.1:${PORTS[$1]}$POST_PATH"; fi; }

RESULTS=$OUT/results.tsv
results_header
if [ "$WARMUP" != 0 ]; then
  for cell in "${CELLS[@]}"; do
    IFS='|' read -r group target server method <<<"$cell"
    measure "$group" "$target" "$server" "$method" "$(url_of "$server" "$method")" 16 0 "$WARMUP"
  done
fi
check_quiet
total=$(( ${#CELLS[@]} * REPS * $(wc -w <<<"$CONNS") ))
log "${#CELLS[@]} targets x conns ($CONNS) x $REPS reps x ${DUR}s = $total runs, about $(( total * (DUR + 1) / 60 + 1 )) min"
t_start=$SECONDS
for ((rep = 1; rep <= REPS; rep++)); do
  for c in $CONNS; do
    for cell in "${CELLS[@]}"; do
      IFS='|' read -r group target server method <<<"$cell"
      measure "$group" "$target" "$server" "$method" "$(url_of "$server" "$method")" "$c" "$rep" "$DUR"
    done
  done
done
log "measured in $((SECONDS - t_start)) s"

# After the load: every acknowledged increment is in the counter and has its event row.
stop_all
# acknowledged = 2xx answers to POSTs counted by wrk (warm-up included) + the curl POSTs; the
# counter may exceed it by the requests still in flight when each wrk run ended (at most c each).
{
  printf 'server\tacknowledged\tcounter\tevents\tcounter - acknowledged\n'
  for name in $SERVER_ORDER; do
    db=$OUT/db/$name/bench.sqlite
    [ -f "$db" ] || continue
    acked=$(awk -F'\t' -v s="$name" 'NR > 1 && $3 == s && $1 != "GET" { n += $6 - $11 } END { print n + 0 }' "$RESULTS")
    acked=$((acked + ${CURL_POSTS[$name]:-0}))
    # navprefs' schema 1 keeps the counter in `counters`; later schemas may keep it as the
    # `numIndex` preference (JSON text). "?" when neither answers.
    value=$(sqlite3 "$db" "SELECT value FROM counters WHERE profile = 'bench'" 2>/dev/null ||
            sqlite3 "$db" "SELECT CAST(json_extract(value, '\$') AS INTEGER) FROM preferences
                           WHERE profile = 'bench' AND key = 'numIndex'" 2>/dev/null)
    [[ $value =~ ^-?[0-9]+$ ]] && diff=$((value - acked)) || { value='?'; diff='?'; }
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$acked" "$value" \
      "$(sqlite3 "$db" "SELECT count(*) FROM events WHERE profile = 'bench'" 2>/dev/null || echo '?')" "$diff"
  done
} >"$OUT/integrity.tsv"

{
  echo "## navprefs vs the C ceiling ($REPS reps x ${DUR}s, c = $CONNS)"
  echo
  machine_info
  echo
  python3 "$BENCH/summarize.py" "$RESULTS"
  echo
  echo "Counter and event rows after the run (each increment adds 1 and logs 1 event):"
  echo
  sed 's/\t/ | /g; s/^/| /; s/$/ |/' "$OUT/integrity.tsv" | sed '1a | --- | ---: | ---: | ---: | ---: |'
} >"$OUT/summary.md"
cat "$OUT/summary.md"
log "results: $OUT/summary.md, $OUT/results.tsv"
