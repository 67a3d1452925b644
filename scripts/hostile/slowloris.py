"""Slow clients from one address while another probes /healthz.

From 127.0.0.2 the attacker holds three kinds of connections at once: slow headers (a request
line, then one header line a second, never the blank line), idle ones (connect, send nothing)
and slow bodies (a complete head declaring 60000 bytes, then one byte a second). From 127.0.0.1
a probe sends GET /healthz on a fresh connection every 50 ms. Passes when no probe fails, the
probe's p99 stays under 50 ms, and the server itself cuts every slow-header and idle connection
(its header deadline), though the slow-header ones are never idle.
"""
import socket
import statistics
import threading
import time

import rawhttp

ATTACKER = "127.0.0.2"


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def probe(port, stop, samples, failures):
    request = rawhttp.encode("GET", "/healthz", [("Connection", "close")], port=port)
    while not stop.is_set():
        started = time.perf_counter()
        try:
            connection = rawhttp.Connection(port, timeout=2.0)
            connection.send(request)
            response = connection.read_response(timeout=2.0)
            connection.close()
            elapsed = (time.perf_counter() - started) * 1000
            samples.append(elapsed)
            if response.status != 200:
                failures.append(f"status {response.status}")
        except (OSError, rawhttp.Closed, ValueError) as error:
            samples.append((time.perf_counter() - started) * 1000)
            failures.append(type(error).__name__)
        stop.wait(0.05)


def open_attack(port, kind, count):
    """`count` connections from ATTACKER, each having sent the opening bytes of its kind."""
    opened, refused = [], 0
    head = {
        "headers": f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode(),
        "idle": b"",
        "body": (f"PUT /v1/profiles/slow/preferences/k HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 "Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n").encode(),
    }[kind]
    for _ in range(count):
        try:
            sock = socket.socket()
            sock.bind((ATTACKER, 0))
            sock.settimeout(2)
            sock.connect(("127.0.0.1", port))
            if head:
                sock.sendall(head)
            sock.setblocking(False)
            opened.append(sock)
        except OSError:
            refused += 1
    return opened, refused


def run(service, per_kind=200, probe_seconds=15.0, limit_seconds=35.0, max_p99_ms=50.0):
    port = service.port
    kinds = ["headers", "idle", "body"]
    attack = {}
    refused = 0
    started = time.monotonic()
    for kind in kinds:
        attack[kind], missed = open_attack(port, kind, per_kind)
        refused += missed
    opened = {kind: len(attack[kind]) for kind in kinds}
    samples, failures, stop = [], [], threading.Event()
    prober = threading.Thread(target=probe, args=(port, stop, samples, failures), daemon=True)
    prober.start()
    closed_at = {kind: [] for kind in kinds}
    next_drip = time.monotonic() + 1.0
    # Until the server has cut every slow-header and idle connection (at least probe_seconds of
    # probing), or limit_seconds: whichever comes first.
    while time.monotonic() - started < limit_seconds:
        now = time.monotonic()
        for kind in kinds:
            for sock in list(attack[kind]):
                try:
                    if sock.recv(4096) == b"":
                        raise ConnectionResetError
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                closed_at[kind].append(now - started)
                attack[kind].remove(sock)
                sock.close()
        if now >= next_drip:
            for kind, data in (("headers", b"X-Slow: a\r\n"), ("body", b"x")):
                for sock in list(attack[kind]):
                    try:
                        sock.send(data)
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed_at[kind].append(now - started)
                        attack[kind].remove(sock)
                        sock.close()
            next_drip = now + 1.0
        if now - started >= probe_seconds and not attack["headers"] and not attack["idle"]:
            break
        time.sleep(0.05)
    stop.set()
    prober.join(5)
    held_bodies = len(attack["body"])
    for kind in kinds:
        for sock in attack[kind]:
            sock.close()

    p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
    worst = max(samples) if samples else float("nan")
    print(f"slowloris: attacker {ATTACKER}: {per_kind} slow-header, {per_kind} idle, {per_kind} slow-body "
          f"connections, {refused} refused at connect; ran {time.monotonic() - started:.1f} s")
    for kind in kinds:
        times = closed_at[kind]
        when = f"first at {min(times):.1f} s, last at {max(times):.1f} s" if times else "none"
        print(f"slowloris:   {kind}: {len(times)} closed by the server ({when})")
    print(f"slowloris: probe from 127.0.0.1: {len(samples)} requests, {len(failures)} failed, "
          f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {worst:.1f} ms"
          + (f"; first failures {failures[:5]}" if failures else ""))
    print(f"slowloris: slow-body connections still held at the end: {held_bodies} (body deadline longer than the run)")
    return {
        f"/healthz probed {len(samples)} times during the attack, none failed": bool(samples) and not failures,
        f"/healthz p99 under {max_p99_ms:.0f} ms during the attack ({p99:.1f} ms)": bool(samples) and p99 < max_p99_ms,
        "every slow-header connection cut by the server (header deadline, though never idle)":
            opened["headers"] > 0 and len(closed_at["headers"]) == opened["headers"],
        "every idle connection cut by the server": opened["idle"] > 0 and len(closed_at["idle"]) == opened["idle"],
        "the server is alive and healthy after the attack": service.alive() and service.healthy(),
    }
