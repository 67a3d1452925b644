#!/usr/bin/env python3
"""The layers are a fact of the build: every module a source file imports is a declared dependency
of its target (SwiftPM lets a target import what its dependencies depend on, which is how a layer
leaks), each C module is imported by exactly one target, NavPrefsCore imports no module but
the Swift standard library's own, and no executable links what exists for tests only: a test-only
target is outside every executable's dependency closure, and no target inside it declares a
test-only type (the in-memory transport lived in MicroHTTPServer, so the server binary carried it).

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
# Targets that exist for tests only, and the types that are theirs wherever they are declared
# (top-level declarations: nested names such as `State` are not unique).
TEST_ONLY_TARGETS = {"MicroHTTPServerTesting", "HTTPTestClient", "StoreTestSupport"}
TEST_ONLY_TYPES = {"InMemoryHTTPTransport"}
DECLARATION = re.compile(r"^(?:(?:public|package|internal|fileprivate|private|final|open)\s+)*(?:class|struct|enum|actor|protocol)\s+(\w+)", re.M)
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
    problems += test_only_breaches(targets)
    for module, importers in sorted(c_importers.items()):
        if len(importers) != 1:
            problems.append(f"{module} is imported by {sorted(importers) or 'no target'}; each C module has exactly one owner")
    for line in problems:
        print(line, file=sys.stderr)
    print(f"layers: {len(targets) - len(system)} targets, {len(system)} C modules, {len(problems)} breaches")
    return 1 if problems else 0


def sources(target: dict) -> list[pathlib.Path]:
    default = {"test": "Tests", "plugin": "Plugins"}.get(target["type"], "Sources")
    return sorted((ROOT / (target.get("path") or f"{default}/{target['name']}")).rglob("*.swift"))


def test_only_breaches(targets: dict) -> list[str]:
    """Each executable's dependency closure holds no test-only target and declares no test-only type."""
    test_types = set(TEST_ONLY_TYPES)
    for name in TEST_ONLY_TARGETS & targets.keys():
        for source in sources(targets[name]):
            test_types.update(DECLARATION.findall(source.read_text()))
    problems = []
    for name, target in targets.items():
        if target["type"] != "executable":
            continue
        closure, pending = set(), [name]
        while pending:
            current = pending.pop()
            if current in closure or current not in targets:
                continue
            closure.add(current)
            pending += [next(iter(d.values()))[0] for d in targets[current]["dependencies"]]
        for linked in sorted(closure & TEST_ONLY_TARGETS):
            problems.append(f"executable {name} links {linked}, which exists for tests only")
        for linked in sorted(closure - TEST_ONLY_TARGETS):
            if targets[linked]["type"] == "system":
                continue
            for source in sources(targets[linked]):
                for declared in sorted(set(DECLARATION.findall(source.read_text())) & test_types):
                    problems.append(f"{source.relative_to(ROOT)}: {declared} is for tests only, and executable {name} links {linked}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
