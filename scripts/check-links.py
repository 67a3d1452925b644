#!/usr/bin/env python3
"""Every relative link of README.md and docs/*.md resolves: the file exists and, for a
`#anchor`, the target Markdown file has a heading with that GitHub anchor. Also checks that
README.md links every page of docs/. Prints each broken link; exits 0 only if there is none."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def outside_fences(text):
    """The lines outside fenced code blocks."""
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield line


def prose(text):
    """The lines outside fenced code blocks, with inline code removed."""
    for line in outside_fences(text):
        yield re.sub(r"`[^`]*`", "", line)


def anchors(path):
    """GitHub's anchors for the headings of a Markdown file."""
    seen, result = {}, set()
    for line in outside_fences(path.read_text()):
        match = re.match(r"^#{1,6} (.*)$", line)
        if not match:
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def main():
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    broken = 0
    for page in pages:
        for line in prose(page.read_text()):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                resolved = (page.parent / path).resolve() if path else page
                problem = None
                if not resolved.exists():
                    problem = "no such file"
                elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    problem = f"no heading #{anchor}"
                if problem:
                    broken += 1
                    print(f"{page.relative_to(ROOT)}: ({target}): {problem}", file=sys.stderr)
    readme = (ROOT / "README.md").read_text()
    for page in pages[1:]:
        if f"(docs/{page.name})" not in readme:
            broken += 1
            print(f"README.md does not link docs/{page.name}", file=sys.stderr)
    print(f"links: {len(pages)} pages, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
