#!/usr/bin/env bash
# Refreshes the pictures of the console (README, docs/console.md) (docs/console-profile.png, docs/console-session.png,
# docs/console-authors.png):
# builds navprefs, then runs the console's browser test, which drives headless Chromium through
# the pages and saves its screenshots into docs/. Needs what scripts/test needs for that step
# (chromium, chromium-driver, Selenium in .build/venv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/packages.sh
ensure_packages "${BUILD_PACKAGES[@]}" chromium chromium-driver
swift build --product navprefs
[ -x .build/venv/bin/pip ] || python3 -m venv .build/venv
.build/venv/bin/pip install -q 'selenium==4.51.0' 'pyyaml>=6'
.build/venv/bin/python scripts/console-browser-check.py .build/debug/navprefs docs
