#!/usr/bin/env python3
"""Runs deploy/nginx-navprefs.conf for real: two navprefs instances on one PostgreSQL database
behind nginx (Debian's), and checks what docs/several-instances.md promises of it: writes through nginx land on
both instances and add up; an event stream through nginx gets a refresh made through either
instance at once (nginx does not buffer it); a stopped instance is skipped, no request fails.

Usage: check-nginx.py NAVPREFS_BINARY POSTGRES_URL   (scripts/lib/postgres.sh start gives one)
"""
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from navprefs_checks import report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_instance(binary, url, port, directory, name):
    log = open(os.path.join(directory, f"{name}.log"), "w+")
    process = subprocess.Popen([binary, "--port", str(port), "--database", url, "--readiness-drain", "0",
                                "--sse-heartbeat", "2",
                                "--trusted-proxies", "127.0.0.1", "--allowed-hosts", "navprefs.test"], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 15
    while time.time() < deadline:
        log.seek(0)
        if '"msg":"listening"' in log.read():
            return process
        if process.poll() is not None:
            break
        time.sleep(0.05)
    log.seek(0)
    sys.exit(f"navprefs {name} did not start: {log.read()}")


def request(port, method, path, body=None, host=None, source=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                            source_address=(source, 0) if source else None)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if host:
        headers["Host"] = host
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def main():
    binary, base_url = sys.argv[1], sys.argv[2]
    checks = {}
    directory = tempfile.mkdtemp(prefix="navprefs-nginx-")
    database = "navprefs_nginx_" + uuid.uuid4().hex
    subprocess.run(["psql", base_url, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {database}"], check=True)
    url = re.sub(r"/[^/?]*(\?|$)", f"/{database}\\1", base_url.split("://", 1)[1], count=1)
    url = base_url.split("://", 1)[0] + "://" + url
    ports = [free_port(), free_port()]
    front = free_port()
    instances = [start_instance(binary, url, port, directory, f"instance-{i}") for i, port in enumerate(ports)]

    # The shipped file, with the upstream ports and the listen port of this run.
    config = open(os.path.join(ROOT, "deploy/nginx-navprefs.conf")).read()
    config = config.replace("127.0.0.1:8081", f"127.0.0.1:{ports[0]}").replace("127.0.0.1:8082", f"127.0.0.1:{ports[1]}")
    config = config.replace("listen 8080;", f"listen 127.0.0.1:{front};")
    with open(os.path.join(directory, "navprefs.conf"), "w") as f:
        f.write(config)
    with open(os.path.join(directory, "nginx.conf"), "w") as f:
        f.write(f"""daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    include {directory}/navprefs.conf;
}}
""")
    nginx = subprocess.Popen(["nginx", "-c", f"{directory}/nginx.conf", "-p", directory],
                             stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                if request(front, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        checks["nginx -c with deploy/nginx-navprefs.conf serves /healthz"] = request(front, "GET", "/healthz")[0] == 200

        # 8 clients x 25 increments through nginx, which spreads them over both instances.
        statuses = []
        lock = threading.Lock()

        def client():
            for _ in range(25):
                status, _ = request(front, "POST", "/v1/profiles/lb/counter/increment")
                with lock:
                    statuses.append(status)
        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        checks["200 increments through nginx are all answered 200"] = statuses.count(200) == 200
        values = [json.loads(request(port, "GET", "/v1/profiles/lb/counter")[1])["value"] for port in ports]
        checks["both instances read 200"] = values == [200, 200]

        # An event stream through nginx: the refresh of a font change made directly on either
        # instance arrives at once, so nginx does not buffer it.
        stream = socket.create_connection(("127.0.0.1", front), timeout=5)
        stream.sendall(b"GET /v1/profiles/lb/events?types=refresh HTTP/1.1\r\nHost: navprefs.test\r\nAccept: text/event-stream\r\n\r\n")
        received = b""
        while b"retry:" not in received:
            received += stream.recv(4096)
        checks["the stream through nginx is text/event-stream"] = b"text/event-stream" in received
        arrivals = []
        for index, port in enumerate(ports):
            started = time.time()
            request(port, "PUT", "/v1/profiles/lb/font", json.dumps({"sliderValue": index + 1}))
            while f'"sliderValue":{index + 1}'.encode() not in received and time.time() - started < 5:
                received += stream.recv(4096)
            arrivals.append(time.time() - started)
        checks[f"refreshes made on each instance arrive through nginx within 1 s ({', '.join(f'{a * 1000:.0f} ms' for a in arrivals)})"] = all(a < 1 for a in arrivals)
        stream.close()

        # The Host nginx passes on is checked (DNS rebinding), and the client's address is the
        # one nginx saw (X-Forwarded-For from a trusted proxy): here a client on 127.0.0.2.
        checks["a name not in --allowed-hosts gets 421 through nginx"] = \
            request(front, "GET", "/v1/profiles/lb/counter", host="evil.example")[0] == 421
        request(front, "GET", "/v1/profiles/lb/counter", host="navprefs.test", source="127.0.0.2")
        time.sleep(0.3)  # request lines are written in batches every 100 ms
        logged = "".join(open(os.path.join(directory, f"instance-{i}.log")).read() for i in range(2))
        remotes = [json.loads(line).get("remote") for line in logged.splitlines()
                   if line.startswith("{") and '"route":"/v1/profiles/{profile}/counter"' in line and '"method":"GET"' in line]
        checks["behind nginx the request log names the client's address, 127.0.0.2"] = "127.0.0.2" in remotes

        # One instance stops: nginx sends everything to the other; no request fails.
        instances[0].terminate()
        instances[0].wait(15)
        after = [request(front, "POST", "/v1/profiles/lb/counter/increment")[0] for _ in range(20)]
        checks["with one instance stopped, 20 increments through nginx are all answered 200"] = after == [200] * 20
        checks["and the counter is 220"] = json.loads(request(front, "GET", "/v1/profiles/lb/counter")[1])["value"] == 220
    finally:
        nginx.terminate()
        nginx.wait(10)
        for instance in instances:
            if instance.poll() is None:
                instance.terminate()
                instance.wait(15)
        subprocess.run(["psql", base_url, "-qc", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"], check=False)
        shutil.rmtree(directory, ignore_errors=True)
    report("nginx", checks)


if __name__ == "__main__":
    main()
