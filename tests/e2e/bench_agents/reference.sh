#!/bin/sh
# A scripted agent for `hearth bench` tests: plays the known good trajectory,
# the problem's reference fix.  Checks what the harness promises the agent:
# the prompt is PROBLEM.md as one last argument, the reference is not there.
# BENCH_PROBLEMS: where the problems (with their .reference) are.
[ "$1" = "$(cat PROBLEM.md)" ] || exit 7
[ ! -e .reference ] && [ ! -e bench.json ] || exit 8
exec patch -s -p1 <"$BENCH_PROBLEMS/$HEARTH_BENCH_PROBLEM/.reference/fix.patch"
