#!/usr/bin/env python3
"""Checks a server for libmicrohttpd 0.9.75's epoll "128 events" stall.

MHD_epoll() drains ready events in a loop that calls epoll_wait() again whenever the previous
call filled its 128-event buffer, and handles the connections only afterwards. When exactly
128·k sockets are ready at once, the extra epoll_wait() finds nothing and blocks for the whole
timeout: forever with MHD's internal thread and no connection timeout, up to the connection
timeout otherwise (60 s for NavPrefs), and at most the MHD_run_wait() timeout (50 ms) in
NavPrefs' external loop.

How: open K idle keep-alive connections, stop the server (SIGSTOP), send one request on each,
continue it (SIGCONT): its next epoll_wait() returns all K at once. Counts the answers within
DEADLINE seconds and the time to the last one.

usage: stall.py PORT SERVER_PID PATH K [K...] [--deadline SECONDS]
prints per K: K=<k> answered=<n>/<k> last_ms=<ms or ->
Only 127.0.0.1; bounded by the deadline; the server is always continued.
"""
import os
import selectors
import signal
import socket
import sys
import time


def trial(port, pid, path, k, deadline):
    conns = []
    try:
        for _ in range(k):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conns.append(s)
        time.sleep(0.3)  # accepted and idle
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        os.kill(pid, signal.SIGSTOP)
        try:
            for s in conns:
                s.sendall(request)
            time.sleep(0.2)  # every request is in a socket buffer
        finally:
            os.kill(pid, signal.SIGCONT)
        start = time.monotonic()
        sel = selectors.DefaultSelector()
        for s in conns:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        answered, last = 0, None
        while answered < k:
            left = start + deadline - time.monotonic()
            if left <= 0:
                break
            for key, _ in sel.select(timeout=min(left, 0.05)):
                if key.fileobj.recv(65536):
                    answered += 1
                    last = time.monotonic() - start
                sel.unregister(key.fileobj)
        sel.close()
        return answered, last
    finally:
        for s in conns:  # close with RST: no TIME_WAIT left behind
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()


def main(argv):
    deadline = 3.0
    if "--deadline" in argv:
        i = argv.index("--deadline")
        deadline = float(argv[i + 1])
        del argv[i:i + 2]
    port, pid, path = int(argv[1]), int(argv[2]), argv[3]
    for k in map(int, argv[4:]):
        answered, last = trial(port, pid, path, k, deadline)
        last_ms = "-" if last is None else f"{last * 1000:.0f}"
        print(f"K={k} answered={answered}/{k} last_ms={last_ms}", flush=True)
        time.sleep(0.5)


if __name__ == "__main__":
    main(sys.argv)
