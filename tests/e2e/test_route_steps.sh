#!/bin/sh
# End-to-end: routing decisions at each step of a turn.  The scripted
# local mock drives each failure signal; the Anthropic mock answers and
# logs what Claude was sent.  Covers: 3 failed tool calls → handoff (with
# the local tool history, a privacy-listed file's contents never sent,
# Claude's thinking sent back with its signature and never to llama);
# a repeated call → consult (tool_choice none, Claude's plan in the
# conv, local continues); --max-steps with no change → handoff; the
# local server down → handoff; an unknown model id → one warning line
# naming the available ids; routing off → nothing reaches Claude.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
printf 'API_TOKEN=SECRET-BYTES-4711\n' >"$REPO/.env"
export XDG_STATE_HOME=$E2E_TMP/state XDG_CONFIG_HOME=$E2E_TMP/config
ANTH_PY=$(dirname "$0")/../net/mock_anthropic.py
NA=0

# anth_start SCENARIO_JSON: a fresh Anthropic mock; sets AURL and ALOG.
anth_start() {
	NA=$((NA + 1))
	printf '%s\n' "$1" >"$E2E_TMP/anth$NA.json"
	ALOG=$E2E_TMP/anth$NA.jsonl
	: >"$ALOG"
	python3 "$ANTH_PY" --scenario "$E2E_TMP/anth$NA.json" --log "$ALOG" --max-seconds 120 \
		>"$E2E_TMP/anth$NA.out" 2>&1 &
	APID=$!
	track_pid "$APID"
	_i=0
	while [ $_i -lt 100 ] && ! grep -q '^PORT' "$E2E_TMP/anth$NA.out" 2>/dev/null; do
		sleep 0.05
		_i=$((_i + 1))
	done
	AURL="http://127.0.0.1:$(awk '/^PORT/{print $2}' "$E2E_TMP/anth$NA.out")"
	export ALOG
}
# local_scenario NAME JSON: a scenario file for mock_start.
local_scenario() {
	printf '%s\n' "$2" >"$E2E_TMP/$1.json"
	mock_start "$E2E_TMP/$1.json"
}
AREQ='ANTH = [json.loads(l) for l in open(os.environ["ALOG"]) if "\"request\"" in l]
MSGS = [r for r in ANTH if r["path"].startswith("/v1/messages")]
'

# ---- 3 failed tool calls → handoff; privacy; thinking signatures ------------
anth_start '{"api_key": "sk-e2e", "turns": [
 {"thinking": "CLAUDE-THOUGHT-1", "signature": "SIG-KEEP-ME-1", "tool_use": [{"name": "ls", "input": {"path": "."}}]},
 {"text": "Claude finished the task."}]}'
local_scenario fail3 '{"turns": [
 {"tool_calls": [{"name": "read", "arguments": {"path": ".env"}}]},
 {"tool_calls": [{"name": "read", "arguments": {"offset": 1}}]},
 {"tool_calls": [{"name": "read", "arguments": {"offset": 2}}]},
 {"tool_calls": [{"name": "read", "arguments": {"offset": 3}}]},
 {"text": "UNEXPECTED: local after the handoff"}]}'
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run fail3 -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "look at the config"
check_rc "tool failures: exit status 0" 0
check "tool failures: Claude finished the turn; the decision and its reason are in the json" pycheck '
d = out_json()
need(d["result"] == "Claude finished the task.", "result %r" % d["result"])
dec = d["routing"]["decisions"]
need(any(x["target"] == "claude" and x["reason"] == "3 failed tool calls in a row" and x["mode"] == "handoff" for x in dec), "decisions %r" % dec)
r = d["routing"]["routes"]
need(r["claude"]["input_tokens"] > 0 and r["local"]["output_tokens"] > 0, "routes %r" % r)
need(d["routing"]["cost_usd"] > 0, "cost %r" % d["routing"])'
check "tool failures: the handoff is shown with its reason" grep -q "→ claude (handoff): 3 failed tool calls in a row" "$ERR"
check "tool failures: Claude got the local tool history, never the .env bytes" pycheck "$AREQ"'
need(len(MSGS) == 2, "%d requests" % len(MSGS))
first = json.dumps(MSGS[0]["body"])
need("tool_use" in first and "tool_result" in first, first[:300])
need("not shown to Claude" in first, "no privacy notice")
for r in MSGS:
    need("SECRET-BYTES-4711" not in json.dumps(r), "secret sent to Claude")'
check "tool failures: Claude's thinking went back with its signature unchanged" pycheck "$AREQ"'
body = MSGS[1]["body"]
th = [b for m in body["messages"] if m["role"] == "assistant" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "thinking"]
need(len(th) == 1 and th[0]["signature"] == "SIG-KEEP-ME-1" and th[0]["thinking"] == "CLAUDE-THOUGHT-1", "thinking %r" % th)'
check "tool failures: the local model was asked 4 times and never saw Claude's thinking" pycheck '
need(len(CHAT) == 4, "%d chat requests" % len(CHAT))
need(all("CLAUDE-THOUGHT-1" not in json.dumps(c) and "SIG-KEEP-ME-1" not in json.dumps(c) for c in CHAT), "thinking leaked to llama")'
mock_stop

# ---- a repeated call → consult, then local continues ------------------------
anth_start '{"api_key": "sk-e2e", "turns": [{"thinking": "CONSULT-THOUGHT", "signature": "SIG-C", "text": "PLAN: stop re-reading hello.c and answer."}]}'
local_scenario repeat '{"turns": [
 {"tool_calls": [{"name": "read", "arguments": {"path": "hello.c"}}]},
 {"tool_calls": [{"name": "read", "arguments": {"path": "hello.c"}}]},
 {"tool_calls": [{"name": "read", "arguments": {"path": "hello.c"}}]},
 {"text": "Local answer after the plan."}]}'
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run repeat -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "what does hello.c print?"
check_rc "repeated call: exit status 0" 0
check "repeated call: consulted Claude once, then the local model answered" pycheck "$AREQ"'
d = out_json()
need(d["result"] == "Local answer after the plan.", "result %r" % d["result"])
need(any(x.get("mode") == "consult" and "repeated 3 times" in x["reason"] for x in d["routing"]["decisions"]), "decisions %r" % d["routing"]["decisions"])
need(len(MSGS) == 1, "%d Claude requests" % len(MSGS))
b = MSGS[0]["body"]
need(b.get("tool_choice") == {"type": "none"} and "tools" in b, "tool_choice %r" % b.get("tool_choice"))
need("You are consulted" in json.dumps(b["messages"][-1]), "consult text missing")'
check "repeated call: the local model got the plan and the note, not the thinking or the consult text" pycheck '
last = json.dumps(CHAT[-1])
need(len(CHAT) == 4, "%d chat requests" % len(CHAT))
need("PLAN: stop re-reading" in last and "Claude was consulted" in last, last[-600:])
need("CONSULT-THOUGHT" not in last and "SIG-C" not in last and "You are consulted" not in last, "leak")'
check "repeated call: both switches are shown" sh -c 'grep -q "→ claude (consult)" "$1" && grep -q "← local" "$1"' _ "$ERR"
mock_stop

# ---- --max-steps with no file changed → handoff -----------------------------
anth_start '{"api_key": "sk-e2e", "turns": [{"text": "Claude took over at the step limit."}]}'
local_scenario steps '{"turns": [
 {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
 {"tool_calls": [{"name": "read", "arguments": {"path": "hello.c"}}]},
 {"text": "UNEXPECTED: past the step limit"}]}'
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run steps -p --max-steps 2 --server "$MOCK_URL" --cwd "$REPO" --output-format json "explore"
check_rc "max steps: exit status 0" 0
check "max steps: handed off with the reason" pycheck '
d = out_json()
need(d["result"] == "Claude took over at the step limit.", "result %r" % d["result"])
need(any(x["reason"] == "step limit reached with no file changed" for x in d["routing"]["decisions"]), "%r" % d["routing"])'
mock_stop

# ---- the local server is down → handoff; unknown model id → one warning -----
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"anthropic": {"models": {"sonnet": "claude-sonnet-9-nope"}}}\n' >"$XDG_CONFIG_HOME/hearth/settings.json"
anth_start '{"api_key": "sk-e2e", "turns": [{"text": "Claude answered while the server was down."}]}'
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run down -p --server "http://127.0.0.1:$(closed_port)" --cwd "$REPO" --output-format json "hello?"
check_rc "server down: exit status 0" 0
check "server down: Claude answered, with the configured model id" pycheck "$AREQ"'
d = out_json()
need(d["result"] == "Claude answered while the server was down.", "result %r" % d["result"])
need(MSGS[0]["body"]["model"] == "claude-sonnet-9-nope", MSGS[0]["body"]["model"])'
check "server down: the reason is shown" grep -q "unreachable or unhealthy" "$ERR"
check "unknown model id: one warning naming the available ids" pycheck '
lines = [l for l in ERR_TEXT.splitlines() if "claude-sonnet-9-nope is not offered" in l]
need(len(lines) == 1 and "claude-opus-5" in lines[0], ERR_TEXT[-600:])'
rm -f "$XDG_CONFIG_HOME/hearth/settings.json"

# ---- the same in the full screen: a message while the server is down -------
if command -v tmux >/dev/null 2>&1; then
	tmux_setup hearth-route
	anth_start '{"api_key": "sk-e2e", "turns": [{"text": "Claude took the turn while llama was away."}]}'
	$T new-session -d -s s -x 120 -y 30 \
		"cd '$REPO' && HOME='$HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL='$AURL' '$HEARTH_BIN' --tui --server http://127.0.0.1:$(closed_port); echo HEARTH_EXITED rc=\$?; sleep 30"
	tmux_wait route tui_down "waiting for llama-server|not answering|no llama-server|cannot reach|first run" 100
	$T send-keys -t s "hello while down" Enter
	tmux_wait route tui_claude "Claude took the turn while llama was away." 100
	check "full screen, server down: the handoff and its reason are shown" \
		grep -q "unreachable or unhealthy" "$E2E_TMP/pane.tui_claude"
	check "full screen, server down: the message reached Claude" pycheck "$AREQ"'
need(any("hello while down" in json.dumps(r["body"]["messages"]) for r in MSGS), MSGS)'
	$T send-keys -t s C-c C-c
	tmux_wait route tui_quit "HEARTH_EXITED rc=0"
	cleanup_tmux
fi

# ---- the same in the line session: a task while the server is down --------
anth_start '{"api_key": "sk-e2e", "turns": [{"text": "Claude answered the line session."}]}'
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run_stdin line_down "hello from the line session" --line \
	--server "http://127.0.0.1:$(closed_port)" --cwd "$REPO"
check_rc "line session, server down: exit status 0" 0
check "line session, server down: Claude answered" grep -q "Claude answered the line session." "$OUT"
check "line session, server down: the handoff and its reason are shown" \
	grep -q "unreachable or unhealthy" "$OUT" "$ERR"
SAVED_TIMEOUT=$HEARTH_TIMEOUT
HEARTH_TIMEOUT=3
ANTHROPIC_API_KEY= ANTHROPIC_BASE_URL=$AURL \
	hearth_run_stdin line_nokey "hello without a key" --line \
	--server "http://127.0.0.1:$(closed_port)" --cwd "$REPO"
HEARTH_TIMEOUT=$SAVED_TIMEOUT
check "line session, no key: the task waits for the server (nothing sent to Claude)" pycheck "$AREQ"'
need(not any("hello without a key" in json.dumps(r["body"]) for r in MSGS), MSGS)'

# ---- routing off: the same failures stay local, nothing reaches Claude ------
BEFORE=$(grep -c '"event": "request"' "$ALOG")
local_scenario fail3b '{"turns": [
 {"tool_calls": [{"name": "read", "arguments": {"offset": 1}}]},
 {"tool_calls": [{"name": "read", "arguments": {"offset": 2}}]},
 {"tool_calls": [{"name": "read", "arguments": {"offset": 3}}]},
 {"text": "Local answer, routing off."}]}'
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run off -p --route local --server "$MOCK_URL" --cwd "$REPO" --output-format stream-json "go"
check "routing off: answered locally (stream-json result with the routing object), nothing reached the Anthropic mock" pycheck '
d = out_lines()[-1]
need(d["type"] == "result" and d["result"] == "Local answer, routing off.", "result %r" % d)
need(d["routing"]["routes"]["claude"]["input_tokens"] == 0 and d["routing"]["routes"]["local"]["input_tokens"] > 0, "routing %r" % d["routing"])
need(all(x["target"] == "local" for x in d["routing"]["decisions"]), "decisions %r" % d["routing"]["decisions"])
need(sum("\"request\"" in l for l in open(os.environ["ALOG"])) == int(ARGS[0]), "Claude was asked")' "$BEFORE"
mock_stop

e2e_finish
