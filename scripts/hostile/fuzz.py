"""A seeded fuzzer over every route of openapi.yaml, for a fixed time.

Every request is generated from (seed, worker, index) alone, never from earlier answers, so any
one of them can be printed again with `--replay WORKER:INDEX` and the whole run repeated with
`--seed`. Each request picks a route of openapi.yaml (the paths and methods are read from the
file, so a new route is fuzzed without editing this) or, one time in ten, a path that is no
route; then a method (its own most of the time, else any, including unknown ones), path
parameters (valid ones: existing profiles, a live session and its screens, or hostile segments:
dot segments, encoded slashes, invalid UTF-8 raw and percent-encoded, control characters
encoded, very long ones), query arguments, header fields (content types, conditions, event ids,
tokens valid and not, X-Request-ID, Origin, Expect, cookies) and a body: the route's own shape
mutated, random JSON, truncated JSON, huge and odd numbers, deep nesting, duplicate keys,
invalid UTF-8, sizes up to past the 1 MiB limit, sometimes chunked.

Fails on any 5xx, on a request not answered within the timeout (a hang), on a crash (the
process gone) and if /healthz and /readyz are not fine at the end. Framing stays correct (the
framing shapes are framing.py's): so the connection stays usable and each answer is matched to
its request.
"""
import json
import os
import random
import re
import threading
import time

import rawhttp

METHODS = ["GET", "HEAD", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "TRACE", "QUERY", "get", "FOO", "M-SEARCH"]


def read_routes(openapi_path):
    """[(path template, method, has request body)] from openapi.yaml: paths at two spaces of
    indent, operations at four (the file's layout; checked by openapi-spec-validator)."""
    routes, path, method, body = [], None, None, False
    with open(openapi_path) as f:
        lines = f.read().split("\n")
    in_paths = False
    for line in lines:
        if line.startswith("paths:"):
            in_paths = True
            continue
        if in_paths and line and not line.startswith(" "):
            break
        if not in_paths:
            continue
        match = re.match(r"^  (/\S*):\s*$", line)
        if match:
            if method:
                routes.append((path, method, body))
            path, method, body = match.group(1), None, False
            continue
        match = re.match(r"^    (get|put|post|delete|patch|head|options):\s*$", line)
        if match:
            if method:
                routes.append((path, method, body))
            method, body = match.group(1).upper(), False
            continue
        if method and re.match(r"^      requestBody:", line):
            body = True
    if method:
        routes.append((path, method, body))
    return routes


SCREEN = {"id": "s1", "navigationItem": {"title": "T", "rightBarButtonItems": [{"systemItem": "add"}, {"title": "Edit"}],
                                         "backButtonTitle": "Back"}}
PAN = {"start": {"x": 5, "y": 300}, "translation": {"x": 220, "y": 4}, "velocity": {"x": 900, "y": 0}, "width": 390}
TEMPLATES = {  # by the last literal segment of the path template
    "counter": {"value": 41},
    "increment": {"by": 5},
    "decrement": {"by": 2},
    "reset": {},
    "{key}": {"value": "dark"},
    "defaults": {"theme": "light", "volume": 0.8},
    "font": {"sliderValue": 2.5},
    "sessions": {"root": SCREEN, "appearance": {"barTintColor": "#FF0000", "prefersLargeTitles": True},
                 "options": {"isCustomizable": True}},
    "push": {"screen": {"id": "s2"}, "animated": True},
    "pop-to": {"screenId": "home"},
    "stack": {"screens": [{"id": "home"}, {"id": "s3"}]},
    "{screenId}": {"id": "home", "navigationItem": {"title": "Home"}, "gestures": {"forwardTarget": {"id": "detail"}}},
    "navigation-item": {"title": "Home", "largeTitleDisplayMode": "always"},
    "appearance": {"barTintColor": "#00FF00", "prefersLargeTitles": False},
    "options": {"isCustomizable": True, "seedCustomBackItem": True},
    "present": {"screen": {"id": "login"}},
    "evaluate": PAN,
    "perform": PAN,
    "token": {},
    "tokens": {"profile": "fuzz", "label": "fuzzed"},
}
KEYS = ["value", "by", "sliderValue", "screen", "root", "id", "navigationItem", "title", "screens", "screenId",
        "start", "translation", "velocity", "width", "x", "y", "profile", "admin", "label", "rightBarButtonItems",
        "leftBarButtonItems", "systemItem", "barTintColor", "prefersLargeTitles", "isCustomizable", "gestures",
        "forwardTarget", "animated", "options", "appearance", "backButtonTitle", "titleView", "theme", "numIndex"]
ODD_NUMBERS = ["1e400", "-1e400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
               "-9223372036854775809", "1" + "0" * 400, "0." + "0" * 400 + "1", "-0", "-0.0", "1.5e308", "4.9e-324",
               "1104.0", "1e3", "1E+2", "2.5", "1000.4999", "1000.5", "-1000.5", "0.1e-999", "123456789012345678901234567890"]
HOSTILE_SEGMENTS = ["..", ".", "%2e%2e", "%2E", "a%2Fb", "%2F", "%ff%fe", "%c3%28", "%c0%af", "%ed%a0%80", "%0a",
                    "%0d%0a", "%20", "%09", "%7f", "%", "%zz", "%G1", "a;b", "*", "~", "%u0041", "%25",
                    "\u00e9".encode().decode("latin-1"), "\xff\xfe", "\x80", "a" * 65, "a" * 129, "a" * 2500,
                    "-a", ".a", "_", "A" * 64, "default?x=1", "x#y", "%3F", "%23", "<script>", "'\"", "\\",
                    "%5c", "%00x"]
CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "application/JSON", "text/plain",
                 "application/x-www-form-urlencoded", "", "application/problem+json", "multipart/form-data; boundary=x",
                 "application/json; charset=latin-1", "*/*", "application/json;;;", "\xff"]
CONDITIONS = ['"1"', '"0"', "*", 'W/"1"', '"abc"', '"99999999999999999999"', "", ",,,", '"1", "2"', "1", '"-1"',
              '"' + "9" * 300 + '"']
EVENT_IDS = ["0", "-1", "1", "99999999999999999999", "abc", "1e3", "", " 1", "18446744073709551616", "0x10"]


class Context:
    """What valid parameters look like on this server: profiles, a session, screens, keys, token ids."""

    def __init__(self, token, profiles, sessions, token_ids):
        self.token, self.profiles, self.sessions, self.token_ids = token, profiles, sessions, token_ids
        self.keys = ["theme", "numIndex", "sliderValuekey", "fontSizekey", "volume", "k:1", "a.b-c_d"]
        self.screens = ["home", "detail", "settings", "s1", "login"]


def random_json(rng, depth=0):
    kind = rng.random()
    if depth > 4 or kind < 0.35:
        return rng.choice([None, True, False, 0, -1, 1, 2 ** 63 - 1, -(2 ** 63), 2 ** 64, 0.5, -2.67, 1e308, "",
                           "dark", "#FF0000", "\u0000", "\ud7ff", "\U0001F600", "a" * rng.choice([1, 200, 70000]),
                           rng.randint(-10 ** 6, 10 ** 6), rng.uniform(-2000, 2000)])
    if kind < 0.65:
        return {rng.choice(KEYS) if rng.random() < 0.8 else "k" * rng.randint(0, 40): random_json(rng, depth + 1)
                for _ in range(rng.randint(0, 6))}
    return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 6))]


def mutate(rng, value, depth=0):
    """A copy of `value` with a few members replaced, removed, added or retyped."""
    if isinstance(value, dict):
        result = dict(value)
        for key in list(result):
            roll = rng.random()
            if roll < 0.15:
                del result[key]
            elif roll < 0.5:
                result[key] = mutate(rng, result[key], depth + 1)
            elif roll < 0.6:
                result[key] = random_json(rng, depth + 1)
        if rng.random() < 0.2:
            result[rng.choice(KEYS)] = random_json(rng, depth + 1)
        return result
    if isinstance(value, list):
        return [mutate(rng, v, depth + 1) for v in value] + ([random_json(rng)] if rng.random() < 0.2 else [])
    if rng.random() < 0.5:
        return random_json(rng, depth + 1)
    return value


def body_for(rng, template):
    """Bytes of a request body, or None for no body."""
    roll = rng.random()
    base = template if template is not None else random_json(rng)
    if roll < 0.25:
        return json.dumps(base).encode()
    if roll < 0.45:
        return json.dumps(mutate(rng, base)).encode()
    if roll < 0.52:
        return json.dumps(random_json(rng)).encode()
    if roll < 0.60:  # truncated
        text = json.dumps(mutate(rng, base)).encode()
        return text[:rng.randint(0, max(0, len(text) - 1))]
    if roll < 0.70:  # odd numbers where numbers go
        text = json.dumps(base if isinstance(base, dict) else {"value": 1})
        numbers = re.findall(r"(?<![\w\"])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)
        key = rng.choice(KEYS)
        if numbers and rng.random() < 0.7:
            text = text.replace(rng.choice(numbers), rng.choice(ODD_NUMBERS), 1)
        else:
            text = '{"%s": %s}' % (key, rng.choice(ODD_NUMBERS + ["NaN", "Infinity", "-Infinity", "+1", "01", ".5", "1."]))
        return text.encode()
    if roll < 0.76:  # deep nesting
        depth = rng.choice([64, 512, 5000, 100000])
        if rng.random() < 0.5:
            return b"[" * depth + b"]" * depth
        return b'{"value":' * depth + b"1" + b"}" * depth
    if roll < 0.82:  # invalid UTF-8 and odd strings
        bad = rng.choice([b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xe2\x82",
                          b"\\ud800", b"\\udc00\\ud800", b"\\u0000", b"\x00", b"\\x41"])
        key = rng.choice(KEYS).encode()
        return rng.choice([b'{"' + key + b'": "a' + bad + b'"}', b'{"' + bad + b'": 1}', b'"' + bad + b'"',
                           b"\xef\xbb\xbf" + json.dumps(base).encode()])
    if roll < 0.86:  # duplicate keys
        text = json.dumps(base if isinstance(base, dict) and base else {"value": 1})
        return (text[:-1] + ", " + text[1:]).encode()
    if roll < 0.90:  # large
        size = rng.choice([64 * 1024, 1_048_000, 1_048_577, 2_000_000])
        return b'{"value": "' + b"x" * size + b'"}'
    if roll < 0.94:
        return rng.choice([b"", b" ", b"null", b"[]", b"{}", b"0", b'"x"', b"true", b"\n\n", b"{,}", b"{\"a\"}",
                           b"<xml/>", b"a=1&b=2"])
    return None


def segment(rng, kind, context):
    if rng.random() < 0.2:
        return rng.choice(HOSTILE_SEGMENTS)
    if kind == "profile":
        return rng.choice(context.profiles)
    if kind == "session":
        return rng.choice(context.sessions + ["0" * 32, "ffffffffffffffffffffffffffffffff", "xyz"])
    if kind == "key":
        return rng.choice(context.keys)
    if kind == "screenId":
        return rng.choice(context.screens)
    if kind == "id":
        return rng.choice(context.token_ids + ["000000000000", "zzzzzzzzzzzz"])
    return "x"


def generate(seed, worker, index, routes, context):
    """The raw bytes of request `index` of `worker`, and a one-line description."""
    rng = random.Random(f"{seed}:{worker}:{index}")
    if rng.random() < 0.9:
        template, method, has_body = rng.choice(routes)
        if rng.random() < 0.25:
            method = rng.choice(METHODS)
        path = re.sub(r"\{(\w+)\}", lambda m: segment(rng, m.group(1), context), template)
        last = ([s for s in template.split("/") if s] or [""])[-1]  # "/" (the console) has no segment
        body_template = TEMPLATES.get(last) if has_body else None
    else:
        method = rng.choice(METHODS)
        path = "/" + "/".join(rng.choice(["v1", "profiles", "x", "..", "%2e", "admin", "events", "", "v2"] + HOSTILE_SEGMENTS)
                              for _ in range(rng.randint(0, 6)))
        has_body, body_template = rng.random() < 0.3, None
    if rng.random() < 0.3:
        # Heads stay inside what libmicrohttpd's 6 KiB pool holds (ServerConfiguration's
        # connectionMemoryBytes: at its very edge MHD closes without an answer, a documented
        # limit of 0.9.75), or go clearly past a limit the transport answers: more than 64
        # arguments, or a target over 2 KB (414 either way).
        shape = rng.random()
        count = rng.randint(65, 90) if shape < 0.1 else rng.randint(1, 8)
        arguments = [(rng.choice(["as", "types", "last_event_id", "access_token", "x", "as[]", ""]),
                      rng.choice(["string", "integer", "float", "bool", "refresh,counter", "0", "%ff", "", "a" * 40,
                                  "%00", "1e9", "navigation,,", "nps_1_2_3", "%e9", "+", "a+b", "%2B"]))
                     for _ in range(count)]
        if 0.1 <= shape < 0.2:
            arguments.append(("x", "a" * rng.randint(2100, 2800)))
        path += "?" + "&".join(f"{k}={v}" if rng.random() < 0.9 else k for k, v in arguments)
    headers = []
    roll = rng.random()
    if roll < 0.85:
        headers.append(("Authorization", f"Bearer {context.token}"))
    elif roll < 0.93:
        headers.append(("Authorization", rng.choice(["Bearer", "Bearer ", "Basic YTpi", "Bearer npt_0_0",
                                                     "Bearer " + context.token[:-1] + "0", "bearer " + context.token,
                                                     "Bearer " + "A" * 1500, "Bearer nps_1_2_3"])))
    body = body_for(rng, body_template) if (has_body or rng.random() < 0.1) else None
    if body is not None or rng.random() < 0.1:
        headers.append(("Content-Type", rng.choice(CONTENT_TYPES) if rng.random() < 0.3 else "application/json"))
    for name, values, chance in (("If-Match", CONDITIONS, 0.1), ("If-None-Match", CONDITIONS, 0.1),
                                 ("Last-Event-ID", EVENT_IDS, 0.05), ("Origin", ["http://evil.example", "null", "http://127.0.0.1"], 0.05),
                                 ("X-Request-ID", ["abc", "x" * 200, "\xff\xfe", "a b", ""], 0.05),
                                 ("Accept", ["*/*", "text/event-stream", "application/xml", ""], 0.05),
                                 ("Cookie", ["navprefs_stream=nps_1_2_3", "navprefs_stream=" + "a" * 1000, "a=b; ;;"], 0.03),
                                 ("X-Forwarded-For", ["1.2.3.4", "garbage", "127.0.0.1, 10.0.0.1"], 0.03),
                                 ("Access-Control-Request-Method", ["PUT", "DELETE", "X"], 0.03)):
        if rng.random() < chance:
            headers.append((name, rng.choice(values)))
    expect = rng.random() < 0.05 and body
    if expect:
        headers.append(("Expect", "100-continue"))
    chunked = body is not None and rng.random() < 0.08
    if chunked:
        headers.append(("Transfer-Encoding", "chunked"))
        pieces, rest = [], body
        while rest:
            size = rng.randint(1, max(1, min(len(rest), 70000)))
            pieces.append(b"%x\r\n" % size + rest[:size] + b"\r\n")
            rest = rest[size:]
        wire_body = b"".join(pieces) + b"0\r\n\r\n"
    else:
        wire_body = body or b""
    if body is not None and not chunked:
        headers.append(("Content-Length", str(len(body))))
    raw = rawhttp.encode(method, path.encode("latin-1"), headers, wire_body)
    shown = f"{method} {path[:120]!r} headers={[n for n, _ in headers]} body={(body or b'')[:100]!r}" \
            f"{'...(' + str(len(body)) + ' bytes)' if body and len(body) > 100 else ''}{' chunked' if chunked else ''}"
    return raw, method, shown, bool(expect)


class Outcome:
    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0
        self.statuses = {}
        self.failures = []

    def record(self, status):
        with self.lock:
            self.count += 1
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def fail(self, text):
        with self.lock:
            self.failures.append(text)


def send(port, connection, raw, method, expect, timeout):
    """Sends one request on `connection` (a new one if None); returns (response, connection).
    A server may answer before it has read the whole body (a refusal from the head) and close:
    the send then fails, and the answer, if it arrived, is read all the same."""
    if connection is None:
        connection = rawhttp.Connection(port, timeout=timeout)
    if expect:  # the head, then the body once 100 Continue (or a final answer) arrives
        head, _, body = raw.partition(b"\r\n\r\n")
        connection.send(head + b"\r\n\r\n")
        response = connection.read_response(method, timeout)
        if response.status != 100:
            connection.close()  # the body was never sent: the connection cannot go on
            return response, None
        raw = body
    try:
        connection.send(raw)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return connection.read_response(method, timeout), connection


def worker(port, seed, number, routes, context, deadline, timeout, outcome):
    try:
        work(port, seed, number, routes, context, deadline, timeout, outcome)
    except Exception as error:  # a bug of the fuzzer itself must fail the run, not end it quietly
        outcome.fail(f"worker {number} stopped: {type(error).__name__}: {error}")
        raise


def work(port, seed, number, routes, context, deadline, timeout, outcome):
    connection, index = None, 0
    while time.monotonic() < deadline and len(outcome.failures) < 5:
        raw, method, shown, expect = generate(seed, number, index, routes, context)
        try:
            response, connection = send(port, connection, raw, method, expect, timeout)
            outcome.record(response.status)
            if response.status >= 500:
                outcome.fail(f"{response.status} for request {number}:{index}: {shown}\n    answer: {response.body[:300]!r}")
            if connection and ((response.header("Connection") or "").lower() == "close" or
                               (response.header("Content-Type") or "").startswith("text/event-stream")):
                connection.close()
                connection = None
        except TimeoutError:
            outcome.fail(f"no answer within {timeout} s (hang) for request {number}:{index}: {shown}")
            if connection:
                connection.close()
            connection = None
        except (rawhttp.Closed, OSError, ValueError) as error:
            # Closed before an answer arrived. Tolerated only for a body larger than the socket
            # buffers hold: a server may refuse it from its head, close, and the reset then
            # discards the answer in flight (RFC 9112 9.6). Anything else is a failure.
            outcome.record("closed")
            large = len(raw) > 256 * 1024
            if isinstance(error, ValueError):
                outcome.fail(f"garbled answer ({error}) to request {number}:{index}: {shown}")
            elif not large:
                outcome.fail(f"closed without an answer ({error}) for request {number}:{index}: {shown}")
            if connection:
                connection.close()
            connection = None
        index += 1
    if connection:
        connection.close()


def setup(port, token):
    """Profiles, a session with screens, and the ids of tokens the fuzzer may touch."""
    auth = [("Authorization", f"Bearer {token}"), ("Content-Type", "application/json")]
    for profile in ("fuzz", "fuzz-2"):
        rawhttp.request(port, "POST", f"/v1/profiles/{profile}/counter/increment", auth)
    sessions = []
    for profile in ("fuzz", "fuzz-2"):
        created = rawhttp.request(port, "POST", f"/v1/profiles/{profile}/sessions", auth,
                                  json.dumps({"root": {"id": "home", "navigationItem": {"title": "Home"}}}))
        if created.status == 201:
            session = json.loads(created.body)["session"]
            rawhttp.request(port, "POST", f"/v1/profiles/{profile}/sessions/{session}/push", auth,
                            json.dumps({"screen": {"id": "detail"}}))
            sessions.append(session)
    made = rawhttp.request(port, "POST", "/v1/admin/tokens", auth, json.dumps({"profile": "fuzz", "label": "fuzz"}))
    token_ids = [json.loads(made.body)["id"]] if made.status == 201 else []
    return Context(token, ["default", "fuzz", "fuzz-2", "nobody", "a", "Z9"], sessions, token_ids)


def run(service, token, openapi_path, seed, seconds=60.0, workers=4, timeout=10.0):
    routes = read_routes(openapi_path)
    context = setup(service.port, token)
    print(f"fuzz: seed {seed} (repeat with --seed {seed}); {len(routes)} operations from {os.path.basename(openapi_path)}, "
          f"{workers} workers, {seconds:.0f} s, answer timeout {timeout:.0f} s")
    outcome = Outcome()
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=worker, args=(service.port, seed, n, routes, context, deadline, timeout, outcome),
                                daemon=True) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 2 * timeout + 5)
    hung = [t for t in threads if t.is_alive()]
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(outcome.statuses.items(), key=lambda kv: str(kv[0])))
    print(f"fuzz: {outcome.count} requests ({statuses})")
    for failure in outcome.failures[:5]:
        print(f"fuzz: FAILURE {failure}")
    if outcome.failures:
        print(f"fuzz: replay one with: scripts/hostile/run.py BINARY --only fuzz --seed {seed} --replay WORKER:INDEX")
    alive = service.alive()
    fives, lines = service.answered_5xx()
    for line in lines:
        print(f"fuzz: 5xx in the server's log: {line[:300]}")
    healthy = alive and service.healthy()
    ready = alive and rawhttp.request(service.port, "GET", "/readyz").status == 200
    return {
        f"{outcome.count} fuzzed requests over {len(routes)} operations, none answered 5xx, none left unanswered":
            not outcome.failures and not hung and outcome.count > 0,
        "no 5xx in the server's request log": fives == 0,
        "the server did not crash (seed printed above)": alive,
        "/healthz and /readyz answer 200 after the fuzzing": healthy and ready,
    }


def replay(port, token, openapi_path, seed, worker_and_index):
    """Prints request WORKER:INDEX of the run with `seed`, sends it, prints the answer."""
    routes = read_routes(openapi_path)
    context = setup(port, token)
    number, index = (int(x) for x in worker_and_index.split(":"))
    raw, method, shown, expect = generate(seed, number, index, routes, context)
    print(f"fuzz: request {number}:{index} of seed {seed}: {shown}\n{raw[:2000]!r}")
    response, connection = send(port, None, raw, method, expect, 10)
    connection.close()
    print(f"fuzz: answer {response.status} {response.headers} {response.body[:500]!r}")
