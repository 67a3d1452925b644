#!/usr/bin/env bash
# bench/postgres/run.sh - navprefs on PostgreSQL against navprefs on SQLite, in one run, on loopback.
#
# 1. Increments: wrk -t1 (bench/postgres/increment.lua) POSTs {"by":1} to
#    /v1/profiles/<p>/counter/increment against four targets, interleaved in every repetition:
#      sqlite        one navprefs on SQLite, --sqlite-synchronous full (the default)
#      pg            one navprefs on PostgreSQL (fsync on, synchronous_commit on: also durable)
#      pg2-nginx     two navprefs on the same PostgreSQL database behind nginx, with the shipped
#                    deploy/nginx-navprefs.conf (ports substituted like scripts/check-nginx.py)
#      sqlite-nginx  one navprefs on SQLite behind the same file with its one upstream: nginx's
#                    own cost (÷ sqlite), and pg2-nginx ÷ sqlite-nginx compares the stores with
#                    nginx on both sides
#      pgbench       the reference for the PostgreSQL rows: Debian's pgbench on the same cluster
#                    (same pinning, same durability) running the transaction shape of one
#                    increment, prepared: upsert the counter row, append the event row,
#                    pg_notify, commit (bench-anchors' pgbench-anchor.sh). Its clients are wrk's
#                    connections; its rate is what a navprefs-on-PostgreSQL could reach if
#                    PostgreSQL were its only cost (pg ÷ pgbench)
#    in two profile modes:
#      spread  $PROFILES profiles (s1, s2, ...; 64 by default), round robin: many users, each
#              writing their own profile; in PostgreSQL, commits on different rows run
#              concurrently and share WAL flushes
#      hot     one profile (hot1): every increment locks the same `profiles` row, so PostgreSQL
#              commits them one after the other (one WAL flush each) while SQLite's writer
#              thread still groups them: the worst case for PostgreSQL
#    After the load, every counter is read over HTTP (from both instances for pg2-nginx, which
#    must agree) and compared with the 2xx answers wrk got for that profile: counter >= acked,
#    and counter - acked <= what was not acknowledged (in flight at the end of each run, wrk's
#    socket errors and timeouts, non-2xx answers).
# 2. Fan-out: N subscribers of /v1/profiles/bench/events, one font change
#    (PUT /v1/profiles/bench/font {"sliderValue": 3}) through instance A, time until each
#    subscriber has the `refresh` event (p50, p99, max, lost). Targets, fresh servers and a
#    fresh database for every run:
#      pg2     two instances on PostgreSQL, subscribers split evenly (odd ones on B); B gets the
#              event through PostgreSQL's NOTIFY/LISTEN
#      sqlite  the same N on one SQLite instance
#    Harness: bench/fanout/fanout.c with -P PORT2 (one process, one clock).
#
# Placement (2 cores): CPU $SERVER_CPU runs the whole server side (every navprefs instance,
# nginx, PostgreSQL's postmaster and every backend); CPU $LOAD_CPU runs wrk or the harness.
# Two instances on one core cannot show a scale-out gain: the pg2 rows measure what sharing
# PostgreSQL costs and whether it stays correct, not capacity.
#
#   NAVPREFS=/tmp/bench-tree/.build/release/navprefs bash bench/postgres/run.sh     # about 7 min
#   DUR=3 REPS=1 CONNS=16 NS=200 FANOUT_REPS=1 CHANGES=2 NAVPREFS=... bash bench/postgres/run.sh  # smoke run
#
# Writes $OUT/summary.md (printed at the end), results.tsv, acked.tsv, unacked.tsv,
# counters.tsv, fanout.txt, placement.txt, the server logs and wrk's raw output.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$(dirname "$HERE")
source "$BENCH/lib.sh"

DUR=${DUR:-5}                     # seconds per wrk run
REPS=${REPS:-3}                   # repetitions; the tables report medians
CONNS=${CONNS:-"16 64"}           # wrk connections
WARMUP=${WARMUP:-1}               # seconds of unrecorded load per target and mode (0: none)
MODES=${MODES-"spread hot"}       # empty: no increments
PROFILES=${PROFILES:-64}          # profiles of the spread mode
TARGETS=${TARGETS-"sqlite pg pg2-nginx sqlite-nginx pgbench"}   # sqlite first (the baseline); empty: no increments
NS=${NS-"1000 10000"}             # fan-out subscriber counts (10000 is dropped if ulimit -n is too low)
FANOUT_TARGETS=${FANOUT_TARGETS-"sqlite pg2"}
FANOUT_REPS=${FANOUT_REPS:-3}
CHANGES=${CHANGES:-5}             # changes per fan-out run
GAP_MS=${GAP_MS:-300}
SETTLE_MS=${SETTLE_MS:-1000}
ADDRS=${ADDRS:-64}                # source addresses: navprefs allows 256 streams per address
TIMEOUT=${TIMEOUT:-20}            # harness timeout per phase, seconds
LOG_LEVEL=${LOG_LEVEL:-warning}   # the same for every instance; see below
PG_CPU=${PG_CPU:-$SERVER_CPU}
NGINX_CPU=${NGINX_CPU:-$SERVER_CPU}
NICE=${NICE:-0}                   # e.g. -10 (root): the run in a session of its own at that niceness
BASE_PORT=${BASE_PORT:-27500}     # ports 275xx (bench/ uses 271xx-274xx)
OUT=${OUT:-$(mktemp -d /tmp/navprefs-pgbench.XXXXXX)}
mkdir -p "$OUT"

niced_session "$0" "$@"   # NICE

# The binary under test is built elsewhere (a worktree at a known commit), never here: other
# people edit this checkout while the bench runs.
if [ -z "${NAVPREFS:-}" ] && [ -x /tmp/bench-tree/.build/release/navprefs ]; then
  NAVPREFS=/tmp/bench-tree/.build/release/navprefs
fi
[ -n "${NAVPREFS:-}" ] && [ -x "$NAVPREFS" ] || die "give the binary: git -C $ROOT worktree add -f /tmp/bench-tree HEAD &&
  (cd /tmp/bench-tree && swift build -c release --product navprefs) && NAVPREFS=/tmp/bench-tree/.build/release/navprefs bash $0"
# The nginx file and postgres.sh come from the tree the binary was built in (when it is one), so
# that the configuration under test matches the binary, not whatever is being edited here.
SRC=${SRC:-}
if [ -z "$SRC" ]; then
  case $NAVPREFS in */.build/*) SRC=${NAVPREFS%%/.build/*} ;; *) SRC=$ROOT ;; esac
  [ -f "$SRC/deploy/nginx-navprefs.conf" ] && [ -f "$SRC/scripts/lib/postgres.sh" ] || SRC=$ROOT
fi
NGINX_CONF=$SRC/deploy/nginx-navprefs.conf
PG_SH=$SRC/scripts/lib/postgres.sh
[ -f "$NGINX_CONF" ] && [ -f "$PG_SH" ] || die "no deploy/nginx-navprefs.conf or scripts/lib/postgres.sh in $SRC"

PG_DIR=''
cleanup() {
  stop_all
  # PostgreSQL last: the instances above hold connections to it
  [ -n "$PG_DIR" ] && bash "$PG_SH" stop "$PG_DIR" >/dev/null 2>&1
  rm -rf "$OUT/db"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

NEED_SWIFT=0 need_tools          # wrk, gcc, curl, taskset, python3 (apt-get as root)
command -v nginx >/dev/null || {
  [ "$(id -u)" = 0 ] || die "nginx is missing: sudo apt-get install -y nginx"
  apt-get install -y --no-install-recommends nginx >&2 || die "apt-get install nginx failed"
}
raise_fd_limit
# fan-out: the harness holds N sockets, the SQLite instance N streams; drop what does not fit
ns_ok=''
for n in $NS; do
  if [ "$(ulimit -n)" -ge $((n + 256)) ]; then ns_ok+="$n "; else log "ulimit -n $(ulimit -n) < $n + 256: no fan-out with N=$n"; NS_DROPPED+="$n "; fi
done
NS=${ns_ok% }
gcc -O2 -g -Wall -Wextra -o "$OUT/fanout2" "$HERE/../fanout/fanout.c" || die "cannot compile bench/fanout/fanout.c"
chmod 755 "$OUT"   # nginx's workers (user nobody) must reach their files under $OUT
log "results in $OUT; navprefs $NAVPREFS; nginx file and postgres.sh from $SRC"

# ---------------------------------------------------------------- PostgreSQL
# A throwaway cluster (initdb in a temporary directory, loopback only). Durable like SQLite FULL:
# NAVPREFS_POSTGRES_FAST (fsync off) is cleared for this call, and the settings are checked.
PG_STATS=${PG_STATS:-1}           # 1: pg_stat_statements on (where PostgreSQL's time goes, per statement)
eval "$(env -u NAVPREFS_POSTGRES_FAST NAVPREFS_POSTGRES_STATS=$PG_STATS bash "$PG_SH" start)" || die "postgres.sh start failed"
PG_DIR=$NAVPREFS_TEST_POSTGRES_DIR
PG_URL=$NAVPREFS_TEST_POSTGRES_URL
psql_() { PGOPTIONS="-c client_min_messages=warning" psql "$PG_URL" -v ON_ERROR_STOP=1 -qAt "$@"; }
for setting in fsync synchronous_commit; do
  [ "$(psql_ -c "SHOW $setting")" = on ] || die "PostgreSQL $setting is not on: the comparison with SQLite FULL would be unfair"
done
PG_SETTINGS=$(psql_ -c "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ', ' ORDER BY name) FROM pg_settings
  WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'commit_delay',
                 'shared_buffers', 'max_connections', 'server_version')")
PG_MASTER=$(head -1 "$PG_DIR/data/postmaster.pid")
[ "$PG_STATS" = 1 ] && { psql_ -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" || die "pg_stat_statements"; }
# Pin the running cluster; backends forked later inherit the postmaster's mask.
pg_pids() { echo "$PG_MASTER" $(pgrep -P "$PG_MASTER"); }
for pid in $(pg_pids); do taskset -a -p -c "$PG_CPU" "$pid" >/dev/null || die "cannot pin PostgreSQL pid $pid"; done
log "PostgreSQL: $PG_SETTINGS; pinned to CPU $PG_CPU"
PG_BASE=${PG_URL%%\?*}; PG_QUERY=${PG_URL#"$PG_BASE"}
# new_db NAME: a fresh database; prints its URL
new_db() {
  psql_ -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >&2 || die "CREATE DATABASE $1 failed"
  echo "${PG_BASE%/*}/$1$PG_QUERY"
}

# ---------------------------------------------------------------- servers
# Request logs are off (--log-level warning) for every instance alike: at info every request
# writes a line (about 1 µs, see bench/README.md), and a full run would write gigabytes.
# --readiness-drain 0: stops take no extra second (nothing balances away from them here).
start_navprefs() {  # NAME PORT DATABASE_URL [more flags]
  local name=$1 port=$2 db=$3; shift 3
  start_server "$name" "$port" "$SERVER_CPU" "$NAVPREFS" --host 127.0.0.1 --port "$port" --database "$db" \
    --log-level "$LOG_LEVEL" --readiness-drain 0 "$@"
  wait_ready "$name" "$port"
}
wait_ready() {  # NAME PORT: /readyz answers 200 (10 s at most)
  local i
  for ((i = 0; i < 100; i++)); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$2/readyz")" = 200 ] && return 0
    sleep 0.1
  done
  tail -5 "$OUT/$1.log" >&2; die "$1 is not ready on port $2"
}
# start_nginx NAME FRONT_PORT UPSTREAM_PORT [UPSTREAM_PORT2]: the shipped file, with its ports
# replaced as scripts/check-nginx.py does; with one upstream port its second server line goes.
start_nginx() {
  local name=$1 front=$2 up1=$3 up2=${4:-} dir=$OUT/$1
  mkdir -p "$dir"; chmod 755 "$dir"
  if [ -n "$up2" ]; then
    sed -e "s/127\.0\.0\.1:8081/127.0.0.1:$up1/; s/127\.0\.0\.1:8082/127.0.0.1:$up2/" \
        -e "s/listen 8080;/listen 127.0.0.1:$front;/" "$NGINX_CONF" >"$dir/navprefs.conf"
  else
    sed -e "s/127\.0\.0\.1:8081/127.0.0.1:$up1/; /127\.0\.0\.1:8082/d" \
        -e "s/listen 8080;/listen 127.0.0.1:$front;/" "$NGINX_CONF" >"$dir/navprefs.conf"
  fi
  grep -q "listen 127.0.0.1:$front;" "$dir/navprefs.conf" && grep -q "127.0.0.1:$up1 " "$dir/navprefs.conf" ||
    die "the substitution did not apply to $NGINX_CONF (has the file changed?)"
  # the wrapper of scripts/check-nginx.py, with one worker (the default) and room for 10k sockets
  cat >"$dir/nginx.conf" <<EOF
daemon off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    include $dir/navprefs.conf;
}
EOF
  nginx -t -q -p "$dir/" -c "$dir/nginx.conf" 2>"$dir/nginx-t.log" || { cat "$dir/nginx-t.log" >&2; die "nginx -t failed for $name"; }
  start_server "$name" "$front" "$NGINX_CPU" nginx -p "$dir/" -c "$dir/nginx.conf" -e stderr
  wait_ready "$name" "$front"
}
nginx_pids() { echo "${PIDS[$1]}" $(pgrep -P "${PIDS[$1]}"); }
cpus_of() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo '?'; }
# where NAME PID...: one placement line per process, from the kernel's own affinity
where() {
  local name=$1 pid; shift
  for pid in "$@"; do printf '%s\t%s\t%s\t%s\n' "$name" "$pid" "$(cpus_of "$pid")" "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-100)"; done >>"$OUT/placement.txt"
}

# ---------------------------------------------------------------- 1. increments
P=$BASE_PORT
declare -A FRONT=()        # target -> port wrk talks to
declare -A INSTANCES=()    # target -> navprefs instances behind it (their counters are read)
declare -A SIDE=()         # target -> server names whose CPU counts (navprefs, nginx; + PostgreSQL)
declare -A ON_PG=()
declare -A PREFIX=([spread]=s [hot]=hot) COUNT=([spread]=$PROFILES [hot]=1)
for mode in $MODES; do [ -n "${PREFIX[$mode]:-}" ] || die "unknown mode $mode (spread hot)"; done
# every process whose CPU time is the server side of TARGET
side_pids() {
  local s
  for s in ${SIDE[$1]}; do case $s in nginx-*) nginx_pids "$s" ;; *) echo "${PIDS[$s]}" ;; esac; done
  [ "${ON_PG[$1]}" = 1 ] && pg_pids
}

# pg_total_ticks: PostgreSQL's CPU so far, including backends that have exited (the postmaster
# reaps them, so their time is in its cutime + cstime) and those running now.
pg_total_ticks() {
  local sum pid
  sum=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$PG_MASTER/stat")
  for pid in $(pgrep -P "$PG_MASTER"); do sum=$((sum + $(proc_ticks "$pid"))); done
  echo "$sum"
}

# pgbench_script MODE: the increment-shaped transaction for MODE's profiles (a file under $OUT)
pgbench_script() {
  local file=$OUT/pgbench-$1.sql
  cat >"$file" <<SQL
\set p random(1, ${COUNT[$1]})
BEGIN;
INSERT INTO counters AS c (profile, value, version) VALUES ('${PREFIX[$1]}' || :p, 1, 1)
  ON CONFLICT (profile) DO UPDATE SET value = c.value + 1, version = c.version + 1 RETURNING value, version \gset
INSERT INTO events (profile, id, type, data) VALUES ('${PREFIX[$1]}' || :p, :version, 'counter', '{"profile":"${PREFIX[$1]}' || :p || '","value":' || :value || '}');
SELECT pg_notify('navprefs', '${PREFIX[$1]}' || :p || ':' || :version);
COMMIT;
SQL
  echo "$file"
}

# measure_pgbench MODE CONNS REP DURATION: one pgbench run on CPU $LOAD_CPU, one row like wrk's
# (latency percentiles from pgbench's per-transaction log; PostgreSQL's CPU is the server side)
measure_pgbench() {
  local mode=$1 c=$2 rep=$3 dur=$4 out t0 t1 s0 s1 tps requests stats lat
  rm -f "$OUT"/pgbench-log.*
  t0=$(pg_total_ticks); s0=$(cpu_snap)
  out=$(cd "$OUT" && taskset -c "$LOAD_CPU" "$PGBENCH" -n -M prepared -c "$c" -j 1 -T "$dur" -l --log-prefix=pgbench-log \
          -f "$(pgbench_script "$mode")" "$PGBENCH_URL" 2>&1)
  s1=$(cpu_snap); sleep 0.3; t1=$(pg_total_ticks)   # pgbench's backends exit and are reaped
  printf '### pgbench %s c=%s rep=%s\n%s\n' "$mode" "$c" "$rep" "$out" >>"$OUT/wrk-raw.txt"
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
  [ -n "$tps" ] || { log "pgbench failed: $(tail -3 <<<"$out")"; return 0; }
  requests=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  # the log's third field: the transaction's latency in µs
  lat=$(cat "$OUT"/pgbench-log.* | awk '{ print $3 }' | sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "0 0"; exit } printf "%d %d", v[int(NR * 0.5) + (NR * 0.5 > int(NR * 0.5))], v[int(NR * 0.99) + (NR * 0.99 > int(NR * 0.99))] }')
  stats=$(awk -v n="$requests" -v pg=$((t1 - t0)) -v hz="$CLK_TCK" -v s0="$s0" -v s1="$s1" 'BEGIN {
    split(s0, a, " "); split(s1, b, " "); d0 = b[2] - a[2]; d1 = b[4] - a[4]; if (d0 < 1) d0 = 1; if (d1 < 1) d1 = 1;
    if (n < 1) n = 1; printf "%.1f\t%.1f\t%.0f\t%.0f", pg / hz * 1e6 / n, pg / hz * 1e6 / n, 100 * (b[1] - a[1]) / d0, 100 * (b[3] - a[3]) / d1 }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" pgbench "$c" "$rep" "$requests" "$tps" ${lat% *} ${lat#* } \
    0 0 "$stats" >>"$RESULTS"
  [ "$rep" = 0 ] || log "rep $rep $mode c=$c pgbench: $tps tps p50 ${lat% *}us p99 ${lat#* }us server side $(cut -f1 <<<"$stats") us/txn"
}

# measure MODE TARGET CONNS REP DURATION: one wrk run, one row (rep 0: warm-up, not in the tables)
measure() {
  local mode=$1 t=$2 c=$3 rep=$4 dur=$5 pids pgp='' out r t0 t1 g0=0 g1=0 s0 s1 stats
  [ "$t" = pgbench ] && { measure_pgbench "$mode" "$c" "$rep" "$dur"; return 0; }
  local requests duration_us rps p50_us p99_us errors non2xx
  pids=$(side_pids "$t")
  [ "${ON_PG[$t]}" = 1 ] && pgp=$(pg_pids)   # PostgreSQL's share of the server side, shown apart
  # shellcheck disable=SC2086
  t0=$(ticks_of $pids); g0=$(ticks_of $pgp); s0=$(cpu_snap)
  out=$(taskset -c "$LOAD_CPU" wrk -t1 -c"$c" -d"${dur}s" --timeout 5s -s "$HERE/increment.lua" \
          "http://127.0.0.1:${FRONT[$t]}" -- "${PREFIX[$mode]}" "${COUNT[$mode]}" 2>&1)
  # shellcheck disable=SC2086
  s1=$(cpu_snap); t1=$(ticks_of $pids); g1=$(ticks_of $pgp)
  printf '### %s %s c=%s rep=%s\n%s\n' "$t" "$mode" "$c" "$rep" "$out" >>"$OUT/wrk-raw.txt"
  r=$(printf '%s\n' "$out" | sed -n 's/^RESULT //p')
  # No RESULT: nothing was counted, so the whole connection count stays unaccounted for.
  [ -n "$r" ] || { log "wrk failed against $t: $(printf '%s' "$out" | tail -3)"; printf '%s\t%s\t%s\n' "$t" "$mode" "$c" >>"$OUT/unacked.tsv"; return 0; }
  eval "$r"
  printf '%s\n' "$out" | awk -v t="$t" -v m="$mode" '$1 == "ACKED" { print t "\t" m "\t" $2 "\t" $3 }' >>"$OUT/acked.tsv"
  # What may have been applied without a 2xx: the requests in flight when wrk stopped (at most
  # c), socket errors and timeouts, and non-2xx answers (nginx's 502 may follow a commit).
  printf '%s\t%s\t%s\n' "$t" "$mode" $((c + errors + non2xx)) >>"$OUT/unacked.tsv"
  stats=$(awk -v n="$requests" -v tk=$((t1 - t0)) -v pg=$((g1 - g0)) -v hz="$CLK_TCK" -v s0="$s0" -v s1="$s1" 'BEGIN {
    split(s0, a, " "); split(s1, b, " "); d0 = b[2] - a[2]; d1 = b[4] - a[4]; if (d0 < 1) d0 = 1; if (d1 < 1) d1 = 1;
    if (n < 1) n = 1; printf "%.1f\t%.1f\t%.0f\t%.0f", tk / hz * 1e6 / n, pg / hz * 1e6 / n, 100 * (b[1] - a[1]) / d0, 100 * (b[3] - a[3]) / d1 }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "$c" "$rep" "$requests" "$rps" "$p50_us" "$p99_us" \
    "$errors" "$non2xx" "$stats" >>"$RESULTS"
  [ "$rep" = 0 ] || log "rep $rep $mode c=$c $t: $rps req/s p50 ${p50_us}us p99 ${p99_us}us errors $errors non-2xx $non2xx" \
    "server side $(cut -f1 <<<"$stats") us/req"
}

# run_increments: starts every target's servers, runs wrk, reads the counters, stops the servers
run_increments() {
  for t in $TARGETS; do
    case $t in
      sqlite)
        start_navprefs sqlite $((P + 1)) "sqlite://$OUT/db/sqlite.sqlite" --sqlite-synchronous full
        FRONT[$t]=$((P + 1)); INSTANCES[$t]=sqlite; SIDE[$t]=sqlite; ON_PG[$t]=0 ;;
      pg)
        start_navprefs pg $((P + 2)) "$(new_db navprefs_bench_pg)"
        FRONT[$t]=$((P + 2)); INSTANCES[$t]=pg; SIDE[$t]=pg; ON_PG[$t]=1 ;;
      pg2-nginx)
        url=$(new_db navprefs_bench_pg2)
        start_navprefs pg2-a $((P + 3)) "$url"
        start_navprefs pg2-b $((P + 4)) "$url"
        start_nginx nginx-pg2 $((P + 5)) $((P + 3)) $((P + 4))
        FRONT[$t]=$((P + 5)); INSTANCES[$t]="pg2-a pg2-b"; SIDE[$t]="pg2-a pg2-b nginx-pg2"; ON_PG[$t]=1 ;;
      sqlite-nginx)
        start_navprefs sqlite-n $((P + 6)) "sqlite://$OUT/db/sqlite-n.sqlite" --sqlite-synchronous full
        start_nginx nginx-sqlite $((P + 7)) $((P + 6))
        FRONT[$t]=$((P + 7)); INSTANCES[$t]=sqlite-n; SIDE[$t]="sqlite-n nginx-sqlite"; ON_PG[$t]=0 ;;
      pgbench)
        PGBENCH=$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
        [ -x "$PGBENCH" ] || die "no pgbench (Debian's postgresql package has it)"
        PGBENCH_URL=$(new_db navprefs_bench_pgbench)
        PGOPTIONS="-c client_min_messages=warning" psql "$PGBENCH_URL" -v ON_ERROR_STOP=1 -q <<'SQL' || die "pgbench tables"
CREATE TABLE counters (profile text PRIMARY KEY, value bigint NOT NULL, version bigint NOT NULL);
CREATE TABLE events (profile text NOT NULL, id bigint NOT NULL, type text NOT NULL, data text NOT NULL, PRIMARY KEY (profile, id));
SQL
        INSTANCES[$t]=''; SIDE[$t]=''; ON_PG[$t]=1 ;;
      *) die "unknown target $t (sqlite pg pg2-nginx sqlite-nginx pgbench)" ;;
    esac
  done
  for name in sqlite pg pg2-a pg2-b nginx-pg2 sqlite-n nginx-sqlite; do
    [ -n "${PIDS[$name]:-}" ] || continue
    case $name in nginx-*) where "$name" $(nginx_pids "$name") ;; *) where "$name" "${PIDS[$name]}" ;; esac
  done
  where postgresql $(pg_pids)


  printf 'mode\ttarget\tconns\trep\trequests\trps\tp50_us\tp99_us\terrors\tnon2xx\tside_us_per_req\tpg_us_per_req\tcpu_server_pct\tcpu_load_pct\n' >"$RESULTS"
  printf 'target\tmode\tprofile\tacked\n' >"$OUT/acked.tsv"
  printf 'target\tmode\tunacked_bound\n' >"$OUT/unacked.tsv"
  if [ "$WARMUP" != 0 ]; then
    for mode in $MODES; do for t in $TARGETS; do measure "$mode" "$t" 16 0 "$WARMUP"; done; done
  fi
  check_quiet
  runs=$(( $(wc -w <<<"$MODES") * $(wc -w <<<"$TARGETS") * $(wc -w <<<"$CONNS") * REPS ))
  log "increments: $runs wrk runs of ${DUR}s, about $(( runs * (DUR + 1) / 60 + 1 )) min"
  t_start=$SECONDS
  for ((rep = 1; rep <= REPS; rep++)); do
    for mode in $MODES; do
      for c in $CONNS; do
        for t in $TARGETS; do measure "$mode" "$t" "$c" "$rep" "$DUR"; done
      done
    done
  done
  log "increments measured in $((SECONDS - t_start)) s"
  # Where PostgreSQL's time went, per statement and database (warm-up included): calls, total and
  # mean execution time, rows. Planning is not in it (the statements are prepared).
  if [ "$PG_STATS" = 1 ]; then
    printf 'database\tcalls\ttotal_ms\tmean_us\trows\tquery\n' >"$OUT/statements.tsv"
    psql_ -F $'\t' -c "SELECT d.datname, s.calls, round(s.total_exec_time::numeric, 1),
        round((s.total_exec_time / greatest(s.calls, 1) * 1000)::numeric, 1), s.rows,
        regexp_replace(left(s.query, 160), '\s+', ' ', 'g')
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname LIKE 'navprefs_bench_%' AND s.calls >= 10 ORDER BY d.datname, s.total_exec_time DESC" >>"$OUT/statements.tsv"
  fi

  # Counters, read over HTTP (schema-independent; PostgreSQL instances read the database) once
  # the last requests have settled. One curl per instance fetches every profile.
  sleep 1
  printf 'target\tinstance\tprofile\tvalue\n' >"$OUT/counters.tsv"
  for t in $TARGETS; do
    for inst in ${INSTANCES[$t]}; do
      urls=()
      for mode in $MODES; do
        for ((i = 1; i <= ${COUNT[$mode]}; i++)); do urls+=("http://127.0.0.1:${PORTS[$inst]}/v1/profiles/${PREFIX[$mode]}$i/counter"); done
      done
      curl -s --max-time 30 "${urls[@]}" | tr -d '\r' | sed -n 's/.*"profile":"\([^"]*\)".*"value":\(-\{0,1\}[0-9]*\).*/\1 \2/p' |
        awk -v t="$t" -v i="$inst" '{ print t "\t" i "\t" $1 "\t" $2 }' >>"$OUT/counters.tsv"
    done
  done
  stop_all
}
mkdir -p "$OUT/db"
: >"$OUT/placement.txt"
RESULTS=$OUT/results.tsv
if [ -n "$TARGETS" ] && [ -n "$MODES" ]; then run_increments; else log "no increments (TARGETS or MODES empty)"; fi

# ---------------------------------------------------------------- 2. fan-out
EVENTS_PATH=/v1/profiles/bench/events
FONT_PATH=/v1/profiles/bench/font
FONT_BODY='{"sliderValue": 3}'
: >"$OUT/fanout.txt"
fport=$((BASE_PORT + 20))
# run_fanout TARGET N REP: fresh instance(s) and database, one harness run
run_fanout() {
  local t=$1 n=$2 rep=$3 a b url ports pids out code max_subs=$(( $2 + 64 ))
  a=$((fport += 1)); b=$((fport += 1))
  case $t in
    sqlite)
      start_navprefs "fan-sqlite" "$a" "sqlite://$OUT/db/fan-$n-$rep.sqlite" --sqlite-synchronous full --sse-max-subscribers "$max_subs"
      ports=(-p "$a"); pids=${PIDS[fan-sqlite]} ;;
    pg2)
      url=$(new_db "navprefs_fan_${n}_$rep")
      start_navprefs "fan-pg2-a" "$a" "$url" --sse-max-subscribers "$max_subs"
      start_navprefs "fan-pg2-b" "$b" "$url" --sse-max-subscribers "$max_subs"
      ports=(-p "$a" -P "$b"); pids="${PIDS[fan-pg2-a]},${PIDS[fan-pg2-b]}" ;;
    *) die "unknown fan-out target $t (sqlite pg2)" ;;
  esac
  [ "$rep" = 1 ] && [ "$n" = "${NS%% *}" ] && { where "fan-$t" ${pids//,/ }; where "postgresql (fan-out)" $(pg_pids); }
  # one change before measuring: the profile exists, the code paths are warm
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X PUT -H 'Content-Type: application/json' \
           -d "$FONT_BODY" "http://127.0.0.1:$a$FONT_PATH")
  [[ $code == 2* ]] || log "warning: fan-out $t: warm-up change answered $code"
  sleep 0.2
  out=$(taskset -c "$LOAD_CPU" "$OUT/fanout2" "${ports[@]}" -n "$n" -a "$ADDRS" -s "$EVENTS_PATH" -u "PUT $FONT_PATH" \
          -b "$FONT_BODY" -e id -m "$CHANGES" -g "$GAP_MS" -S "$SETTLE_MS" -I 0 -H 0 -t "$TIMEOUT" -r "$pids" \
          -l "$t-$n-$rep" 2>>"$OUT/harness.log")
  stop_all
  printf '%s\n' "$out" | sed -n "s/^\(RESULT\|CHANGE\) /& target=$t rep=$rep /p" >>"$OUT/fanout.txt"
  printf '%s\n' "$out" | grep -q '^RESULT ' || { log "fan-out harness failed against $t N=$n (see $OUT/harness.log)"; return 0; }
  log "fan-out $t N=$n rep $rep:" $(printf '%s\n' "$out" | grep '^RESULT ' | grep -oE ' (open|p50_ms|p99_ms|max_ms|lost|a_max_ms|b_max_ms)=[^ ]+')
}
t_start=$SECONDS
if [ -n "$NS" ] && [ -n "$FANOUT_TARGETS" ]; then
  for ((rep = 1; rep <= FANOUT_REPS; rep++)); do
    for n in $NS; do
      for t in $FANOUT_TARGETS; do run_fanout "$t" "$n" "$rep"; done
    done
  done
fi
log "fan-out measured in $((SECONDS - t_start)) s"

# ---------------------------------------------------------------- summary
{
  echo "## navprefs on PostgreSQL against SQLite (increments: $REPS reps x ${DUR}s, c = $CONNS; fan-out: $FANOUT_REPS reps x $CHANGES changes, N = ${NS:-none})"
  echo
  printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf -- '- machine: %s CPU (%s), kernel %s, %s; /tmp on %s\n' "$(nproc)" \
    "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(uname -r)" \
    "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")" "$(findmnt -n -o FSTYPE -T "$OUT" 2>/dev/null || echo '?')"
  printf -- '- navprefs: %s (tree %s at %s); %s; %s\n' "$NAVPREFS" "$SRC" \
    "$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo '?')" "$(nginx -v 2>&1 | sed 's/.*: //')" \
    "$(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
  printf -- '- PostgreSQL (throwaway cluster, scripts/lib/postgres.sh): %s\n' "$PG_SETTINGS"
  printf -- '- every instance: --log-level %s, --readiness-drain 0; SQLite instances --sqlite-synchronous full; PostgreSQL instances --postgres-pool-size 8 (default)\n' "$LOG_LEVEL"
  printf -- '- nginx: deploy/nginx-navprefs.conf (ports substituted; sqlite-nginx: its second upstream line removed), 1 worker, access_log off\n'
  [ -n "${NS_DROPPED:-}" ] && printf -- '- fan-out N=%s skipped: ulimit -n is %s\n' "$NS_DROPPED" "$(ulimit -n)"
  echo
  echo "**Where each process ran** (the kernel's affinity, read while running): the whole server side"
  echo "(navprefs, nginx, PostgreSQL) on CPU $SERVER_CPU, wrk and the fan-out harness on CPU $LOAD_CPU."
  echo "Two instances on one 2-core machine cannot show scale-out gains: they share CPU $SERVER_CPU with"
  echo "each other, nginx and PostgreSQL. The pg2 rows measure the cost and the correctness of sharing"
  echo "PostgreSQL, not capacity."
  echo
  echo '| process | pids | CPUs | command (first) |'
  echo '|---|---:|---|---|'
  # one row per process name and CPU list (PostgreSQL has one process per connection)
  awk -F'\t' '{ k = $1 FS $3; if (!(k in n)) { order[++m] = k; cmd[k] = $4 } n[k]++; if (n[k] <= 4) pids[k] = pids[k] (n[k] > 1 ? ", " : "") $2 }
    END { for (i = 1; i <= m; i++) { k = order[i]; split(k, f, FS); more = n[k] > 4 ? " and " n[k] - 4 " more" : "";
          print "| " f[1] " | " pids[k] more " | " f[2] " | `" cmd[k] "` |" } }' "$OUT/placement.txt"
  echo
  python3 "$HERE/summarize.py" "$OUT" "$MODES" "$PROFILES"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
log "results: $OUT/summary.md"
