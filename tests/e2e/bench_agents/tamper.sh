#!/bin/sh
# A scripted agent that cheats: it applies the reference fix and also edits a
# test (appends a line to the first file under tests/), which the harness must
# score as a failure.  With TAMPER=delete it removes a test file instead.
patch -s -p1 <"$BENCH_PROBLEMS/$HEARTH_BENCH_PROBLEM/.reference/fix.patch" || exit 1
f=$(find tests -type f | sort | head -n 1)
if [ "${TAMPER:-}" = delete ]; then rm -f "$f"; else echo '' >>"$f"; fi
