#!/usr/bin/env python3
"""summarize.py RUNS_TSV CHANGES_TSV: the markdown tables of bench/fanout/run.sh.

Latencies are per subscriber, from writing the change to parsing the event: each change gives a
p50, p99 and max over the N subscribers; the table shows the median over every change of every
repetition (and the worst max). Memory per idle subscriber = (server RSS once all are established
and settled - RSS before the first connect) / N. Idle CPU = server CPU time over the idle window.
"""
import csv
import statistics
import os
import sys
from collections import defaultdict

GOAL_BYTES = 10 * 1024


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def fmt(x, digits=1):
    return "–" if x is None else f"{x:,.{digits}f}"


runs, changes = rows(sys.argv[1]), rows(sys.argv[2])
main_pool = os.environ.get("MAIN_POOL", "6144")
main = [r for r in runs if r["pool"] == main_pool]
ns = sorted({int(r["n"]) for r in main})
targets = [t for t in ("c", "navprefs", "navprefs-quiet", "navprefs-b", "nchan") if any(r["target"] == t for r in main)]
ch = defaultdict(list)  # (target, pool, n) -> change rows
for c in changes:
    ch[(c["target"], c["pool"], int(c["n"]))].append(c)
by = defaultdict(list)  # (target, pool, n) -> run rows
for r in runs:
    by[(r["target"], r["pool"], int(r["n"]))].append(r)

names = {"c": "C libmicrohttpd (ceiling)", "navprefs": "**navprefs**", "navprefs-b": "navprefs-b",
         "navprefs-quiet": "navprefs, no heartbeat due", "nchan": "nginx + nchan"}


def latency(key, field):
    return med([num(c[field]) for c in ch[key]])


def worst(key):
    values = [num(c["max_ms"]) for c in ch[key]]
    return max(values) if values else None


def paired_ratio(t, ref, n, field, pool=main_pool):
    """median over repetitions of (target's median over its changes) / (ref's, same repetition)"""
    ratios = []
    reps = {c["rep"] for c in ch[(t, pool, n)]}
    for rep in sorted(reps):
        a = med([num(c[field]) for c in ch[(t, pool, n)] if c["rep"] == rep])
        b = med([num(c[field]) for c in ch[(ref, pool, n)] if c["rep"] == rep])
        if a is not None and b:
            ratios.append(a / b)
    return med(ratios)


print("| N | server | established | p50 ms | p99 ms | max ms (worst) | lost | RSS per idle subscriber | "
      "idle server CPU | server busy in fan-out | harness busy in fan-out |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in ns:
    for t in targets:
        key = (t, main_pool, n)
        rs = by[key]
        if not rs:
            continue
        opened = min(int(r["open"]) for r in rs)
        lost = sum(int(r["lost"]) for r in rs)
        extra = sum(int(r["extra"]) for r in rs)
        dropped = sum(int(r["dropped"]) for r in rs)
        total = sum(int(r["open"]) for r in rs) * max(1, len(ch[key]) // max(1, len(rs)))
        bps = med([num(r["bytes_per_sub"]) for r in rs])
        idle = med([num(r["idle_cpu_ms"]) / num(r["idle_s"]) for r in rs if num(r["idle_s"])])
        ticks = med([num(r["idle_ticks"]) for r in rs])
        idle_s = med([num(r["idle_s"]) for r in rs])
        busy = med([100 * num(c["server_cpu_ms"]) / num(c["window_ms"]) for c in ch[key] if num(c["window_ms"])])
        hbusy = med([100 * num(c["harness_cpu_ms"]) / num(c["window_ms"]) for c in ch[key] if num(c["window_ms"])])
        lost_text = f"{lost} of {total:,}" + (f" (+{extra} extra)" if extra else "") + (f", {dropped} dropped" if dropped else "")
        print(f"| {n:,} | {names[t]} | {opened:,}/{n:,} | {fmt(latency(key, 'p50_ms'))} | {fmt(latency(key, 'p99_ms'))} | "
              f"{fmt(latency(key, 'max_ms'))} ({fmt(worst(key))}) | {lost_text} | {fmt(bps / 1024 if bps else None, 1)} KiB | "
              f"{fmt(idle, 2)} ms/s ({fmt(ticks, 0)} ticks in {fmt(idle_s, 0)} s) | {fmt(busy, 0)} % | {fmt(hbusy, 0)} % |")
print()

if "navprefs" in targets:
    print("Paired ratios (median over repetitions of each repetition's medians; below 1: navprefs is faster):")
    print()
    print("| N | navprefs / nchan: p50 | p99 | max | navprefs / C: p50 | p99 | max |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in ns:
        cells = []
        for ref in ("nchan", "c"):
            for f in ("p50_ms", "p99_ms", "max_ms"):
                cells.append(fmt(paired_ratio("navprefs", ref, n, f), 2) if ref in targets else "–")
        print(f"| {n:,} | " + " | ".join(cells) + " |")
    print()

print("Other figures (medians): first subscriber's arrival; RSS per subscriber after the changes "
      "(what delivering left behind); harness CPU per delivered event; time the server's threads and the harness "
      "were runnable but waiting for a CPU during a fan-out (schedstat; above zero: something else competed); "
      "time to establish all N.")
print()
print("| N | server | first arrival ms | RSS per subscriber after the changes | harness µs per event | "
      "CPU wait ms: server / harness | connect all, ms |")
print("|---:|---|---:|---:|---:|---:|---:|")
for n in ns:
    for t in targets:
        key = (t, main_pool, n)
        rs = by[key]
        if not rs:
            continue
        after = med([(num(r["rss2_kb"]) - num(r["rss0_kb"])) * 1024 / num(r["open"]) for r in rs if num(r["open"])])
        per_event = med([1000 * num(c["harness_cpu_ms"]) / num(c["got"]) for c in ch[key] if num(c["got"])])
        waits = f"{fmt(latency(key, 'server_wait_ms'))} / {fmt(latency(key, 'harness_wait_ms'))}"
        print(f"| {n:,} | {names[t]} | {fmt(latency(key, 'first_ms'), 2)} | {fmt(after / 1024 if after else None)} KiB | "
              f"{fmt(per_event, 1)} | {waits} | {fmt(med([num(r['connect_ms']) for r in rs]), 0)} |")
print()

sweep = sorted({(r["target"], int(r["pool"])) for r in runs if r["pool"] != main_pool})
if sweep:
    print("Memory sweep: `--connection-memory-bytes` (C: `MHD_OPTION_CONNECTION_MEMORY_LIMIT`), one run each; "
          f"{int(main_pool):,} (navprefs' default) from the runs above:")
    print()
    print("| server | pool bytes | N | RSS per idle subscriber | p50 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    pool_n = max(int(r["n"]) for r in runs if r["pool"] != main_pool)
    for t in [t for t in ("c", "navprefs", "navprefs-b") if any(s[0] == t for s in sweep)]:
        for pool in sorted({p for (x, p) in sweep if x == t} | {int(main_pool)}, reverse=True):
            key = (t, str(pool), pool_n)
            rs = by[key]
            if not rs:
                continue
            bps = med([num(r["bytes_per_sub"]) for r in rs])
            mark = " ✓" if bps is not None and bps < GOAL_BYTES else ""
            print(f"| {names[t]} | {pool:,} | {pool_n:,} | {fmt(bps / 1024, 1)} KiB{mark} | {fmt(latency(key, 'p50_ms'))} | "
                  f"{fmt(latency(key, 'max_ms'))} |")
    print()

hb = [r for r in runs if r["target"].startswith("navprefs") and int(r["hb_subs"]) > 0]
if hb:
    print("Heartbeat round (navprefs writes a comment to every stream every 15 s by default; nchan sends none):")
    print()
    print("| N | streams that got it | first to last ms | server CPU ms per round (above idle) | that, per second at 15 s |")
    print("|---:|---:|---:|---:|---:|")
    for r in hb:
        cpu = num(r["hb_cpu_ms"])
        print(f"| {int(r['n']):,} | {int(r['hb_subs']):,} | {fmt(num(r['hb_spread_ms']))} | {fmt(cpu)} | "
              f"{fmt(cpu / 15 if cpu is not None else None, 2)} ms/s |")
    print()

if "navprefs" in targets and "navprefs-quiet" in targets:
    print("Idle, apart from heartbeats (navprefs staggers each stream's first heartbeat over the interval, so "
          "its default run gets heartbeats in the idle window; navprefs-quiet runs with --sse-heartbeat 3600, "
          "and the C program sends none):")
    print()
    print("| N | idle ms/s, no heartbeat due | idle ms/s, default | heartbeats in the window | µs per heartbeat |")
    print("|---:|---:|---:|---:|---:|")
    for n in ns:
        rs, qs = by[("navprefs", main_pool, n)], by[("navprefs-quiet", main_pool, n)]
        if not rs or not qs:
            continue
        quiet = med([num(r["idle_cpu_ms"]) / num(r["idle_s"]) for r in qs if num(r["idle_s"])])
        idle = med([num(r["idle_cpu_ms"]) / num(r["idle_s"]) for r in rs if num(r["idle_s"])])
        beats = med([num(r.get("idle_blocks")) / num(r["idle_s"]) for r in rs if num(r["idle_s"]) and r.get("idle_blocks")])
        each = 1000 * (idle - quiet) / beats if idle is not None and quiet is not None and beats else None
        print(f"| {n:,} | {fmt(quiet, 2)} | {fmt(idle, 2)} | {fmt(beats, 0)} per s | {fmt(each, 1)} |")
    print()

if "navprefs" in targets and "nchan" in targets and ns:
    n = ns[-1]
    key, ref = ("navprefs", main_pool, n), ("nchan", main_pool, n)
    r_max = paired_ratio("navprefs", "nchan", n, "max_ms")
    lost = sum(int(r["lost"]) + int(r["dropped"]) for r in by[key]) + sum(int(r["failed"]) for r in by[key])
    bps = med([num(r["bytes_per_sub"]) for r in by[key]])
    print(f"Goals at N = {n:,} (issue 4):")
    print()
    print("| goal | measured | met? |")
    print("|---|---|---|")
    print(f"| every subscriber has the change at least as fast as with nchan | last subscriber: navprefs "
          f"{fmt(latency(key, 'max_ms'))} ms, nchan {fmt(latency(ref, 'max_ms'))} ms (paired ratio {fmt(r_max, 2)}); "
          f"p50 {fmt(latency(key, 'p50_ms'))} vs {fmt(latency(ref, 'p50_ms'))} ms | "
          f"{'**yes**' if r_max is not None and r_max <= 1.0 else '**no**'} |")
    print(f"| no event lost | {lost} lost, failed or dropped | {'**yes**' if lost == 0 else '**no**'} |")
    print(f"| an idle subscriber under 10 KiB of server memory | {fmt(bps / 1024 if bps else None)} KiB "
          f"(nchan {fmt(med([num(r['bytes_per_sub']) for r in by[ref]]) / 1024)} KiB) | "
          f"{'**yes**' if bps is not None and bps < GOAL_BYTES else '**no**'} |")
