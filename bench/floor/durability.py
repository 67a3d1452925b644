#!/usr/bin/env python3
"""kill -9 under writers: the floor's counters equal what it acknowledged, its refusals left nothing.

usage: durability.py FLOOR_BINARY [--synchronous full|normal] [--rounds 5] [--connections 16]
                     [--profiles 4] [--seed 1] [--port 27690] [--dir DIR]

Every round starts the floor (pinned to CPU 0) on the same database, runs CONNECTIONS keep-alive
writers (threads, pinned to CPU 1) that POST increments to PROFILES profiles, one request in ten
a step of 2^63 - 1 that the guarded upsert must refuse (409) in the same turns as the others, and
kills the floor with SIGKILL after a seeded random 0.5-2 s. Then it opens the database (SQLite
recovers the WAL) and checks, per profile:

* every acknowledged increment is there: its event id is in the log with the value it answered;
* acknowledged <= counter <= acknowledged + the writes in flight at the kill (sent, unanswered);
* counter = number of event rows = highest event id = the profile's last_event_id: event ids run
  1, 2, 3, ... without a gap, so a refused write's id claim was rolled back with it (its savepoint);
* no event carries the refused step.

Exits 1 on the first violation. The seed fixes the request mix and the kill times.
"""
import argparse
import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

REFUSED_STEP = 2**63 - 1


def wait_ready(port, proc, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit(f"durability: the floor exited with {proc.returncode} before it was ready")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/v1/profiles/default/counter")
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("durability: the floor did not answer within 10 s")


class Writer(threading.Thread):
    """One keep-alive connection; writes until the server goes away."""

    def __init__(self, port, profiles, seed):
        super().__init__(daemon=True)
        self.port, self.profiles, self.rng = port, profiles, random.Random(seed)
        self.acked = []        # (profile, event id, value)
        self.refused = 0
        self.in_flight = None  # the profile of a write sent and never answered
        self.unexpected = []

    def run(self):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        except OSError:
            return
        while True:
            profile = self.rng.choice(self.profiles)
            refuse = self.rng.random() < 0.1
            body = json.dumps({"by": REFUSED_STEP if refuse else 1})
            self.in_flight = profile
            try:
                conn.request("POST", f"/v1/profiles/{profile}/counter/increment", body,
                             {"Content-Type": "application/json"})
                response = conn.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException):
                return  # killed: this write may or may not have committed
            self.in_flight = None
            if response.status == 200 and not refuse:
                answer = json.loads(payload)
                self.acked.append((profile, answer["eventId"], answer["value"]))
            elif response.status == 409 and refuse:
                self.refused += 1
            else:
                self.unexpected.append((profile, refuse, response.status, payload[:200]))
                return


def check(db_path, acked, unknown, profiles):
    db = sqlite3.connect(db_path)
    failures = []
    for p in profiles:
        row = db.execute("SELECT CAST(json_extract(value, '$') AS INTEGER) FROM preferences "
                         "WHERE profile = ? AND key = 'numIndex'", (p,)).fetchone()
        counter = row[0] if row else 0
        count, top = db.execute("SELECT count(*), coalesce(max(id), 0) FROM events WHERE profile = ?", (p,)).fetchone()
        last = db.execute("SELECT last_event_id FROM profiles WHERE name = ?", (p,)).fetchone()
        last = last[0] if last else 0
        mine = [a for a in acked if a[0] == p]
        if not (counter == count == top == last):
            failures.append(f"{p}: counter {counter}, {count} event rows, highest id {top}, last_event_id {last} (must all be equal)")
        if not (len(mine) <= counter <= len(mine) + unknown.get(p, 0)):
            failures.append(f"{p}: counter {counter}, acknowledged {len(mine)}, in flight {unknown.get(p, 0)}")
        logged = dict(db.execute("SELECT id, json_extract(data, '$.value') FROM events WHERE profile = ?", (p,)))
        lost = [(e, v) for _, e, v in mine if logged.get(e) != v]
        if lost:
            failures.append(f"{p}: {len(lost)} acknowledged increments missing or changed, e.g. {lost[:3]}")
    refused_logged = db.execute("SELECT count(*) FROM events WHERE json_extract(data, '$.by') = ?", (REFUSED_STEP,)).fetchone()[0]
    if refused_logged:
        failures.append(f"{refused_logged} refused writes left an event")
    db.close()
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floor")
    ap.add_argument("--synchronous", default="full", choices=["full", "normal"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--profiles", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, default=27690)
    ap.add_argument("--dir")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    workdir = args.dir or tempfile.mkdtemp(prefix="navprefs-floor-durability.")
    db_path = os.path.join(workdir, "floor.sqlite")
    profiles = [f"d{i}" for i in range(args.profiles)]
    acked, unknown = [], {}
    try:
        os.sched_setaffinity(0, {1})
    except OSError:
        pass
    print(f"durability: {args.synchronous.upper()}, {args.rounds} rounds, {args.connections} writers, "
          f"profiles {profiles}, seed {args.seed}, database {db_path}")
    for round_number in range(1, args.rounds + 1):
        log = open(os.path.join(workdir, f"floor-{round_number}.log"), "w")
        proc = subprocess.Popen(["taskset", "-c", "0", args.floor, "--port", str(args.port), "--database", db_path,
                                 "--synchronous", args.synchronous], stdout=log, stderr=log)
        try:
            wait_ready(args.port, proc)
            if round_number == 1:  # every profile above 0 first: the huge step is then always out of range
                for p in profiles:
                    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=10)
                    conn.request("POST", f"/v1/profiles/{p}/counter/increment", '{"by":1}', {"Content-Type": "application/json"})
                    answer = json.loads(conn.getresponse().read())
                    acked.append((p, answer["eventId"], answer["value"]))
                    conn.close()
            writers = [Writer(args.port, profiles, rng.randrange(2**32)) for _ in range(args.connections)]
            for w in writers:
                w.start()
            delay = rng.uniform(0.5, 2.0)
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()
        for w in writers:
            w.join(15)
        unexpected = [u for w in writers for u in w.unexpected]
        if unexpected:
            sys.exit(f"durability: unexpected answers: {unexpected[:3]}")
        round_acked = sum(len(w.acked) for w in writers)
        for w in writers:
            acked.extend(w.acked)
            if w.in_flight is not None:
                unknown[w.in_flight] = unknown.get(w.in_flight, 0) + 1
        failures = check(db_path, acked, unknown, profiles)
        print(f"round {round_number}: killed after {delay:.2f} s; {round_acked} increments acknowledged, "
              f"{sum(w.refused for w in writers)} refused, {sum(w.in_flight is not None for w in writers)} in flight; "
              f"{'OK' if not failures else 'FAILED'}")
        if failures:
            for f in failures:
                print("  " + f)
            sys.exit(1)
    total = {p: sum(1 for a in acked if a[0] == p) for p in profiles}
    print(f"durability: every acknowledged increment survived {args.rounds} kills; acknowledged per profile {total}, "
          f"in flight at the kills {unknown}")


if __name__ == "__main__":
    main()
