#!/usr/bin/env python3
"""openapi.json is openapi.yaml as JSON, for readers without a YAML parser (the console's API
reference page, code generators). It is committed beside openapi.yaml and compiled into the
binary with it (`GET /openapi.json`), so the server needs no YAML parser of its own.

  scripts/openapi-json.py           rewrites openapi.json from openapi.yaml
  scripts/openapi-json.py --check   exits 1, saying so, when openapi.json is not what openapi.yaml gives

Edit openapi.yaml, then run this. scripts/test runs `--check`; a Swift test also compares the
operations and schemas of both files, so a forgotten run fails `swift test` too. Needs PyYAML
(in .build/venv, which scripts/test makes, or Debian's python3-yaml).
"""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "openapi.yaml"
TARGET = ROOT / "openapi.json"


def converted() -> str:
    # safe_load keeps mapping order (Python dicts do), so the JSON reads in the YAML's order.
    document = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def main() -> int:
    text = converted()
    if sys.argv[1:] == ["--check"]:
        if TARGET.exists() and TARGET.read_text(encoding="utf-8") == text:
            print("openapi.json: up to date with openapi.yaml")
            return 0
        print("openapi.json is stale: run scripts/openapi-json.py and commit the result", file=sys.stderr)
        return 1
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    TARGET.write_text(text, encoding="utf-8")
    print(f"openapi.json: written ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
