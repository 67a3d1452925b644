#!/usr/bin/env python3
"""Checks that the floor's copies of navprefs' schema and increment statements still match.

usage: check-copies.py [REPOSITORY]   (default: two levels above this file)

Compares the migrations block of Sources/NavPrefsSQLite/SQLiteSchema.swift and the statements
applyCounter (with storedCounter and storedCounterVersion), appendEvent, createProfile, claimEventID and `now`
of SQLiteStatements.swift, and
the migration steps both stores share (Sources/NavPrefsStore/Engine/SharedMigrations.swift), with
bench/floor/Sources/floor/{Schema,Statements,SharedMigrations}.swift. Exits 1 and names what differs.
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(here))


def read(*parts):
    with open(os.path.join(*parts)) as f:
        return f.read()


def migrations(text):
    start = text.index("    static let migrations")
    end = text.index("\n    ]\n", start)
    return text[start:end]


def statement(text, name):
    """The literal after `static let NAME =`: a triple-quoted block or one quoted line."""
    m = re.search(r"static let %s =\s*(\"\"\"\n.*?\"\"\"|\".*?\"\n)" % re.escape(name), text, re.S)
    return m.group(1) if m else None


problems = []
if migrations(read(root, "Sources/NavPrefsSQLite/SQLiteSchema.swift")) != migrations(read(here, "Sources/floor/Schema.swift")):
    problems.append("the migrations differ from Sources/NavPrefsSQLite/SQLiteSchema.swift")
theirs = read(root, "Sources/NavPrefsSQLite/SQLiteStatements.swift")
ours = read(here, "Sources/floor/Statements.swift")
for name in ("now", "applyCounter", "storedCounter", "storedCounterVersion", "appendEvent", "createProfile", "claimEventID"):
    a, b = statement(theirs, name), statement(ours, name)
    if a is None or a != b:
        problems.append(f"{name} differs from Sources/NavPrefsSQLite/SQLiteStatements.swift")
shared = statement(read(root, "Sources/NavPrefsStore/Engine/SharedMigrations.swift"), "numberIdempotencyKeys")
if shared is None or shared != statement(read(here, "Sources/floor/SharedMigrations.swift"), "numberIdempotencyKeys"):
    problems.append("numberIdempotencyKeys differs from Sources/NavPrefsStore/Engine/SharedMigrations.swift")
for p in problems:
    print("check-copies: " + p, file=sys.stderr)
if not problems:
    print("check-copies: schema and statements match navprefs'")
sys.exit(1 if problems else 0)
