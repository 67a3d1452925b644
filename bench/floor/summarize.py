#!/usr/bin/env python3
"""The tables of bench/floor/run.sh from its results.tsv.

usage: summarize.py RESULTS.tsv

1. Per group, target and connection count: medians over the repetitions of req/s, server CPU µs per
   request, p99, and the noise indicators (the busy share of the server's CPU not charged to the
   server, the load CPU's busy share).
2. The comparisons issue 34 asks for, paired per repetition (the ratio in each repetition, then the
   median), with the issue's goal at c = 64 where it sets one.
Rows with rep 0 (warm-up) are ignored.
"""
import csv
import statistics
import sys
from collections import defaultdict

TITLES = {
    "POST-full": "durable write: synchronous=FULL (Redis: appendfsync always)",
    "POST-normal": "write, synchronous=NORMAL",
    "GET": "GET of the counter",
}
# (label, group, target, baseline, measure, goal at c=64 as (op, value) or None)
# measure "rps": target req/s ÷ baseline req/s; "us": target µs ÷ baseline µs per request.
COMPARISONS = [
    ("navprefs FULL ÷ webdis+Redis always, req/s", "POST-full", "navprefs", "webdis-redis", "rps", (">=", 1.0)),
    ("navprefs FULL ÷ floor FULL, µs per write", "POST-full", "navprefs", "floor", "us", ("<=", 1.3)),
    ("floor FULL ÷ webdis+Redis always, req/s", "POST-full", "floor", "webdis-redis", "rps", None),
    ("floor FULL ÷ webdis+Redis always, µs per write", "POST-full", "floor", "webdis-redis", "us", None),
    ("navprefs NORMAL ÷ Swift wal-event anchor, req/s", "POST-normal", "navprefs", "swift-wal-event", "rps", (">=", 1.0)),
    ("navprefs NORMAL ÷ floor NORMAL, µs per write", "POST-normal", "navprefs", "floor", "us", None),
    ("floor NORMAL ÷ Swift wal-event anchor, req/s", "POST-normal", "floor", "swift-wal-event", "rps", None),
    ("navprefs GET ÷ C GET, req/s", "GET", "navprefs", "c", "rps", (">=", 0.8)),
    ("floor GET ÷ C GET, req/s", "GET", "floor", "c", "rps", None),
    # With BEFORE= (another build of navprefs in the same run):
    ("navprefs ÷ before, FULL, req/s", "POST-full", "navprefs", "before", "rps", None),
    ("navprefs ÷ before, FULL, µs per write", "POST-full", "navprefs", "before", "us", None),
    ("navprefs ÷ before, NORMAL, req/s", "POST-normal", "navprefs", "before", "rps", None),
    ("navprefs ÷ before, NORMAL, µs per write", "POST-normal", "navprefs", "before", "us", None),
    ("navprefs ÷ before, GET, req/s", "GET", "navprefs", "before", "rps", None),
    ("before FULL ÷ floor FULL, µs per write", "POST-full", "before", "floor", "us", None),
    ("before GET ÷ C GET, req/s", "GET", "before", "c", "rps", None),
]


def main(argv):
    rows = [r for r in csv.DictReader(open(argv[1]), delimiter="\t") if r["rep"] != "0"]
    if not rows:
        print("(no results)")
        return
    cells = defaultdict(list)
    by_rep = {}
    groups, targets, conns = [], defaultdict(list), []
    for r in rows:
        g, t, c = r["group"], r["target"], int(r["conns"])
        if g not in groups:
            groups.append(g)
        if t not in targets[g]:
            targets[g].append(t)
        if c not in conns:
            conns.append(c)
        cells[(g, t, c)].append(r)
        by_rep[(g, t, c, r["rep"])] = r
    conns.sort()

    def med(values):
        return statistics.median(values) if values else None

    print("| group | target | c | req/s | server µs/req | p99 ms | errors | CPU0 foreign % | CPU1 busy % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for g in groups:
        for t in targets[g]:
            for c in conns:
                rs = cells.get((g, t, c))
                if not rs:
                    continue
                rps = med([float(r["rps"]) for r in rs])
                upr = med([float(r["us_per_req"]) for r in rs])
                p99 = med([float(r["p99_us"]) / 1000 for r in rs])
                errors = sum(int(r["errors"]) + int(r["non2xx"]) for r in rs)
                foreign = med([max(0.0, float(r["cpu0_pct"]) - float(r["server_pct"])) for r in rs])
                busy1 = med([float(r["cpu1_pct"]) for r in rs])
                print(f"| {TITLES.get(g, g)} | {t} | {c} | {rps:,.0f} | {upr:.1f} | {p99:.2f} | {errors} | {foreign:.0f} | {busy1:.0f} |")
    print()
    header = " | ".join(f"c={c}" for c in conns)
    print(f"| ratio (paired per repetition, median) | {header} | goal at c=64 | met? |")
    print("|---|" + "---:|" * len(conns) + "---|---|")
    for label, g, t, base, measure, goal in COMPARISONS:
        values = []
        for c in conns:
            ratios = []
            for r in cells.get((g, t, c), []):
                b = by_rep.get((g, base, c, r["rep"]))
                if b is None:
                    continue
                if measure == "rps":
                    ratios.append(float(r["rps"]) / max(float(b["rps"]), 1e-9))
                else:
                    ratios.append(float(r["us_per_req"]) / max(float(b["us_per_req"]), 1e-9))
            values.append(med(ratios))
        if all(v is None for v in values):
            continue
        shown = " | ".join("–" if v is None else f"{v:.2f}" for v in values)
        met = "–"
        if goal is not None and 64 in conns and values[conns.index(64)] is not None:
            v = values[conns.index(64)]
            met = "yes" if (v >= goal[1] if goal[0] == ">=" else v <= goal[1]) else "**no**"
        print(f"| {label} | {shown} | {'' if goal is None else goal[0] + ' ' + str(goal[1])} | {met} |")


if __name__ == "__main__":
    main(sys.argv)
