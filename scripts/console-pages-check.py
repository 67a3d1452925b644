#!/usr/bin/env python3
"""The console's pages opened one after another in one Chromium tab, 30 in a row: each must load
and go live (its event stream open) within 5 s.

Issue 21 found the tenth page stalled, in 3 of 3 runs: each page kept its event stream open
when the tab moved on (Chromium keeps left pages in its back/forward cache), and Chromium opens
at most six connections to one host, so once six streams were held the next page's requests
waited for one to close. The pages now close their stream on `pagehide` and reopen it on
`pageshow`. Also: keys, values and titles of 10 KB without a space stay inside the window's
width on every page (the profile page was 8,159 px wide).

Usage: console-pages-check.py NAVPREFS_BINARY. Prints one line per check, exits 0 if all pass.
"""
import http.client
import json
import pathlib
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts" / "lib"))
from navprefs_checks import report, start_service, stop_service  # noqa: E402


def call(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, (json.loads(text) if text[:1] in "{[" else text)


def main():
    binary = sys.argv[1]
    scratch = tempfile.mkdtemp(prefix="navprefs-pages-")
    process, port = start_service(binary, scratch)
    checks = {}
    driver = None
    try:
        call(port, "PUT", "/v1/profiles/ana/preferences/long", {"value": "x" * 10_000})
        status, created = call(port, "POST", "/v1/profiles/nav/sessions", {"root": {"id": "home"}})
        long_session = call(port, "POST", "/v1/profiles/wide/sessions",
                            {"root": {"id": "home", "navigationItem": {"title": "T" * 10_000, "prompt": "P" * 10_000}},
                             "label": "L" * 200})[1]
        call(port, "PUT", "/v1/profiles/wide/preferences/" + "k" * 1000, {"value": ["y" * 10_000, {"z" * 500: "w" * 10_000}]})
        session = created.get("session", "") if isinstance(created, dict) else ""
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--window-size=1280,900",
                         f"--user-data-dir={tempfile.mkdtemp(dir=scratch)}"]:
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(10)
        base = f"http://127.0.0.1:{port}/console"
        pages = [f"{base}/profile.html?profile=ana", f"{base}/session.html?profile=nav&session={session}"]
        stalled = None
        for index in range(30):
            url = pages[index % 2]
            started = time.monotonic()
            try:
                driver.get(url)
                WebDriverWait(driver, 5, poll_frequency=0.05).until(lambda d: d.execute_script(
                    "const e = document.getElementById('stream-status'); return e && e.textContent.trim() === 'Live'"))
            except TimeoutException:
                stalled = (index + 1, url)
                break
            print(f"console-pages: page {index + 1} live after {time.monotonic() - started:.2f} s")
        if stalled:
            print(f"console-pages: page {stalled[0]} ({stalled[1]}) did not go live within 5 s")
        checks["30 console pages in a row in one tab each go live within 5 s"] = stalled is None
        wide = [f"{base}/profile.html?profile=ana", f"{base}/profile.html?profile=wide",
                f"{base}/session.html?profile=wide&session={long_session.get('session', '') if isinstance(long_session, dict) else ''}",
                f"{base}/admin.html", f"{base}/index.html"]
        for url in wide:
            driver.get(url)
            WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.readyState") == "complete")
            time.sleep(0.7)
            widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            print(f"console-pages: with 10 KB texts {url.split('/console/')[1]} is {widths[0]} px wide in a {widths[1]} px window")
            checks[f"10 KB texts without spaces keep {url.split('/console/')[1][:48]} within the window's width"] = widths[0] <= widths[1]
    finally:
        if driver:
            driver.quit()
        stop_service(process, checks)
        shutil.rmtree(scratch, ignore_errors=True)
    report("console-pages", checks)


if __name__ == "__main__":
    main()
