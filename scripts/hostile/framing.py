"""Request shapes a lenient parser misreads, each sent on a keep-alive connection and followed,
in the same write, by the bytes of a second request.

For a shape with a body, the body *is* a smuggled request (`POST .../smuggled/counter/increment`):
a server that dropped the length would answer it as a second request. Then a `GET /healthz`
follows. Each shape must get its documented status (docs/api.md, "Rules every route follows", and
MicroHTTPServer's HTTPRejection) as problem+json (but the 431 libmicrohttpd sends itself), and
what comes after on the connection must be either nothing
(closed) or exactly the answer to /healthz: never the answer to the smuggled request. At the end
the profile `smuggled` must never have been written (its counter reads version 0).
"""
import rawhttp

SMUGGLED = b"POST /v1/profiles/smuggled/counter/increment HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
TARGET = b"POST /v1/profiles/framing/counter/increment HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def shapes():
    n = str(len(SMUGGLED)).encode()
    many_arguments = b"&".join(b"k%d=v" % i for i in range(100))
    # (name, documented status, bytes): each answered by the handler as problem+json, but the
    # ones libmicrohttpd refuses before the handler sees them (its 431s, an unparsable length).
    return [
        ("obs-fold carrying Content-Length", 400,
         TARGET + b"X-Pad: a\r\n Content-Length: " + n + b"\r\n\r\n" + SMUGGLED),
        ("obs-fold continuing a value", 400,
         TARGET + b"Content-Length:\r\n " + n + b"\r\n\r\n" + SMUGGLED),
        ("space before the colon (Content-Length : N)", 400,
         TARGET + b"Content-Length : " + n + b"\r\n\r\n" + SMUGGLED),
        ("unknown Transfer-Encoding (gzip)", 501,
         TARGET + b"Transfer-Encoding: gzip\r\n\r\n" + SMUGGLED),
        ("Transfer-Encoding: gzip, chunked", 501,
         TARGET + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
        ("Content-Length with Transfer-Encoding: chunked", 400,
         TARGET + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
        ("two different Content-Lengths", 400,
         TARGET + b"Content-Length: 0\r\nContent-Length: " + n + b"\r\n\r\n" + SMUGGLED),
        ("Content-Length: 0, N in one field (libmicrohttpd answers itself)", 400,
         TARGET + b"Content-Length: 0, " + n + b"\r\n\r\n" + SMUGGLED),
        ("%00 in the path", 400,
         b"GET /v1/profiles/framing/preferences/k%00x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("%00 in the query", 400,
         b"GET /v1/profiles/framing/preferences/k?as=string%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("100 query arguments", 414,
         b"GET /v1/profiles/framing/counter?" + many_arguments + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("9 KB in one header field", 431,
         b"GET /v1/profiles/framing/counter HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: " + b"c" * 9000 + b"\r\n\r\n"),
        ("9 KB over 100 header fields", 431,
         b"GET /v1/profiles/framing/counter HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         + b"".join(b"X-Field-%d: %s\r\n" % (i, b"v" * 78) for i in range(100)) + b"\r\n"),
        # Issue 20: a browser holding many small cookies for the host got no answer at all.
        ("200 small cookies (a browser's, about 1.4 KB)", 431,
         b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: " + b"; ".join(b"c%d=v" % i for i in range(200)) + b"\r\n\r\n"),
        # Issue 20: libmicrohttpd answered this one with its head twice.
        ("HTTP/1.1 without Host", 400, b"GET /healthz HTTP/1.1\r\n\r\n"),
        # Issue 21: two Host fields (loopback first) and a Host that is no host were served.
        ("two Host fields, loopback first", 400,
         b"POST /v1/profiles/framing/counter/increment HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nContent-Length: 0\r\n\r\n"),
        ("Host: [::1].evil.example", 400,
         b"GET /v1/profiles/framing/counter HTTP/1.1\r\nHost: [::1].evil.example\r\n\r\n"),
        ("two Origin fields", 400,
         TARGET + b"Origin: http://127.0.0.1\r\nOrigin: https://evil.example\r\nContent-Length: 0\r\n\r\n"),
        ("a write with a query argument (increment?by=1000)", 400,
         b"POST /v1/profiles/framing/counter/increment?by=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"),
    ]


FOLLOW = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def run(service):
    port = service.port
    checks = {}
    for name, status, raw in shapes():
        connection = rawhttp.Connection(port, timeout=5)
        verdict = []
        try:
            connection.send(raw + FOLLOW)
            first = connection.read_response(timeout=5)
            if first.status != status:
                verdict.append(f"answered {first.status}, documented {status}: {first.body[:80]!r}")
            # README: errors are always problem+json, also the refusals libmicrohttpd makes itself
            # (the server answers those in its place since issue 20).
            kind = (first.header("Content-Type") or "").split(";")[0]
            if kind != "application/problem+json":
                verdict.append(f"answered as {kind or 'no Content-Type'}, not application/problem+json")
            if first.body.startswith(b"HTTP/1."):
                # libmicrohttpd 0.9.75 writes its own 400 for an unparsable Content-Length with
                # the head twice; the connection closes after it, so nothing is desynchronised.
                print(f"framing: NOTE {name}: libmicrohttpd's answer repeats its head in the body "
                      f"({first.body[:40]!r}...), then closes")
                connection.buffer = b""
            # Whatever comes next must be /healthz's answer or the end of the connection.
            try:
                second = connection.read_response(timeout=3)
                if second.status != 200 or b'"status":"ok"' not in second.body:
                    verdict.append(f"desynchronised: the next answer was {second.status} {second.body[:80]!r}")
                else:
                    after = "kept open, next request answered in order"
            except rawhttp.Closed:
                after = "closed after the refusal"
            except TimeoutError:
                verdict.append("neither closed nor answering the next request within 3 s")
        except (OSError, rawhttp.Closed, ValueError, TimeoutError) as error:
            verdict.append(f"no answer: {type(error).__name__}: {error}")
        finally:
            connection.close()
        print(f"framing: {name}: " + ("; ".join(verdict) if verdict else f"{status}, {after}"))
        checks[f"{name}: {status} problem+json, connection not desynchronised"] = not verdict
    smuggled = rawhttp.request(port, "GET", "/v1/profiles/smuggled/counter")
    print(f"framing: GET /v1/profiles/smuggled/counter after all shapes: {smuggled.status}")
    # A profile nobody wrote to reads as fresh: 200 with version 0. One increment makes it 1.
    written = smuggled.status != 200 or b'"version":0' not in smuggled.body
    checks["no smuggled request was served (profile 'smuggled' was never written: version 0)"] = not written
    checks["the server is alive and healthy after the shapes"] = service.alive() and service.healthy()
    return checks
