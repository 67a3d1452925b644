"""The navprefs binary under attack: started on an ephemeral loopback port with a SQLite file in
a directory of its own, optionally token-protected, and killed or stopped by its process id."""
import json
import os
import re
import signal
import subprocess
import time

import rawhttp


class Service:
    def __init__(self, binary, directory, name="navprefs"):
        self.binary, self.directory, self.name = binary, directory, name
        self.database = f"sqlite:{directory}/{name}.sqlite"
        self.log_path = os.path.join(directory, f"{name}.log")
        self.process = None
        self.port = None

    def create_token(self, admin=True, profile=None):
        """`navprefs tokens create` on the database (before the service runs: one process per file)."""
        scope = ["--admin"] if admin else ["--profile", profile]
        result = subprocess.run([self.binary, "tokens", "create", *scope, "--label", "hostile",
                                 "--database", self.database], capture_output=True, text=True, timeout=30)
        if result.returncode != 0 or not result.stdout.strip():
            raise RuntimeError(f"tokens create failed: {result.stderr}")
        return result.stdout.strip().splitlines()[-1]

    def start(self, extra=(), timeout=15.0):
        """Starts it on port 0 (settings after the defaults win) and waits for `listening`."""
        log = open(self.log_path, "a+")
        start_offset = log.tell()
        self.process = subprocess.Popen(
            [self.binary, "--port", "0", "--database", self.database, "--readiness-drain", "0", *extra],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log.seek(start_offset)
            match = re.search(r'"msg":"listening".*?"url":"http://127\.0\.0\.1:(\d+)"', log.read())
            if match:
                self.port = int(match.group(1))
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self.kill()
        raise RuntimeError(f"{self.name} did not start: {self.tail()}")

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def healthy(self, timeout=2.0):
        try:
            return rawhttp.request(self.port, "GET", "/healthz", timeout=timeout).status == 200
        except (OSError, rawhttp.Closed, ValueError):
            return False

    def kill(self):
        """SIGKILL, by its pid; waits for it."""
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        if self.process:
            self.process.wait(10)

    def stop(self, timeout=20.0):
        """SIGTERM; returns the exit status (None if it had to be killed)."""
        if not self.process or self.process.poll() is not None:
            return self.process.returncode if self.process else None
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def tail(self, lines=20):
        try:
            with open(self.log_path, errors="replace") as log:
                return "".join(log.readlines()[-lines:])
        except OSError:
            return ""

    def answered_5xx(self):
        """Request log lines with a 5xx status: (count, first few lines)."""
        found = []
        with open(self.log_path, errors="replace") as log:
            for line in log:
                if '"msg":"request"' in line and re.search(r'"status":5\d\d', line):
                    found.append(line.strip())
        return len(found), found[:5]


def json_body(response):
    try:
        return json.loads(response.body)
    except (ValueError, UnicodeDecodeError):
        return None
