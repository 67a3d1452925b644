#!/usr/bin/env python3
"""The client guide's manifest, built and run as an app team would: a separate SwiftPM package
whose Package.swift is docs/swift-client.md's manifest block verbatim, next to this checkout
(as `../NavPrefs`), with a main.swift that queues an increment offline and reads it back.

Also checks that README's manifest excerpt is part of that manifest. Exit 0 when the package
builds and prints what it should; otherwise why, and exit 1.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

MAIN = """import Foundation
import NavPrefsClient

// Nothing listens on port 9: the write is queued, in the mirror at once.
let client = NavPrefsClient(server: URL(string: "http://127.0.0.1:9")!)
let profile = try client.profile("ana", options: ProfileOptions(suiteName: "check-client-dependency-\\(getpid())"))
profile.counter.increment()
print("counter \\(profile.counter.stringValue), \\(profile.pendingWrites) queued")
await profile.close(erasingMirror: true)
"""


def main() -> int:
    guide = (ROOT / "docs/swift-client.md").read_text()
    manifests = [b for b in re.findall(r"```swift\n(.*?)```", guide, re.S) if "import PackageDescription" in b]
    if len(manifests) != 1:
        print(f"docs/swift-client.md: expected one manifest block, found {len(manifests)}", file=sys.stderr)
        return 1
    manifest = manifests[0]
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
        build = subprocess.run(["swift", "build"], cwd=app, capture_output=True, text=True, env=environment)
        if build.returncode != 0:
            print(build.stdout[-4000:], build.stderr[-4000:], sep="\n", file=sys.stderr)
            print("the guide's manifest does not build", file=sys.stderr)
            return 1
        warnings = [line for line in build.stdout.splitlines() if "warning:" in line and "/NavPrefs/" in line]
        run = subprocess.run([str(app / ".build/debug/App")], capture_output=True, text=True, env=environment, timeout=60)
        if run.returncode != 0 or run.stdout.strip() != "counter 1, 1 queued":
            print(f"the app printed {run.stdout!r} (status {run.returncode}): {run.stderr[-2000:]}", file=sys.stderr)
            return 1
        for line in warnings:
            print(line, file=sys.stderr)
        print(f"client dependency: the guide's manifest builds and runs a separate package ({run.stdout.strip()}); "
              f"{len(warnings)} warnings in NavPrefs' sources")
        return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
