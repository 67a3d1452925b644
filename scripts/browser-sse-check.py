#!/usr/bin/env python3
"""A real browser subscribes to NavPrefs' event stream from a page on another origin.

Starts the navprefs binary given as the first argument on an ephemeral loopback port with
`--cors-origins` set to the origin of a page this script serves itself (another port is
another origin), then runs headless Chromium on that page. The page opens an EventSource on
`/v1/profiles/{profile}/events?types=refresh`; once it is open it tells this script, which
sends `PUT /v1/profiles/{profile}/font` from Python. The page records the `refresh` event
with its id, closes the stream and writes what it saw into the DOM, which `--dump-dom`
prints.

A second page is served from an origin that is not on the allow-list: its EventSource must
fail (the browser refuses the answer without Access-Control-Allow-Origin), so the first
result cannot come from a server that allows everything.

Prints one line per check and `browser-sse: N passed, N failed`; exits 0 only if all pass.
Needs Debian's `chromium` (run as root with --no-sandbox) and nothing from PyPI.
"""
import html
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from navprefs_checks import report, start_service, stop_service  # noqa: E402

PROFILE = "browser-check"
TIMEOUT_SECONDS = 20

PAGE = """<!doctype html><meta charset=utf-8><title>navprefs events</title><pre id=result></pre><script>
const seen = [];
let finished = false;
const source = new EventSource(%(url)s);
function finish(status) {
  if (finished) return;
  finished = true;
  source.close();
  document.getElementById('result').textContent = JSON.stringify({status, seen});
}
source.onopen = () => { seen.push({open: true}); fetch('/opened', {method: 'POST'}); };
source.addEventListener('refresh', event => {
  seen.push({type: event.type, id: event.lastEventId, data: JSON.parse(event.data)});
  finish('received');
});
source.onerror = () => { seen.push({error: true, readyState: source.readyState}); if (source.readyState === 2) finish('failed'); };
setTimeout(() => finish('timeout'), %(timeout)d);
</script>"""


class PageServer:
    """Serves the page on its own port (its own origin) and fires the change once the page asks."""

    def __init__(self, service_port):
        self.service_port = service_port
        self.put_status = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_GET(self):
                url = f"http://127.0.0.1:{owner.service_port}/v1/profiles/{PROFILE}/events?types=refresh"
                body = (PAGE % {"url": json.dumps(url), "timeout": (TIMEOUT_SECONDS - 5) * 1000}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                if owner.put_status is None:
                    owner.put_status = owner.change_font()
                self.send_response(204)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def change_font(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.service_port, timeout=5)
        connection.request("PUT", f"/v1/profiles/{PROFILE}/font", body=b'{"sliderValue": 4}',
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status


def run_chromium(page_url, directory):
    command = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={tempfile.mkdtemp(dir=directory)}",
               f"--virtual-time-budget={TIMEOUT_SECONDS * 1000}", "--dump-dom", page_url]
    try:
        output = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS + 30).stdout
    except subprocess.TimeoutExpired:
        return {"status": "chromium-timeout", "seen": []}
    start = output.find('<pre id="result">')
    if start < 0:
        return {"status": "no-result", "seen": []}
    text = html.unescape(output[start + len('<pre id="result">'):output.find("</pre>", start)])
    return json.loads(text) if text else {"status": "empty-result", "seen": []}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: browser-sse-check.py PATH-TO-NAVPREFS")
    if shutil.which("chromium") is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    directory = tempfile.mkdtemp(prefix="navprefs-browser-")
    allowed = PageServer(service_port=None)
    stranger = PageServer(service_port=None)
    service, port = start_service(sys.argv[1], directory, ["--cors-origins", allowed.origin])
    allowed.service_port = stranger.service_port = port
    checks = {}
    try:
        result = run_chromium(allowed.origin + "/", directory)
        refreshes = [entry for entry in result["seen"] if entry.get("type") == "refresh"]
        print(f"page on the allowed origin {allowed.origin}: {json.dumps(result)}")
        checks["the page on an allowed origin opened the stream"] = any(entry.get("open") for entry in result["seen"])
        checks["the PUT of the font was accepted"] = allowed.put_status == 200
        checks["the browser received exactly the refresh of that PUT"] = (
            result["status"] == "received" and len(refreshes) == 1
            and refreshes[0]["data"].get("name") == "doRefreshNotification"
            and refreshes[0]["data"].get("fontSize") == 21.0
            and refreshes[0]["id"] == str(refreshes[0]["data"].get("version")))

        result = run_chromium(stranger.origin + "/", directory)
        print(f"page on an origin not allowed {stranger.origin}: {json.dumps(result)}")
        checks["a page on an origin not allowed cannot read the stream"] = (
            result["status"] == "failed" and not any(entry.get("open") for entry in result["seen"]))
    finally:
        stop_service(service, checks)
        shutil.rmtree(directory, ignore_errors=True)
    report("browser-sse", checks)


if __name__ == "__main__":
    main()
