#!/usr/bin/env python3
"""The layers are a fact of the build: every module a source file imports is a declared dependency
of its target (SwiftPM lets a target import what its dependencies depend on, which is how a layer
leaks), each C module is imported by exactly one target, and NavPrefsCore imports no module but
the Swift standard library's own.

Reads the targets from `swift package dump-package`, the imports from the sources. Exit 0 when
every rule holds; otherwise one line per breach and exit 1.
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Modules of the toolchain every target may import.
TOOLCHAIN = {"Foundation", "FoundationNetworking", "FoundationEssentials", "Dispatch", "Glibc", "Synchronization", "Observation",
             "Testing", "XCTest", "PackageDescription", "PackagePlugin"}
# What the pure core may import: nothing that is C underneath (Foundation on Linux is CoreFoundation).
CORE_ALLOWED = {"Synchronization"}
IMPORT = re.compile(r"^\s*(?:@testable\s+|@_spi\(\w+\)\s+)?(?:public\s+|package\s+|internal\s+)?import\s+(?:struct\s+|enum\s+|class\s+|func\s+)?(\w+)", re.M)


def main() -> int:
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                        capture_output=True, text=True).stdout)
    targets = {t["name"]: t for t in package["targets"]}
    system = {name for name, t in targets.items() if t["type"] == "system"}
    problems = []
    c_importers: dict[str, set[str]] = {name: set() for name in system}
    for name, target in targets.items():
        if target["type"] == "system":
            continue
        declared = {next(iter(d.values()))[0] for d in target["dependencies"]}
        default = {"test": "Tests", "plugin": "Plugins"}.get(target["type"], "Sources")
        directory = ROOT / (target.get("path") or f"{default}/{name}")
        for source in sorted(directory.rglob("*.swift")):
            for module in IMPORT.findall(source.read_text()):
                where = source.relative_to(ROOT)
                if module in system:
                    c_importers[module].add(name)
                if module == name:
                    continue
                if name == "NavPrefsCore" and module not in CORE_ALLOWED:
                    problems.append(f"{where}: NavPrefsCore imports {module}; the core is pure Swift")
                elif module in targets and module not in declared:
                    problems.append(f"{where}: {name} imports {module} without declaring it a dependency")
                elif module not in targets and module not in TOOLCHAIN:
                    problems.append(f"{where}: {name} imports {module}, which is neither a target nor a toolchain module")
    for module, importers in sorted(c_importers.items()):
        if len(importers) != 1:
            problems.append(f"{module} is imported by {sorted(importers) or 'no target'}; each C module has exactly one owner")
    for line in problems:
        print(line, file=sys.stderr)
    print(f"layers: {len(targets) - len(system)} targets, {len(system)} C modules, {len(problems)} breaches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
