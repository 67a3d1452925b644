"""What a client sends must not be multiplied in storage, nor reach an operator's terminal raw
(issue 21). Each check prints the request and the answer, and the database's growth.

- Idempotency-Key amplification: a profile holding 15 values of 60 KB, then 40 keyed `PATCH`es
  of about ten bytes each. Before the fix the database grew by 37.8 MB (every answer, which held
  every value, recorded whole); now an answer says what changed, and a record is bounded anyway
  (a summary beyond 2 KiB).
- An admin token spreading keyed writes over many profiles, on a server started with
  --idempotency-keys-per-token 1024: 1,100 keyed increments over 50 profiles (22 each, far
  within a profile's 4,096 keys) leave the token's 1,024 newest records;
  its oldest key is forgotten (its retry runs again), its newest replays.
- The quota: a server started with --profile-quota-bytes 150000 refuses the write that would
  cross it with 409 quota-exceeded, and the profile still reads what it held.
- Merge patches of a large profile (issue 32): 200 values of 60 KB, three patches of 200 keys;
  the answers and the events are what changed, the log keeps its bound in bytes, a page of
  events its 1 MiB.
- `navprefs import` of a file naming a profile `ESC ] 0 ; ... BEL ESC [ 31 m`: its error
  message escapes the control characters.
"""
import json
import os
import subprocess

import rawhttp


def database_bytes(service):
    path = service.database.removeprefix("sqlite:")
    return sum(os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix))


def storage_bytes(port, profile):
    page = json.loads(rawhttp.request(port, "GET", "/v1/profiles?limit=1000").body)
    return next((p["storageBytes"] for p in page["profiles"] if p["name"] == profile), -1)


def amplification(service):
    port, checks = service.port, {}
    big = json.dumps({"value": "v" * 60_000}).encode()
    for index in range(15):
        rawhttp.request(port, "PUT", f"/v1/profiles/amp/preferences/k{index}", [("Content-Type", "application/json")], big)
    rawhttp.request(port, "POST", "/v1/profiles/amp/counter/increment")
    before, logical_before = database_bytes(service), storage_bytes(port, "amp")
    statuses = []
    for index in range(40):
        answer = rawhttp.request(port, "PATCH", "/v1/profiles/amp/preferences",
                                 [("Content-Type", "application/merge-patch+json"), ("Idempotency-Key", f"amp-{index}")],
                                 b'{"n":%d}' % index)
        statuses.append(answer.status)
    grown, logical = database_bytes(service) - before, storage_bytes(port, "amp") - logical_before
    # The same 40 without keys, for the file's own growth (the WAL's page images of 40 commits).
    control_before = database_bytes(service)
    for index in range(40):
        rawhttp.request(port, "PATCH", "/v1/profiles/amp/preferences", [("Content-Type", "application/merge-patch+json")],
                        b'{"m":%d}' % index)
    control = database_bytes(service) - control_before
    print(f"abuse: 40 keyed PATCHes of ~10 bytes over 15 values of 60 KB: statuses {sorted(set(statuses))}; the profile's "
          f"storage grew by {logical} bytes, the database files by {grown / 1e6:.2f} MB (the same 40 without keys: "
          f"{control / 1e6:.2f} MB; before the fix, with keys: 37.8 MB)")
    checks["40 keyed PATCHes are answered 200"] = set(statuses) == {200}
    # 40 summaries of a short object each: not one copy of the profile (0.9 MB), let alone forty.
    checks["40 keyed PATCHes add at most 40 x 2 KiB to the profile's storage (was 37.8 MB)"] = 0 < logical <= 40 * 2_048
    # The files also hold the WAL's page images of each commit (checkpointed later): the keyed
    # run touches the records' pages too, about 8 KiB a commit more than the unkeyed one.
    checks["their files grow by less than 2 MB (was 37.8 MB)"] = grown < 2_000_000
    replay = rawhttp.request(port, "PATCH", "/v1/profiles/amp/preferences",
                             [("Content-Type", "application/merge-patch+json"), ("Idempotency-Key", "amp-39")], b'{"n":39}')
    print(f"abuse: replay of amp-39: {replay.status} {replay.header('Idempotent-Replayed')} {replay.body[:120]!r}")
    # The answer says what changed (never the profile's values), so it is recorded whole.
    checks["a replay gets the recorded answer"] = (replay.status == 200 and replay.header("Idempotent-Replayed") == "true"
                                                    and b'"changed":["n"]' in replay.body)
    return checks


def listed(port, profile):
    page = json.loads(rawhttp.request(port, "GET", "/v1/profiles?limit=1000").body)
    return next((p for p in page["profiles"] if p["name"] == profile), {})


def checkpointed_bytes(service):
    """The database file's size once the write-ahead log is copied into it (by another
    connection, as an operator's sqlite3 would): what the profile's data takes, log pages aside."""
    path = service.database.removeprefix("sqlite:")
    subprocess.run(["sqlite3", "-cmd", ".timeout 5000", path, "PRAGMA wal_checkpoint(TRUNCATE);"], capture_output=True, timeout=30)
    return os.path.getsize(path)


def events_json(port, after, limit=1000):
    return json.loads(rawhttp.request(port, "GET", f"/v1/profiles/merge/events?after={after}&limit={limit}",
                                      [("Accept", "application/json")]).body)


def merge_amplification(service, values=200, rounds=3):
    """Issue 32: small merge patches of a large profile. Before, each logged every merged value
    and answered every value of the profile (a 17.9 KB patch on 30 MB: 30 MB of events and a
    30 MB answer; three took the file from 64 to 167 MB); the log kept 1,000 events per profile
    whatever their size, and one page of events returned 88 MB."""
    port, checks = service.port, {}
    json_type = [("Content-Type", "application/json")]
    for index in range(values):
        rawhttp.request(port, "PUT", f"/v1/profiles/merge/preferences/k{index}", json_type,
                        json.dumps({"value": {"text": "m" * 60_000}}).encode())
    before, last = checkpointed_bytes(service), listed(port, "merge").get("latestEventId", 0)
    answers = []
    for round_ in range(rounds):
        patch = json.dumps({f"k{index}": {"r": round_} for index in range(values)}).encode()
        answer = rawhttp.request(port, "PATCH", "/v1/profiles/merge/preferences",
                                 [("Content-Type", "application/merge-patch+json")], patch)
        answers.append((answer.status, len(answer.body)))
    grown = checkpointed_bytes(service) - before
    logged = events_json(port, last)
    patched = sum(len(json.dumps(event["data"], separators=(",", ":"))) for event in logged["events"])
    item = listed(port, "merge")
    first = events_json(port, 0, limit=1)  # the oldest events were deleted: a reset names the earliest kept
    page = events_json(port, (first.get("reset") or {}).get("earliest", 1) - 1)
    page_bytes = sum(len(json.dumps(event["data"], separators=(",", ":"))) for event in page["events"])
    print(f"abuse: {rounds} merge patches of {len(patch)} bytes over {values} values of 60 KB: answers {answers}; they logged "
          f"{len(logged['events'])} events of {patched} bytes; the profile's log holds {item.get('eventLogBytes')} bytes (of "
          f"storageBytes {item.get('storageBytes')}); the database file grew by {grown} bytes; a page of at most 1000 of its "
          f"events: {len(page['events'])} events, {page_bytes} bytes of data, hasMore {page.get('hasMore')}")
    checks["merge patches are answered 200 with what changed, a few bytes per key (was every value: 12 MB)"] = all(
        status == 200 and size < len(patch) + values * 80 for status, size in answers)
    # Each event: its key's patch, its own members, and its author (issue 36; the open mode's here).
    author = len(',"author":{"token":"open"}')
    checks["they log their patches, not the merged values (was 12 MB of events each)"] = (
        len(logged["events"]) == rounds * values and patched < rounds * (len(patch) + values * (80 + author)))
    checks["the database file grows by less than 1 MB (was 36 MB)"] = grown < 1_000_000
    checks["the event log keeps its bound in bytes (--event-retention-bytes, 8 MiB by default)"] = 0 < item.get("eventLogBytes", -1) <= 8 << 20
    checks["a page of events holds at most 1 MiB of event data (was 88 MB for 1000 events)"] = (
        0 < page_bytes <= 1 << 20 and page.get("hasMore") is True)
    return checks


def token_spread(service, token, profiles=50, writes=1_100, cap=1_024):
    port, checks = service.port, {}
    auth = [("Authorization", f"Bearer {token}")]
    statuses = set()
    for index in range(writes):
        answer = rawhttp.request(port, "POST", f"/v1/profiles/spread-{index % profiles}/counter/increment",
                                 auth + [("Idempotency-Key", f"spread-{index:05d}")])
        statuses.add(answer.status)
    path = service.database.removeprefix("sqlite:")
    rows = subprocess.run(["sqlite3", path, "SELECT count(*), count(DISTINCT token), count(DISTINCT profile) FROM idempotency_keys"],
                          capture_output=True, text=True, timeout=30).stdout.strip()
    records, tokens, spread = (int(part) for part in rows.split("|"))
    page = json.loads(rawhttp.request(port, "GET", "/v1/profiles?limit=1000", auth).body)
    storage = sum(p["storageBytes"] for p in page["profiles"] if p["name"].startswith("spread-"))
    newest = rawhttp.request(port, "POST", f"/v1/profiles/spread-{(writes - 1) % profiles}/counter/increment",
                             auth + [("Idempotency-Key", f"spread-{writes - 1:05d}")])
    oldest = rawhttp.request(port, "POST", "/v1/profiles/spread-0/counter/increment", auth + [("Idempotency-Key", "spread-00000")])
    print(f"abuse: one admin token, {writes} keyed increments over {profiles} profiles: statuses {sorted(statuses)}; "
          f"{records} records kept ({tokens} token, in {spread} profiles; the cap per token is {cap}), the profiles' storage "
          f"{storage} bytes; retry of the newest key: {newest.status} replayed={newest.header('Idempotent-Replayed')}, "
          f"of the oldest: {oldest.status} replayed={oldest.header('Idempotent-Replayed')}")
    checks[f"{writes} keyed writes of one admin token over {profiles} profiles are answered 200"] = statuses == {200}
    checks[f"they leave the token's {cap} newest records (was one per write, {writes})"] = records == cap and tokens == 1
    checks["the newest key replays"] = newest.status == 200 and newest.header("Idempotent-Replayed") == "true"
    checks["the oldest key was forgotten: its retry runs as a new request"] = (oldest.status == 200
                                                                              and oldest.header("Idempotent-Replayed") is None)
    return checks


def quota(service):
    port, checks = service.port, {}
    value = json.dumps({"value": "q" * 60_000}).encode()
    first = rawhttp.request(port, "PUT", "/v1/profiles/quota/preferences/a", [("Content-Type", "application/json")], value)
    second = rawhttp.request(port, "PUT", "/v1/profiles/quota/preferences/b", [("Content-Type", "application/json")], value)
    third = rawhttp.request(port, "PUT", "/v1/profiles/quota/preferences/c", [("Content-Type", "application/json")], value)
    body = json.loads(third.body or b"{}")
    print(f"abuse: quota 150000 bytes: three values of 60 KB answered {first.status}, {second.status}, {third.status} "
          f"{body.get('type')} quota={body.get('quota')} usage={body.get('usage')}")
    checks["the write crossing --profile-quota-bytes is 409 quota-exceeded with quota and usage"] = (
        (first.status, second.status, third.status) == (201, 201, 409)
        and body.get("type") == "urn:navprefs:problem:quota-exceeded" and body.get("quota") == 150_000
        and body.get("usage", 0) > 150_000)
    checks["the refused value was not stored"] = rawhttp.request(port, "GET", "/v1/profiles/quota/preferences/c").status == 404
    return checks


def terminal(binary, directory):
    hostile = "x\x1b]0;owned\x07\x1b[31mred"
    path = os.path.join(directory, "hostile-import.ndjson")
    with open(path, "w") as file:
        file.write(json.dumps({"record": "header", "format": "navprefs-export", "version": 1,
                               "source": {"navprefs": "0.5.0", "store": "sqlite"}, "secrets": False}) + "\n")
        file.write(json.dumps({"record": "profile", "name": hostile, "createdAt": 1, "lastEventId": 0,
                               "preferencesVersion": 0}) + "\n")
    result = subprocess.run([binary, "import", path, "--database", f"sqlite:{directory}/import-target.sqlite"],
                            capture_output=True, timeout=30)
    print(f"abuse: navprefs import of a profile named {hostile!r}: exit {result.returncode}, stderr {result.stderr[:200]!r}")
    return {"import's error escapes control characters (no ESC or BEL reaches the terminal)":
            result.returncode != 0 and b"\x1b" not in result.stderr and b"\x07" not in result.stderr
            and b"\\u{1B}" in result.stderr}
