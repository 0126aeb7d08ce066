#!/bin/sh
# Run every test and print one closing line "N passed, N failed, N skipped".
#   unit:  $BUILD/tests/test_*        (cmocka; counts its PASSED/FAILED/SKIPPED lines)
#   e2e:   tests/e2e/test_*.sh        (prints "ok - name" / "not ok - name";
#                                      "ok - name # SKIP why" is a skip, not a pass)
#   net:   tests/net/test_*.py        (the mock servers' own tests, same convention;
#                                      counted apart: they test the mocks, not hearth)
# Each suite runs with a timeout so a hang fails instead of stalling CI.
#
# Suites run side by side, TEST_JOBS at a time (default: one per core plus
# one, since the end-to-end suites mostly wait on children and sockets; 5 on
# 2 cores took make test from 830 s to 645 s, but test_tiers_ladder's context
# check then failed in 2 of 3 full runs, at 4 too: it stays at cores + 1);
# each writes its own log, and the summary is printed in the fixed order
# below whatever order they finish in.  Every suite is isolated (its own
# temp tree, HOME, ports from the kernel, tmux socket), which is what makes
# this safe; TEST_JOBS=1 runs them one after another.  The suites that time
# the screen's echo run alone first; then the slowest suites start first so
# the pool does not end on one long tail.
#   TEST_ONLY="pattern ..."   run only the suites whose file name matches
set -u
BUILD=${BUILD:-build}
: "${HEARTH_BIN:=$(pwd)/hearth}"
export HEARTH_BIN FIXTURES BUILD

# --one KIND FILE LOG: run one suite (used by the pool below)
if [ "${1:-}" = --one ]; then
	case $2 in
	unit) cmd="timeout 300 $3" ;;
	e2e) cmd="timeout 600 sh $3" ;;
	net) cmd="timeout 600 python3 $3" ;;
	esac
	start=$(date +%s)
	$cmd >"$4" 2>&1
	echo "$? $(($(date +%s) - start))" >"$4.rc"
	exit 0
fi

ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
jobs=${TEST_JOBS:-$((ncpu + 1))}
dir=$(mktemp -d "${TMPDIR:-/tmp}/hearth-run.XXXXXX") || exit 1
[ -n "${TEST_KEEP:-}" ] || trap 'rm -rf "$dir"' EXIT

alone="test_tools_live"
# The slow suites, slowest first (measured on 2 cores); the rest follow in name order.
slow="test_probes test_bench test_agent_sdk test_sandbox test_tui_live_tmux test_tui_usable_tmux test_serve
test_tui_tmux test_perms_tmux test_llama_real test_repl_tmux"

list=$dir/list
: >"$list"
i=0
add() { # KIND FILE
	case " ${TEST_ONLY:-*} " in
	*" * "*) ;;
	*) _m=0; for _p in ${TEST_ONLY:-}; do case $(basename "$2") in *$_p*) _m=1 ;; esac; done
	   [ $_m = 1 ] || return 0 ;;
	esac
	i=$((i + 1))
	printf '%04d %s %s\n' "$i" "$1" "$2" >>"$list"
}
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && add unit "$t"
done
for t in tests/e2e/test_*.sh; do
	[ -f "$t" ] && add e2e "$t"
done
for t in tests/net/test_*.py; do
	[ -f "$t" ] && add net "$t"
done

# The suites that measure latency against the idle screen run alone, before
# the pool, so the other suites' load is not in their figures.
first=$dir/first order=$dir/order
: >"$first"
for s in $alone; do
	grep " tests/e2e/$s.sh\$" "$list" >>"$first" || true
done
# then the slow suites, then the rest as listed
: >"$order"
for s in $slow; do
	grep " tests/e2e/$s.sh\$" "$list" >>"$order" || true
done
cat "$first" "$order" >"$dir/taken"
grep -v -F -x -f "$dir/taken" "$list" >>"$order" || true
echo "running $(wc -l <"$list") suites, $jobs at a time ($(wc -l <"$first") alone first)"
# shellcheck disable=SC2016
sed 's/^\([0-9]*\) \([a-z0-9]*\) \(.*\)$/\2 \3 \1/' "$first" |
	xargs -r -P 1 -L 1 sh -c 'exec sh tests/run.sh --one "$0" "$1" "'"$dir"'/$2.log"'
# shellcheck disable=SC2016
sed 's/^\([0-9]*\) \([a-z0-9]*\) \(.*\)$/\2 \3 \1/' "$order" |
	xargs -r -P "$jobs" -L 1 sh -c 'exec sh tests/run.sh --one "$0" "$1" "'"$dir"'/$2.log"'

pass=0 fail=0 skipped=0 failed_suites=""
mpass=0 mfail=0 mskip=0
slowest=$dir/times
: >"$slowest"

# count NAME LOG: sets p f s from LOG (and its .rc) and prints the suite's line
count() {
	log=$2
	if [ -f "$log.rc" ]; then read -r rc secs <"$log.rc"; else rc=125 secs=0; fi
	s=$(grep -Eci '^ok - .*# skip' "$log" || true)
	p=$(grep -c '^ok - ' "$log" || true)
	p=$((p - s))
	f=$(grep -c '^not ok - ' "$log" || true)
	cp=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	cf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	cs=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	p=$((p + ${cp:-0})) f=$((f + ${cf:-0})) s=$((s + ${cs:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$f" -ne 0 ]; then
		failed_suites="$failed_suites $1"
		cat "$log"
		[ "$rc" -eq 124 ] && echo "# $1: timed out"
	fi
	printf '%-40s %4d passed %4d failed %4d skipped %4ds\n' "$1" "$p" "$f" "$s" "$secs"
	echo "$secs $1" >>"$slowest"
}

while read -r n kind file; do
	name=$(basename "$file")
	if [ "$kind" = net ]; then
		count "$name (mock server)" "$dir/$n.log"
		mpass=$((mpass + p)) mfail=$((mfail + f)) mskip=$((mskip + s))
	else
		count "$name" "$dir/$n.log"
		pass=$((pass + p)) fail=$((fail + f)) skipped=$((skipped + s))
	fi
done <"$list"
echo "slowest suites: $(sort -rn "$slowest" | head -n 6 | awk '{printf "%s %ss  ", $2, $1}')"
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "mock servers' own tests: $mpass passed, $mfail failed, $mskip skipped"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] && [ "$mfail" -eq 0 ]
