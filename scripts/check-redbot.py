#!/usr/bin/env python3
"""REDbot (PyPI's `redbot`, lint for HTTP) over every GET route of a populated profile.

Starts the navprefs binary given as the first argument on an ephemeral loopback port, fills
one profile (a counter, stored and registered preferences with a nested value, the font, a
session with two screens and a titled navigation item), then runs REDbot on every GET route
openapi.yaml lists under /v1/profiles (its parameters filled in from that profile), and on the
profile list. REDbot also sends the conditional requests (If-None-Match with the ETag) and
checks the 304 against the 200. Every note is printed as `ROUTE LEVEL NOTE_ID: summary`; the
check fails on any note of level WARN or BAD.

The event stream (`GET .../events` without `Accept: application/json`) never ends, and REDbot
reads a body to its end and cannot send an `Accept`, so that one route is left out; its page
form answers the same headers as every other JSON resource here.
Run with the Python of a venv holding redbot (its `redbot` command is looked for beside it).
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from navprefs_checks import report, start_service, stop_service  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REDBOT = os.path.join(os.path.dirname(sys.executable), "redbot")
LEFT_OUT = {"/v1/profiles/{profile}/events": "an endless event stream"}


def call(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def populate(port):
    """One profile with something behind every GET route; answers the path parameters."""
    base = "/v1/profiles/ana"
    call(port, "POST", base + "/counter/increment", {"by": 3})
    call(port, "PUT", base + "/defaults", {"greeting": "hi", "layout": {"zoom": 1}})
    call(port, "PUT", base + "/preferences/theme", {"value": "dark"})
    call(port, "PATCH", base + "/preferences", {"layout": {"sidebar": {"width": 300, "pinned": None}}, "volume": 0.5})
    call(port, "PUT", base + "/font", {"sliderValue": 2.5})
    session = call(port, "POST", base + "/sessions", {"root": {"id": "home", "navigationItem": {"title": "Home"}}})["session"]
    call(port, "POST", f"{base}/sessions/{session}/push", {"screen": {"id": "detail", "navigationItem": {"title": "Detail"}}})
    return {"profile": "ana", "session": session, "key": "theme", "screenId": "detail"}


def get_routes():
    with open(os.path.join(ROOT, "openapi.yaml")) as file:
        paths = yaml.safe_load(file)["paths"]
    return [path for path, item in paths.items()
            if "get" in item and (path == "/v1/profiles" or path.startswith("/v1/profiles/"))]


def redbot(url):
    """REDbot's notes on `url`: (level, note id, summary), its subrequests' included."""
    output = subprocess.run([REDBOT, "-o", "har", url], capture_output=True, text=True, timeout=120, check=True).stdout
    notes = []
    for entry in json.loads(output)["log"]["entries"]:
        notes += [(note["level"], note["note_id"], note["summary"]) for note in entry.get("_red_messages", [])]
    return notes


def main():
    checks = {}
    with tempfile.TemporaryDirectory() as directory:
        process, port = start_service(sys.argv[1], directory)
        try:
            parameters = populate(port)
            for template in get_routes():
                if template in LEFT_OUT:
                    print(f"{template}: left out ({LEFT_OUT[template]})")
                    continue
                path = template.format(**parameters)
                notes = redbot(f"http://127.0.0.1:{port}{path}")
                for level, note_id, summary in notes:
                    print(f"{template} {level} {note_id}: {summary}")
                bad = [f"{level} {note_id}" for level, note_id, _ in notes if level in ("WARN", "BAD")]
                found = f" ({', '.join(bad)})" if bad else ""
                checks[f"{template}: no WARN or BAD note among its {len(notes)}{found}"] = not bad
        finally:
            stop_service(process, checks)
    report("redbot", checks)


if __name__ == "__main__":
    main()
