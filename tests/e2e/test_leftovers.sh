#!/bin/sh
# End-to-end: no leftovers (issue 13, item 7).
#   - bash's children die with hearth even on SIGKILL: a backgrounded
#     `sleep`, one in its own process group (`set -m`), and one left behind
#     by a command that finished (gone when hearth exits normally);
#   - --export files are 0600, the state directory 0700;
#   - a server that sends the response headers and then nothing times out
#     after stream_idle_timeout, on llama-server and on Claude;
#   - "Loading model" 503s are waited out with a countdown on stderr up to
#     loading_wait; any other 503 ends after the retries with a clear error,
#     in print mode without --verbose;
#   - a lone \ud800 in a streamed answer becomes U+FFFD, the answer stays.
# Every wait is bounded (hearth under timeout, polling loops count down).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
export E2E_TMP

settings() {
	mkdir -p "$REPO/.hearth"
	printf '%s\n' "$1" >"$REPO/.hearth/settings.json"
}

# alive PID: the process exists and is not a zombie (a dead child whose
# parent has not reaped it yet counts as gone).
alive() {
	_s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$_s" ] && [ "$_s" != Z ]
}

# gone_within PID TENTHS: 0 once PID is no longer alive.
gone_within() {
	_n=$2
	while alive "$1"; do
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
		_n=$((_n - 1))
	done
	return 0
}

# A scenario with one bash call running $1, then an answer.  "$E2E_TMP" in
# the command is replaced by its value: bash's clean environment (base/env.h)
# does not carry the test's variables.
bash_scenario() {
	python3 -c 'import json, os, sys
cmd = sys.argv[1].replace("$E2E_TMP", os.environ["E2E_TMP"])
print(json.dumps({"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": cmd}}]},
                            {"text": "Done."}]}))' "$1" >"$E2E_TMP/bash.json"
}

# kill9_case NAME COMMAND: hearth -p --yes runs COMMAND (which writes the
# pid of a `sleep 1000` to $E2E_TMP/NAME.pid and keeps running); once the
# pid is there hearth is SIGKILLed; the sleep must be gone within 5 s.
kill9_case() {
	_name=$1
	rm -f "$E2E_TMP/$_name.pid"
	bash_scenario "$2"
	mock_start "$E2E_TMP/bash.json"
	timeout -k 5 30 "$HEARTH_BIN" -p --yes --sandbox off --server "$MOCK_URL" --cwd "$REPO" "go" \
		</dev/null >"$E2E_TMP/$_name.out" 2>"$E2E_TMP/$_name.err" &
	_hp=$!
	track_pid "$_hp"
	_n=300 # a loaded machine can take seconds to start hearth
	while [ ! -s "$E2E_TMP/$_name.pid" ] && [ "$_n" -gt 0 ]; do
		sleep 0.1
		_n=$((_n - 1))
	done
	_sp=$(cat "$E2E_TMP/$_name.pid" 2>/dev/null)
	# the timeout(1) wrapper's child is hearth
	_h=$(pgrep -P "$_hp" -x hearth | head -n 1)
	if [ -z "$_sp" ] || [ -z "$_h" ]; then
		not_ok "$_name: the command started (pid file, hearth running)"
		diag_file stderr "$E2E_TMP/$_name.err"
		diag_file "mock log" "$MOCK_LOG"
		mock_stop
		return
	fi
	kill -KILL "$_h"
	if gone_within "$_sp" 50; then
		ok "$_name: the sleep died with the SIGKILLed hearth"
	else
		not_ok "$_name: the sleep ($_sp) outlived the SIGKILLed hearth by 5 s"
		ps -o pid,ppid,pgid,sid,stat,args -p "$_sp" | sed 's/^/# /'
		kill -KILL "$_sp" 2>/dev/null
	fi
	wait "$_hp" 2>/dev/null
	untrack_pid "$_hp"
	mock_stop
}

# ---- children die with hearth, even by SIGKILL ------------------------------
kill9_case bg 'sleep 1000 & echo $! > "$E2E_TMP/bg.pid"; wait'
# job control (bash's; dash has none without a tty): the background job gets a
# process group of its own in the same session
kill9_case jobs 'bash -c "set -m; sleep 1000 & echo \$! > \"$E2E_TMP/jobs.pid\"; wait"'

# a finished command's leftover (not holding the output pipe) lives only as long as hearth
rm -f "$E2E_TMP/left.pid"
bash_scenario 'sleep 1000 >/dev/null 2>&1 & echo $! > "$E2E_TMP/left.pid"; echo started'
mock_start "$E2E_TMP/bash.json"
hearth_run left -p --yes --sandbox off --server "$MOCK_URL" --cwd "$REPO" "go"
check_rc "left behind: the run ends normally" 0
LEFT=$(cat "$E2E_TMP/left.pid" 2>/dev/null)
if [ -n "$LEFT" ] && gone_within "$LEFT" 50; then
	ok "left behind: the leftover sleep ended with hearth"
else
	not_ok "left behind: the leftover sleep (${LEFT:-no pid}) outlived hearth"
	diag_run
	[ -n "$LEFT" ] && kill -KILL "$LEFT" 2>/dev/null
fi
mock_stop

# ---- private files ----------------------------------------------------------
mock_start plain
hearth_run priv -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "A private task."
check_rc "private: exit status 0" 0
SID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT" 2>/dev/null)
: >"$E2E_TMP/old.md"
chmod 644 "$E2E_TMP/old.md"
hearth_run export_md --cwd "$REPO" --export "$SID" "$E2E_TMP/s.md"
hearth_run export_html --cwd "$REPO" --export "$SID" "$E2E_TMP/s.html"
hearth_run export_old --cwd "$REPO" --export "$SID" "$E2E_TMP/old.md"
check "--export: new and replaced files are 0600, the state dir 0700" python3 -c '
import os, stat, sys
t = os.environ["E2E_TMP"]
for f in ("s.md", "s.html", "old.md"):
    m = stat.S_IMODE(os.stat(os.path.join(t, f)).st_mode)
    assert m == 0o600, "%s: mode %o" % (f, m)
    assert os.path.getsize(os.path.join(t, f)) > 0, f + " is empty"
d = os.path.join(os.environ["XDG_STATE_HOME"], "hearth")
m = stat.S_IMODE(os.stat(d).st_mode)
assert m == 0o700, "state dir mode %o" % m'
mock_stop

# ---- the idle timeout runs from the response headers ------------------------
settings '{"stream_idle_timeout": 2, "loading_wait": 3}'
printf '{"turns": [{"text": "never", "hang": "headers"}, {"text": "never", "hang": "headers"}, {"text": "never", "hang": "headers"}]}\n' \
	>"$E2E_TMP/hang.json"
mock_start "$E2E_TMP/hang.json"
T0=$(date +%s)
hearth_run hang -p --server "$MOCK_URL" --cwd "$REPO" "hello"
T1=$(date +%s)
check "headers then silence (llama): the run fails instead of hanging" test "$RC" = 1
check "headers then silence (llama): within the idle timeout (took $((T1 - T0)) s)" test $((T1 - T0)) -lt 15
check "headers then silence (llama): stderr names the timeout" contains "$ERR" "stream_idle_timeout"
mock_stop

cat >"$E2E_TMP/anth_hang.json" <<'EOF'
{"turns": [{"hang": true}, {"hang": true}, {"hang": true}, {"hang": true}]}
EOF
ALOG=$E2E_TMP/anth.jsonl
python3 "$E2E_ROOT/tests/net/mock_anthropic.py" --scenario "$E2E_TMP/anth_hang.json" --log "$ALOG" \
	--max-seconds 120 >"$E2E_TMP/anth.out" 2>&1 &
APID=$!
track_pid "$APID"
i=0
while [ $i -lt 100 ] && ! grep -q '^PORT' "$E2E_TMP/anth.out" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
AURL="http://127.0.0.1:$(awk '/^PORT/{print $2}' "$E2E_TMP/anth.out")"
settings '{"stream_idle_timeout": 1, "anthropic": {"retries": 0}}'
T0=$(date +%s)
ANTHROPIC_API_KEY=sk-test-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run anth_hang -p --server http://127.0.0.1:9 --cwd "$REPO" "@claude hello"
T1=$(date +%s)
check "headers then silence (Claude): the run fails instead of hanging" test "$RC" != 0 -a "$RC" != 124
check "headers then silence (Claude): within the idle timeout (took $((T1 - T0)) s)" test $((T1 - T0)) -lt 15
check "headers then silence (Claude): stderr says no data" contains "$ERR" "no data for 1 s"

# ---- 503: loading is waited out (with a countdown), anything else is not ----
settings '{"loading_wait": 3}'
printf '{"loading_for_requests": 1000}\n' >"$E2E_TMP/loading.json"
mock_start "$E2E_TMP/loading.json"
T0=$(date +%s)
hearth_run loading -p --server "$MOCK_URL" --cwd "$REPO" "hello"
T1=$(date +%s)
check "loading forever: the run ends (took $((T1 - T0)) s, loading_wait 3)" test "$RC" != 0 -a $((T1 - T0)) -lt 15
check "loading forever: a countdown on stderr without --verbose" contains "$ERR" "is loading the model"
check "loading forever: the error says what to do" contains "$ERR" "still loading the model after the wait (loading_wait)"
mock_stop

# the server loads for a few requests, then answers: the wait ends with the answer
settings '{"loading_wait": 30}'
mock_start loading_then_ready
hearth_run ready -p --server "$MOCK_URL" --cwd "$REPO" "hello"
check_rc "loading then ready: exit status 0" 0
check "loading then ready: the answer" contains "$OUT" "Ready now."
mock_stop

# mid-turn: /health is fine, the chat request answers "Loading model" (the server restarted)
python3 -c 'import json
L = {"http_error": 503, "body": {"error": {"message": "Loading model", "type": "unavailable_error", "code": 503}}}
json.dump({"turns": [L, L, L, {"text": "Ready now."}]}, open("'"$E2E_TMP"'/midload.json", "w"))
json.dump({"turns": [L] * 40}, open("'"$E2E_TMP"'/midload_forever.json", "w"))'
settings '{"loading_wait": 30}'
mock_start "$E2E_TMP/midload.json"
hearth_run midload -p --server "$MOCK_URL" --cwd "$REPO" "hello"
check_rc "loading mid-turn: exit status 0" 0
check "loading mid-turn: the answer after the wait" contains "$OUT" "Ready now."
check "loading mid-turn: a countdown on stderr without --verbose" contains "$ERR" "is loading the model · 0:"
mock_stop
settings '{"loading_wait": 2}'
mock_start "$E2E_TMP/midload_forever.json"
T0=$(date +%s)
hearth_run midload_forever -p --server "$MOCK_URL" --cwd "$REPO" "hello"
T1=$(date +%s)
check "loading mid-turn for ever: the run ends (took $((T1 - T0)) s, loading_wait 2)" test "$RC" = 1 -a $((T1 - T0)) -lt 15
check "loading mid-turn for ever: the error says what to do" contains "$ERR" "the wait is the loading_wait setting"
mock_stop

settings '{}'
cat >"$E2E_TMP/down.json" <<'EOF'
{"turns": [{"http_error": 503, "body": "Service Unavailable"}, {"http_error": 503, "body": "Service Unavailable"},
           {"http_error": 503, "body": "Service Unavailable"}, {"http_error": 503, "body": "Service Unavailable"},
           {"http_error": 503, "body": "Service Unavailable"}, {"http_error": 503, "body": "Service Unavailable"}]}
EOF
mock_start "$E2E_TMP/down.json"
T0=$(date +%s)
hearth_run down -p --server "$MOCK_URL" --cwd "$REPO" "hello"
T1=$(date +%s)
check "another 503: the run fails after the retries (took $((T1 - T0)) s)" test "$RC" = 1 -a $((T1 - T0)) -lt 15
check "another 503: one line on stderr that says what to do" pycheck '
lines = [l for l in ERR_TEXT.splitlines() if "HTTP 503" in l]
need(len(lines) == 1, "want one line naming HTTP 503: %r" % ERR_TEXT)
need("restart" in lines[0] and "Service Unavailable" in lines[0], lines[0])
need(len(CHAT) == 3, "chat requests: %d (want 1 + 2 retries)" % len(CHAT))'
mock_stop

# ---- a lone surrogate in the stream -----------------------------------------
python3 - "$E2E_TMP/surrogate.sse" <<'EOF'
import json, sys
def ev(delta, finish=None):
    return 'data: ' + json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                                  "object": "chat.completion.chunk"}) + '\n\n'
body = ev({"role": "assistant", "content": None})
body += 'data: {"choices":[{"index":0,"delta":{"content":"before \\ud800 middle"},"finish_reason":null}],"object":"chat.completion.chunk"}\n\n'
body += ev({"content": " after \\udc00 end"}).replace("\\\\udc00", "\\udc00")
body += ev({}, "stop") + 'data: [DONE]\n\n'
open(sys.argv[1], "w").write(body)
EOF
printf '{"turns": [{"fixture": "surrogate.sse"}]}\n' >"$E2E_TMP/surrogate.json"
mock_start "$E2E_TMP/surrogate.json"
hearth_run surrogate -p --server "$MOCK_URL" --cwd "$REPO" "hello"
check_rc "lone surrogate: exit status 0" 0
check "lone surrogate: U+FFFD in its place, the rest of the answer kept" pycheck '
want = "before \ufffd middle after \ufffd end"
need(want in OUT_TEXT, "stdout %r" % OUT_TEXT)'
mock_stop

e2e_finish
