"""kill -9 under concurrent writers: no acknowledged write is lost.

Per round, 16 writers on keep-alive connections write to 4 profiles: increments by a random
1..5 (most requests) and, each writer its own key, preference values that count up. Once 300
writes are acknowledged, and a seeded 0-1.5 s later, the server gets SIGKILL. It is restarted on the same
file and then, per profile, the counter must have grown by at least the sum of the acknowledged
increments and at most that plus the unanswered ones; every writer's key must hold at least the
last value acknowledged for it (and nothing never sent); the newest 1000 event ids of each profile must
be replayed from the log with every acknowledged one among them; and `PRAGMA integrity_check` must say ok. Three rounds: two at the
default `--sqlite-synchronous full`, one at `normal` (both promise to survive kill -9).
"""
import json
import random
import shutil
import subprocess
import threading
import time

import rawhttp

PROFILES = [f"crash-{i}" for i in range(4)]
WRITERS = 16
REPLAY_WINDOW = 1000  # events replayed per profile after the restart (about 200 KB)


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {p: 0 for p in PROFILES}          # sum of acknowledged increments
        self.unanswered = {p: 0 for p in PROFILES}     # sum of increments sent without an answer
        self.event_ids = {p: set() for p in PROFILES}  # acknowledged event ids
        self.key_acked = {}                            # writer -> last acknowledged value
        self.key_sent = {}                             # writer -> last value sent
        self.acknowledged = 0
        self.refused = []


def writer(port, number, rng, ledger, stop):
    connection, sequence = None, 0
    profile_of_key = PROFILES[number % len(PROFILES)]
    while not stop.is_set():
        if rng.random() < 0.75:
            profile, by = rng.choice(PROFILES), rng.randint(1, 5)
            method, target, body = "POST", f"/v1/profiles/{profile}/counter/increment", json.dumps({"by": by})
        else:
            sequence += 1
            profile, by = profile_of_key, None
            method, target, body = "PUT", f"/v1/profiles/{profile}/preferences/writer-{number}", json.dumps({"value": sequence})
        sent = False
        try:
            if connection is None:
                connection = rawhttp.Connection(port, timeout=10)
            connection.send(rawhttp.encode(method, target, [("Content-Type", "application/json")], body, port=port))
            sent = True
            if by is None:
                with ledger.lock:
                    ledger.key_sent[number] = sequence
            response = connection.read_response(method, timeout=10)
        except (OSError, rawhttp.Closed, ValueError):
            if sent and by is not None:
                with ledger.lock:
                    ledger.unanswered[profile] += by
            if connection:
                connection.close()
            connection = None
            if stop.is_set():
                break
            time.sleep(0.01)
            continue
        if 200 <= response.status < 300:
            event_id = json.loads(response.body).get("eventId")
            with ledger.lock:
                ledger.acknowledged += 1
                if by is not None:
                    ledger.acked[profile] += by
                else:
                    ledger.key_acked[number] = sequence
                if event_id is not None:
                    ledger.event_ids[profile].add(event_id)
        else:
            with ledger.lock:
                ledger.refused.append(f"{method} {target}: {response.status} {response.body[:120]!r}")
    if connection:
        connection.close()


def counters(port):
    values = {}
    for profile in PROFILES:
        response = rawhttp.request(port, "GET", f"/v1/profiles/{profile}/counter")
        values[profile] = json.loads(response.body)["value"] if response.status == 200 else 0
    return values


def replayed_ids(port, profile, after, newest, timeout=10.0):
    """Event ids the log replays for `profile` after `after`, up to `newest`."""
    connection = rawhttp.Connection(port, timeout=timeout)
    try:
        connection.send(rawhttp.encode("GET", f"/v1/profiles/{profile}/events?last_event_id={after}", port=port))
        status, _, _ = connection.read_head(timeout)
        if status != 200:
            return set()
        ids, deadline, text, seen = set(), time.monotonic() + timeout, b"", 0
        while time.monotonic() < deadline and seen < newest:
            try:
                chunk = connection.read_chunk(max(0.01, deadline - time.monotonic()))
            except (rawhttp.Closed, TimeoutError):
                break
            if not chunk:
                break
            text += chunk
            lines = text.split(b"\n")
            text = lines.pop()  # an incomplete line waits for the next chunk
            for line in lines:
                if line.startswith(b"event: reset"):
                    return ids  # the replay was refused: what is missing shows as lost
                if line.startswith(b"id: "):
                    ids.add(int(line[4:].strip()))
                    seen = max(seen, int(line[4:].strip()))
        return ids
    finally:
        connection.close()


def integrity(database):
    if not shutil.which("sqlite3"):
        return "sqlite3 missing"
    path = database.split(":", 1)[1]
    return subprocess.run(["sqlite3", path, "PRAGMA integrity_check"], capture_output=True, text=True, timeout=60).stdout.strip()


def run(service, seed, rounds=("full", "full", "normal")):
    rng = random.Random(f"{seed}:crash")
    checks = {}
    retention = ["--event-retention-count", "10000000"]
    for number, synchronous in enumerate(rounds, 1):
        service.start(["--sqlite-synchronous", synchronous, *retention])
        before = counters(service.port)
        ledger, stop = Ledger(), threading.Event()
        threads = [threading.Thread(target=writer, args=(service.port, n, random.Random(rng.random()), ledger, stop),
                                    daemon=True) for n in range(WRITERS)]
        for thread in threads:
            thread.start()
        # Under load, at a seeded moment: at least 300 writes acknowledged (whatever the
        # machine's speed), then 0-1.5 s more.
        load_started = time.monotonic()
        while ledger.acknowledged < 300 and time.monotonic() - load_started < 20:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 1.5))
        kill_after = time.monotonic() - load_started
        service.kill()
        stop.set()
        for thread in threads:
            thread.join(15)
        started = time.monotonic()
        service.start(["--sqlite-synchronous", synchronous, *retention])
        restart = time.monotonic() - started
        after = counters(service.port)
        lost, excess = [], []
        for profile in PROFILES:
            delta = after[profile] - before[profile]
            low, high = ledger.acked[profile], ledger.acked[profile] + ledger.unanswered[profile]
            if delta < low:
                lost.append(f"{profile}: +{delta}, acknowledged +{low}")
            if delta > high:
                excess.append(f"{profile}: +{delta}, at most +{high} sent")
        keys_lost = []
        for writer_number, acked in ledger.key_acked.items():
            profile = PROFILES[writer_number % len(PROFILES)]
            response = rawhttp.request(service.port, "GET", f"/v1/profiles/{profile}/preferences/writer-{writer_number}")
            stored = json.loads(response.body).get("value") if response.status == 200 else None
            if not isinstance(stored, int) or stored < acked or stored > ledger.key_sent.get(writer_number, acked):
                keys_lost.append(f"writer-{writer_number}: stored {stored}, acknowledged {acked}")
        events_lost = []
        for profile in PROFILES:
            # The newest acknowledged events are those a crash could lose; a replay of the whole
            # log would exceed what one stream replays at once (a `reset`, by design).
            newest = max(ledger.event_ids[profile], default=0)
            after = max(0, newest - REPLAY_WINDOW)
            wanted = {i for i in ledger.event_ids[profile] if i > after}
            if wanted:
                missing = wanted - replayed_ids(service.port, profile, after, newest)
                if missing:
                    events_lost.append(f"{profile}: {len(missing)} acknowledged event ids not replayed, e.g. {sorted(missing)[:5]}")
        service.stop()
        check = integrity(service.database)
        print(f"crash: round {number} (synchronous={synchronous}): SIGKILL after {kill_after:.2f} s, "
              f"{ledger.acknowledged} writes acknowledged, "
              f"{sum(ledger.unanswered.values())} increments unanswered; restart {restart:.2f} s; integrity {check}")
        for text in lost + excess + keys_lost + events_lost + ledger.refused[:3]:
            print(f"crash:   {text}")
        checks[f"round {number} ({synchronous}): every acknowledged increment is in the counter after restart"] = \
            not lost and ledger.acknowledged >= 300
        checks[f"round {number} ({synchronous}): no counter grew by more than was sent"] = not excess
        checks[f"round {number} ({synchronous}): every acknowledged preference value survives"] = not keys_lost
        checks[f"round {number} ({synchronous}): the newest acknowledged event ids are replayed after restart"] = not events_lost
        checks[f"round {number} ({synchronous}): no write refused during the load, integrity_check ok"] = \
            not ledger.refused and check == "ok"
    return checks
