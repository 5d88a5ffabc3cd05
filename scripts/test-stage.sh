#!/usr/bin/env bash
# Runs one stage of `make test` (the arguments go to `swift test`) and, when it fails, repeats every
# failure line at the end, where a CI log's tail shows it: a stage of a hundred tests ends with one
# summary line, and the test that failed would otherwise be hundreds of lines above it.
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/cameracore-test.XXXXXX")
trap 'rm -f "$log"' EXIT
swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "== what failed in this stage (swift test $*) =="
    grep -E '✘|recorded an issue|error:|Fatal error|failed \(' "$log" | grep -v '^✘ Test run with' | tail -40
    grep -E '^✘ Test run with' "$log" | tail -1
fi
exit "$status"
