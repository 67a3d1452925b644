#!/usr/bin/env python3
"""bench/postgres/summarize.py OUT MODES PROFILES: the markdown tables of bench/postgres/run.sh.

Reads OUT/results.tsv (one row per wrk run), acked.tsv, unacked.tsv, counters.tsv and
fanout.txt. Medians over repetitions; ratios against SQLite are paired (each repetition's
target ÷ the SQLite run of the same repetition, mode and connection count), then the median.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

out, modes, profiles = sys.argv[1], sys.argv[2].split(), sys.argv[3]
TARGET_ORDER = ["sqlite", "pg", "pg2-nginx", "sqlite-nginx", "pgbench"]
TARGET_TEXT = {
    "sqlite": "sqlite: 1 instance, SQLite FULL",
    "pg": "pg: 1 instance, PostgreSQL",
    "pg2-nginx": "pg2-nginx: 2 instances, 1 PostgreSQL db, nginx",
    "sqlite-nginx": "sqlite-nginx: 1 SQLite instance, nginx",
    "pgbench": "pgbench: the same-shape transaction, prepared (reference)",
}
MODE_TEXT = {
    "spread": f"{profiles} profiles, round robin (many users, each on their own profile)",
    "hot": "1 profile (every increment on one row: PostgreSQL serializes the commits)",
}


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=0, thousands=True):
    if v is None:
        return "-"
    if thousands and digits == 0:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def order(targets):
    return sorted(targets, key=lambda t: TARGET_ORDER.index(t) if t in TARGET_ORDER else 99)


# ---------------------------------------------------------------- increments
results = [r for r in rows("results.tsv") if r["rep"] != "0"]
cells = defaultdict(list)  # (mode, conns, target) -> rows
for r in results:
    cells[(r["mode"], int(r["conns"]), r["target"])].append(r)
by_rep = {(r["mode"], int(r["conns"]), r["target"], r["rep"]): r for r in results}


def paired(mode, c, target, base):
    ratios = []
    for r in cells[(mode, c, target)]:
        b = by_rep.get((mode, c, base, r["rep"]))
        if b and float(b["rps"]) > 0:
            ratios.append(float(r["rps"]) / float(b["rps"]))
    return med(ratios)


if results:
    print("### 1. Increments per second (`POST /v1/profiles/<p>/counter/increment {\"by\":1}`)")
    print()
    print("Medians over repetitions. ÷ sqlite: paired ratio of req/s against the SQLite instance of the same")
    print("repetition; for pg2-nginx also ÷ sqlite-nginx, with nginx's cost on both sides. ÷ pgbench: the")
    print("PostgreSQL rows against pgbench running one increment's transaction shape on the same cluster")
    print("(upsert, event row, pg_notify; its clients = c), the rate PostgreSQL itself allows. Below 1: slower.")
    print("Server-side CPU: utime + stime of every process of the target (navprefs, nginx, all of PostgreSQL)")
    print("per request. Busy: both CPUs over the run (server side / load generator). non-2xx and errors")
    print("(wrk's socket errors and timeouts): totals over repetitions.")
    print()
for mode in modes if results else []:
    conns = sorted({c for (m, c, _) in cells if m == mode})
    if not conns:
        continue
    print(f"**{mode}**: {MODE_TEXT.get(mode, mode)}")
    print()
    print("| c | target | req/s | ÷ sqlite | ÷ sqlite-nginx | ÷ pgbench | p50 ms | p99 ms | non-2xx | errors | server-side CPU µs/req (PostgreSQL's part) | busy % server / load |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in conns:
        for t in order({t for (m, cc, t) in cells if m == mode and cc == c}):
            rs = cells[(mode, c, t)]
            rps = med([float(r["rps"]) for r in rs])
            ratio = paired(mode, c, t, "sqlite") if t != "sqlite" else 1.0
            ratio_n = paired(mode, c, t, "sqlite-nginx") if t == "pg2-nginx" else None
            ratio_pg = paired(mode, c, t, "pgbench") if t in ("pg", "pg2-nginx") else None
            p50 = med([float(r["p50_us"]) / 1e3 for r in rs])
            p99 = med([float(r["p99_us"]) / 1e3 for r in rs])
            non2xx = sum(int(r["non2xx"]) for r in rs)
            errors = sum(int(r["errors"]) for r in rs)
            upr = med([float(r["side_us_per_req"]) for r in rs])
            pgr = med([float(r["pg_us_per_req"]) for r in rs])
            busy = f"{fmt(med([float(r['cpu_server_pct']) for r in rs]))} / {fmt(med([float(r['cpu_load_pct']) for r in rs]))}"
            bold = "**" if t != "sqlite" else ""
            print(f"| {c} | {TARGET_TEXT.get(t, t)} | {fmt(rps)} | {bold}{fmt(ratio, 2)}{bold} | {fmt(ratio_n, 2)} | "
                  f"{'**' + fmt(ratio_pg, 2) + '**' if ratio_pg is not None else '-'} | "
                  f"{fmt(p50, 2)} | {fmt(p99, 2)} | {non2xx} | {errors} | {fmt(upr, 0)}{f' ({pgr:.0f})' if pgr else ''} | {busy} |")
    print()

# ---------------------------------------------------------------- PostgreSQL's time per statement
statements = rows("statements.tsv")
if statements:
    print("### Where PostgreSQL's time goes (pg_stat_statements)")
    print()
    print("Per database (one per target), every statement run at least 10 times, warm-up included:")
    print("calls, execution time (total, and mean per call), rows. Per request: the statement's")
    print("calls ÷ the calls of the statement that runs once per increment (its first upsert).")
    print("BEGIN and COMMIT are listed as utility statements; the time a commit waits for its WAL")
    print("flush is in COMMIT's.")
    print()
    print("| database | calls | total ms | mean µs | rows | statement |")
    print("|---|---:|---:|---:|---:|---|")
    for r in statements:
        query = r["query"].replace("|", "\\|")
        print(f"| {r['database']} | {int(r['calls']):,} | {float(r['total_ms']):,.1f} | {float(r['mean_us']):,.1f} | {int(r['rows']):,} | `{query}` |")
    print()

# ---------------------------------------------------------------- integrity
acked = defaultdict(int)          # (target, profile) -> 2xx answers
mode_of = {}                      # (target, profile) -> mode
for r in rows("acked.tsv"):
    acked[(r["target"], r["profile"])] += int(r["acked"])
    mode_of[(r["target"], r["profile"])] = r["mode"]
bound = defaultdict(int)          # (target, mode) -> requests that may have been applied unacknowledged
for r in rows("unacked.tsv"):
    bound[(r["target"], r["mode"])] += int(r["unacked_bound"])
values = defaultdict(dict)        # (target, profile) -> {instance: value}
for r in rows("counters.tsv"):
    values[(r["target"], r["profile"])][r["instance"]] = int(r["value"])
prefix = {"spread": "s", "hot": "hot"}
count = {"spread": int(profiles), "hot": 1}
if bound:
    print("### 2. Counters after the load")
    print()
    print("Each counter read over HTTP from every instance of the target, against the 2xx answers wrk got")
    print("for that profile (warm-up included). A counter may exceed them only by what was never")
    print("acknowledged: requests in flight when each wrk run stopped (at most c), socket errors and")
    print("timeouts, non-2xx answers (the bound, summed over runs). Below acknowledged is a lost write.")
    print()
    print("| target | profiles | acknowledged | counters (sum) | counter − acked per profile: min / max | sum | bound | instances agree | verdict |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    all_ok = True
    targets = order({t for (t, _) in bound} | {t for (t, _) in values})
    for t in targets:
        for mode in modes:
            names = [f"{prefix.get(mode, mode)}{i}" for i in range(1, count.get(mode, 0) + 1)]
            if (t, mode) not in bound:
                continue
            diffs, total_acked, total_value, agree, missing = [], 0, 0, True, 0
            for p in names:
                v = values.get((t, p), {})
                if not v:
                    missing += 1
                    continue
                if len(set(v.values())) > 1:
                    agree = False
                value = min(v.values())
                total_value += value
                total_acked += acked[(t, p)]
                diffs.append(value - acked[(t, p)])
            b = bound[(t, mode)]
            ok = not missing and agree and diffs and min(diffs) >= 0 and sum(diffs) <= b
            all_ok &= bool(ok)
            n_inst = max((len(values.get((t, p), {})) for p in names), default=0)
            agree_text = ("yes" if agree else "**no**") + f" ({n_inst})" if n_inst > 1 else "(1 instance)"
            verdict = "ok" if ok else "**FAIL**" + (f" ({missing} profiles unread)" if missing else "")
            print(f"| {t} ({mode}) | {len(names)} | {total_acked:,} | {total_value:,} | "
                  f"{min(diffs) if diffs else '-'} / {max(diffs) if diffs else '-'} | {sum(diffs):,} | {b:,} | {agree_text} | {verdict} |")
    print()
    print("All counters consistent." if all_ok else "**Some counters are not consistent: see the rows marked FAIL.**")
    print()


# ---------------------------------------------------------------- fan-out
runs, changes = [], []
path = os.path.join(out, "fanout.txt")
if os.path.exists(path):
    for line in open(path):
        kind, _, rest = line.strip().partition(" ")
        kv = dict(item.split("=", 1) for item in rest.split() if "=" in item)
        (runs if kind == "RESULT" else changes).append(kv)
if runs:
    print("### 3. Fan-out: one font change, N subscribers, time until each has the `refresh`")
    print()
    print("Latency: from writing the change (PUT through instance A) to the subscriber parsing the event;")
    print("per run the median over its changes, then the median over runs (max: worst single change in")
    print("brackets). pg2: subscribers split evenly over instances A and B; B gets the event through")
    print("PostgreSQL's NOTIFY. Lost: events a subscriber never got within the timeout, of")
    print("established subscribers × changes. ÷ sqlite: paired per run (same repetition and N).")
    print()
    print("| N | target | established | p50 ms | p99 ms | max ms (worst) | lost | ÷ sqlite p50 / max | pg2: first on A / on B ms | pg2: max on A / on B ms |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    grouped = defaultdict(list)
    for r in runs:
        grouped[(int(r["n"]), r["target"])].append(r)
    base = {(int(r["n"]), r["rep"]): r for r in runs if r["target"] == "sqlite"}
    for (n, t) in sorted(grouped, key=lambda k: (k[0], 0 if k[1] == "sqlite" else 1, k[1])):
        rs = grouped[(n, t)]
        f = lambda key: med([float(r[key]) for r in rs if key in r and float(r[key]) >= 0])
        lost = sum(int(r["lost"]) for r in rs)
        of = sum(int(r["open"]) * int(r["changes"]) for r in rs)
        opened = min(int(r["open"]) for r in rs)
        worst = max(float(r["max_worst_ms"]) for r in rs)
        bad = sum(int(r["bad_publish"]) + int(r["dropped"]) + int(r["extra"]) for r in rs)
        if t == "sqlite":
            ratio = "1"
        else:
            p_r = [float(r["p50_ms"]) / float(base[(n, r["rep"])]["p50_ms"]) for r in rs
                   if (n, r["rep"]) in base and float(base[(n, r["rep"])]["p50_ms"]) > 0]
            m_r = [float(r["max_ms"]) / float(base[(n, r["rep"])]["max_ms"]) for r in rs
                   if (n, r["rep"]) in base and float(base[(n, r["rep"])]["max_ms"]) > 0]
            ratio = f"**{fmt(med(p_r), 2)} / {fmt(med(m_r), 2)}**"
        sides = (f"{fmt(f('a_first_ms'), 1)} / {fmt(f('b_first_ms'), 1)}", f"{fmt(f('a_max_ms'), 1)} / {fmt(f('b_max_ms'), 1)}") \
            if "a_max_ms" in rs[0] else ("-", "-")
        lost_text = f"{lost:,} of {of:,}" + (f" (+{bad} dropped, extra or refused changes)" if bad else "")
        print(f"| {n:,} | {t} | {opened:,} of {n:,} | {fmt(f('p50_ms'), 1)} | {fmt(f('p99_ms'), 1)} | "
              f"{fmt(f('max_ms'), 1)} ({worst:.1f}) | {lost_text} | {ratio} | {sides[0]} | {sides[1]} |")
    print()
