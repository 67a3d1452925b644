#!/usr/bin/env python3
"""The client guide's manifest, built and run as an app team would: a separate SwiftPM package
whose Package.swift is docs/swift-client.md's manifest block verbatim, next to this checkout
(as `../NavPrefs`), with a main.swift that queues an increment offline and reads it back.

Then the guide's whole program (its `// main.swift` block) in the same package, against a real
server in open mode (the binary given, `.build/debug/navprefs` by default) with the guide's
`http://127.0.0.1:8080` pointed at that server's port: it observes `doRefreshNotification` with
`queue: .main` in a program with an async `main`, where a post that waits on the main queue
hangs it. The program's output goes to a pseudo-terminal, line by line, as in a terminal: it must
print the font size, its own change's notification, one notification for each of two changes
made from outside, each within 5 s of the change, and end by itself.

Also checks that README's manifest excerpt is part of that manifest. Exit 0 when the package
builds and both programs print what they should; otherwise why, and exit 1.
"""
import json
import os
import pathlib
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE_SERVER = "http://127.0.0.1:8080"

MAIN = """import Foundation
import NavPrefsClient

// Nothing listens on port 9: the write is queued, in the mirror at once.
let client = NavPrefsClient(server: URL(string: "http://127.0.0.1:9")!)
let profile = try client.profile("ana", options: ProfileOptions(suiteName: "check-client-dependency-\\(getpid())"))
profile.counter.increment()
print("counter \\(profile.counter.stringValue), \\(profile.pendingWrites) queued")
await profile.close(erasingMirror: true)
"""


def build(app, environment):
    """`swift build` in `app`; the warnings in NavPrefs' sources, or None when it fails."""
    result = subprocess.run(["swift", "build"], cwd=app, capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        print(result.stdout[-4000:], result.stderr[-4000:], sep="\n", file=sys.stderr)
        return None
    return [line for line in result.stdout.splitlines() if "warning:" in line and "/NavPrefs/" in line]


class Server:
    """`navprefs` on port 0 with a fresh SQLite file: open mode, loopback only."""

    def __init__(self, binary, directory):
        self.log = open(directory / "navprefs.log", "w+")
        self.process = subprocess.Popen([binary, "--port", "0", "--database", f"sqlite:{directory / 'guide.sqlite'}"],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.url = None
        deadline = time.monotonic() + 30
        while self.url is None and time.monotonic() < deadline and self.process.poll() is None:
            time.sleep(0.1)
            self.log.seek(0)
            found = re.search(r'"url":"(http://127\.0\.0\.1:\d+)"', self.log.read())
            self.url = found.group(1) if found else None
        if self.url is None:
            self.log.seek(0)
            raise RuntimeError(f"navprefs did not start: {self.log.read()[-2000:]}")

    def font(self, profile):
        with urllib.request.urlopen(f"{self.url}/v1/profiles/{profile}/font", timeout=5) as answer:
            return json.load(answer)

    def put_font(self, profile, slider):
        request = urllib.request.Request(f"{self.url}/v1/profiles/{profile}/font", method="PUT",
                                         data=json.dumps({"sliderValue": slider}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            return json.load(answer)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


class Terminal:
    """A program whose standard output is a pseudo-terminal (line-buffered, as in a shell)."""

    def __init__(self, argv, environment):
        self.controller, device = pty.openpty()
        self.process = subprocess.Popen(argv, stdout=device, stderr=subprocess.PIPE, env=environment)
        os.close(device)
        self.pending = b""
        self.printed = []

    def line(self, within):
        """The next line printed, or None when none came within `within` seconds."""
        deadline = time.monotonic() + within
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.controller], [], [], left)[0]:
                return None
            try:
                chunk = os.read(self.controller, 4096)
            except OSError:  # the program ended and closed its side
                return None
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        text = line.decode(errors="replace").rstrip("\r")
        self.printed.append(text)
        return text

    def finish(self, within):
        """The exit status once the program ends within `within` seconds (killed otherwise: None)."""
        try:
            return self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None
        finally:
            os.close(self.controller)


def run_guide_program(app, program, binary, scratch, environment):
    """Builds the guide's program and runs it against a server of its own; a failure's reason or None."""
    server = Server(binary, scratch)
    try:
        if program.count(GUIDE_SERVER) != 1:
            return f"the guide's program names {GUIDE_SERVER} {program.count(GUIDE_SERVER)} times, not once"
        (app / "Sources/App/main.swift").write_text(program.replace(GUIDE_SERVER, server.url))
        warnings = build(app, environment)
        if warnings is None:
            return "the guide's program does not build"
        terminal = Terminal([str(app / ".build/debug/App")], environment)
        expected = ["font size 17.0 (from the server)", "doRefreshNotification: font size 18.0"]
        for line in expected:
            printed = terminal.line(within=30)
            if printed != line:
                terminal.finish(within=1)
                return f"the guide's program printed {terminal.printed!r}; expected {line!r} next"
        # The program's own change reaches the server first (queued, sent at once): a change
        # from outside made before it would be overtaken by it, and announced as the mirror
        # shows it, the queued value.
        deadline = time.monotonic() + 10
        while server.font("demo")["sliderValue"] != 1.0:
            if time.monotonic() > deadline:
                terminal.finish(within=1)
                return f"the program's own change never reached the server: {server.font('demo')}"
            time.sleep(0.05)
        # Another device's changes: each notification within 5 s, on the main queue.
        for slider in (4, 9):
            server.put_font("demo", slider)
            changed = time.monotonic()
            printed = terminal.line(within=5)
            if printed != f"doRefreshNotification: font size {slider + 17.0}":
                terminal.finish(within=1)
                return f"after another device set the slider to {slider}, the program printed {terminal.printed!r}"
            print(f"guide program: another device's change announced {time.monotonic() - changed:.3f} s after it was made")
        status = terminal.finish(within=10)
        if status != 0:
            return f"the guide's program did not end by itself with status 0 after three changes (status {status})"
        return None
    finally:
        server.stop()


def main() -> int:
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / ".build/debug/navprefs")
    guide = (ROOT / "docs/swift-client.md").read_text()
    blocks = re.findall(r"```swift\n(.*?)```", guide, re.S)
    manifests = [b for b in blocks if "import PackageDescription" in b]
    if len(manifests) != 1:
        print(f"docs/swift-client.md: expected one manifest block, found {len(manifests)}", file=sys.stderr)
        return 1
    manifest = manifests[0]
    programs = [b for b in blocks if b.startswith("// main.swift\n")]
    if len(programs) != 1:
        print(f"docs/swift-client.md: expected one whole program (a block starting '// main.swift'), found {len(programs)}",
              file=sys.stderr)
        return 1
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Swift client\n", 1)[1].split("\n## ", 1)[0]
    for block in re.findall(r"```swift\n(// Package.swift\n.*?)```", section, re.S):
        for line in block.splitlines()[1:]:
            if line.strip() and line.strip() not in manifest:
                print(f"README's manifest line is not in the guide's manifest: {line.strip()}", file=sys.stderr)
                return 1
    with tempfile.TemporaryDirectory(prefix="navprefs-app-") as scratch:
        base = pathlib.Path(scratch)
        (base / "NavPrefs").symlink_to(ROOT)
        app = base / "App"
        (app / "Sources/App").mkdir(parents=True)
        (app / "Package.swift").write_text(manifest)
        (app / "Sources/App/main.swift").write_text(MAIN)
        environment = dict(os.environ, HOME=scratch)
        environment.pop("XDG_CONFIG_HOME", None)
        warnings = build(app, environment)
        if warnings is None:
            print("the guide's manifest does not build", file=sys.stderr)
            return 1
        run = subprocess.run([str(app / ".build/debug/App")], capture_output=True, text=True, env=environment, timeout=60)
        if run.returncode != 0 or run.stdout.strip() != "counter 1, 1 queued":
            print(f"the app printed {run.stdout!r} (status {run.returncode}): {run.stderr[-2000:]}", file=sys.stderr)
            return 1
        failure = run_guide_program(app, programs[0], binary, base, environment)
        if failure:
            print(failure, file=sys.stderr)
            return 1
        for line in warnings:
            print(line, file=sys.stderr)
        print(f"client dependency: the guide's manifest builds and runs a separate package ({run.stdout.strip()}); "
              f"the guide's program follows three font changes with a main-queue observer and ends; "
              f"{len(warnings)} warnings in NavPrefs' sources")
        return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
