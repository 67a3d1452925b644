#!/usr/bin/env bash
# Replaces the vendored Swagger UI (Sources/NavPrefsConsole/Assets/vendor/swagger-ui) with the
# dist/ files of another version, from the PyPI package flask-swagger-ui, whose version numbers
# follow Swagger UI's and which ships dist/ unmodified: `scripts/vendor-swagger-ui.sh 5.34.0`.
# Prints the wheel's SHA-256 for VENDORED.md. Needs pip and PyPI.
set -euo pipefail
version=${1:?usage: scripts/vendor-swagger-ui.sh SWAGGER_UI_VERSION}
root=$(cd "$(dirname "$0")/.." && pwd)
target=$root/Sources/NavPrefsConsole/Assets/vendor/swagger-ui
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --dest "$work" "flask-swagger-ui==$version"
wheel=$(ls "$work"/flask_swagger_ui-*.whl)
python3 -m zipfile -e "$wheel" "$work/unpacked"
dist=$work/unpacked/flask_swagger_ui/dist
[ "$(cat "$dist/VERSION")" = "v$version" ] || { echo "the wheel holds Swagger UI $(cat "$dist/VERSION"), not v$version" >&2; exit 1; }
cp "$dist/swagger-ui-bundle.js" "$dist/swagger-ui.css" "$dist/LICENSE" "$target/"
echo "vendored Swagger UI v$version into $target"
sha256sum "$wheel"
