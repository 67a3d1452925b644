#!/usr/bin/env python3
"""What synchronous replication costs per write: increments (wrk -t1 -c16, 64 profiles round
robin, bench/postgres/increment.lua) against one navprefs on a single PostgreSQL and one on the
primary of the pg_auto_failover formation deploy/compose.yaml ships, whose standby is
synchronous (started from deploy/'s files: scripts/lib/pg_auto_failover.py), and on that primary
again with the standby taken out of the write quorum (asynchronous: same cluster, same
settings), interleaved in every repetition, medians reported. Both clusters keep fsync and
synchronous_commit on (durable), both run on this machine.

Usage: sync-cost.py NAVPREFS_BINARY [REPS=3] [DUR=5] [C=16]      (as root)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from pg_auto_failover import Formation, free_port  # noqa: E402


def start_navprefs(binary, url, directory, name, wrap=lambda argv: argv):
    port = free_port()
    log = open(os.path.join(directory, f"{name}.log"), "w")
    process = subprocess.Popen(wrap([binary, "--port", str(port), "--database", url, "--log-level", "warning"]),
                               stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        if subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/healthz"], capture_output=True).returncode == 0:
            return process, port
        time.sleep(0.1)
    sys.exit(f"{name} did not start")


def wrk(port, prefix, connections, seconds):
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s",
                          "-s", os.path.join(HERE, "increment.lua"), f"http://127.0.0.1:{port}", "--", prefix, "64"],
                         capture_output=True, text=True).stdout
    match = re.search(r"RESULT requests=(\d+) duration_us=\d+ rps=([\d.]+) p50_us=(\d+) p99_us=(\d+) errors=(\d+) non2xx=(\d+)", out)
    if not match:
        sys.exit(f"wrk printed no RESULT: {out}")
    return {"rps": float(match[2]), "p50": int(match[3]) / 1000, "p99": int(match[4]) / 1000,
            "errors": int(match[5]) + int(match[6])}


def main():
    binary = sys.argv[1]
    reps, seconds, connections = (int(sys.argv[i]) if len(sys.argv) > i else d for i, d in ((2, 3), (3, 5), (4, 16)))
    directory = tempfile.mkdtemp(prefix="navprefs-sync-cost-")
    os.chmod(directory, 0o755)
    formation = Formation(os.path.join(directory, "formation"))
    single = subprocess.run(["bash", os.path.join(ROOT, "scripts/lib/postgres.sh"), "start"], capture_output=True, text=True)
    exports = dict(re.findall(r"(\w+)='([^']*)'", single.stdout))
    processes = []
    try:
        formation.start()
        primary = formation.primary()
        standby_names = formation.sql("SHOW synchronous_standby_names", node=primary, dbname="postgres")
        commit = formation.sql("SHOW synchronous_commit", node=primary, dbname="postgres")
        single_url = exports["NAVPREFS_TEST_POSTGRES_URL"]
        a, port_single = start_navprefs(binary, single_url, directory, "single")
        b, port_sync = start_navprefs(binary, formation.url, directory, "sync", formation.resolving)
        processes = [a, b]
        standby = formation.standby()

        def quorum(on):
            """The standby in the write quorum (synchronous) or out of it (asynchronous): the same
            cluster and settings, so the difference is the synchronous wait alone."""
            # --name: the image's environment names the monitor (PG_AUTOCTL_MONITOR), and then
            # pg_autoctl picks the node by name, not by --pgdata.
            standby.autoctl("set", "node", "replication-quorum", "true" if on else "false", "--name", standby.name)
            wanted = "''" if not on else "ANY"
            formation.wait(lambda: (formation.sql("SHOW synchronous_standby_names", node=primary, dbname="postgres") or "''")
                           .startswith(wanted) or (not on and formation.sql("SHOW synchronous_standby_names", node=primary,
                                                                                  dbname="postgres") == ""), 60,
                           f"synchronous_standby_names {'set' if on else 'empty'}")

        targets = {"single PostgreSQL": port_single, "primary + synchronous standby": port_sync,
                   "the same primary, standby asynchronous": port_sync}
        results = {name: [] for name in targets}
        for name, port in targets.items():  # warm-up: connections, prepared statements, profiles
            wrk(port, "warm", connections, 1)
        for rep in range(reps):
            for name, port in targets.items():
                if name.startswith("the same primary"):
                    quorum(False)
                results[name].append(wrk(port, f"r{rep}-", connections, seconds))
                if name.startswith("the same primary"):
                    quorum(True)
        load = open("/proc/loadavg").read().split()[:3]
        print(f"sync-cost: wrk -t1 -c{connections} -d{seconds}s, {reps} repetitions interleaved, medians; "
              f"formation primary: synchronous_standby_names = {standby_names!r}, synchronous_commit = {commit}; "
              f"load average at the end {' '.join(load)}")
        print("| target | req/s | p50 ms | p99 ms | errors |")
        print("|---|---:|---:|---:|---:|")
        medians = {}
        for name, runs in results.items():
            medians[name] = {key: statistics.median(run[key] for run in runs) for key in ("rps", "p50", "p99", "errors")}
            m = medians[name]
            each = ", ".join(f"{run['p50']:.2f}" for run in runs)
            print(f"| {name} | {m['rps']:,.0f} | {m['p50']:.2f} (runs: {each}) | {m['p99']:.1f} | {m['errors']:.0f} |")
        ratio = medians["primary + synchronous standby"]["p50"] / medians["single PostgreSQL"]["p50"]
        same = medians["primary + synchronous standby"]["p50"] / medians["the same primary, standby asynchronous"]["p50"]
        print(f"sync-cost: p50 latency with the synchronous standby = {ratio:.2f} x the single PostgreSQL's, "
              f"{same:.2f} x the same primary's with the standby asynchronous (goal: at most 2 x)")
    finally:
        for process in processes:
            process.terminate()
            process.wait(15)
        formation.stop()
        if exports.get("NAVPREFS_TEST_POSTGRES_DIR"):
            subprocess.run(["bash", os.path.join(ROOT, "scripts/lib/postgres.sh"), "stop", exports["NAVPREFS_TEST_POSTGRES_DIR"]],
                           capture_output=True)


if __name__ == "__main__":
    main()
