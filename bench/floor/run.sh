#!/usr/bin/env bash
# bench/floor/run.sh - issue 34: the floor of a durable navprefs write, in one run beside navprefs,
# webdis + Redis (appendfsync always), the C reference and the Swift anchors, on loopback.
#
# Targets (each server gets a fresh database in $OUT/db; all pinned to CPU $SERVER_CPU, wrk -t1 to
# CPU $LOAD_CPU; targets interleaved inside every repetition and connection count):
#   floor            bench/floor: navprefs' schema and exact increment statements, one commit per
#                    event-loop turn (each write in its savepoint, answers after the commit)
#   navprefs         .build/release/navprefs (built here from this checkout), default logging
#   webdis-redis     webdis in front of redis-server --appendonly yes --appendfsync always:
#                    GET /INCR/counter; server CPU = webdis + redis
#   c                bench/reference/counter.c: navprefs' increment, one transaction per request
#                    on the MHD thread; GET from memory (the C ceiling of the HTTP layer)
#   swift-wal-event  the Swift anchor of ../shared/bench-anchors/swift-mhd, mode wal-event (UPDATE
#   swift-full-event + event INSERT committed per request on MHD's thread; NORMAL / FULL)
#   before           with BEFORE=/path/to/navprefs: that build of navprefs (say, the commit before a
#                    change), in every group, beside this one
# Groups: POST-full (synchronous=FULL, Redis always), POST-normal (synchronous=NORMAL), GET.
#
#   bash bench/floor/run.sh                  # DUR=5 REPS=3 CONNS="16 64": about 10 min
#   GROUPS_RUN=POST-full CONNS=64 bash bench/floor/run.sh
#   NAVPREFS=/path/navprefs FLOOR=/path/floor bash bench/floor/run.sh    # binaries built elsewhere
#   SWIFT_MHD=/path/swift-mhd ...            # the anchor's binary (else built from SWIFT_MHD_PACKAGE,
#                                            # default ../shared/bench-anchors/swift-mhd; skipped if absent)
#   WEBDIS=/path/webdis REDIS_SERVER=/path/redis-server ...   # else Debian's (installed as root)
#   BEFORE=/path/to/navprefs-of-an-older-commit ...          # navprefs before and after in one run
#   NICE=-10 bash bench/floor/run.sh         # when other processes are busy on the machine (root)
#
# Writes $OUT/results.tsv (one row per wrk run), $OUT/summary.md (printed at the end), the
# servers' logs, integrity.tsv (counters against acknowledged writes) and turns.txt (the floor's
# writes per turn).
set -uo pipefail
FLOOR_DIR=$(cd "$(dirname "$0")" && pwd)
BENCH=$(dirname "$FLOOR_DIR")
source "$BENCH/lib.sh"

DUR=${DUR:-5}
REPS=${REPS:-3}
CONNS=${CONNS:-"16 64"}
WARMUP=${WARMUP:-1}
GROUPS_RUN=${GROUPS_RUN:-"POST-full POST-normal GET"}
BASE_PORT=${BASE_PORT:-27600}
OUT=${OUT:-$(mktemp -d /tmp/navprefs-floor.XXXXXX)}
KEEP_DB=${KEEP_DB:-0}
SWIFT_MHD_PACKAGE=${SWIFT_MHD_PACKAGE:-$ROOT/../shared/bench-anchors/swift-mhd}
mkdir -p "$OUT"
niced_session "$0" "$@"   # NICE=-10: the run at that niceness, in a session of its own

trap cleanup_run EXIT
trap 'exit 130' INT TERM

need_tools
REDIS_SERVER=${REDIS_SERVER:-$(command -v redis-server)}
WEBDIS=${WEBDIS:-$(command -v webdis)}
if [ -z "$REDIS_SERVER" ] || [ -z "$WEBDIS" ] || ! command -v redis-cli >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing: apt-get install -y redis-server webdis"
    apt-get install -y --no-install-recommends redis-server redis-tools webdis >&2 || die "apt-get install failed"
    REDIS_SERVER=$(command -v redis-server); WEBDIS=$(command -v webdis)
  else
    die "redis-server, redis-cli and webdis are needed: sudo apt-get install -y redis-server webdis (or REDIS_SERVER=, WEBDIS=)"
  fi
fi
raise_fd_limit
build_navprefs
build_reference
if [ -z "${FLOOR:-}" ]; then
  log "swift build -c release (in $FLOOR_DIR)"
  (cd "$FLOOR_DIR" && swift build -c release >"$OUT/build-floor.log" 2>&1) || { tail -20 "$OUT/build-floor.log" >&2; die "the floor does not build"; }
  FLOOR=$FLOOR_DIR/.build/release/floor
fi
python3 "$FLOOR_DIR/check-copies.py" "$ROOT" >&2 || log "warning: the floor's copies of navprefs' SQL drifted (above); its figures are not navprefs' floor"
if [ -z "${SWIFT_MHD:-}" ] && [ -f "$SWIFT_MHD_PACKAGE/Package.swift" ]; then
  # Built outside the shared directory, which stays untouched.
  scratch=${SWIFT_MHD_SCRATCH:-/tmp/navprefs-floor-swift-mhd-build}
  log "swift build -c release --package-path $SWIFT_MHD_PACKAGE --scratch-path $scratch"
  if swift build -c release --package-path "$SWIFT_MHD_PACKAGE" --scratch-path "$scratch" --product swift-mhd >"$OUT/build-swift-mhd.log" 2>&1; then
    SWIFT_MHD=$scratch/release/swift-mhd
  else
    log "warning: the swift-mhd anchor does not build (see $OUT/build-swift-mhd.log): its targets are skipped"
  fi
fi
SWIFT_MHD=${SWIFT_MHD:-}
log "results in $OUT"

GET_PATH=/v1/profiles/bench/counter
POST_PATH=/v1/profiles/bench/counter/increment
declare -A SERVER_CMD=(
  [floor-full]="$FLOOR --port @PORT@ --database @DB@ --synchronous full"
  [floor-normal]="$FLOOR --port @PORT@ --database @DB@ --synchronous normal"
  [navprefs-full]="$NAVPREFS --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous full"
  [navprefs-normal]="$NAVPREFS --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous normal"
  [c-full]="$COUNTER @PORT@ runwait @DB@ full"
  [c-normal]="$COUNTER @PORT@ runwait @DB@ normal"
  [redis-always]="$REDIS_SERVER --port @PORT@ --bind 127.0.0.1 --protected-mode no --daemonize no --save '' --appendonly yes --appendfsync always --dir @DIR@ --loglevel warning"
  [webdis-always]="$WEBDIS @DIR@/webdis.json"
)
# The swift-mhd anchor listens on every address (its own code); the others on 127.0.0.1 only.
BEFORE=${BEFORE:-}
if [ -n "$BEFORE" ]; then
  [ -x "$BEFORE" ] || die "BEFORE=$BEFORE is not an executable"
  SERVER_CMD[before-full]="$BEFORE --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous full"
  SERVER_CMD[before-normal]="$BEFORE --host 127.0.0.1 --port @PORT@ --database sqlite:@DB@ --sqlite-synchronous normal"
fi
if [ -n "$SWIFT_MHD" ]; then
  SERVER_CMD[swift-wal-event]="$SWIFT_MHD @PORT@ interp wal-event @DB@"
  SERVER_CMD[swift-full-event]="$SWIFT_MHD @PORT@ interp full-event @DB@"
fi
SERVER_ORDER="floor-full floor-normal navprefs-full navprefs-normal before-full before-normal c-full c-normal redis-always webdis-always swift-wal-event swift-full-event"
CHARGED[webdis-always]=redis-always

# group|target|server|method|path; the first write target of a group is its baseline (the floor)
CELLS=()
for g in $GROUPS_RUN; do
  case $g in
    POST-full) CELLS+=("POST-full|floor|floor-full|POST|$POST_PATH" "POST-full|navprefs|navprefs-full|POST|$POST_PATH"
                       "POST-full|webdis-redis|webdis-always|GET|/INCR/counter" "POST-full|c|c-full|POST|$POST_PATH")
               [ -n "$SWIFT_MHD" ] && CELLS+=("POST-full|swift-full-event|swift-full-event|POST|/counter/increment")
               [ -n "$BEFORE" ] && CELLS+=("POST-full|before|before-full|POST|$POST_PATH") ;;
    POST-normal) CELLS+=("POST-normal|floor|floor-normal|POST|$POST_PATH" "POST-normal|navprefs|navprefs-normal|POST|$POST_PATH"
                         "POST-normal|c|c-normal|POST|$POST_PATH")
                 [ -n "$SWIFT_MHD" ] && CELLS+=("POST-normal|swift-wal-event|swift-wal-event|POST|/counter/increment")
                 [ -n "$BEFORE" ] && CELLS+=("POST-normal|before|before-normal|POST|$POST_PATH") ;;
    GET) CELLS+=("GET|c|c-full|GET|$GET_PATH" "GET|floor|floor-full|GET|$GET_PATH" "GET|navprefs|navprefs-full|GET|$GET_PATH")
         [ -n "$BEFORE" ] && CELLS+=("GET|before|before-full|GET|$GET_PATH") ;;
    *) die "unknown group $g (POST-full, POST-normal, GET)" ;;
  esac
done
needed=" $(for cell in "${CELLS[@]}"; do IFS='|' read -r _ _ s _ _ <<<"$cell"; echo "$s"; done | sort -u | tr '\n' ' ')"
[[ $needed == *" webdis-always "* ]] && needed+="redis-always "

declare -A CURL_WRITES=()   # writes sent with curl, per server (for the integrity check)
port=$BASE_PORT
for name in $SERVER_ORDER; do
  [[ $needed == *" $name "* ]] || continue
  port=$((port + 1))
  dir=$OUT/db/$name
  mkdir -p "$dir"
  if [ "$name" = webdis-always ]; then
    cat >"$dir/webdis.json" <<EOF
{"redis_host": "127.0.0.1", "redis_port": ${PORTS[redis-always]}, "redis_auth": null,
 "http_host": "127.0.0.1", "http_port": $port, "threads": 1, "daemonize": false, "database": 0,
 "acl": [{"disabled": ["DEBUG"]}], "verbosity": 1, "logfile": "$dir/webdis.log"}
EOF
  fi
  cmd=${SERVER_CMD[$name]//@PORT@/$port}
  cmd=${cmd//@DB@/$dir/bench.sqlite}
  cmd=${cmd//@DIR@/$dir}
  eval "set -- $cmd"   # the redis command holds an empty argument ('')
  start_server "$name" "$port" "$SERVER_CPU" "$@"
  case $name in
    redis-always) continue ;;
    webdis-always) url="http://127.0.0.1:$port/INCR/counter"; code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url") ;;
    swift-*) code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "http://127.0.0.1:$port/counter/increment") ;;
    *) code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST -H 'Content-Type: application/json' \
              -d '{"by":1}' "http://127.0.0.1:$port$POST_PATH") ;;  # creates the profile: GETs find it in memory
  esac
  [ "$code" = 200 ] || die "$name: first write answered $code"
  CURL_WRITES[$name]=1
done

# The floor answers what navprefs answers (numbers, request id and date masked), on navprefs' schema.
for pair in "floor-full navprefs-full"; do
  read -r a b <<<"$pair"
  [ -n "${PORTS[$a]:-}" ] && [ -n "${PORTS[$b]:-}" ] || continue
  for s in "$a" "$b"; do
    answer_shape "http://127.0.0.1:${PORTS[$s]}$GET_PATH" >"$OUT/shape-get-$s.txt"
    answer_shape -X POST -H 'Content-Type: application/json' -d '{"by":1}' "http://127.0.0.1:${PORTS[$s]}$POST_PATH" >"$OUT/shape-post-$s.txt"
    CURL_WRITES[$s]=$(( ${CURL_WRITES[$s]} + 1 ))
  done
  for m in get post; do
    if cmp -s "$OUT/shape-$m-$a.txt" "$OUT/shape-$m-$b.txt"; then log "$m answers of $a and $b have the same shape"
    else log "warning: $m answers of $a and $b differ:"; diff "$OUT/shape-$m-$a.txt" "$OUT/shape-$m-$b.txt" >&2; fi
  done
  if [ "$(sqlite3 "$OUT/db/$a/bench.sqlite" .schema)" = "$(sqlite3 "$OUT/db/$b/bench.sqlite" .schema)" ]; then
    log "$a and $b have the same schema"
  else
    log "warning: the schemas of $a and $b differ"
  fi
done

RESULTS=$OUT/results.tsv
results_header
if [ "$WARMUP" != 0 ]; then
  for cell in "${CELLS[@]}"; do
    IFS='|' read -r group target server method path <<<"$cell"
    measure "$group" "$target" "$server" "$method" "http://127.0.0.1:${PORTS[$server]}$path" 16 0 "$WARMUP"
  done
fi
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
ps -eo pcpu,comm --sort=-pcpu | head -6 | tail -5 | awk '{ printf "%s %s%%; ", $2, $1 }' >"$OUT/busy-before.txt"
check_quiet
total=$(( ${#CELLS[@]} * REPS * $(wc -w <<<"$CONNS") ))
log "${#CELLS[@]} targets x conns ($CONNS) x $REPS reps x ${DUR}s = $total runs, about $(( total * (DUR + 2) / 60 + 1 )) min"
t_start=$SECONDS
for ((rep = 1; rep <= REPS; rep++)); do
  for c in $CONNS; do
    for cell in "${CELLS[@]}"; do
      IFS='|' read -r group target server method path <<<"$cell"
      measure "$group" "$target" "$server" "$method" "http://127.0.0.1:${PORTS[$server]}$path" "$c" "$rep" "$DUR"
    done
  done
done
log "measured in $((SECONDS - t_start)) s"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# After the load: every acknowledged write is in its counter (with its event row where there is an
# event log); the counter may exceed the acknowledged writes by those in flight when wrk stopped.
acked_of() {
  awk -F'\t' -v s="$1" 'NR > 1 && $3 == s && $1 != "GET" { n += $6 - $11 } END { print n + 0 }' "$RESULTS"
}
redis_counter=?
[ -n "${PORTS[redis-always]:-}" ] && redis_counter=$(redis-cli -p "${PORTS[redis-always]}" GET counter 2>/dev/null)
stop_all   # the floor prints its turns on SIGTERM; navprefs and C checkpoint
{
  printf 'server\tacknowledged\tcounter\tevents\tcounter - acknowledged\n'
  for name in $SERVER_ORDER; do
    [ -n "${CURL_WRITES[$name]:-}" ] || continue
    acked=$(( $(acked_of "$name") + ${CURL_WRITES[$name]} ))
    db=$OUT/db/$name/bench.sqlite
    case $name in
      webdis-always) value=$redis_counter; events=- ;;
      swift-*) value=$(sqlite3 "$db" 'SELECT value FROM counter' 2>/dev/null)
               events=$(sqlite3 "$db" 'SELECT count(*) FROM events' 2>/dev/null) ;;
      *) value=$(sqlite3 "$db" "SELECT CAST(json_extract(value, '\$') AS INTEGER) FROM preferences
                                WHERE profile = 'bench' AND key = 'numIndex'" 2>/dev/null)
         events=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE profile = 'bench'" 2>/dev/null) ;;
    esac
    [[ $value =~ ^[0-9]+$ ]] && diff=$((value - acked)) || { value='?'; diff='?'; }
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$acked" "$value" "${events:-?}" "$diff"
  done
} >"$OUT/integrity.tsv"
for name in floor-full floor-normal; do
  [ -f "$OUT/$name.log" ] && printf '%s: %s\n' "$name" "$(grep 'writes in' "$OUT/$name.log" | sed 's/^floor: //')"
done >"$OUT/turns.txt"

{
  echo "## Issue 34: the floor ($REPS reps x ${DUR}s, c = $CONNS)"
  echo
  machine_info
  printf -- '- load average before / after the measured runs: %s / %s; busiest processes before: %s; NICE=%s\n' \
    "$LOAD_BEFORE" "$LOAD_AFTER" "$(cat "$OUT/busy-before.txt")" "${NICE:-0}"
  [ -n "$BEFORE" ] && printf -- '- before: %s\n' "$BEFORE"
  echo
  python3 "$FLOOR_DIR/summarize.py" "$RESULTS"
  echo
  echo "Writes per turn of the floor (over the whole run, warm-up included):"
  echo
  sed 's/^/    /' "$OUT/turns.txt"
  echo
  echo "Counters after the run (acknowledged = 2xx answers wrk counted + curl's):"
  echo
  sed 's/\t/ | /g; s/^/| /; s/$/ |/' "$OUT/integrity.tsv" | sed '1a | --- | ---: | ---: | ---: | ---: |'
} >"$OUT/summary.md"
cat "$OUT/summary.md"
log "results: $OUT/summary.md, $OUT/results.tsv"
