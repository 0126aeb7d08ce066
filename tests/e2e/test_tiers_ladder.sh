#!/bin/sh
# End-to-end: the tiers' ladder inside a session (issue 17 items 2 and 5).
# One turn climbs interactive → workhorse → Claude: three failed tool calls
# on the interactive mock move it to the workhorse mock, three more there
# hand it to the Anthropic mock, each move shown with its reason, and the
# JSON reports tokens, time and cost per tier.  A task pattern names a tier.
# A tier whose server dies mid-turn (kill -9 of its mock) is skipped with a
# notice and the turn goes on on the next server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
export XDG_STATE_HOME=$E2E_TMP/state XDG_CONFIG_HOME=$E2E_TMP/config
ANTH_PY=$(dirname "$0")/../net/mock_anthropic.py

# anth_start SCENARIO_JSON: the Anthropic mock; sets AURL and ALOG.
anth_start() {
	printf '%s\n' "$1" >"$E2E_TMP/anth.json"
	ALOG=$E2E_TMP/anth.jsonl
	: >"$ALOG"
	python3 "$ANTH_PY" --scenario "$E2E_TMP/anth.json" --log "$ALOG" --max-seconds 120 \
		>"$E2E_TMP/anth.out" 2>&1 &
	track_pid $!
	_i=0
	while [ $_i -lt 100 ] && ! grep -q '^PORT' "$E2E_TMP/anth.out" 2>/dev/null; do
		sleep 0.05
		_i=$((_i + 1))
	done
	AURL="http://127.0.0.1:$(awk '/^PORT/{print $2}' "$E2E_TMP/anth.out")"
}
chats() { # LOG: the number of chat requests in it
	grep -c '"event": "request".*"path": "/v1/chat/completions"' "$1"
}
settings() { # the servers setting (and more JSON members after it)
	mkdir -p "$XDG_CONFIG_HOME/hearth"
	printf '{"servers": [{"name": "small", "url": "%s", "role": "interactive"},
 {"name": "big", "url": "%s", "role": "workhorse"}]%s}\n' "$1" "$2" "$3" >"$XDG_CONFIG_HOME/hearth/settings.json"
}
BAD='{"tool_calls": [{"name": "read", "arguments": {"offset": 1}}]}'

# ---- one turn up the ladder ----------------------------------------------
anth_start '{"api_key": "sk-e2e", "turns": [{"text": "Claude finished the task."}]}'
printf '{"turns": [%s, %s, %s, {"text": "UNEXPECTED: small after the move"}]}\n' "$BAD" "$BAD" "$BAD" >"$E2E_TMP/small.json"
printf '{"n_ctx": 65536, "turns": [%s, %s, %s, {"text": "UNEXPECTED: big after the handoff"}]}\n' "$BAD" "$BAD" "$BAD" >"$E2E_TMP/big.json"
mock_start "$E2E_TMP/small.json"
SMALL_URL=$MOCK_URL SMALL_LOG=$MOCK_LOG
mock_start "$E2E_TMP/big.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
settings "$SMALL_URL" "$BIG_URL" ""
ANTHROPIC_API_KEY=sk-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run ladder -p --cwd "$REPO" --output-format json "look at the config"
check_rc "ladder: exit status 0" 0
check "ladder: Claude finished the turn" pycheck '
d = out_json()
need(d.get("result") == "Claude finished the task.", "result %r" % d.get("result"))'
check "ladder: small → big with its reason, then big → Claude with its reason" pycheck '
dec = out_json()["routing"]["decisions"]
moves = [(x.get("tier") or x["target"], x["reason"]) for x in dec if x.get("tier") or x["target"] == "claude"]
need(moves == [("big", "3 failed tool calls in a row on small"), ("claude", "3 failed tool calls in a row")], "moves %r" % moves)'
check "ladder: every move is shown with its reason, in order" python3 -c '
import sys
t = open(sys.argv[1]).read()
a = t.find("→ big (workhorse): 3 failed tool calls in a row on small")
b = t.find("→ claude (handoff): 3 failed tool calls in a row")
assert a >= 0 and b > a, t' "$ERR"
check "ladder: three requests each on small and big, one on Claude" sh -c \
	'test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$1")" = 3 &&
	 test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$2")" = 3 &&
	 test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/messages\"" "$3")" = 1' - "$SMALL_LOG" "$BIG_LOG" "$ALOG"
check "ladder: the JSON has time, tokens and cost per tier" pycheck '
tiers = {t["name"]: t for t in out_json()["routing"]["tiers"]}
need(set(tiers) == {"small", "big", "claude"}, "tiers %r" % tiers)
need(tiers["small"]["role"] == "interactive" and tiers["big"]["role"] == "workhorse", "roles %r" % tiers)
for n, k in (("small", 3), ("big", 3), ("claude", 1)):
    t = tiers[n]
    need(t["requests"] == k, "%s requests %r" % (n, t))
    need(t["input_tokens"] > 0 and t["output_tokens"] > 0 and t["ms"] > 0, "%s usage %r" % (n, t))
need(tiers["claude"]["cost_usd"] > 0 and tiers["small"]["cost_usd"] == 0, "cost %r" % tiers)'
check "ladder: big got the conversation small had (its failed calls)" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if "\"request\"" in l]
chat = [r for r in reqs if r["path"] == "/v1/chat/completions"][0]
roles = [m["role"] for m in chat["body"]["messages"]]
assert roles.count("assistant") >= 3, roles' "$BIG_LOG"

check "ladder: hearth stats has a row per tier: turns, requests, tokens, cost, time" sh -c '
	"$1" stats >"$2" 2>&1 && python3 - "$2" <<"EOF"
import re, sys
t = open(sys.argv[1]).read()
rows = {}
for m in re.finditer(r"^(\w+) \((interactive|workhorse|claude)\) +(\d+) +(\d+) +(\d+) +(\d+) +([\d.]+) +([\d.]+)$", t, re.M):
    rows[m.group(1)] = (m.group(2),) + tuple(float(x) for x in m.groups()[2:])
assert set(rows) == {"small", "big", "claude"}, t
assert rows["small"][0] == "interactive" and rows["big"][0] == "workhorse", rows
for n, k in (("small", 3), ("big", 3), ("claude", 1)):
    role, turns, req, tin, tout, cost, secs = rows[n]
    assert turns == 1 and req == k and tin > 0 and tout > 0, (n, rows[n])
assert rows["claude"][5] > 0 and rows["small"][5] == 0, rows
EOF' - "$HEARTH_BIN" "$E2E_TMP/stats.out"

# ---- the workhorse has room: the context rule moves there, not to Claude -
# (big's discovery answers a second after small's: the task waits for it before it is routed;
# on a loaded machine it came late and small took the task)
printf '{"n_ctx": 800, "turns": [{"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}, {"text": "UNEXPECTED: small"}]}\n' >"$E2E_TMP/small2.json"
printf '{"n_ctx": 262144, "props_delay_s": 1, "turns": [{"text": "big had room"}]}\n' >"$E2E_TMP/big2.json"
mock_start "$E2E_TMP/small2.json"
SMALL_URL=$MOCK_URL
mock_start "$E2E_TMP/big2.json"
BIG_URL=$MOCK_URL
settings "$SMALL_URL" "$BIG_URL" ""
hearth_run context -p --cwd "$REPO" --output-format json "list the files"
check_rc "context: exit status 0" 0
check "context: the prompt outgrew small's slot; big (with room) took it, not Claude" pycheck '
d = out_json()
need(d.get("result") == "big had room", "result %r" % d.get("result"))
dec = [x for x in d["routing"]["decisions"] if x.get("tier")]
need(dec and dec[0]["tier"] == "big" and "of the local 800 context on small" in dec[0]["reason"], "decisions %r" % d["routing"]["decisions"])'

# ---- a task pattern names a tier -------------------------------------------
printf '{"turns": [{"text": "UNEXPECTED: small"}]}\n' >"$E2E_TMP/small3.json"
printf '{"turns": [{"text": "big refactored"}]}\n' >"$E2E_TMP/big3.json"
mock_start "$E2E_TMP/small3.json"
SMALL_URL=$MOCK_URL SMALL_LOG=$MOCK_LOG
mock_start "$E2E_TMP/big3.json"
BIG_URL=$MOCK_URL
settings "$SMALL_URL" "$BIG_URL" ', "routing": {"patterns": [{"pattern": "refactor", "tier": "big"}]}'
hearth_run pattern -p --cwd "$REPO" --output-format json "refactor the parser"
check_rc "pattern: exit status 0" 0
check "pattern: the pattern's tier answered, with the reason" pycheck '
d = out_json()
need(d.get("result") == "big refactored", "result %r" % d.get("result"))
dec = d["routing"]["decisions"]
need(any(x.get("tier") == "big" and x["reason"] == "task mentions \"refactor\"" for x in dec), "decisions %r" % dec)'
check "pattern: small got no chat request" test "$(chats "$SMALL_LOG")" = 0

# ---- a task pattern naming a tier that does not exist: one line at start --
printf '{"turns": [{"text": "small answered"}]}\n' >"$E2E_TMP/small7.json"
mock_start "$E2E_TMP/small7.json"
SMALL_URL=$MOCK_URL
mock_start "$E2E_TMP/big3.json"
BIG_URL=$MOCK_URL
settings "$SMALL_URL" "$BIG_URL" ', "routing": {"patterns": [{"pattern": "refactor", "tier": "bigg"}, {"pattern": "port", "tier": "big"}]}'
hearth_run badtier -p --cwd "$REPO" --output-format json "refactor the parser"
check_rc "unknown tier: the run goes on (exit status 0)" 0
check "unknown tier: one line names the pattern, the tier, the tiers there are and what to do" sh -c \
	'test "$(grep -c "tier \"bigg\"" "$1")" = 1 &&
	 grep -q "routing.patterns \"refactor\": tier \"bigg\" is not in the servers setting (tiers: small, big): use one of those names, or add a server by that name" "$1" &&
	 ! grep -q "tier \"big\" is not" "$1"' - "$ERR"

# ---- a server dies mid-turn: skipped, the turn goes on --------------------
printf '{"turns": [{"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}, {"hang": true}]}\n' >"$E2E_TMP/small4.json"
printf '{"turns": [{"text": "big carried on"}]}\n' >"$E2E_TMP/big4.json"
mock_start "$E2E_TMP/small4.json"
SMALL_URL=$MOCK_URL SMALL_LOG=$MOCK_LOG SMALL_PID=$MOCK_PID
mock_start "$E2E_TMP/big4.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
settings "$SMALL_URL" "$BIG_URL" ""
(
	_n=300
	while [ "$(chats "$SMALL_LOG")" -lt 2 ] && [ $_n -gt 0 ]; do
		sleep 0.1
		_n=$((_n - 1))
	done
	kill -9 "$SMALL_PID" 2>/dev/null
) &
KILLER=$!
hearth_run failover -p --cwd "$REPO" --output-format json "list the files"
wait "$KILLER"
check_rc "failover: exit status 0" 0
check "failover: the turn went on on big after small died" pycheck '
d = out_json()
need(d.get("result") == "big carried on", "result %r" % d.get("result"))
dec = [x for x in d["routing"]["decisions"] if x.get("tier")]
need(dec and dec[0]["tier"] == "big" and dec[0]["reason"] == "small stopped answering; skipped, the session goes on", "decisions %r" % d["routing"]["decisions"])
tiers = {t["name"]: t for t in d["routing"]["tiers"]}
need(tiers["small"].get("down") is True, "tiers %r" % tiers)'
check "failover: the notice names the dead server" grep -q "→ big (workhorse): small stopped answering; skipped, the session goes on" "$ERR"
check "failover: big got the ls result small's turn had" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if "\"request\"" in l]
chat = [r for r in reqs if r["path"] == "/v1/chat/completions"][0]
assert any(m["role"] == "tool" for m in chat["body"]["messages"]), chat["body"]["messages"]' "$BIG_LOG"

# ---- a server killed WHILE it streams an answer: the next tier answers ----
# small streams a long answer slowly; once part of it reached hearth (its
# stream-json deltas on stdout), small is killed with kill -9.  The turn
# goes on on big, the partial answer discarded: not in big's request, not
# in the session file; the notice names the dead server.
printf '{"turns": [{"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}, {"text": "PARTIAL-SMALL-ANSWER ", "repeat": 400, "piece_size": 8, "delay_ms": 20}]}\n' >"$E2E_TMP/small6.json"
printf '{"turns": [{"text": "big finished the answer"}]}\n' >"$E2E_TMP/big6.json"
mock_start "$E2E_TMP/small6.json"
SMALL_URL=$MOCK_URL SMALL_LOG=$MOCK_LOG SMALL_PID=$MOCK_PID
mock_start "$E2E_TMP/big6.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
settings "$SMALL_URL" "$BIG_URL" ""
OUT=$E2E_TMP/midstream.out ERR=$E2E_TMP/midstream.err
XDG_STATE_HOME=$E2E_TMP/state6 timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" -p --cwd "$REPO" \
	--output-format stream-json --verbose "list the files" </dev/null >"$OUT" 2>"$ERR" &
HPID=$!
# 30 s for the first deltas; 120 s under a sanitizer beside the fuzzers (make asan in CI)
_n=600
[ -n "${HEARTH_SANITIZED:-}" ] && _n=2400
# (read through cat: the background job may not have opened $OUT yet, and grep -c
# of a missing file prints no number, which ended this wait at once)
while [ "$(cat "$OUT" 2>/dev/null | grep -c '"text_delta"')" -lt 5 ] && [ $_n -gt 0 ]; do
	sleep 0.05
	_n=$((_n - 1))
done
PARTIAL_SEEN=$(cat "$OUT" 2>/dev/null | grep -c '"text_delta"')
kill -9 "$SMALL_PID" 2>/dev/null
wait "$HPID"
RC=$?
check "mid-stream: part of small's answer had streamed before the kill" test "$PARTIAL_SEEN" -ge 5
check_rc "mid-stream: exit status 0" 0
check "mid-stream: big answered, the move recorded with its reason" pycheck '
res = [l for l in out_lines() if l.get("type") == "result"]
need(res and res[-1].get("result") == "big finished the answer", "result %r" % res[-1:])
dec = [x for x in res[-1]["routing"]["decisions"] if x.get("tier")]
need(dec and dec[0]["tier"] == "big" and dec[0]["reason"] == "small stopped answering; skipped, the session goes on", "decisions %r" % res[-1]["routing"]["decisions"])
tiers = {t["name"]: t for t in res[-1]["routing"]["tiers"]}
need(tiers["small"].get("down") is True and tiers["big"]["requests"] == 1, "tiers %r" % tiers)'
check "mid-stream: the notices name the dead server and the discarded partial answer" sh -c \
	'grep -q "→ big (workhorse): small stopped answering; skipped, the session goes on" "$1" &&
	 grep -q "the partial answer it was streaming is discarded" "$1"' - "$ERR"
check "mid-stream: big got the conversation without the partial answer (the ls result, no PARTIAL)" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if "\"request\"" in l]
chat = [r for r in reqs if r["path"] == "/v1/chat/completions"]
assert len(chat) == 1, len(chat)
msgs = chat[0]["body"]["messages"]
assert any(m["role"] == "tool" for m in msgs), msgs
assert "PARTIAL-SMALL" not in json.dumps(msgs), msgs
assert msgs[-1]["role"] == "tool", msgs[-1]' "$BIG_LOG"
check "mid-stream: the session file has big's answer and not the partial one" sh -c \
	'f=$(grep -rl "big finished the answer" "$1") && ! grep -q PARTIAL-SMALL $f' - "$E2E_TMP/state6"

# ---- the start tier does not answer at all: the next tier takes the task --
DEAD=$(closed_port)
printf '{"turns": [{"text": "big took it"}]}\n' >"$E2E_TMP/big5.json"
mock_start "$E2E_TMP/big5.json"
settings "http://127.0.0.1:$DEAD" "$MOCK_URL" ""
hearth_run startdown -p --cwd "$REPO" --output-format json "say hi"
check_rc "start down: exit status 0" 0
check "start down: big answered, the skip shown with its reason" pycheck '
d = out_json()
need(d.get("result") == "big took it", "result %r" % d.get("result"))
need(any(x.get("tier") == "big" and x["reason"] == "small does not answer; skipped" for x in d["routing"]["decisions"]), "decisions %r" % d["routing"]["decisions"])'
check "start down: the notice names the dead tier" grep -q "→ big (workhorse): small does not answer; skipped" "$ERR"

# ---- two interactive servers: a free slot wins, then the warm cache ------
printf '{"slots_body": [{"id": 0, "n_ctx": 65536, "is_processing": true, "id_task": 7}], "turns": [{"text": "UNEXPECTED: busy a"}]}\n' >"$E2E_TMP/a.json"
printf '{"turns": [{"text": "B-ONE"}, {"text": "B-TWO"}]}\n' >"$E2E_TMP/b.json"
mock_start "$E2E_TMP/a.json"
A_URL=$MOCK_URL A_LOG=$MOCK_LOG
mock_start "$E2E_TMP/b.json"
B_URL=$MOCK_URL B_LOG=$MOCK_LOG
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"servers": [{"name": "a", "url": "%s"}, {"name": "b", "url": "%s"}]}\n' "$A_URL" "$B_URL" \
	>"$XDG_CONFIG_HOME/hearth/settings.json"
(sleep 3; printf 'say hi\n'; sleep 3; printf 'again\n'; sleep 3) |
	(cd "$REPO" && timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line >"$E2E_TMP/bal.out" 2>&1)
check "balance: a has no free slot, so b took the turn, with the reason" grep -q "→ b (interactive): a has no free slot (0 of 1), b has 2" "$E2E_TMP/bal.out"
check "balance: both turns answered by b (the second where its cache is warm), none by a" sh -c \
	'grep -q B-ONE "$1" && grep -q B-TWO "$1" && test "$(grep -c "\"path\": \"/v1/chat/completions\"" "$2")" = 0' - "$E2E_TMP/bal.out" "$A_LOG"

# ---- one URL, many models (llama-server's router mode): /model lists them --
printf '{"models": {"object": "list", "data": [{"id": "qwen-9b", "object": "model", "status": {"value": "loaded"}}, {"id": "qwen-35b", "object": "model", "status": {"value": "unloaded"}}]}, "turns": [{"text": "R-ONE"}]}\n' >"$E2E_TMP/router.json"
mock_start "$E2E_TMP/router.json"
R_URL=$MOCK_URL
printf '{"servers": [{"name": "fast", "url": "%s", "model": "qwen-9b"}, {"name": "deep", "url": "%s", "role": "workhorse", "model": "qwen-35b"}]}\n' "$R_URL" "$R_URL" \
	>"$XDG_CONFIG_HOME/hearth/settings.json"
(sleep 3; printf '/model\n'; sleep 2) |
	(cd "$REPO" && timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line >"$E2E_TMP/router.out" 2>&1)
check "router: /model lists the models behind the URL with their status, the one in use marked" python3 -c '
import sys
t = open(sys.argv[1]).read()
for want in ("models on this server", "▶ qwen-9b (loaded)", "   qwen-35b (unloaded)", "tiers (the servers setting):", "▶ fast (interactive)", "deep (workhorse)"):
    assert want in t, (want, t)' "$E2E_TMP/router.out"

# ---- router mode: the per-slot context from the model's entry; loading said --
# The router's own /props has no slot (n_ctx 0); each model's entry states
# how it is started (status.args).  A model not loaded yet is loaded by the
# first request for it: hearth says so.
printf '%s\n' '{"props": {"default_generation_settings": {"n_ctx": 0}}, "models": {"object": "list", "data": [
 {"id": "qwen-9b", "object": "model", "status": {"value": "loaded", "args": ["llama-server", "--ctx-size", "16384", "--parallel", "2", "--jinja"]}},
 {"id": "qwen-35b", "object": "model", "status": {"value": "unloaded", "args": ["llama-server", "--ctx-size", "32768", "--parallel", "4", "--kv-unified"]}}]},
 "turns": [{"text": "R-FAST"}, {"text": "R-DEEP"}, {"text": "R-FAST-2"}]}' >"$E2E_TMP/router2.json"
mock_start "$E2E_TMP/router2.json"
printf '{"servers": [{"name": "fast", "url": "%s", "model": "qwen-9b"}, {"name": "deep", "url": "%s", "role": "workhorse", "model": "qwen-35b"}]}\n' "$MOCK_URL" "$MOCK_URL" \
	>"$XDG_CONFIG_HOME/hearth/settings.json"
(sleep 3; printf '/model\n'; sleep 1; printf 'hi\n'; sleep 2; printf '@deep think\n'; sleep 2; printf 'again\n'; sleep 2) |
	(cd "$REPO" && timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line >"$E2E_TMP/router2.out" 2>&1)
check "router: the per-slot context comes from the model's entry (16384 over 2 slots)" grep -q "ctx 8192 per slot" "$E2E_TMP/router2.out"
check "router: loading the unloaded model is said once, on the turn that loads it" python3 -c '
import sys
t = open(sys.argv[1]).read()
i, j, k = t.find("R-FAST"), t.find("loading qwen-35b: the server starts it on demand"), t.find("R-DEEP")
assert 0 <= i < j < k, t
assert t.count("loading qwen-") == 1, t
assert "R-FAST-2" in t, t' "$E2E_TMP/router2.out"

[ -n "${KEEP:-}" ] && cp -r "$E2E_TMP" "$KEEP"
e2e_finish
