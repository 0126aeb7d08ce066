#!/bin/sh
# tests/e2e/test_bench.sh: `hearth bench` without a model (issue 19).
#   - every shipped problem fails some tests at its start and passes all of
#     them with its reference fix (run directly, not through the harness);
#   - the harness with scripted agents (tests/e2e/bench_agents): the reference
#     scores total/total, doing nothing scores the starting score, editing or
#     deleting a test scores 0 and says so; --list; --json has the issue's fields;
#     a hung agent is killed at --timeout; /metrics deltas are read from a
#     server; a hearth-named agent's json result gives steps, escalations and
#     cost; the default agent (this hearth, -p) runs against the mock;
#   - bad input gets a one-line error.
. "$(dirname "$0")/lib.sh"
need_hearth
HEARTH_TIMEOUT=120
PROBLEMS=$E2E_ROOT/extensions/bench/problems
AGENTS=$E2E_ROOT/tests/e2e/bench_agents
BENCH_PROBLEMS=$PROBLEMS
export BENCH_PROBLEMS

# ---- the problems themselves -------------------------------------------
n=0
for d in "$PROBLEMS"/*/; do
	name=$(basename "$d")
	[ -f "$d/bench.json" ] || continue
	n=$((n + 1))
	cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["test"])' "$d/bench.json")
	w=$E2E_TMP/p-$name
	mkdir -p "$w"
	(cd "$d" && tar cf - --exclude=.reference --exclude=bench.json .) | (cd "$w" && tar xf -)
	if (cd "$w" && sh -c "$cmd") >"$E2E_TMP/start.out" 2>&1; then
		not_ok "$name: fails some tests at its start" "the test command passed on the buggy project"
	else
		ok "$name: fails some tests at its start"
	fi
	if (cd "$w" && patch -s -p1 <"$d/.reference/fix.patch" && sh -c "$cmd") >"$E2E_TMP/ref.out" 2>&1; then
		ok "$name: passes every test with its reference fix"
	else
		not_ok "$name: passes every test with its reference fix"
		diag_file output "$E2E_TMP/ref.out"
	fi
done
if [ "$n" -ge 6 ]; then ok "at least six problems ship ($n)"; else not_ok "at least six problems ship" "found $n"; fi

# ---- --list --------------------------------------------------------------
hearth_run list bench --list
if [ "$RC" = 0 ] && [ "$(grep -c -E '^(py|c)-' "$OUT")" = "$n" ] && grep -q '^c-kvstore  *c  *5  *21 ' "$OUT"; then
	ok "bench --list shows every problem with language, level and test count"
else
	not_ok "bench --list shows every problem with language, level and test count"
	diag_run
fi

# ---- scripted agents -------------------------------------------------------
# jq-free checks of the --json list: $1 file, $2 python expression over `rows` that must hold.
json_holds() {
	python3 - "$1" "$2" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(rows, indent=1)[:3000])
sys.exit(0 if ok else 1)
PY
}

NOSERVER=http://127.0.0.1:9
# the trials' directories go to a private TMPDIR, which must be empty after each run
BTMP=$E2E_TMP/btmp
mkdir -p "$BTMP"
TMPDIR=$BTMP
export TMPDIR
hearth_run ref bench --agent "sh $AGENTS/reference.sh" --trials 2 --json --server $NOSERVER
if [ "$RC" = 0 ] && json_holds "$OUT" "len(rows) == 2 * $n and all(r['passed'] == r['total'] and r['agent_exit'] == 0 for r in rows)"; then
	ok "the reference agent scores every test of every problem, 2 trials each"
else
	not_ok "the reference agent scores every test of every problem, 2 trials each"
	diag_run
fi
FIELDS="['problem','agent','trial','passed','total','wall_s','prompt_tokens','generated_tokens','steps','escalations','cost_usd']"
if json_holds "$OUT" "all(all(k in r for k in $FIELDS) for r in rows) and sorted(set(r['trial'] for r in rows)) == [1, 2] and all(r['prompt_tokens'] is None and r['steps'] is None for r in rows)"; then
	ok "--json: one object per problem x agent x trial with the issue's fields (null when unknown)"
else
	not_ok "--json: one object per problem x agent x trial with the issue's fields (null when unknown)"
fi
if [ -z "$(ls -A "$BTMP")" ]; then
	ok "trial directories are removed"
else
	not_ok "trial directories are removed" "$(ls -A "$BTMP")"
fi

hearth_run cmp bench --compare "sh $AGENTS/noop.sh" "sh $AGENTS/tamper.sh" --trials 1 --json --server $NOSERVER
if [ "$RC" = 0 ] && json_holds "$OUT" "len(rows) == 2 * $n and all(0 < r['passed'] < r['total'] and not r['tests_changed'] for r in rows if r['agent'].endswith('noop.sh')) and all(r['passed'] == 0 and r['tests_changed'] for r in rows if r['agent'].endswith('tamper.sh'))"; then
	ok "--compare: doing nothing scores the starting score, editing a test scores 0"
else
	not_ok "--compare: doing nothing scores the starting score, editing a test scores 0"
	diag_run
fi
TAMPER=delete hearth_run del bench --agent "sh $AGENTS/tamper.sh" --only py-calc,c-csv --trials 1 --server $NOSERVER
if [ "$RC" = 0 ] && grep -q 'c-csv .*0/19 .*tests changed: scored 0' "$ERR" && grep -q 'tests changed in 1' "$OUT"; then
	ok "deleting a test file is caught too, in the progress line and the table"
else
	not_ok "deleting a test file is caught too, in the progress line and the table"
	diag_run
fi

# a hung agent: killed at --timeout, the trial still scored
hearth_run hang bench --agent "sh -c 'sleep 60'" --only py-textstats --timeout 1 --trials 1 --json --server $NOSERVER
if [ "$RC" = 0 ] && json_holds "$OUT" "rows[0]['timed_out'] and rows[0]['wall_s'] < 10 and rows[0]['passed'] == 9"; then
	ok "an agent past --timeout is killed and the trial scored"
else
	not_ok "an agent past --timeout is killed and the trial scored"
	diag_run
fi

# an interrupted run: the agent is killed, its directory removed, exit 130
"$HEARTH_BIN" bench --agent "sh -c 'echo \$\$ >\"$E2E_TMP/agent.pid\"; sleep 60'" --only py-calc --trials 3 \
	--server $NOSERVER >"$E2E_TMP/int.out" 2>"$E2E_TMP/int.err" &
BPID=$!
track_pid $BPID
i=100
while [ $i -gt 0 ] && [ ! -s "$E2E_TMP/agent.pid" ]; do sleep 0.1; i=$((i - 1)); done
APID=$(cat "$E2E_TMP/agent.pid" 2>/dev/null)
ADIR=$(readlink "/proc/$APID/cwd" 2>/dev/null)
kill -INT $BPID
i=100
while [ $i -gt 0 ] && kill -0 $BPID 2>/dev/null; do sleep 0.1; i=$((i - 1)); done
wait $BPID
IRC=$?
if [ "$IRC" = 130 ] && [ -n "$APID" ] && ! kill -0 "$APID" 2>/dev/null && [ -n "$ADIR" ] && [ ! -e "$ADIR" ] &&
	grep -q "interrupted" "$E2E_TMP/int.err"; then
	ok "Ctrl-C stops the run: the agent is killed, its directory removed, exit 130"
else
	not_ok "Ctrl-C stops the run: the agent is killed, its directory removed, exit 130" \
		"rc=$IRC agent=$APID dir=$ADIR" "$(cat "$E2E_TMP/int.err")"
fi

# ---- /metrics and hearth's own figures --------------------------------------
# a server whose counters grow by 100 prompt and 7 generated tokens per read, and is busy
# at the first read after the agent: the harness waits for it (2 reads after each agent)
cat >"$E2E_TMP/metrics.py" <<'PY'
import http.server, sys, threading
n = [0]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/metrics":
            self.send_response(404); self.end_headers(); return
        n[0] += 1
        # every third read (the first after an agent) says a request is still being processed
        body = ("# HELP llamacpp:prompt_tokens_total x\nllamacpp:prompt_tokens_total %d\n"
                "llamacpp:prompt_tokens_seconds 1.5\nllamacpp:tokens_predicted_total %d\n"
                "llamacpp:requests_processing %d\n" % (1000 + 100 * n[0], 7 * n[0], n[0] % 3 == 2)).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print("PORT", s.server_address[1], flush=True)
threading.Timer(120, s.shutdown).start()
s.serve_forever()
PY
python3 "$E2E_TMP/metrics.py" >"$E2E_TMP/metrics.port" 2>&1 &
track_pid $!
i=50
while [ $i -gt 0 ] && ! grep -q PORT "$E2E_TMP/metrics.port"; do sleep 0.1; i=$((i - 1)); done
MPORT=$(sed -n 's/^PORT //p' "$E2E_TMP/metrics.port")
# a fake agent named hearth: it gets --output-format json and --server, applies the fix, prints a result
mkdir -p "$E2E_TMP/fake"
cat >"$E2E_TMP/fake/hearth" <<'SH'
#!/bin/sh
case "$*" in *"--output-format json --server http://127.0.0.1:"*) ;; *) echo "bad args: $*" >&2; exit 9 ;; esac
patch -s -p1 <"$BENCH_PROBLEMS/$HEARTH_BENCH_PROBLEM/.reference/fix.patch"
echo '{"type":"system","subtype":"init"}'
echo '{"type":"result","subtype":"success","num_turns":4,"route":{"target":"claude","reason":"x"},"routing":{"decisions":[{"step":1,"target":"local","reason":"a","blocked":false},{"step":2,"target":"claude","reason":"b","blocked":false},{"step":3,"target":"claude","reason":"c","blocked":true}],"cost_usd":0.0125}}'
SH
chmod +x "$E2E_TMP/fake/hearth"
hearth_run metrics bench --agent "$E2E_TMP/fake/hearth -p" --only py-inventory --trials 2 --json --server "http://127.0.0.1:$MPORT"
if [ "$RC" = 0 ] && json_holds "$OUT" "len(rows) == 2 and all(r['prompt_tokens'] == 200 and r['generated_tokens'] == 14 for r in rows)"; then
	ok "prompt and generated tokens are the /metrics deltas around the agent, once the server is idle"
else
	not_ok "prompt and generated tokens are the /metrics deltas around the agent, once the server is idle"
	diag_run
fi
if json_holds "$OUT" "all(r['steps'] == 4 and r['escalations'] == 1 and abs(r['cost_usd'] - 0.0125) < 1e-9 and r['passed'] == 17 for r in rows)"; then
	ok "a hearth agent's json result gives steps, escalations (blocked ones not counted) and cost"
else
	not_ok "a hearth agent's json result gives steps, escalations (blocked ones not counted) and cost"
	diag_run
fi
hearth_run table bench --agent "$E2E_TMP/fake/hearth -p" --only py-inventory --trials 1 --server "http://127.0.0.1:$MPORT"
if [ "$RC" = 0 ] && grep -q '^py-inventory .* 17.0/17  *[0-9.]*  *200  *14  *4.0  *1.0  *0.0125' "$OUT"; then
	ok "the table shows passed/total, tokens, steps, escalations and cost per problem x agent"
else
	not_ok "the table shows passed/total, tokens, steps, escalations and cost per problem x agent"
	diag_run
fi

# ---- the default agent: this hearth in print mode, against the mock -----------
if mock_start plain; then
	hearth_run default bench --only py-textstats --trials 1 --json --server "$MOCK_URL"
	if [ "$RC" = 0 ] && json_holds "$OUT" "rows[0]['agent'] == 'hearth -p' and rows[0]['steps'] == 1 and rows[0]['escalations'] == 0 and rows[0]['passed'] == 9 and rows[0]['agent_exit'] == 0"; then
		ok "the default agent is this hearth in print mode; its steps are read"
	else
		not_ok "the default agent is this hearth in print mode; its steps are read"
		diag_run
	fi
	mock_stop
else
	not_ok "the mock starts"
fi

# ---- bad input ----------------------------------------------------------------
for args in "--trials 0" "--trials" "--compare a" "--server ftp://x" "--frobnicate" "--compare http://a sh"; do
	# shellcheck disable=SC2086
	hearth_run bad bench $args
	if [ "$RC" = 2 ] && [ "$(wc -l <"$ERR")" = 1 ] && grep -q '^hearth: ' "$ERR"; then
		ok "bench $args: one-line usage error, exit 2"
	else
		not_ok "bench $args: one-line usage error, exit 2"
		diag_run
	fi
done
hearth_run badonly bench --only nosuch --list
if [ "$RC" = 1 ] && grep -q 'no problem named "nosuch"' "$ERR"; then ok "an unknown --only name is named"; else not_ok "an unknown --only name is named"; diag_run; fi
hearth_run baddir bench --problems "$E2E_TMP/none" --list
if [ "$RC" = 1 ] && grep -q 'give one with --problems DIR' "$ERR"; then ok "a missing problems directory says what to do"; else not_ok "a missing problems directory says what to do"; diag_run; fi

e2e_finish
