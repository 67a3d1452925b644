"""PostgreSQL failover under load, for real: the pg_auto_failover formation deploy/compose.yaml
ships (monitor, primary, synchronous standby), started from deploy/'s own files (each part's
entrypoint.sh with compose.yaml's environment and the image's settings:
scripts/lib/pg_auto_failover.py), two navprefs instances on compose.yaml's DATABASE_URL behind
nginx (deploy/nginx-navprefs.conf), 16 writers incrementing counters with Idempotency-Keys,
readers, and SSE subscribers on each instance. It first checks that the monitor and the keepers
run deploy/'s settings and that the primary commits synchronously; then each round breaks the
primary at a random moment:

  postmaster  kill -9 of the primary's postmaster (its keeper starts it again)
  node        kill -9 of the whole primary node, keeper included (the standby is promoted;
              the old primary is started again and rejoins as a standby)
  partition   the primary cut off by firewall rules, nothing in or out (the standby is
              promoted; once healed the old primary rejoins as a standby)

and checks what the issue promises: no acknowledged write lost and none applied twice (every
503 is retried with its key until acknowledged; the acknowledged values of a counter must then
be exactly 1..final), every answer 2xx or 503 with Retry-After, event ids unique and increasing,
each subscriber's events against the log (no duplicate, no gap without a `reset`), writes
succeeding again within 10 s, and at least 99 % of the reads sent during the outage answered
200 (from a standby while no primary takes them).

Seeds: one per round (the fault's moment, profiles, keys); the fixed ones below, plus one
derived from the commit (its round's kind is drawn from it). Replay one round with
NAVPREFS_FAILOVER_SEEDS=kind:seed[,kind:seed...].

Usage: check-failover.py NAVPREFS_BINARY      (as root: namespaces, a bridge, firewall rules)
"""
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from navprefs_checks import report  # noqa: E402
import nginx_front  # noqa: E402
from pg_auto_failover import Formation, free_port  # noqa: E402

FIXED_ROUNDS = [("postmaster", 11), ("node", 23), ("partition", 37)]
KINDS = ("postmaster", "node", "partition")
WRITERS, READERS, PROFILES = 16, 4, 8
PARTITION_SECONDS = 10


def commit_seed():
    result = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__)))
    return int(result.stdout.strip()[:8], 16) % 1_000_003 if result.returncode == 0 else 1


def rounds():
    replay = os.environ.get("NAVPREFS_FAILOVER_SEEDS")
    if replay:
        return [(kind, int(seed)) for kind, seed in (item.split(":") for item in replay.split(","))]
    seed = commit_seed()
    return FIXED_ROUNDS + [(KINDS[seed % len(KINDS)], seed)]


def request(port, method, path, headers=None, timeout=20, body=None):
    """(status, headers, body); status 0 when no answer came (connection refused or reset)."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        connection.request(method, path, body=body, headers={"Host": "navprefs.test", **(headers or {})})
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), body
    except (OSError, http.client.HTTPException):
        return 0, {}, b""


def start_instance(binary, formation, port, directory, name):
    """One instance with compose.yaml's environment (its DATABASE_URL as it is, the formation's
    names resolving); the flags place it here: its port, nginx on loopback as the trusted proxy
    (compose.yaml names nginx's address on its network), and the check's quicker heartbeats."""
    log = open(os.path.join(directory, f"{name}.log"), "w+")
    process = subprocess.Popen(formation.resolving([binary, "--port", str(port), "--readiness-drain", "0",
                                                    "--sse-heartbeat", "2", "--log-level", "warning",
                                                    "--trusted-proxies", "127.0.0.1", "--allowed-hosts", "navprefs.test"]),
                               env={**os.environ, **formation.instance_env}, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 20
    while time.time() < deadline:
        if request(port, "GET", "/healthz", timeout=2)[0] == 200:
            return process
        if process.poll() is not None:
            break
        time.sleep(0.1)
    log.seek(0)
    sys.exit(f"navprefs {name} did not start: {log.read()}")


class Subscriber(threading.Thread):
    """One SSE stream on one instance, reopened with Last-Event-ID when it ends."""

    def __init__(self, port, profile, start_id):
        super().__init__(daemon=True)
        self.port, self.profile, self.first, self.last = port, profile, start_id, start_id
        self.events = []  # (id, type, data)
        self.stop = threading.Event()
        self.reopened = 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.follow()
            except OSError:
                pass
            if not self.stop.is_set():
                self.reopened += 1
                time.sleep(0.2)

    def follow(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=3) as stream:
            stream.sendall(f"GET /v1/profiles/{self.profile}/events HTTP/1.1\r\nHost: navprefs.test\r\n"
                           f"Accept: text/event-stream\r\nLast-Event-ID: {self.last}\r\n\r\n".encode())
            raw, body = b"", b""
            head = None
            while not self.stop.is_set():
                try:
                    chunk = stream.recv(65536)
                except socket.timeout:
                    continue  # heartbeats come every 2 s; silence is not an end
                if not chunk:
                    return
                raw += chunk
                if head is None:
                    if b"\r\n\r\n" not in raw:
                        continue
                    head, raw = raw.split(b"\r\n\r\n", 1)
                    if not head.startswith(b"HTTP/1.1 200"):
                        return
                    chunked = b"chunked" in head.lower()
                if chunked:  # undo the chunked transfer coding: <size>\r\n<data>\r\n
                    while b"\r\n" in raw:
                        size_line, rest = raw.split(b"\r\n", 1)
                        size = int(size_line.split(b";")[0], 16)
                        if size == 0:
                            return
                        if len(rest) < size + 2:
                            break
                        body += rest[:size]
                        raw = rest[size + 2:]
                else:
                    body, raw = body + raw, b""
                while b"\n\n" in body:
                    message, body = body.split(b"\n\n", 1)
                    self.take(message.decode(errors="replace"))

    def take(self, message):
        fields = {}
        for line in message.split("\n"):
            if ":" in line and not line.startswith(":"):
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
        if "event" in fields and fields["event"] not in ("shutdown",):
            self.events.append((int(fields["id"]) if fields.get("id", "").isdigit() else None, fields["event"], fields.get("data", "")))
        if fields.get("id", "").isdigit():
            self.last = int(fields["id"])


class Load:
    """Writers, readers and their ledger for one round."""

    def __init__(self, front, seed, profiles):
        self.front, self.seed, self.profiles = front, seed, profiles
        self.stop_writes = threading.Event()
        self.stop_reads = threading.Event()
        self.lock = threading.Lock()
        self.acked = {profile: [] for profile in profiles}  # acknowledged values
        self.keys = {profile: 0 for profile in profiles}
        self.writes = []  # (sent, answered, status)
        self.reads = []
        self.bad = []  # answers that are neither 2xx nor 503 with Retry-After
        self.ready = []  # (status, body) of /readyz

    def writer(self, index):
        rng = random.Random(self.seed * 1000 + index)
        number = 0
        while not self.stop_writes.is_set():
            profile = rng.choice(self.profiles)
            key = f"failover-{self.seed}-{index}-{number}"
            number += 1
            with self.lock:
                self.keys[profile] += 1
            while True:  # the same key until acknowledged, whatever the instance and the primary
                sent = time.time()
                status, headers, body = request(self.front, "POST", f"/v1/profiles/{profile}/counter/increment",
                                                {"Idempotency-Key": key})
                with self.lock:
                    self.writes.append((sent, time.time(), status))
                if 200 <= status < 300:
                    with self.lock:
                        self.acked[profile].append(json.loads(body)["value"])
                    break
                if status != 503 or "Retry-After" not in headers:
                    with self.lock:
                        self.bad.append(f"POST {profile} {status} {body[:200]!r}")
                time.sleep(0.2 if status else 0.1)

    def readiness(self, ports):
        """/readyz of each instance, every 0.2 s: 200 ready or degraded, never 503, never silent."""
        while not self.stop_reads.is_set():
            for port in ports:
                status, _, body = request(port, "GET", "/readyz", timeout=5)
                with self.lock:
                    self.ready.append((status, body.strip()))
            time.sleep(0.2)

    def reader(self, index):
        rng = random.Random(self.seed * 1000 + 500 + index)
        while not self.stop_reads.is_set():
            sent = time.time()
            status, headers, body = request(self.front, "GET", f"/v1/profiles/{rng.choice(self.profiles)}/counter")
            with self.lock:
                self.reads.append((sent, time.time(), status))
                if not (200 <= status < 300 or status == 404 or (status == 503 and "Retry-After" in headers)):
                    self.bad.append(f"GET {status} {body[:200]!r}")
            time.sleep(0.02)


def recovery(writes, fault):
    """Seconds from the fault until writes succeed again: to the first success after the last
    failure answered after the fault, or, where no write failed, the longest a successful write
    was held from the fault on. A partitioned primary's writes may wait (the packets dropped,
    no error) and be acknowledged once a new primary has them: counting failures alone gave
    such a round 0.0 s (CI, main fd68572, round 3), and the reads sent "during it" none."""
    held = max((answered - max(sent, fault) for sent, answered, status in writes if status == 200 and answered >= fault),
               default=0.0)
    failures = [answered for sent, answered, status in writes if status != 200 and answered >= fault]
    if not failures:
        return held
    last_failure = max(failures)
    successes = [answered for sent, answered, status in writes if status == 200 and answered >= last_failure]
    return max(min(successes) - fault, held) if successes else float("inf")


def log_of(port, profile):
    """Every logged event of the profile, from the JSON pages."""
    events, after = [], 0
    while True:
        status, _, body = request(port, "GET", f"/v1/profiles/{profile}/events?after={after}&limit=1000",
                                  {"Accept": "application/json"})
        if status != 200:
            raise RuntimeError(f"event page: {status} {body[:200]!r}")
        page = json.loads(body)
        events += page["events"]
        after = page["lastEventId"]
        if not page["hasMore"]:
            return events


def check_subscriber(subscriber, logged):
    """Problems of one stream against the log: duplicates, ids going back, gaps without reset."""
    problems = []
    ids = [event_id for event_id, kind, _ in subscriber.events if kind != "reset"]
    if len(ids) != len(set(ids)):
        problems.append("duplicate ids")
    if ids != sorted(ids):
        problems.append("ids not increasing")
    excused_up_to = subscriber.first
    received = set(ids)
    for event_id, kind, data in subscriber.events:
        if kind == "reset":
            excused_up_to = max(excused_up_to, json.loads(data).get("latest", 0))
    for event in logged:
        if event["id"] > excused_up_to and event["id"] not in received:
            problems.append(f"missing id {event['id']}")
            break
    return problems


def run_round(formation, ports, front, kind, seed, number):
    rng = random.Random(seed)
    profiles = [f"fo{number}-{seed}-{index}" for index in range(PROFILES)]
    load = Load(front, seed, profiles)
    for profile in profiles:  # profiles exist before streams open on them; counters stay 0
        request(front, "PUT", f"/v1/profiles/{profile}/font", {"Content-Type": "application/json"}, body=b'{"sliderValue": 1}')
    subscribers = []
    for port in ports:
        for profile in profiles[:2]:
            state = json.loads(request(port, "GET", f"/v1/profiles/{profile}/state")[2] or b"{}")
            subscribers.append(Subscriber(port, profile, int(state.get("lastEventId", 0))))
    # Daemons: a check ended by SIGTERM (CI's timeout) in mid-round must not wait for writers
    # that retry until acknowledged.
    threads = [threading.Thread(target=load.writer, args=(i,), daemon=True) for i in range(WRITERS)]
    threads += [threading.Thread(target=load.reader, args=(i,), daemon=True) for i in range(READERS)]
    threads.append(threading.Thread(target=load.readiness, args=(ports,), daemon=True))
    for thread in subscribers + threads:
        thread.start()
    primary = formation.primary()
    log_before = len(primary.log())
    time.sleep(rng.uniform(2.0, 4.0))  # the random moment
    fault = time.time()
    print(f"failover: round {number} {kind} (seed {seed}): {primary.name} at {time.strftime('%H:%M:%S')}", flush=True)
    if kind == "postmaster":
        primary.kill_postmaster()
    elif kind == "node":
        primary.kill()
    else:
        primary.partition()
    # Load goes on until writes have succeeded for 3 s after the last failure (at most 40 s).
    while time.time() - fault < 40:
        time.sleep(0.5)
        with load.lock:
            took = recovery(load.writes, fault)
            last = max((a for s, a, status in load.writes if status != 200), default=fault)
        if took != float("inf") and time.time() - max(last, fault) > 3 and time.time() - fault > 5:
            break
    if kind == "partition":
        remaining = PARTITION_SECONDS - (time.time() - fault)
        if remaining > 0:
            time.sleep(remaining)
    load.stop_writes.set()
    load.stop_reads.set()
    for thread in threads:
        thread.join(60)
    outage_end = fault + recovery(load.writes, fault)
    # The old primary rejoins as a standby (after a postmaster kill its keeper restarted it).
    if kind == "node":
        primary.run()
    elif kind == "partition":
        primary.heal()
    rejoin_started = time.time()
    formation.wait_healthy(90)
    rejoined = time.time() - rejoin_started
    new_primary = formation.primary()
    # pg_rewind may fail for a reason of its own (pg_auto_failover then makes a full copy,
    # printed with pg_rewind's error); it must not be refused by pg_hba.conf (entrypoint.sh
    # lets it in).
    rejoin_log = primary.log()[log_before:]
    full_copy = "Failed to rewind" in rejoin_log or "base backup completed" in rejoin_log
    rewind_error = next((line.split("INFO", 1)[-1].strip() for line in rejoin_log.splitlines()
                         if "error:" in line or "fatal:" in line), "")
    time.sleep(1.5)  # the last events reach the streams
    for subscriber in subscribers:
        subscriber.stop.set()
    results = {}
    values_ok, lost, twice = True, 0, 0
    for profile in profiles:
        logged = log_of(ports[0], profile)
        final = json.loads(request(ports[1], "GET", f"/v1/profiles/{profile}/counter")[2])["value"]
        acked = sorted(load.acked[profile])
        keys = load.keys[profile]
        lost += max(0, keys - final)
        twice += max(0, final - keys)
        if acked != list(range(1, final + 1)) or len(acked) != keys:
            values_ok = False
            print(f"failover: {profile}: {keys} keys, final {final}, acknowledged values {acked[:5]}...", flush=True)
        ids = [event["id"] for event in logged]
        results.setdefault("ids", []).append(ids == sorted(set(ids)))
        for subscriber in subscribers:
            if subscriber.profile == profile:
                problems = check_subscriber(subscriber, logged)
                results.setdefault("streams", []).append((subscriber.port, profile, len(subscriber.events), subscriber.reopened, problems))
    total_writes = sum(len(v) for v in load.acked.values())
    window = [(answered - sent, status) for sent, answered, status in load.reads if fault <= sent <= outage_end]
    answered = sum(1 for _, status in window if status == 200)
    slowest = max((took for took, _ in window), default=0.0)
    took = outage_end - fault
    failed_writes = sum(1 for s, a, status in load.writes if status != 200)
    print(f"failover: round {number} {kind} (seed {seed}): {total_writes} writes acknowledged, {failed_writes} answers 503 "
          f"or none (retried), lost {lost}, applied twice {twice}; writes succeed again after {took:.1f} s; "
          f"reads sent during it {answered}/{len(window)} answered 200 (slowest {slowest:.1f} s); primary now {new_primary.name}, "
          f"{primary.name} back as standby after {rejoined:.1f} s{f' (a full copy: {rewind_error})' if full_copy else ''}; "
          f"bad answers {len(load.bad)}", flush=True)
    for port, profile, count, reopened, problems in results.get("streams", []):
        print(f"failover:   stream on :{port} {profile}: {count} events, reopened {reopened}x, "
              f"{'; '.join(problems) or 'no duplicate, no gap'}", flush=True)
    for line in load.bad[:5]:
        print(f"failover:   bad answer: {line}", flush=True)
    name = f"round {number} {kind} (seed {seed})"
    degraded = sum(1 for status, body in load.ready if body == b'{"status":"degraded"}')
    steady = all(status == 200 and body in (b'{"status":"ready"}', b'{"status":"degraded"}') for status, body in load.ready)
    print(f"failover:   /readyz: {len(load.ready)} answers, {degraded} degraded, "
          f"others: {sorted(set(s for s, b in load.ready if s != 200))}", flush=True)
    return {
        f"{name}: 0 acknowledged writes lost ({lost})": lost == 0,
        f"{name}: 0 writes applied twice ({twice})": twice == 0,
        f"{name}: acknowledged values are exactly 1..final per counter": values_ok,
        f"{name}: every answer 2xx or 503 with Retry-After ({len(load.bad)} others)": not load.bad,
        f"{name}: writes succeed again within 10 s ({took:.1f} s)": took <= 10,
        f"{name}: reads sent during the outage answered 200: {answered}/{len(window)} (at least 99 %)": answered >= 0.99 * len(window),
        f"{name}: event ids unique and increasing in the log": all(results.get("ids", [False])),
        f"{name}: /readyz answered 200 ready or degraded throughout ({degraded} degraded)": steady and load.ready != [],
        f"{name}: every stream got each event once, no gap without reset": all(not p for *_, p in results["streams"]),
        # wait_healthy above returned: one primary, one secondary.
        (f"{name}: the standby took over and the old primary is its standby now" if kind != "postmaster" else
         f"{name}: primary and synchronous standby again"): kind == "postmaster" or new_primary is not primary,
        f"{name}: pg_hba.conf let the old primary's pg_rewind in": "no pg_hba.conf entry" not in rejoin_log,
    }


def main():
    binary = sys.argv[1]
    # `timeout` ends the check with SIGTERM: the formation's processes and namespaces go too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("failover: terminated"))
    directory = tempfile.mkdtemp(prefix="navprefs-failover-")
    os.chmod(directory, 0o755)
    formation = Formation(os.path.join(directory, "formation"))
    instances, nginx = [], None
    checks = {}
    started = time.time()
    try:
        formation.start()
        parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in formation.startup.items())
        print(f"failover: formation up from deploy/ in {time.time() - started:.1f} s ({parts}; {formation.url})", flush=True)
        checks.update(formation.shipped_settings())
        ports = [free_port(), free_port()]
        front = free_port()
        instances = [start_instance(binary, formation, port, directory, f"instance-{i}") for i, port in enumerate(ports)]
        nginx = nginx_front.start(directory, ports, front)
        for number, (kind, seed) in enumerate(rounds(), start=1):
            checks.update(run_round(formation, ports, front, kind, seed, number))
        for index, port in enumerate(ports):
            status, _, body = request(port, "GET", "/readyz")
            checks[f"instance {index} ready again after the rounds ({status} {body.strip()!r})"] = body.strip() == b'{"status":"ready"}'
    finally:
        if nginx:
            nginx.terminate()
            nginx.wait(10)
        for instance in instances:
            if instance.poll() is None:
                instance.terminate()
                try:
                    instance.wait(15)
                except subprocess.TimeoutExpired:
                    instance.kill()
        if os.environ.get("NAVPREFS_FAILOVER_KEEP"):
            print(f"failover: kept {directory}")
        else:
            formation.stop()
            shutil.rmtree(directory, ignore_errors=True)
    print(f"failover: {time.time() - started:.0f} s in all", flush=True)
    report("failover", checks)


if __name__ == "__main__":
    main()
