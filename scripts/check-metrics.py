#!/usr/bin/env python3
"""/metrics read by real Prometheus parsers: promtool's linter and prometheus_client's parser.

Starts the navprefs binary given as the first argument on an ephemeral loopback port, makes
a few requests (a write, a read, a 404, an event stream), then fetches /metrics and checks
that `promtool check metrics` accepts it without a warning and that prometheus_client parses
every family docs/operations.md lists, with the samples those requests must have produced.
Prints one line per check and `metrics: N passed, N failed`; exits 0 only if all pass.
Needs Debian's `prometheus` (promtool) and PyPI's `prometheus_client`.
"""
import http.client
import os
import shutil
import subprocess
import sys
import tempfile

from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from navprefs_checks import report, start_service, stop_service  # noqa: E402

FAMILIES = {
    "navprefs_http_requests": "counter",
    "navprefs_http_request_duration_seconds": "histogram",
    "navprefs_http_requests_in_flight": "gauge",
    "navprefs_sse_subscribers": "gauge",
    "navprefs_sse_events_sent": "counter",
    "navprefs_store_errors": "counter",
    "process_resident_memory_bytes": "gauge",
    "process_open_fds": "gauge",
    "process_start_time_seconds": "gauge",
    "process_cpu_seconds": "counter",
    "navprefs_build_info": "gauge",
}


def request(port, method, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request(method, path)
    response = connection.getresponse()
    return response.status, response.read().decode()


def value(families, family, sample_name, **labels):
    """The value of the sample `sample_name` of `family` with these labels, or None."""
    for sample in families[family].samples if family in families else []:
        if sample.name == sample_name and all(sample.labels.get(k) == v for k, v in labels.items()):
            return sample.value
    return None


def check(port, checks):
    request(port, "POST", "/v1/profiles/metrics/counter/increment")
    request(port, "GET", "/v1/profiles/metrics/counter")
    # A preference nobody set: 404 (a profile nobody wrote to reads as fresh, so its counter is 200).
    request(port, "GET", "/v1/profiles/nobody/preferences/missing")
    stream = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    stream.request("GET", "/v1/profiles/metrics/events?last_event_id=0")
    stream.getresponse().read1(4096)
    status, text = request(port, "GET", "/metrics")
    stream.close()
    checks["/metrics answers 200"] = status == 200

    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    print(f"promtool: exit {lint.returncode} {lint.stdout.strip()} {lint.stderr.strip()}".rstrip())
    checks["promtool check metrics: no error, no warning"] = lint.returncode == 0 and not lint.stdout.strip()

    families = {family.name: family for family in text_string_to_metric_families(text)}
    print("families: " + ", ".join(sorted(families)))
    for name, kind in FAMILIES.items():
        checks[f"{name} is a {kind}"] = name in families and families[name].type == kind
    requests = ("navprefs_http_requests", "navprefs_http_requests_total")
    checks["the increment is counted under its route template"] = value(
        families, *requests, route="/v1/profiles/{profile}/counter/increment", method="POST", status="200") == 1
    checks["the 404 is counted with its status"] = value(
        families, *requests, route="/v1/profiles/{profile}/preferences/{key}", method="GET", status="404") == 1
    checks["the histogram's +Inf bucket equals its count"] = value(
        families, "navprefs_http_request_duration_seconds", "navprefs_http_request_duration_seconds_bucket",
        route="/v1/profiles/{profile}/counter", le="+Inf") == 1
    checks["the open stream is counted, with the event it was sent"] = (
        value(families, "navprefs_sse_subscribers", "navprefs_sse_subscribers") == 1
        and value(families, "navprefs_sse_events_sent", "navprefs_sse_events_sent_total") == 1)


def main():
    directory = tempfile.mkdtemp(prefix="navprefs-metrics-")
    service, port = start_service(sys.argv[1], directory)
    checks = {}
    try:
        check(port, checks)
    finally:
        stop_service(service, checks)
        shutil.rmtree(directory, ignore_errors=True)
    report("metrics", checks)


if __name__ == "__main__":
    main()
