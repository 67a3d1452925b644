# bench/lib.sh - helpers shared by run.sh, modes.sh and profile.sh (source it, do not run it).
#
#   * servers run under `taskset -c $SERVER_CPU` (every thread inherits the mask), wrk under
#     `taskset -c $LOAD_CPU`;
#   * only 127.0.0.1; every wait and every wrk run is bounded;
#   * every process started here is remembered by PID and stopped on exit (trap in the caller).

BENCH=${BENCH:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
ROOT=${ROOT:-$(dirname "$BENCH")}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
CLK_TCK=$(getconf CLK_TCK)

declare -gA PIDS=()   # server name -> pid
declare -gA PORTS=()  # server name -> port
declare -gA CHARGED=() # server name -> names of other servers whose CPU it is charged (webdis: its redis)

log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

# niced_session "$0" "$@": with NICE set (e.g. -10; root), runs the calling script again in a session
# of its own and sets that session's niceness, so that other busy processes get little CPU from the
# run. With autogroup scheduling (Linux' default) a niceness counts only against the processes of
# its own session. Call it once OUT is set, before anything is started.
niced_session() {
  [ "${NICE:-0}" != 0 ] || return 0
  if [ -z "${BENCH_OWN_SESSION:-}" ]; then
    OUT=$OUT BENCH_OWN_SESSION=1 exec setsid --wait bash "$@"
  fi
  if [ -w /proc/self/autogroup ] && echo "$NICE" >/proc/self/autogroup 2>/dev/null; then
    log "this run's session (autogroup): $(cat /proc/self/autogroup)"
  else
    renice -n "$NICE" -p $$ >/dev/null 2>&1 || log "warning: cannot set niceness $NICE (root is needed)"
  fi
}

raise_fd_limit() {
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  log "ulimit -n $(ulimit -n)"
}

# need_tools: checks what the benchmark needs; as root installs the missing Debian packages
# with apt-get (saying so), otherwise prints the command and stops.
need_tools() {
  local missing=() pkgs=()
  command -v wrk >/dev/null || { missing+=(wrk); pkgs+=(wrk); }
  command -v gcc >/dev/null || { missing+=(gcc); pkgs+=(gcc); }
  command -v pkg-config >/dev/null || { missing+=(pkg-config); pkgs+=(pkg-config); }
  command -v curl >/dev/null || { missing+=(curl); pkgs+=(curl); }
  command -v taskset >/dev/null || { missing+=(taskset); pkgs+=(util-linux); }
  command -v python3 >/dev/null || { missing+=(python3); pkgs+=(python3); }
  command -v sqlite3 >/dev/null || { missing+=(sqlite3); pkgs+=(sqlite3); }
  if command -v pkg-config >/dev/null; then
    pkg-config --exists libmicrohttpd || { missing+=(libmicrohttpd.pc); pkgs+=(libmicrohttpd-dev); }
    pkg-config --exists sqlite3 || { missing+=(sqlite3.pc); pkgs+=(libsqlite3-dev); }
  else
    pkgs+=(libmicrohttpd-dev libsqlite3-dev)
  fi
  if [ ${#pkgs[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      log "missing: ${missing[*]}; installing: apt-get install -y ${pkgs[*]}"
      apt-get install -y --no-install-recommends "${pkgs[@]}" >&2 || die "apt-get install failed"
    else
      die "missing: ${missing[*]}. Install with: sudo apt-get install -y ${pkgs[*]}"
    fi
  fi
  if [ "${NEED_SWIFT:-1}" = 1 ] && ! command -v swift >/dev/null; then
    die "swift is not in PATH (Swift 6.2 or later; https://www.swift.org/install/linux/)"
  fi
  [ "$(nproc)" -ge 2 ] || log "warning: $(nproc) CPU: server and wrk will share a core"
}

# build_reference: compiles bench/reference/counter.c into $OUT/counter
build_reference() {
  gcc -O2 -g -Wall -Wextra -o "$OUT/counter" "$BENCH/reference/counter.c" \
    $(pkg-config --cflags --libs libmicrohttpd sqlite3) -lpthread || die "cannot compile counter.c"
  COUNTER=$OUT/counter
}

# build_navprefs: swift build -c release in the repository, retried while someone else's edit
# leaves the sources broken (BUILD_RETRIES times, a minute apart). NAVPREFS=/path/to/navprefs
# skips the build and measures that binary instead.
build_navprefs() {
  local try
  if [ -n "${NAVPREFS:-}" ]; then  # a binary given by the caller: no build
    [ -x "$NAVPREFS" ] || die "NAVPREFS=$NAVPREFS is not an executable"
    log "using NAVPREFS=$NAVPREFS (not built here)"
    return 0
  fi
  for ((try = 1; try <= ${BUILD_RETRIES:-3}; try++)); do
    log "swift build -c release --product navprefs (in $ROOT)"
    if (cd "$ROOT" && swift build -c release --product navprefs >"$OUT/build.log" 2>&1); then
      NAVPREFS=$ROOT/.build/release/navprefs
      return 0
    fi
    tail -20 "$OUT/build.log" >&2
    [ "$try" -lt "${BUILD_RETRIES:-3}" ] && { log "build failed; retrying in 60 s"; sleep 60; }
  done
  die "navprefs does not build (see $OUT/build.log)"
}

port_open() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

# start_server NAME PORT CPUSPEC CMD...: starts CMD (pinned to CPUSPEC unless it is "-"), with
# stdout and stderr in $OUT/NAME.log, and waits (10 s at most) until it accepts on PORT.
start_server() {
  local name=$1 port=$2 cpus=$3 i; shift 3
  port_open "$port" && die "port $port is taken by another process (not starting $name)"
  if [ "$cpus" = - ]; then
    "$@" >"$OUT/$name.log" 2>&1 &
  else
    taskset -c "$cpus" "$@" >"$OUT/$name.log" 2>&1 &
  fi
  PIDS[$name]=$!
  PORTS[$name]=$port
  for ((i = 0; i < 200; i++)); do
    port_open "$port" && return 0
    kill -0 "${PIDS[$name]}" 2>/dev/null || break
    sleep 0.05
  done
  tail -5 "$OUT/$name.log" >&2
  die "$name did not start on port $port"
}

# stop_server NAME: SIGTERM, up to 10 s to exit (NavPrefs drains first), then SIGKILL.
stop_server() {
  local name=$1 pid=${PIDS[$1]:-} i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  unset "PIDS[$name]"
}

stop_all() { local n; for n in "${!PIDS[@]}"; do stop_server "$n"; done; }

# cleanup_run: the EXIT trap of a benchmark: stops its servers, removes $OUT/db unless KEEP_DB=1.
cleanup_run() {
  stop_all
  [ "${KEEP_DB:-0}" = 1 ] || rm -rf "$OUT/db"
}

# answer_shape CURL_ARGS...: an answer's head and body with the date, the request id and every
# number masked, for comparing two servers' answers.
answer_shape() { curl -si --max-time 5 "$@" | tr -d '\r' | sed -E 's/^Date: .*/Date: -/; s/^X-Request-ID: [0-9a-f]+-[0-9a-f]+$/X-Request-ID: ID/; s/[0-9]+/N/g'; }

# results_header: starts $RESULTS, the table measure appends to.
results_header() {
  printf 'group\ttarget\tserver\tconns\trep\trequests\trps\tp50_us\tp99_us\terrors\tnon2xx\tus_per_req\tserver_pct\tcpu0_pct\tcpu1_pct\n' >"$RESULTS"
}

# measure GROUP TARGET SERVER METHOD URL CONNS REP DURATION: one wrk run, one row of $RESULTS
# (rep 0 = warm-up, not logged).
measure() {
  local row requests rps p50 p99 errors non2xx upr spct c0 c1
  row=$(run_wrk "$2" "$3" "$4" "$5" "$6" "$8") || return 0
  read -r requests rps p50 p99 errors non2xx upr spct c0 c1 <<<"$row"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$6" "$7" \
    "$requests" "$rps" "$p50" "$p99" "$errors" "$non2xx" "$upr" "$spct" "$c0" "$c1" >>"$RESULTS"
  [ "$7" = 0 ] || log "rep $7 c=$6 $1 $2: $rps req/s p99 ${p99}us ${upr}us/req server ${spct}% cpu0 ${c0}% cpu1 ${c1}% err $errors/$non2xx"
}

# proc_ticks PID: utime + stime of the process, all its threads (clock ticks).
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# ticks_of PID...: the sum of proc_ticks over several processes.
ticks_of() { local sum=0 pid; for pid in "$@"; do sum=$((sum + $(proc_ticks "$pid"))); done; echo "$sum"; }

# cpu_snap: "busy total" jiffies of SERVER_CPU, then of LOAD_CPU.
cpu_snap() {
  awk -v a="cpu$SERVER_CPU" -v b="cpu$LOAD_CPU" '
    $1 == a || $1 == b { t = 0; for (i = 2; i <= NF; i++) t += $i; v[$1] = (t - $5 - $6) " " t }
    END { print v[a], v[b] }' /proc/stat
}

# run_wrk TARGET_LABEL SERVER METHOD URL CONNS DURATION: one wrk run; prints
#   requests rps p50_us p99_us errors non2xx us_per_req server_pct cpu0_pct cpu1_pct
# (server CPU per request and share from /proc/PID/stat, the servers in CHARGED[SERVER] included;
# busy share of both CPUs from /proc/stat).
run_wrk() {
  local label=$1 server=$2 method=$3 url=$4 c=$5 dur=$6 lua out r t0 t1 s0 s1 name pids=()
  for name in "$2" ${CHARGED[$2]:-}; do pids+=("${PIDS[$name]}"); done
  if [ "$method" = POST ]; then lua=$BENCH/lua/post.lua; else lua=$BENCH/lua/get.lua; fi
  t0=$(ticks_of "${pids[@]}"); s0=$(cpu_snap)
  out=$(taskset -c "$LOAD_CPU" wrk -t1 -c"$c" -d"${dur}s" --timeout 5s -s "$lua" "$url" 2>&1) || true
  s1=$(cpu_snap); t1=$(ticks_of "${pids[@]}")
  printf '### %s %s c=%s\n%s\n' "$label" "$method" "$c" "$out" >>"$OUT/wrk-raw.txt"
  r=$(printf '%s\n' "$out" | sed -n 's/^RESULT //p')
  [ -n "$r" ] || { log "wrk failed against $label: $out"; return 1; }
  local requests duration_us rps p50_us p99_us errors non2xx
  eval "$r"
  awk -v n="$requests" -v d="$duration_us" -v tk=$((t1 - t0)) -v hz="$CLK_TCK" -v s0="$s0" -v s1="$s1" \
      -v rest="$requests $rps $p50_us $p99_us $errors $non2xx" 'BEGIN {
    split(s0, a, " "); split(s1, b, " ");
    t0 = b[2] - a[2]; t1 = b[4] - a[4]; if (t0 < 1) t0 = 1; if (t1 < 1) t1 = 1;
    if (n < 1) n = 1;
    printf "%s %.2f %.0f %.0f %.0f\n", rest, tk / hz * 1e6 / n, 100 * tk / hz / (d / 1e6),
           100 * (b[1] - a[1]) / t0, 100 * (b[3] - a[3]) / t1 }'
}

# machine_info: one markdown paragraph on what ran where.
machine_info() {
  local model commit
  model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  commit=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)
  printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf -- '- machine: %s CPU (%s), %s GiB RAM, kernel %s, %s\n' "$(nproc)" "$model" \
    "$(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)" "$(uname -r)" \
    "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  printf -- '- libmicrohttpd %s, SQLite %s, %s, %s\n' "$(pkg-config --modversion libmicrohttpd)" \
    "$(pkg-config --modversion sqlite3)" "$(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)" \
    "$(swift --version 2>/dev/null | head -1 | sed 's/ (.*//' || echo 'swift ?')"
  printf -- '- navprefs: %s (repository at commit %s); server pinned to CPU %s, wrk (1 thread) to CPU %s\n' \
    "${NAVPREFS:-not used}" "$commit" "$SERVER_CPU" "$LOAD_CPU"
}

# check_quiet: measures both CPUs' busy share over 2 s while nothing of ours runs; warns when
# either is above 10 % (the figures would be noisy). With QUIET_WAIT=N, retries for up to N s.
check_quiet() {
  local waited=0 s0 s1 busy
  while :; do
    s0=$(cpu_snap); sleep 2; s1=$(cpu_snap)
    busy=$(awk -v s0="$s0" -v s1="$s1" 'BEGIN { split(s0, a, " "); split(s1, b, " ");
      x = 100 * (b[1] - a[1]) / (b[2] - a[2] + 1); y = 100 * (b[3] - a[3]) / (b[4] - a[4] + 1);
      printf "%.0f %.0f", x, y }')
    read -r x y <<<"$busy"
    if [ "$x" -le 10 ] && [ "$y" -le 10 ]; then log "idle check: CPU$SERVER_CPU ${x}% CPU$LOAD_CPU ${y}% busy"; return 0; fi
    if [ "$waited" -ge "${QUIET_WAIT:-0}" ]; then
      log "warning: the machine is busy before the run (CPU$SERVER_CPU ${x}%, CPU$LOAD_CPU ${y}%): expect noise"
      return 0
    fi
    sleep 8; waited=$((waited + 10))
  done
}
