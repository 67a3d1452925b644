#!/usr/bin/env python3
"""Markdown tables from a results.tsv written by bench/run.sh or bench/modes.sh.

usage: summarize.py RESULTS.tsv [--baseline TARGET] [--no-goals]

Per (group, target, connections): the median over repetitions of req/s, p99 latency and server
CPU microseconds per request, and the paired ratios against the baseline target of the same
group: in each repetition target/baseline req/s and baseline/target CPU per request, then the
median of those per-repetition ratios. Rows with rep 0 (warm-up) are ignored.
"""
import csv
import statistics
import sys
from collections import defaultdict

GOALS = {"GET": 0.90, "POST-full": 0.80, "POST-normal": 0.80}
GROUP_TITLES = {
    "GET": "GET …/counter",
    "POST-full": "POST …/increment, synchronous=FULL",
    "POST-normal": "POST …/increment, synchronous=NORMAL",
    "resume": "GET, answer deferred to a worker thread",
}


def main(argv):
    path = argv[1]
    baseline = argv[argv.index("--baseline") + 1] if "--baseline" in argv else "c"
    goals = "--no-goals" not in argv
    rows = [r for r in csv.DictReader(open(path), delimiter="\t") if r["rep"] != "0"]
    if not rows:
        print("(no results)")
        return
    groups, targets, conns = [], defaultdict(list), []
    cell = defaultdict(list)  # (group, target, c) -> rows
    by_rep = {}  # (group, target, c, rep) -> row
    for r in rows:
        g, t, c = r["group"], r["target"], int(r["conns"])
        if g not in groups:
            groups.append(g)
        if t not in targets[g]:
            targets[g].append(t)
        if c not in conns:
            conns.append(c)
        cell[(g, t, c)].append(r)
        by_rep[(g, t, c, r["rep"])] = r

    def med(values):
        return statistics.median(values) if values else float("nan")

    def paired(g, t, c, f):
        out = []
        for r in cell[(g, t, c)]:
            b = by_rep.get((g, baseline, c, r["rep"]))
            if b is not None:
                v = f(r, b)
                if v is not None:
                    out.append(v)
        return med(out) if out else None

    def fnum(x, digits=2):
        return "–" if x is None else f"{x:.{digits}f}"

    print("| group | target | c | req/s | p50 ms | p99 ms | server µs/req | req/s ratio | CPU ratio "
          + ("| goal | " if goals else "| ") + "errors | CPU0 foreign % | CPU1 busy % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---|" if goals else "") + "---:|---:|---:|")
    for g in groups:
        for t in targets[g]:
            for c in sorted(conns):
                rs = cell.get((g, t, c))
                if not rs:
                    continue
                rps = med([float(r["rps"]) for r in rs])
                p50 = med([float(r["p50_us"]) / 1000 for r in rs])
                p99 = med([float(r["p99_us"]) / 1000 for r in rs])
                upr = med([float(r["us_per_req"]) for r in rs])
                foreign = med([max(0.0, float(r["cpu0_pct"]) - float(r["server_pct"])) for r in rs])
                busy1 = med([float(r["cpu1_pct"]) for r in rs])
                errs = sum(int(r["errors"]) + int(r["non2xx"]) for r in rs)
                if t == baseline:
                    ratio = cpu = None
                else:
                    ratio = paired(g, t, c, lambda r, b: float(r["rps"]) / float(b["rps"]))
                    # a server that used less than a clock tick (10 ms) in the run has no figure
                    cpu = paired(g, t, c, lambda r, b: float(b["us_per_req"]) / float(r["us_per_req"])
                                 if float(r["us_per_req"]) > 0 and float(b["us_per_req"]) > 0 else None)
                goal = ""
                if goals:
                    if t == baseline or g not in GOALS:
                        goal = "| "
                    else:
                        ok = ratio is not None and ratio >= GOALS[g]
                        goal = f"| ≥ {GOALS[g]:.2f} {'met' if ok else 'not met'} "
                print(f"| {GROUP_TITLES.get(g, g)} | {t} | {c} | {rps:,.0f} | {p50:.2f} | {p99:.2f} | {upr:.2f} | "
                      f"{fnum(ratio)} | {fnum(cpu)} {goal}| {errs} | {foreign:.0f} | {busy1:.0f} |")
    print()
    print(f"req/s ratio = target / {baseline} req/s, CPU ratio = {baseline} µs / target µs per request "
          "(both: median of the per-repetition ratios; above 1 = better than the baseline). "
          "CPU0 foreign = busy share of the server's core not charged to the server (other processes, "
          "softirq); CPU1 busy = the load generator's core.")
    # the compact table: ratios only
    others = [t for g in groups for t in targets[g] if t != baseline]
    others = list(dict.fromkeys(others))
    if not others:
        return
    print()
    head = " | ".join(f"{t} c={c}" for t in others for c in sorted(conns))
    print(f"| req/s ratio to {baseline} | {head} |")
    print("|---|" + "---:|" * (len(others) * len(conns)))
    for g in groups:
        vals = []
        for t in others:
            for c in sorted(conns):
                vals.append(fnum(paired(g, t, c, lambda r, b: float(r["rps"]) / float(b["rps"])))
                            if (g, t, c) in cell else "")
        print(f"| {GROUP_TITLES.get(g, g)} | " + " | ".join(vals) + " |")


if __name__ == "__main__":
    main(sys.argv)
