"""Shared by the Python checks in scripts/: run the navprefs binary on an ephemeral loopback
port, and report named checks as `NAME: N passed, N failed` (exit 0 only if all pass)."""
import os
import re
import subprocess
import sys
import time


def start_service(binary, directory, extra=()):
    """Starts `binary` on port 0 with a SQLite file in `directory`; returns (process, port)."""
    log = open(os.path.join(directory, "navprefs.log"), "w+")
    process = subprocess.Popen(
        [binary, "--port", "0", "--database", f"sqlite:{directory}/navprefs.sqlite",
         "--sqlite-synchronous", "normal", "--readiness-drain", "0", *extra],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 10
    while time.time() < deadline:
        log.seek(0)
        match = re.search(r'"url":"http://127\.0\.0\.1:(\d+)"', log.read())
        if match:
            return process, int(match.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    log.seek(0)
    sys.exit(f"navprefs did not start: {log.read()}")


def stop_service(process, checks):
    """SIGTERM, and a check that it exits 0."""
    process.terminate()
    checks["navprefs exited 0 on SIGTERM"] = process.wait(15) == 0


def report(name, checks):
    """One line per check, then the summary line; exits with the verdict."""
    for check, passed in checks.items():
        print(f"{name}: {'PASS' if passed else 'FAIL'} {check}")
    passed = sum(checks.values())
    print(f"{name}: {passed} passed, {len(checks) - passed} failed")
    sys.exit(0 if passed == len(checks) else 1)
