#!/usr/bin/env bash
# Runs the Swift test suites where memory and thread safety matter under a sanitizer: C interop
# (libmicrohttpd, SQLite, jansson, OpenSSL), pointers, callbacks from C threads, locks.
#
#   scripts/sanitizers.sh address [build|test] [--timed|--untimed REGEX]   AddressSanitizer with LeakSanitizer
#   scripts/sanitizers.sh thread  [build|test] [--timed|--untimed REGEX]   ThreadSanitizer
#
# `build` only builds, `test` only runs what was built; neither: both. `--timed REGEX` runs only
# the suites that REGEX names (those that bound a wall-clock time: scripts/test runs them with
# nothing else on the machine), `--untimed REGEX` every other one (they take the load of steps
# beside them); the two parts together are the whole run. Each sanitizer builds in
# a scratch directory of its own (.build-asan, .build-tsan) so that its artefacts never mix
# with the debug build's in .build. Every process of the run (the test runner and the navprefs
# children it starts) writes its reports to one directory; the run passes only when the tests
# pass and no process wrote a report. Suppressions, each with its cause: scripts/sanitizers/.
#
# NAVPREFS_SANITIZER_FILTER overrides the suites (a `swift test --filter` expression) and
# NAVPREFS_SANITIZER_SKIP the ones skipped among them (`--skip`; empty: none). The default
# leaves out NavPrefsCoreTests (pure Swift: no pointer, no lock, no thread),
# NavPrefsEndToEndTests (the real binary, mostly waiting on child processes and timers; its
# memory and thread behaviour is the same code MicroHTTPServerTests and NavPrefsHTTPAPITests run
# in-process) and FoundationFidelityTests (typed reads compared with Foundation over thousands of
# values: semantics, at 95 s under ASan); docs/testing.md ("Sanitizers") has the times behind that choice.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

kind=${1:-}
phase=${2:-all}
part=all
case "${3:-}" in
  --timed | --untimed) part=${3#--}; part_suites=${4:?"$3 needs a regular expression of suites"} ;;
  "") ;;
  *) echo "usage: scripts/sanitizers.sh address|thread [build|test] [--timed|--untimed REGEX]" >&2; exit 2 ;;
esac
case "$kind" in
  address) scratch=.build-asan; name=AddressSanitizer ;;
  thread) scratch=.build-tsan; name=ThreadSanitizer ;;
  *) echo "usage: scripts/sanitizers.sh address|thread [build|test] [--timed|--untimed REGEX]" >&2; exit 2 ;;
esac
filter=${NAVPREFS_SANITIZER_FILTER:-'^(MicroHTTPServerTests|NavPrefsHTTPAPITests|NavPrefsStoreTests|NavPrefsJSONTests)\.'}
# With the default suites the build leaves out the targets none of them needs (Package.swift,
# NAVPREFS_SANITIZED_SUITES); another filter builds every target, in a scratch path of its own.
if [ -z "${NAVPREFS_SANITIZER_FILTER:-}" ]; then
  export NAVPREFS_SANITIZED_SUITES=1
else
  scratch=$scratch-all
fi
skip=${NAVPREFS_SANITIZER_SKIP-FoundationFidelityTests}
# The same test matches REGEX in both parts (anywhere in its name, as `swift test --filter` and
# `--skip` match): the timed part is the filter's tests that REGEX also matches (a lookahead),
# the untimed part skips them.
case "$part" in
  timed) filter="(?=.*($part_suites))($filter)" ;;
  untimed) skip="${skip:+$skip|}$part_suites" ;;
esac
flags=(--sanitize="$kind" --scratch-path "$scratch")

if [ "$phase" = all ] || [ "$phase" = build ]; then
  swift build --build-tests "${flags[@]}"
fi
[ "$phase" = build ] && exit 0

reports=$(mktemp -d "/tmp/navprefs-$kind-reports.XXXXXX")
supp=$root/scripts/sanitizers
# The Swift runtime's backtracer reads the crashed process's memory itself and trips ASan after
# a real report (reliability.md 4.5); the sanitizer's own report is the one wanted.
export SWIFT_BACKTRACE=enable=no
case "$kind" in
  address)
    export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan:log_exe_name=1:abort_on_error=0"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    ;;
  thread)
    export TSAN_OPTIONS="suppressions=$supp/tsan.supp:log_path=$reports/tsan:log_exe_name=1:halt_on_error=0:print_suppressions=0"
    ;;
esac

log=$scratch/sanitizer-test-$part.log
status=0
# PostgreSQL has its own step in scripts/test; here the store suites run on SQLite only.
(unset NAVPREFS_TEST_POSTGRES_URL; swift test --skip-build "${flags[@]}" --no-parallel --filter "$filter" ${skip:+--skip "$skip"}) >"$log" 2>&1 || status=$?
grep -E '^(✘|✔ Test run|error:)' "$log" || true
passed=true
grep -q '^✔ Test run with .* passed' "$log" && ! grep -q '^✘' "$log" || passed=false
# A filter that selects nothing passes vacuously: a part must run at least one test.
if grep -q '^✔ Test run with 0 tests' "$log"; then echo "$name: no test matched ($filter)" >&2; passed=false; fi
found=$(find "$reports" -type f | sort)
if [ -n "$found" ]; then
  echo "$name reports ($(echo "$found" | wc -l) processes):" >&2
  for file in $found; do echo "--- $file" >&2; head -c 20000 "$file" >&2; done
  passed=false
fi
rm -rf "$reports"
if ! $passed; then
  echo "$name: FAILED (swift test exit status $status; log: $log)" >&2
  exit 1
fi
echo "$name: clean ($filter${skip:+, skipping $skip})"
