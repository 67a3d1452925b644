#!/usr/bin/env python3
"""openapi.json is made from openapi.yaml at build time, by ConsoleAssetEmbedder (the console's
build plugin) with libyaml, and compiled into the binary (`GET /openapi.json`); no copy is kept in
the repository. This holds the converter to PyYAML, the reference: for openapi.yaml and for a file
of YAML 1.1's edge cases (scripts/fixtures/yaml-to-json-cases.yaml: booleans such as `on`, octal
`010`, base-60 `1:30`, floats without digits after the point, keys that are numbers, block
scalars), the tool's output must be byte for byte `json.dumps(yaml.safe_load(...), indent=2,
ensure_ascii=False)`.

  scripts/check-openapi-json.py TOOL   (TOOL: the built ConsoleAssetEmbedder-tool)
"""
import json
import pathlib
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [ROOT / "openapi.yaml", ROOT / "scripts" / "fixtures" / "yaml-to-json-cases.yaml"]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = sys.argv[1]
    failed = 0
    for path in FILES:
        expected = json.dumps(yaml.safe_load(path.read_text(encoding="utf-8")), indent=2,
                              ensure_ascii=False, allow_nan=False) + "\n"
        made = subprocess.run([tool, "--yaml-to-json", str(path)], capture_output=True, text=True)
        if made.returncode != 0:
            print(f"{path.name}: the tool failed: {made.stderr.strip()}", file=sys.stderr)
            failed += 1
        elif made.stdout != expected:
            lines = zip(made.stdout.splitlines(), expected.splitlines())
            first = next((n for n, (a, b) in enumerate(lines, 1) if a != b), None)
            print(f"{path.name}: the tool's JSON differs from PyYAML's (first at line {first})", file=sys.stderr)
            failed += 1
        else:
            print(f"{path.name}: the tool's JSON is PyYAML's ({len(expected)} bytes)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
