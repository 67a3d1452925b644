#!/usr/bin/env bash
# bench/fanout/run.sh - SSE fan-out: one change, N idle subscribers, time until each has it.
#
# Targets (each started fresh for every run, pinned to CPU $SERVER_CPU, all threads):
#   c         fanout/mhd_sse.c: C libmicrohttpd in navprefs' mode streaming navprefs' bytes, nothing
#             else (the ceiling of navprefs' HTTP layer; also shows what the harness can take)
#   navprefs  navprefs --log-level warning, every other setting at its default
#   navprefs-quiet  the same with --sse-heartbeat 3600: idle as the C program is idle, with no
#             heartbeat due. navprefs staggers each stream's first heartbeat over the 15 s, so
#             10,000 streams get about 667 heartbeats a second from the start; what they cost
#             is navprefs' idle CPU less navprefs-quiet's, per block that arrived (idle_blocks)
#   nchan     Debian's nginx + libnginx-mod-nchan, one worker (fanout/nginx-nchan.conf)
# Every run: the harness (fanout/fanout.c, one thread, epoll, pinned to CPU $LOAD_CPU) reads the
# server's RSS, opens N subscriptions spread over $ADDRS source addresses 127.1.0.x, waits until
# each has its first `id:` line (nchan: its first block), reads the RSS again, holds them idle
# $IDLE s and reads the server's CPU time over that window, then makes $CHANGES changes
# ($GAP_MS ms apart) and times each subscriber's arrival of each:
#   navprefs, c: PUT /v1/profiles/bench/font {"sliderValue": 3} -> one `refresh` event
#   nchan:       POST /pub with the data of navprefs' refresh event -> one event
# Targets are interleaved inside every repetition and N. Then a memory sweep: navprefs and c with
# --connection-memory-bytes in $POOLS at N=$POOL_N (one repetition, $POOL_CHANGES changes).
# In repetition 1, navprefs also waits for its first heartbeat round (every 15 s by default) and
# reports what it costs.
#
#   bash bench/fanout/run.sh                      # about 3.5 min (root: apt-get, ulimit -n >= 10256)
#   NICE=-10 bash bench/fanout/run.sh             # on a machine where something else is busy
#   NS=10000 REPS=5 bash bench/fanout/run.sh
#   NAVPREFS=/path/to/navprefs bash bench/fanout/run.sh   # measure that binary (no build)
#   NAVPREFS_B=/path/to/other/navprefs bash ...  # also measure a second build as navprefs-b
#   POOLS= bash bench/fanout/run.sh               # no memory sweep
#
# Writes $OUT/runs.tsv (one row per run), $OUT/changes.tsv (one row per change), $OUT/summary.md.
set -uo pipefail
FANOUT=$(cd "$(dirname "$0")" && pwd)
BENCH=$(dirname "$FANOUT")
source "$BENCH/lib.sh"

NS=${NS:-"1000 10000"}             # subscriber counts
REPS=${REPS:-3}                    # repetitions; the tables report medians
CHANGES=${CHANGES:-5}              # changes per run
GAP_MS=${GAP_MS:-300}              # pause after each change (the publisher's answer is read meanwhile)
IDLE=${IDLE:-5}                    # seconds of idle CPU measurement per run
SETTLE_MS=${SETTLE_MS:-1000}       # wait after the last subscriber is established, before RSS
ADDRS=${ADDRS:-64}                 # source addresses (navprefs allows 256 streams per address)
TIMEOUT=${TIMEOUT:-20}             # harness timeout per phase, seconds
TARGETS=${TARGETS:-"c navprefs navprefs-quiet nchan"}
MAIN_POOL=${MAIN_POOL:-6144}       # connection memory of the main runs: navprefs' default (C: the same)
POOLS=${POOLS-"32768 8192 4096"}   # memory sweep (MAIN_POOL is in the main runs)
POOL_N=${POOL_N:-10000}
POOL_CHANGES=${POOL_CHANGES:-3}
HEARTBEAT_WAIT=${HEARTBEAT_WAIT:-20}  # 0: skip the heartbeat round
NICE=${NICE:-0}                    # e.g. -10 (root): the whole run in a session of its own at that
                                   # niceness, so that other busy processes get little CPU from it
BASE_PORT=${BASE_PORT:-27400}
OUT=${OUT:-$(mktemp -d /tmp/navprefs-fanout.XXXXXX)}
mkdir -p "$OUT"

niced_session "$0" "$@"   # NICE

cleanup() { stop_all; rm -rf "$OUT/db"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Tools: as root, installs what is missing with apt-get (saying so); otherwise prints the command.
need_fanout_tools() {
  local pkgs=()
  command -v gcc >/dev/null || pkgs+=(gcc libc6-dev)
  command -v pkg-config >/dev/null || pkgs+=(pkg-config)
  command -v curl >/dev/null || pkgs+=(curl)
  command -v taskset >/dev/null || pkgs+=(util-linux)
  command -v python3 >/dev/null || pkgs+=(python3)
  command -v nginx >/dev/null || pkgs+=(nginx)
  [ -f /usr/lib/nginx/modules/ngx_nchan_module.so ] || pkgs+=(libnginx-mod-nchan)
  { command -v pkg-config >/dev/null && pkg-config --exists libmicrohttpd; } || pkgs+=(libmicrohttpd-dev)
  if [ ${#pkgs[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      log "installing: apt-get install -y --no-install-recommends ${pkgs[*]}"
      apt-get install -y --no-install-recommends "${pkgs[@]}" >&2 || die "apt-get install failed"
    else
      die "missing tools. Install with: sudo apt-get install -y ${pkgs[*]}"
    fi
  fi
  if [ -z "${NAVPREFS:-}" ] && ! command -v swift >/dev/null; then
    die "swift is not in PATH (Swift 6.2 or later), or give NAVPREFS=/path/to/navprefs"
  fi
  [ "$(nproc)" -ge 2 ] || log "warning: $(nproc) CPU: server and harness share a core"
}

need_fanout_tools
raise_fd_limit
max_n=0; for n in $NS $( [ -n "$POOLS" ] && echo "$POOL_N" ); do [ "$n" -gt "$max_n" ] && max_n=$n; done
[ "$(ulimit -n)" -ge $((max_n + 256)) ] || die "ulimit -n is $(ulimit -n): need $((max_n + 256)) (raise the hard limit)"
NOFILE=$(ulimit -n)
build_navprefs
gcc -O2 -g -Wall -Wextra -o "$OUT/fanout" "$FANOUT/fanout.c" || die "cannot compile fanout.c"
gcc -O2 -g -Wall -Wextra -o "$OUT/mhd_sse" "$FANOUT/mhd_sse.c" $(pkg-config --cflags --libs libmicrohttpd) ||
  die "cannot compile mhd_sse.c"
log "results in $OUT"

EVENTS_PATH=/v1/profiles/bench/events
FONT_PATH=/v1/profiles/bench/font
FONT_BODY='{"sliderValue": 3}'
# the data of navprefs' refresh event, published to nchan so that both send frames of one size
NCHAN_BODY='{"profile":"bench","name":"doRefreshNotification","keys":["sliderValuekey","fontSizekey"],"sliderValue":3.0,"fontSize":20.0,"effectiveFontSize":20.0,"version":2}'

RUNS=$OUT/runs.tsv
CHANGES_TSV=$OUT/changes.tsv
printf 'target\tpool\tn\trep\topen\tfailed\tconnect_ms\trss0_kb\trss1_kb\trss2_kb\tbytes_per_sub\tidle_s\tidle_ticks\tidle_cpu_ms\tfirst_ms\tp50_ms\tp99_ms\tmax_ms\tmax_worst_ms\tlost\textra\tdropped\tbad_publish\tharness_cpu_ms\tharness_share_pct\tserver_cpu_ms\thb_subs\thb_spread_ms\thb_cpu_ms\tidle_blocks\n' >"$RUNS"
printf 'target\tpool\tn\trep\tm\tgot\tof\tpublisher\tfirst_ms\tp50_ms\tp99_ms\tmax_ms\twindow_ms\tharness_cpu_ms\tserver_cpu_ms\tserver_wait_ms\tharness_wait_ms\n' >"$CHANGES_TSV"

port=$BASE_PORT
# run_one TARGET N REP POOL CHANGES: one fresh server, one harness run, one row in runs.tsv
run_one() {
  local target=$1 n=$2 rep=$3 pool=$4 changes=$5 name pids change_line publish body ready code hb=0 out r
  port=$((port + 1)); name="$target-$n-$rep-$pool"
  case $target in
    c)
      start_server "$name" "$port" "$SERVER_CPU" "$OUT/mhd_sse" "$port" "$pool"
      pids=${PIDS[$name]}; publish="PUT $FONT_PATH"; body=$FONT_BODY; ready=id ;;
    navprefs|navprefs-b|navprefs-quiet)
      local bin=$NAVPREFS quiet=()
      [ "$target" = navprefs-b ] && bin=$NAVPREFS_B
      [ "$target" = navprefs-quiet ] && quiet=(--sse-heartbeat 3600)
      mkdir -p "$OUT/db/$name"
      start_server "$name" "$port" "$SERVER_CPU" "$bin" --host 127.0.0.1 --port "$port" \
        --database "sqlite:$OUT/db/$name/bench.sqlite" --log-level warning --connection-memory-bytes "$pool" \
        --sse-max-subscribers "$(( max_n > 10000 ? max_n : 10000 ))" "${quiet[@]}"
      pids=${PIDS[$name]}; publish="PUT $FONT_PATH"; body=$FONT_BODY; ready=id
      [ "$rep" = 1 ] && [ "$changes" = "$CHANGES" ] && [ "$target" != navprefs-quiet ] && hb=$HEARTBEAT_WAIT ;;
    nchan)
      mkdir -p "$OUT/$name/tmp"
      sed -e "s/@PORT@/$port/" -e "s/@NOFILE@/$NOFILE/" "$FANOUT/nginx-nchan.conf" >"$OUT/$name/nginx.conf"
      start_server "$name" "$port" "$SERVER_CPU" nginx -p "$OUT/$name/" -c "$OUT/$name/nginx.conf" -e stderr
      local worker='' i
      for ((i = 0; i < 50; i++)); do worker=$(pgrep -P "${PIDS[$name]}" | head -1); [ -n "$worker" ] && break; sleep 0.05; done
      pids="${PIDS[$name]}${worker:+,$worker}"; publish="POST /pub"; body=$NCHAN_BODY; ready=frame ;;
    *) die "unknown target $target" ;;
  esac
  # one change before measuring: the profile (navprefs: its rows, the event log) exists, code is warm
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X "${publish%% *}" -H 'Content-Type: application/json' \
         -d "$body" "http://127.0.0.1:$port${publish#* }")
  [[ $code == 2* ]] || log "warning: $name: warm-up change answered $code"
  sleep 0.2
  out=$(taskset -c "$LOAD_CPU" "$OUT/fanout" -p "$port" -n "$n" -a "$ADDRS" -s "$EVENTS_PATH" -u "$publish" -b "$body" \
          -e "$ready" -m "$changes" -g "$GAP_MS" -S "$SETTLE_MS" -I "$([ "$changes" = "$CHANGES" ] && echo "$IDLE" || echo 0)" \
          -H "$hb" -t "$TIMEOUT" -r "$pids" -l "$name" 2>>"$OUT/harness.log")
  stop_server "$name"
  printf '%s\n' "$out" >>"$OUT/harness-raw.txt"
  r=$(printf '%s\n' "$out" | sed -n 's/^RESULT //p')
  [ -n "$r" ] || { log "harness failed against $name (see $OUT/harness.log)"; return 0; }
  local label open failed connect_ms rss0_kb rss1_kb rss2_kb bytes_per_sub idle_s idle_ticks idle_cpu_ms changes_done \
        first_ms p50_ms p99_ms max_ms max_worst_ms lost lost_in_window extra dropped bad_publish harness_cpu_ms \
        harness_share_pct server_cpu_ms hb_subs hb_spread_ms hb_cpu_ms idle_blocks
  eval "$(printf '%s' "$r" | sed 's/ changes=/ changes_done=/; s/ n=[0-9]*//')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$target" "$pool" "$n" "$rep" "$open" "$failed" "$connect_ms" "$rss0_kb" "$rss1_kb" "$rss2_kb" "$bytes_per_sub" \
    "$idle_s" "$idle_ticks" "$idle_cpu_ms" "$first_ms" "$p50_ms" "$p99_ms" "$max_ms" "$max_worst_ms" "$lost" "$extra" \
    "$dropped" "$bad_publish" "$harness_cpu_ms" "$harness_share_pct" "$server_cpu_ms" "$hb_subs" "$hb_spread_ms" "$hb_cpu_ms" "$idle_blocks" >>"$RUNS"
  printf '%s\n' "$out" | sed -n 's/^CHANGE //p' | while read -r change_line; do
    local m got of publisher first_ms p50_ms p99_ms max_ms window_ms harness_cpu_ms server_cpu_ms server_wait_ms harness_wait_ms
    eval "$(printf '%s' "$change_line" | sed 's/^label=[^ ]* n=[0-9]* //')"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$pool" "$n" "$rep" "$m" "$got" \
      "$of" "$publisher" "$first_ms" "$p50_ms" "$p99_ms" "$max_ms" "$window_ms" "$harness_cpu_ms" "$server_cpu_ms" \
      "$server_wait_ms" "$harness_wait_ms" >>"$CHANGES_TSV"
  done
  log "$name: $open/$n open, p50 ${p50_ms} p99 ${p99_ms} max ${max_ms} ms, lost $lost, ${bytes_per_sub} B/subscriber," \
      "idle ${idle_cpu_ms} ms CPU in ${idle_s} s, harness ${harness_share_pct}% busy"
}

targets=$TARGETS
[ -n "${NAVPREFS_B:-}" ] && targets="$targets navprefs-b"
check_quiet
t_start=$SECONDS
for ((rep = 1; rep <= REPS; rep++)); do
  for n in $NS; do
    for t in $targets; do run_one "$t" "$n" "$rep" "$MAIN_POOL" "$CHANGES"; done
  done
done
for pool in $POOLS; do
  for t in $targets; do
    [ "$t" = nchan ] && continue
    run_one "$t" "$POOL_N" 1 "$pool" "$POOL_CHANGES"
  done
done
log "measured in $((SECONDS - t_start)) s"

{
  echo "## SSE fan-out ($REPS reps x $CHANGES changes, N = $NS)"
  echo
  printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf -- '- machine: %s CPU (%s), kernel %s, %s\n' "$(nproc)" \
    "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(uname -r)" \
    "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  printf -- '- libmicrohttpd %s, %s, nchan %s\n' "$(pkg-config --modversion libmicrohttpd)" "$(nginx -v 2>&1 | sed 's/.*: //')" \
    "$(dpkg-query -W -f '${Version}' libnginx-mod-nchan 2>/dev/null || echo '?')"
  printf -- '- navprefs: %s (repository at %s); server on CPU %s, harness on CPU %s; %s source addresses%s\n' "$NAVPREFS" \
    "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')" "$SERVER_CPU" "$LOAD_CPU" "$ADDRS" \
    "$([ "$NICE" != 0 ] && echo "; run in a session (autogroup) of its own at nice $NICE")"
  echo
  MAIN_POOL=$MAIN_POOL python3 "$FANOUT/summarize.py" "$RUNS" "$CHANGES_TSV"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
log "results: $OUT/summary.md, $OUT/runs.tsv, $OUT/changes.tsv"
