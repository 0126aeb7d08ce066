#!/bin/sh
# Run every test and print one closing line "N passed, N failed".
#   unit:  $BUILD/tests/test_*        (cmocka; counts its PASSED/FAILED lines)
#   e2e:   tests/e2e/test_*.sh        (prints "ok - name" / "not ok - name")
#   net:   tests/net/test_*.py        (same output convention)
# Each suite runs with a timeout so a hang fails instead of stalling CI.
set -u
BUILD=${BUILD:-build}
: "${HEARTH_BIN:=$(pwd)/hearth}"
export HEARTH_BIN FIXTURES BUILD
pass=0 fail=0 failed_suites=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # $1 suite name, $2 exit status; reads $log
	p=$(grep -c '^ok - ' "$log" || true)
	f=$(grep -c '^not ok - ' "$log" || true)
	cp=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	cf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	p=$((p + ${cp:-0})) f=$((f + ${cf:-0}))
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p)) fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		failed_suites="$failed_suites $1"
		cat "$log"
	fi
	printf '%-40s %4d passed %4d failed\n' "$1" "$p" "$f"
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	timeout 300 "$t" >"$log" 2>&1; count "$(basename "$t")" $?
done
for t in tests/e2e/test_*.sh; do
	[ -f "$t" ] || continue
	timeout 600 sh "$t" >"$log" 2>&1; count "$(basename "$t")" $?
done
for t in tests/net/test_*.py; do
	[ -f "$t" ] || continue
	timeout 600 python3 "$t" >"$log" 2>&1; count "$(basename "$t")" $?
done
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
