#!/usr/bin/env python3
"""What a web page can do to NavPrefs, tried in a real browser: headless Chromium (Debian's
`chromium`), driven through Debian's `chromium-driver` by Selenium (from PyPI, in .build/venv).

Two services of the navprefs binary given as the first argument, on ephemeral loopback ports:
one open (no token, the developer's own machine), one with a profile token made by the command
line before it starts. Both list one page origin in `--cors-origins`; pages are served by this
script on ports of their own (another port is another origin). Checked:

- CORS works where it is meant to (issue 13, item 8): a page on the listed origin writes with
  `PUT` and `Content-Type: application/json`, and reads with `Authorization`, both of which
  need a preflight. When the preflight carried `Access-Control-Allow-Origin` twice, Chromium
  refused it and every such call failed.
- Cross-site request forgery fails (item 1): a page on another origin sends body-less POSTs
  (increment, reset) and a request for the first admin token the way a form can, without a
  preflight; the browser sends them, the service refuses them (403, seen in its log), and
  nothing changes.
- DNS rebinding fails (item 1): Chromium resolves `rebind.test` to 127.0.0.1, as a rebinding
  attacker's DNS would after the first answer; a page of `http://rebind.test:PORT` is then
  same-origin with the service, so neither CORS nor `Origin` stops it: the `Host` check does
  (421), and nothing changes.

Prints one line per check and `browser-security: N passed, N failed`; exits 0 only if all pass.
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from navprefs_checks import report, start_service, stop_service  # noqa: E402

PAGE = b"<!doctype html><meta charset=utf-8><title>a page</title><p>a web page</p>"

# Runs in the page: one fetch, its outcome as JSON (a refused CORS answer is a TypeError).
FETCH = """
const [url, init, done] = arguments;
fetch(url, init).then(
  async response => done({status: response.status, type: response.type, body: await response.text()}),
  error => done({error: String(error)}));
"""


class PageServer:
    """An empty page on a port of its own: the origin scripts run in."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def browser(directory):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                     # What a rebinding attacker's DNS answers once the page is loaded.
                     "--host-resolver-rules=MAP rebind.test 127.0.0.1",
                     f"--user-data-dir={tempfile.mkdtemp(dir=directory)}"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(15)
    driver.set_script_timeout(15)
    return driver


def page_fetch(driver, url, init):
    return driver.execute_async_script(FETCH, url, init)


def call(port, method, path, token=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, json.loads(body) if body else None


def logged_statuses(directory, route, method):
    """The statuses the service logged for `method route` (request lines, batched every 100 ms)."""
    time.sleep(0.3)
    statuses = []
    with open(os.path.join(directory, "navprefs.log")) as log:
        for line in log:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("msg") == "request" and entry.get("route") == route and entry.get("method") == method:
                statuses.append(entry.get("status"))
    return statuses


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: browser-security-check.py PATH-TO-NAVPREFS")
    binary = sys.argv[1]
    open_dir, protected_dir = tempfile.mkdtemp(prefix="navprefs-open-"), tempfile.mkdtemp(prefix="navprefs-protected-")
    listed, foreign = PageServer(), PageServer()
    token = subprocess.run([binary, "tokens", "create", "--profile", "web", "--database", f"sqlite:{protected_dir}/navprefs.sqlite"],
                           capture_output=True, text=True, check=True).stdout.strip()
    open_service, open_port = start_service(binary, open_dir, ["--cors-origins", listed.origin])
    protected_service, protected_port = start_service(binary, protected_dir, ["--cors-origins", listed.origin])
    checks = {}
    driver = browser(open_dir)
    try:
        # CORS where it is meant to work.
        driver.get(listed.origin + "/")
        api = f"http://127.0.0.1:{open_port}"
        put = page_fetch(driver, api + "/v1/profiles/web/counter",
                         {"method": "PUT", "headers": {"Content-Type": "application/json"}, "body": '{"value":5}'})
        print(f"listed origin, PUT with a preflight: {put}")
        checks["a listed origin's PUT with Content-Type: application/json passes its preflight and writes"] = (
            put.get("status") == 200 and json.loads(put["body"]).get("value") == 5)
        api = f"http://127.0.0.1:{protected_port}"
        read = page_fetch(driver, api + "/v1/profiles/web/counter", {"headers": {"Authorization": f"Bearer {token}"}})
        write = page_fetch(driver, api + "/v1/profiles/web/counter/increment",
                           {"method": "POST", "headers": {"Authorization": f"Bearer {token}"}})
        print(f"listed origin, with a token: {read}, {write}")
        checks["a listed origin reads and writes with a token (Authorization needs a preflight)"] = (
            read.get("status") == 200 and write.get("status") == 200 and json.loads(write["body"]).get("value") == 1)

        # Cross-site request forgery: what a form can send, from a page on another origin.
        driver.get(foreign.origin + "/")
        api = f"http://127.0.0.1:{open_port}"
        forged = [page_fetch(driver, api + path, {"method": "POST", "mode": "no-cors", **extra}) for path, extra in [
            ("/v1/profiles/csrf/counter/increment", {}),
            ("/v1/profiles/csrf/counter/reset", {}),
            ("/v1/admin/tokens", {"headers": {"Content-Type": "text/plain"}, "body": '{"admin":true}'}),
        ]]
        print(f"foreign origin, form-like POSTs: {forged}")
        checks["the browser sent the forged requests (opaque answers)"] = all(entry.get("type") == "opaque" for entry in forged)
        checks["the service refused them: 403 in its log"] = (
            logged_statuses(open_dir, "/v1/profiles/{profile}/counter/increment", "POST") == [403]
            and logged_statuses(open_dir, "/v1/admin/tokens", "POST") == [403])
        checks["nothing changed: the counter was never written (version 0) and no token exists"] = (
            call(open_port, "GET", "/v1/profiles/csrf/counter")[1].get("version") == 0
            and call(open_port, "GET", "/v1/admin/tokens")[1] == {"tokens": []})

        # DNS rebinding: a page of rebind.test on the service's own port is same-origin with it.
        driver.get(f"http://rebind.test:{open_port}/healthz")
        checks["the browser reached the service as rebind.test (/healthz answers any Host)"] = "ok" in driver.page_source
        rebound = [page_fetch(driver, "/v1/profiles/rebind/counter/increment", {"method": "POST"}),
                   page_fetch(driver, "/v1/profiles/web/counter", {})]
        print(f"rebound page, same-origin requests: {rebound}")
        checks["the rebound page's write and read are 421"] = [entry.get("status") for entry in rebound] == [421, 421]
        checks["and the rebound write changed nothing"] = call(open_port, "GET", "/v1/profiles/rebind/counter")[1].get("value") == 0
    finally:
        driver.quit()
        stop_service(open_service, checks)
        protected_service.terminate()
        protected_service.wait(15)
        shutil.rmtree(open_dir, ignore_errors=True)
        shutil.rmtree(protected_dir, ignore_errors=True)
    report("browser-security", checks)


if __name__ == "__main__":
    main()
