#!/bin/sh
# Run every test and print one closing line "N passed, N failed, N skipped".
#   unit:  $BUILD/tests/test_*        (cmocka; counts its PASSED/FAILED/SKIPPED lines)
#   e2e:   tests/e2e/test_*.sh        (prints "ok - name" / "not ok - name";
#                                      "ok - name # SKIP why" is a skip, not a pass)
#   net:   tests/net/test_*.py        (the mock servers' own tests, same convention;
#                                      counted apart: they test the mocks, not hearth)
# Each suite runs with a timeout so a hang fails instead of stalling CI.
set -u
BUILD=${BUILD:-build}
: "${HEARTH_BIN:=$(pwd)/hearth}"
export HEARTH_BIN FIXTURES BUILD
pass=0 fail=0 skipped=0 failed_suites=""
mpass=0 mfail=0 mskip=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# count SUITE STATUS: sets p f s from $log and adds them to the totals
count() {
	s=$(grep -Eci '^ok - .*# skip' "$log" || true)
	p=$(grep -c '^ok - ' "$log" || true)
	p=$((p - s))
	f=$(grep -c '^not ok - ' "$log" || true)
	cp=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	cf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	cs=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	p=$((p + ${cp:-0})) f=$((f + ${cf:-0})) s=$((s + ${cs:-0}))
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$f" -ne 0 ]; then
		failed_suites="$failed_suites $1"
		cat "$log"
	fi
	printf '%-40s %4d passed %4d failed %4d skipped\n' "$1" "$p" "$f" "$s"
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	timeout 300 "$t" >"$log" 2>&1; count "$(basename "$t")" $?
	pass=$((pass + p)) fail=$((fail + f)) skipped=$((skipped + s))
done
for t in tests/e2e/test_*.sh; do
	[ -f "$t" ] || continue
	timeout 600 sh "$t" >"$log" 2>&1; count "$(basename "$t")" $?
	pass=$((pass + p)) fail=$((fail + f)) skipped=$((skipped + s))
done
for t in tests/net/test_*.py; do
	[ -f "$t" ] || continue
	timeout 600 python3 "$t" >"$log" 2>&1; count "$(basename "$t") (mock server)" $?
	mpass=$((mpass + p)) mfail=$((mfail + f)) mskip=$((mskip + s))
done
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "mock servers' own tests: $mpass passed, $mfail failed, $mskip skipped"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] && [ "$mfail" -eq 0 ]
