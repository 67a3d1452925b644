#!/usr/bin/env python3
"""The hostile-client suite: the real navprefs binary, on loopback, against clients that do not
play by the rules. Each part starts a server of its own on a fresh SQLite file:

  slowloris  slow headers, idle connections and slow bodies from 127.0.0.2 while 127.0.0.1
             probes /healthz (no failure, p99 < 50 ms); the header deadline cuts them (~25 s)
  uploads    100 unauthenticated 1 MB uploads to a token-protected server: each answered 401
             before its body; 100 stubborn ones: resident memory grows <= 16 MiB (~20 s)
  framing    obs-fold, space before colon, unknown Transfer-Encoding, CL+TE, two lengths, %00,
             100 query arguments, 9 KB of headers: the documented status, no desync (~2 s)
  fuzz       a seeded fuzzer over every route of openapi.yaml for --fuzz-seconds: no 5xx, no
             hang, no crash, healthy at the end (default 60 s)
  crash      kill -9 under 16 concurrent writers, three rounds: no acknowledged write lost (~20 s)
  abuse      Idempotency-Key amplification, an admin token's keys spread over 50 profiles, the
             per-profile quota, control characters in what `navprefs import` prints (issue 21),
             merge patches of a large profile and the event log's bounds (issue 32) (~20 s)
  bounded    issue 31: wide bodies, 20 reads of a 29 MB profile, large writes beside small ones,
             1,000 never-reading streams, a 2 MiB burst, 300 streams opened and closed, clients that
             shut down their sending side, a 9,000-byte chunk line; /healthz and write latency
             measured meanwhile (~90 s)

Usage: run.py NAVPREFS_BINARY [--only PART,PART] [--seed N] [--fuzz-seconds S] [--replay W:I]
Timing-bound (slowloris, bounded): run them on a machine nothing else loads. Loopback only; every server it
starts is stopped by its process id. Last line: `hostile: N passed, N failed`.
"""
import argparse
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))

import abuse  # noqa: E402
import bounded  # noqa: E402
import crash  # noqa: E402
import framing  # noqa: E402
import fuzz  # noqa: E402
import slowloris  # noqa: E402
import uploads  # noqa: E402
from navprefs_checks import report  # noqa: E402
from service import Service  # noqa: E402

PARTS = ["framing", "slowloris", "uploads", "fuzz", "crash", "abuse", "bounded"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ", ".join(PARTS))
    parser.add_argument("--seed", type=int, default=None, help="fuzzer and crash seed (default: random, printed)")
    parser.add_argument("--fuzz-seconds", type=float, default=60.0)
    parser.add_argument("--replay", help="fuzz: send only request WORKER:INDEX of --seed and print it")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory (logs, databases)")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    parts = [p for p in arguments.only.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(1, 2 ** 31)
    print(f"hostile: seed {seed}; parts {', '.join(parts)}", flush=True)

    scratch = tempfile.mkdtemp(prefix="navprefs-hostile-")
    checks, timings, services = {}, [], []

    def fresh(name, token=False):
        service = Service(binary, scratch, name)
        secret = service.create_token() if token else None
        services.append(service)
        return service, secret

    try:
        if arguments.replay:
            service, token = fresh("replay", token=True)
            service.start()
            fuzz.replay(service.port, token, os.path.join(ROOT, "openapi.yaml"), seed, arguments.replay)
            return
        for part in parts:
            started = time.monotonic()
            try:
                if part == "framing":
                    service, _ = fresh("framing")
                    found = framing.run(service.start())
                elif part == "slowloris":
                    service, _ = fresh("slowloris")
                    found = slowloris.run(service.start())
                elif part == "uploads":
                    service, token = fresh("uploads", token=True)
                    found = uploads.run(service.start(), token)
                elif part == "fuzz":
                    service, token = fresh("fuzz", token=True)
                    found = fuzz.run(service.start(), token, os.path.join(ROOT, "openapi.yaml"), seed,
                                     seconds=arguments.fuzz_seconds)
                elif part == "abuse":
                    service, _ = fresh("abuse")
                    found = abuse.amplification(service.start())
                    found.update(abuse.merge_amplification(service))
                    found[f"navprefs exits 0 on SIGTERM after the amplification"] = service.stop() == 0
                    service, token = fresh("spread", token=True)
                    found.update(abuse.token_spread(service.start(extra=["--idempotency-keys-per-token", "1024"]), token))
                    found[f"navprefs exits 0 on SIGTERM after the token's spread"] = service.stop() == 0
                    service, _ = fresh("quota")
                    found.update(abuse.quota(service.start(extra=["--profile-quota-bytes", "150000"])))
                    found.update(abuse.terminal(binary, scratch))
                elif part == "bounded":
                    service, _ = fresh("bounded")
                    found = bounded.run(service.start())
                else:
                    service, _ = fresh("crash")
                    found = crash.run(service, seed)
                if part != "crash":
                    found[f"navprefs exits 0 on SIGTERM after the {part} attack"] = service.stop() == 0
            except Exception as error:  # a broken harness or a dead server is a failed part, not a traceback
                found = {f"{part} ran to the end ({type(error).__name__}: {error})": False}
                if services:
                    print(f"{part}: the server's last lines:\n{services[-1].tail()}")
            for name, passed in found.items():
                checks[f"{part}: {name}"] = passed
            timings.append((part, time.monotonic() - started))
            print(f"hostile: {part} took {timings[-1][1]:.1f} s", flush=True)
    finally:
        for service in services:
            service.kill()
        if arguments.keep or not all(checks.values()):
            print(f"hostile: logs and databases kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"hostile: seed {seed}; " + ", ".join(f"{p} {t:.0f} s" for p, t in timings))
    report("hostile", checks)


if __name__ == "__main__":
    main()
