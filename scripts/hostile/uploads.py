"""Unauthenticated uploads to a token-protected server.

1. Admission: 100 clients (from 127.0.0.3) each send the head of a 1,000,000-byte PUT without a
   token (half of them with `Expect: 100-continue`) and then wait, sending no body byte. Each must
   be answered 401 within 3 s (so the server decided before reading the body), never
   `100 Continue`, and its connection closed (the body was never read).
2. Memory: 100 stubborn clients send the same head and then the body regardless, 8 KiB every
   100 ms (about 12 s for the whole megabyte), for at most 14 s. The server's resident memory,
   sampled every 100 ms, may grow by at most 16 MiB over its level before the attack (buffering
   the bodies would take about 100 MB), and the server stays healthy and serves the token.
"""
import threading
import time

import rawhttp

SOURCE = "127.0.0.3"
BODY_BYTES = 1_000_000


def head(port, index, expect):
    lines = [f"PUT /v1/profiles/upload-{index}/preferences/blob HTTP/1.1", f"Host: 127.0.0.1:{port}",
             "Content-Type: application/json", f"Content-Length: {BODY_BYTES}"]
    if expect:
        lines.append("Expect: 100-continue")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def admission(port, clients):
    outcomes = [None] * clients

    def client(index):
        try:
            connection = rawhttp.Connection(port, source=SOURCE, timeout=5)
        except OSError as error:
            outcomes[index] = f"connect: {error}"
            return
        try:
            connection.send(head(port, index, expect=index % 2 == 0))
            started = time.monotonic()
            response = connection.read_response(timeout=3.0)
            elapsed = time.monotonic() - started
            if response.status == 100:
                outcomes[index] = "100 Continue before the token was checked"
            elif response.status != 401:
                outcomes[index] = f"status {response.status}"
            elif not connection.closed_by_server(within=2.0):
                outcomes[index] = "401, but the connection stayed open for a body nobody reads"
            else:
                outcomes[index] = ("ok", elapsed)
        except TimeoutError:
            outcomes[index] = "no answer within 3 s without the body (the server waits for it)"
        except (OSError, rawhttp.Closed, ValueError) as error:
            outcomes[index] = f"{type(error).__name__}: {error}"
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    good = [o for o in outcomes if isinstance(o, tuple)]
    bad = [o for o in outcomes if not isinstance(o, tuple)]
    slowest = max((o[1] for o in good), default=float("nan"))
    print(f"uploads: admission: {len(good)} of {clients} answered 401 before any body byte "
          f"(slowest {slowest * 1000:.0f} ms), connection closed after it"
          + (f"; others: {sorted(set(map(str, bad)))[:4]}" if bad else ""))
    return len(good) == clients


def stubborn(port, clients, seconds, pid):
    stop = threading.Event()
    sent = [0] * clients
    answered = [0]
    lock = threading.Lock()

    def client(index):
        try:
            connection = rawhttp.Connection(port, source=SOURCE, timeout=5)
        except OSError:
            return
        try:
            connection.send(head(port, index, expect=False))
            chunk = b"[" + b" " * 8190 + b"]"
            while not stop.is_set() and sent[index] + len(chunk) <= BODY_BYTES:
                connection.sock.sendall(chunk)
                sent[index] += len(chunk)
                if connection.readable(0.1):
                    with lock:
                        answered[0] += 1
                    return
        except OSError:
            with lock:
                answered[0] += 1  # closed or reset by the server: it stopped reading
        finally:
            connection.close()

    baseline = rawhttp.rss_kib(pid)
    peak = baseline
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(t.is_alive() for t in threads):
        peak = max(peak, rawhttp.rss_kib(pid))
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(5)
    peak = max(peak, rawhttp.rss_kib(pid))
    total = sum(sent)
    print(f"uploads: memory: {clients} clients pushed {total / 1e6:.1f} MB of body without a token; "
          f"{answered[0]} were stopped by the server; resident memory {baseline / 1024:.1f} MiB before, "
          f"peak {peak / 1024:.1f} MiB (+{(peak - baseline) / 1024:.1f} MiB)")
    return peak - baseline


def run(service, token, clients=100, seconds=14.0, max_growth_mib=16):
    port = service.port
    # Warm up the paths the attack takes (first-use allocations are not growth).
    for _ in range(20):
        rawhttp.request(port, "GET", "/v1/profiles/default/counter", [("Authorization", f"Bearer {token}")])
        rawhttp.request(port, "GET", "/v1/profiles/default/counter")
    admitted = admission(port, clients)
    growth_kib = stubborn(port, clients, seconds, service.pid)
    authorized = rawhttp.request(port, "PUT", "/v1/profiles/upload-ok/preferences/blob",
                                 [("Authorization", f"Bearer {token}"), ("Content-Type", "application/json")],
                                 b'{"value": "fine"}')
    return {
        f"{clients} unauthenticated 1 MB uploads each answered 401 before its body, connection closed": admitted,
        f"resident memory grew by at most {max_growth_mib} MiB under {clients} stubborn unauthenticated uploads "
        f"(+{growth_kib / 1024:.1f} MiB)": growth_kib <= max_growth_mib * 1024,
        "the token's own upload is served afterwards (201)": authorized.status == 201,
        "the server is alive and healthy after the uploads": service.alive() and service.healthy(),
    }
