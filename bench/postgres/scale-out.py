#!/usr/bin/env python3
"""Scale-out as if each instance had a machine of its own: 1, 2 and 3 navprefs instances on one
PostgreSQL, each instance in a cgroup (v1 `cpu` controller) of its own limited to QUOTA of a
core (`cpu.cfs_quota_us` / `cpu.cfs_period_us`), PostgreSQL and nginx unlimited, behind nginx
with the shipped deploy/nginx-navprefs.conf. Only the instances of the count being measured
run (an idle instance's listener would read every write's events too); the counts are
interleaved in every repetition. Loads, wrk -t1 -cC:
  increments  POST .../counter/increment {"by":1} over 64 profiles (increment.lua)
  GETs        GET .../counter over the same 64 profiles (get-spread.lua)
plus, for where PostgreSQL saturates, the increments through 3 instances without quota.
Medians of REPS repetitions; ratios against 1 instance in the same run.

Why a quota: on a 2-core machine every process shares the same cores, so two instances cannot
show more throughput than one; a quota makes the instance the bottleneck, as it is when each
has its own machine, and leaves the shared PostgreSQL to show where it saturates.

Usage: scale-out.py NAVPREFS_BINARY [REPS=3] [DUR=5] [C=64] [QUOTA=0.3]     (as root)
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
import nginx_front  # noqa: E402
from pg_auto_failover import free_port  # noqa: E402

CGROUP = "/sys/fs/cgroup/cpu"


def limit(pid, name, quota):
    """Moves the process (every thread) into cgroup `name`, limited to `quota` of a core."""
    path = os.path.join(CGROUP, name)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "cpu.cfs_period_us"), "w") as f:
        f.write("100000")
    with open(os.path.join(path, "cpu.cfs_quota_us"), "w") as f:
        f.write(str(int(quota * 100000)) if quota else "-1")
    with open(os.path.join(path, "cgroup.procs"), "w") as f:
        f.write(str(pid))
    return path


def throttled(path):
    stats = dict(line.split() for line in open(os.path.join(path, "cpu.stat")))
    return int(stats.get("nr_throttled", 0))


def start_navprefs(binary, url, directory, name):
    port = free_port()
    log = open(os.path.join(directory, f"{name}.log"), "w")
    process = subprocess.Popen([binary, "--port", str(port), "--database", url, "--log-level", "warning",
                                "--trusted-proxies", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        if subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/healthz"], capture_output=True).returncode == 0:
            return process, port
        time.sleep(0.1)
    sys.exit(f"{name} did not start")


def wrk(port, script, prefix, connections, seconds):
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s",
                          "-s", os.path.join(HERE, script), f"http://127.0.0.1:{port}", "--", prefix, "64"],
                         capture_output=True, text=True).stdout
    match = re.search(r"RESULT requests=(\d+) duration_us=\d+ rps=([\d.]+) p50_us=(\d+) p99_us=(\d+) errors=(\d+) non2xx=(\d+)", out)
    if not match:
        sys.exit(f"wrk printed no RESULT: {out}")
    return {"rps": float(match[2]), "p50": int(match[3]) / 1000, "errors": int(match[5]) + int(match[6])}


def main():
    binary = sys.argv[1]
    arguments = sys.argv[2:] + [None] * 4
    reps = int(arguments[0] or 3)
    seconds = int(arguments[1] or 5)
    connections = int(arguments[2] or 64)
    quota = float(arguments[3] or 0.3)
    directory = tempfile.mkdtemp(prefix="navprefs-scale-out-")
    os.chmod(directory, 0o755)
    cluster = subprocess.run(["bash", os.path.join(ROOT, "scripts/lib/postgres.sh"), "start"], capture_output=True, text=True)
    exports = dict(re.findall(r"(\w+)='([^']*)'", cluster.stdout))
    url = exports["NAVPREFS_TEST_POSTGRES_URL"]
    processes, groups = [], []
    counts = [1, 2, 3, "3 without quota"]
    loads = [("increments", "increment.lua"), ("GETs", "get-spread.lua")]
    results, throttling = {}, {}

    def run_set(count, rep):
        """Starts the instances of `count` (and only them: an idle instance's listener reads
        every write's events too) behind their nginx, runs both loads, stops them."""
        number = 3 if isinstance(count, str) else count
        started, ports, mine = [], [], []
        try:
            for index in range(number):
                process, port = start_navprefs(binary, url, directory, f"r{rep}-{count}-{index}".replace(" ", "_"))
                started.append(process)
                ports.append(port)
                if not isinstance(count, str):
                    mine.append(limit(process.pid, f"navprefs-bench-{index}", quota))
            sub = tempfile.mkdtemp(dir=directory)
            front = free_port()
            started.append(nginx_front.start(sub, ports, front, workers=2))
            before = [throttled(group) for group in mine]
            wrk(front, "increment.lua", "s", connections, 1)  # warm-up: connections, statements
            for load, script in loads:
                if load == "GETs" and isinstance(count, str):
                    continue
                results.setdefault((load, count), []).append(wrk(front, script, "s", connections, seconds))
            throttling.setdefault(count, []).append([throttled(g) - b for g, b in zip(mine, before)])
        finally:
            for process in started:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
            groups.extend(group for group in mine if group not in groups)

    try:
        for rep in range(reps):
            for count in counts:
                run_set(count, rep)
        average = open("/proc/loadavg").read().split()[:3]
        print(f"scale-out: wrk -t1 -c{connections} -d{seconds}s, {reps} repetitions interleaved, medians; "
              f"each instance limited to {quota} of a core (cgroup v1 cpu.cfs_quota_us), PostgreSQL and nginx unlimited; "
              f"throttled 100 ms periods per instance and run: {throttling}; load average at the end {' '.join(average)}")
        print("| load | instances | req/s (runs) | × 1 instance | p50 ms | errors |")
        print("|---|---|---:|---:|---:|---:|")
        for load, _ in loads:
            one = statistics.median(run["rps"] for run in results[(load, 1)])
            for (name, count), runs in results.items():
                if name != load:
                    continue
                rps = statistics.median(run["rps"] for run in runs)
                each = ", ".join(f"{run['rps']:,.0f}" for run in runs)
                p50 = statistics.median(run["p50"] for run in runs)
                errors = sum(run["errors"] for run in runs)
                print(f"| {load} | {count} | {rps:,.0f} ({each}) | {rps / one:.2f} | {p50:.1f} | {errors} |")
    finally:
        for process in processes:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        for group in groups:
            try:
                os.rmdir(group)
            except OSError:
                pass
        if exports.get("NAVPREFS_TEST_POSTGRES_DIR"):
            subprocess.run(["bash", os.path.join(ROOT, "scripts/lib/postgres.sh"), "stop", exports["NAVPREFS_TEST_POSTGRES_DIR"]],
                           capture_output=True)


if __name__ == "__main__":
    main()
