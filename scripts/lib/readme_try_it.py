"""README's "Try it" examples against a service already running on localhost:8080 (as a user
runs them after `scripts/serve`), each compared with the output README shows. Used by
scripts/check-bare-machine.sh, which runs them inside a bare Debian root.

    python3 scripts/lib/readme_try_it.py README.md [RUNNER...]

Each example's command runs as `RUNNER... COMMAND` (default: bash -c), in README's order. README
is read as Tests/NavPrefsEndToEndTests/ReadmeTests.swift reads it (that test runs every page's
examples against a server of its own): the `$ command` lines of ```console blocks, each followed
by the lines it prints; Date and X-Request-ID values differ from run to run and compare as `*`.
Prints one line per example, then 'try it: N passed, N failed'; exit status 0 only if none failed.
"""
import subprocess
import sys


def try_it_section(markdown):
    """The lines from '## Try it' up to the next '## ' heading."""
    lines = markdown.split("\n")
    start = lines.index("## Try it")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start + 1:end]


def examples(lines):
    """(command, output lines) of each `$ ` line in ```console blocks."""
    found, in_console = [], False
    for line in lines:
        if line.startswith("```"):
            in_console = line == "```console"
        elif in_console and line.startswith("$ "):
            found.append((line[2:], []))
        elif in_console and found:
            found[-1][1].append(line)
    return found


def normalized(lines):
    result = []
    for line in lines:
        for header in ("Date: ", "X-Request-ID: "):
            if line.startswith(header):
                line = header + "*"
        result.append(line)
    return result


def main():
    readme, runner = sys.argv[1], sys.argv[2:] or ["bash", "-c"]
    with open(readme, encoding="utf-8") as file:
        found = examples(try_it_section(file.read()))
    passed = failed = 0
    if len(found) < 2:
        print(f"try it: only {len(found)} example(s) found under '## Try it' in {readme}")
        failed += 1
    for command, expected in found:
        result = subprocess.run(runner + [command], capture_output=True, text=True, timeout=30)
        printed = result.stdout.replace("\r\n", "\n").split("\n")
        if printed and printed[-1] == "":
            printed.pop()
        if result.returncode == 0 and normalized(printed) == normalized(expected):
            passed += 1
            print(f"PASS $ {command}")
        else:
            failed += 1
            print(f"FAIL $ {command} (exit {result.returncode})")
            for line in ["README shows:"] + expected + ["it printed:"] + printed + result.stderr.splitlines():
                print(f"    | {line}")
    print(f"try it: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
