#!/bin/sh
# End-to-end: MCP servers from .mcp.json.  The demo server's tools are
# offered to the model as mcp__demo__*, a call reaches the server and its
# answer goes back to the model; a server that crashes mid-call or cannot
# start, and an invalid .mcp.json, are reported in one line each while the
# run still completes.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
DEMO=$E2E_ROOT/${BUILD:-build}/mcp-demo
[ -x "$DEMO" ] || { not_ok "demo server built" "$DEMO missing (make $DEMO)"; e2e_finish; }
REPO=$E2E_TMP/repo
make_repo "$REPO"
mkdir -p "$E2E_TMP/repo2/.hearth"
printf '{"defer_tools": "auto", "defer_tools_min_tokens": 250}\n' >"$E2E_TMP/repo2/.hearth/settings.json"
export DEMO

# ---- a project .mcp.json: tools offered, a call answered ------------------
printf '{"mcpServers": {"demo": {"command": "%s", "args": ["--page-size=2"], "env": {"X": "1"}}}}\n' \
	"$DEMO" >"$REPO/.mcp.json"
trust_project "$REPO"
mkdir -p "$REPO/.hearth"
printf '{"defer_tools": false}\n' >"$REPO/.hearth/settings.json"
trust_project "$REPO"
mock_start mcp_add
hearth_run add -p --server "$MOCK_URL" --cwd "$REPO" "Add 2 and 40."
check_rc "mcp: exit status 0" 0
check "mcp: the answer is printed" grep -q "The sum is 42." "$OUT"
check "mcp: the demo tools are offered with their schemas" pycheck '
tools = {t["function"]["name"]: t["function"] for t in CHAT[0].get("tools", [])}
for n in ("echo", "add", "file_stat", "sleep", "toggle"):
    need("mcp__demo__" + n in tools, "tools offered: %r" % sorted(tools))
need(tools["mcp__demo__add"]["parameters"]["required"] == ["a", "b"], "schema %r" % tools["mcp__demo__add"])
need("read" in tools, "built-in tools missing")'
check "mcp: the server answer reaches the model" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "42", "tool messages %r" % res)'
check "mcp: nothing reported" sh -c "! grep -q 'mcp server' '$ERR'"
mock_stop

# ---- defer_tools "auto": the MCP schemas tip it over the threshold --------
# (the demo's five tools are small: a low defer_tools_min_tokens stands in
# for a large MCP tool set; the built-in ones alone stay under it)
printf '{"defer_tools_min_tokens": 250}\n' >"$REPO/.hearth/settings.json"
mock_start mcp_search
hearth_run search -p --server "$MOCK_URL" --cwd "$REPO" "Add 2 and 40."
check_rc "mcp deferred: exit status 0" 0
check "mcp deferred: not offered up front, found by tool_search, then called" pycheck '
names = lambda i: [t["function"]["name"] for t in CHAT[i].get("tools", [])]
need("tool_search" in names(0) and "mcp__demo__add" not in names(0), "first request tools %r" % names(0))
need("mcp__demo__add" in names(1), "after tool_search: %r" % names(1))
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "42", "tool messages %r" % res)
sysp = CHAT[0]["messages"][0]["content"]
need(re.search(r"Not loaded yet.*mcp__demo__add", sysp), "the prompt does not list the MCP tools to load")'
mock_stop
mock_start plain
make_repo "$E2E_TMP/repo3"
mkdir -p "$E2E_TMP/repo3/.hearth"
printf '{"defer_tools": "auto"}\n' >"$E2E_TMP/repo3/.hearth/settings.json"
hearth_run auto_small -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo3" "hi"
check "defer_tools auto, built-in tools only (no .mcp.json): everything up front" pycheck '
n = [t["function"]["name"] for t in CHAT[0].get("tools", [])]
need("tool_search" not in n and "outline" in n, "tools %r" % n)'
mock_stop
printf '{"defer_tools": false}\n' >"$REPO/.hearth/settings.json"

# ---- a server that dies mid-call ------------------------------------------
printf '{"mcpServers": {"demo": {"command": "%s", "args": ["--fail=crash"]}}}\n' "$DEMO" >"$REPO/.mcp.json"
trust_project "$REPO"
mock_start mcp_add
hearth_run crash -p --server "$MOCK_URL" --cwd "$REPO" "Add 2 and 40."
check_rc "mcp crash: the run still completes" 0
check "mcp crash: one line says what happened" grep -q "mcp server demo: exited with status 3 (stderr: mcp-demo: crashing on purpose); its tools are removed" "$ERR"
check "mcp crash: the model sees the failure as the tool result" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "exited with status 3" in res[-1]["content"], "tool messages %r" % res)'
mock_stop

# ---- a server that cannot start; an invalid .mcp.json ----------------------
printf '{"mcpServers": {"gone": {"command": "/nonexistent/mcp"}}}\n' >"$REPO/.mcp.json"
trust_project "$REPO"
mock_start plain
hearth_run nostart -p --server "$MOCK_URL" --cwd "$REPO" "Hello."
check_rc "mcp missing command: the run completes" 0
check "mcp missing command: reported" grep -q "mcp server gone: run /nonexistent/mcp: No such file or directory" "$ERR"
mock_stop
printf '{"mcpServers": {\n  "demo": }\n' >"$REPO/.mcp.json"
trust_project "$REPO"
mock_start plain
hearth_run badjson -p --server "$MOCK_URL" --cwd "$REPO" "Hello."
check_rc "invalid .mcp.json: the run completes" 0
check "invalid .mcp.json: reported with line and column" grep -q "\.mcp\.json: invalid JSON at line 2, column" "$ERR"
mock_stop

# ---- the line session: /mcp, and a report when a server fails ---------------
printf '{"mcpServers": {"demo": {"command": "%s"}, "bad": {"command": "%s", "args": ["--fail=init"]}}}\n' \
	"$DEMO" "$DEMO" >"$REPO/.mcp.json"
trust_project "$REPO"
mock_start plain
# the second /mcp comes after the failing server has had time to answer (slow under ASan)
{ printf '/mcp\n'; sleep 2; printf '/mcp\n'; } |
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" \
	>"$E2E_TMP/line.out" 2>"$E2E_TMP/line.err"
RC=$? OUT=$E2E_TMP/line.out ERR=$E2E_TMP/line.err
check_rc "line /mcp: exit status 0" 0
check "line /mcp: the demo is listed" grep -Eq "demo: (ready, 5 tools|starting, 0 tools)" "$OUT"
check "line session: the bad server is reported" grep -q "mcp server bad: sent invalid JSON" "$OUT"
mock_stop

# ---- the line session: an MCP prompt as a command (prompts/get, its text the user's turn) ----
# typed ahead at start-up: the /mcp__ lines wait until the servers have listed their prompts
printf '{"mcpServers": {"demo": {"command": "%s", "args": ["--prompts", "--init-delay=1500"]}}}\n' "$DEMO" >"$REPO/.mcp.json"
trust_project "$REPO"
mock_start plain
printf '%s\n' "/mcp__demo__brief" "/mcp__demo__brief \"New York\" tone='very dry'" |
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" \
	>"$E2E_TMP/lprompt.out" 2>"$E2E_TMP/lprompt.err"
RC=$? OUT=$E2E_TMP/lprompt.out ERR=$E2E_TMP/lprompt.err
check_rc "line prompt: exit status 0" 0
check "line prompt: typed ahead while the server starts (1.5 s), the line waits for its prompts" grep -q "(waiting for the MCP servers to list their prompts)" "$OUT"
check "line prompt: without its required argument, the usage" grep -q "/mcp__demo__brief needs topic; usage: /mcp__demo__brief topic \[tone\]" "$OUT"
check "line prompt: the quoted arguments reach prompts/get, its text is the user's turn, the model answers" pycheck '
need(len(CHAT) == 1, "chat requests: %d" % len(CHAT))
last = CHAT[0]["messages"][-1]
need(last["role"] == "user" and text_of(last["content"]).endswith("PROMPT brief {\"topic\":\"New York\",\"tone\":\"very dry\"}"), "task %r" % last)
need("The answer is 42." in OUT_TEXT, "out %r" % OUT_TEXT[-300:])'
mock_stop

# ---- Streamable HTTP: the demo behind tests/net/mock_mcp_http.py ------------------------
# http_mock_start ARGS...: the HTTP mock on a free port (HTTP_PORT, HTTP_PID, HTTP_LOG)
HTTP_N=0
http_mock_start() {
	HTTP_N=$((HTTP_N + 1))
	HTTP_LOG=$E2E_TMP/http$HTTP_N.jsonl
	: >"$HTTP_LOG"
	python3 "$E2E_ROOT/tests/net/mock_mcp_http.py" --demo "$DEMO" --log "$HTTP_LOG" "$@" >"$E2E_TMP/http$HTTP_N.out" 2>&1 &
	HTTP_PID=$!
	track_pid "$HTTP_PID"
	for _i in $(seq 100); do
		HTTP_PORT=$(sed -n 's/^PORT //p' "$E2E_TMP/http$HTTP_N.out")
		[ -n "$HTTP_PORT" ] && return 0
		sleep 0.1
	done
	not_ok "the HTTP MCP mock starts" "$(cat "$E2E_TMP/http$HTTP_N.out")"
	return 1
}
http_mock_stop() {
	kill "$HTTP_PID" 2>/dev/null
	wait_gone "$HTTP_PID" 50
	untrack_pid "$HTTP_PID"
}
printf '{"defer_tools": false, "mcp_timeout": 1}\n' >"$REPO/.hearth/settings.json"
rm -f "$REPO/.mcp.json"
trust_project "$REPO"
for REPLY in sse json; do
	http_mock_start --reply "$REPLY" --require-header "X-Demo-Token: tok-42" || continue
	CFG=$(printf '{"mcpServers": {"demo": {"type": "http", "url": "http://127.0.0.1:%s/mcp", "headers": {"X-Demo-Token": "${DEMO_TOKEN_E2E}"}}}}' "$HTTP_PORT")
	mock_start mcp_add
	DEMO_TOKEN_E2E=tok-42 hearth_run "http-$REPLY" -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Add 2 and 40."
	check_rc "http ($REPLY answers): exit status 0" 0
	check "http ($REPLY answers): the tools listed over HTTP, add answers 42" pycheck '
need("mcp__demo__add" in tool_names(CHAT[0]), "tools %r; stderr %r" % (tool_names(CHAT[0]), ERR_TEXT[-300:]))
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "42", "tool messages %r" % res)'
	check "http ($REPLY answers): the header from .mcp.json, the session id and the protocol version on every later POST" pycheck '
posts = [json.loads(l) for l in open(ARGS[0]) if l.strip()]
posts = [p for p in posts if p["method"] == "POST"]
need(len(posts) >= 4, "posts %d" % len(posts))
need(all(p["headers"].get("X-Demo-Token") == "tok-42" for p in posts), "header missing")
need(all(p["headers"].get("Mcp-Session-Id") for p in posts[1:]) and not posts[0]["headers"].get("Mcp-Session-Id"), "session ids %r" % [p["headers"].get("Mcp-Session-Id") for p in posts])
need(all(p["headers"].get("MCP-Protocol-Version") == "2025-06-18" for p in posts), "protocol version")
need(all("text/event-stream" in p["headers"].get("Accept", "") for p in posts), "accept")' "$HTTP_LOG"
	mock_stop
	http_mock_stop
done
http_mock_start --require-header "X-Demo-Token: tok-42"
CFG=$(printf '{"mcpServers": {"demo": {"type": "http", "url": "http://127.0.0.1:%s/mcp", "headers": {"X-Demo-Token": "wrong"}}}}' "$HTTP_PORT")
mock_start plain
hearth_run http-401 -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Hello."
check_rc "http 401: the run completes" 0
check "http 401: one line with the status, the hint and the body's first line" grep -q "mcp server demo: answered HTTP 401 (check the \"headers\" of its .mcp.json entry): missing or wrong X-Demo-Token header; its tools are removed" "$ERR"
mock_stop
http_mock_stop
http_mock_start
CFG=$(printf '{"mcpServers": {"demo": {"type": "http", "url": "http://127.0.0.1:%s/mcp"}}}' "$HTTP_PORT")
mock_start mcp_http_progress
hearth_run http-progress -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Sleep."
check_rc "http progress: exit status 0" 0
check "http progress: progress events on the POST's stream extend mcp_timeout (1 s) for a 2.5 s call" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "slept", "tool messages %r" % res)'
mock_stop
mock_start mcp_npm_timeout
hearth_run http-timeout -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Sleep, then echo."
check_rc "http timeout: exit status 0" 0
check "http timeout: the call is cancelled alone (a notifications/cancelled POST), the next call answers" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "did not answer tools/call sleep within 1 s" in res[-1]["content"], "sleep %r" % res)
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "STILL_HERE_q8", "echo %r" % res)
posts = [json.loads(l) for l in open(ARGS[0]) if l.strip()]
need(any("notifications/cancelled" in p.get("body", "") for p in posts), "no cancel POST")' "$HTTP_LOG"
mock_stop
http_mock_stop

# ---- Streamable HTTP: a dropped answer is resumed (Last-Event-ID); the session ends with a DELETE at exit ----
http_mock_start --drop-first-call
CFG=$(printf '{"mcpServers": {"demo": {"type": "http", "url": "http://127.0.0.1:%s/mcp"}}}' "$HTTP_PORT")
mock_start mcp_add
hearth_run http-resume -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Add 2 and 40."
check_rc "http resume: exit status 0" 0
check "http resume: the call's stream closed after its priming event; a GET with Last-Event-ID brought the answer" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "42", "tool messages %r; stderr %r" % (res, ERR_TEXT[-300:]))
reqs = [json.loads(l) for l in open(ARGS[0]) if l.strip()]
gets = [r for r in reqs if r["method"] == "GET" and r["headers"].get("Last-Event-ID")]
need(len(gets) == 1, "resuming GETs: %r" % [r["headers"] for r in reqs if r["method"] == "GET"])
need(re.fullmatch(r"[0-9a-f]{6}\d+-0", gets[0]["headers"]["Last-Event-ID"]), "Last-Event-ID %r" % gets[0]["headers"])
need(gets[0]["headers"].get("Mcp-Session-Id"), "no session id on the GET")' "$HTTP_LOG"
check "http resume: at exit an HTTP DELETE ends the session" pycheck '
reqs = [json.loads(l) for l in open(ARGS[0]) if l.strip()]
dels = [r for r in reqs if r["method"] == "DELETE"]
sids = {r["headers"].get("Mcp-Session-Id") for r in reqs if r["method"] == "POST" and r["headers"].get("Mcp-Session-Id")}
need(len(dels) == 1 and dels[0]["headers"].get("Mcp-Session-Id") in sids, "DELETEs %r, sessions %r" % (dels, sids))
need(dels[0] is reqs[-1], "the DELETE is not the last request")' "$HTTP_LOG"
mock_stop
http_mock_stop

# ---- Streamable HTTP: a session the server ended (404) is started again --------------------------------
http_mock_start --expire-first-call
CFG=$(printf '{"mcpServers": {"demo": {"type": "http", "url": "http://127.0.0.1:%s/mcp"}}}' "$HTTP_PORT")
printf '{"turns": [{"tool_calls": [{"name": "mcp__demo__echo", "arguments": {"text": "FIRST"}}]}, {"tool_calls": [{"name": "mcp__demo__echo", "arguments": {"text": "AGAIN_z5"}}]}, {"text": "EXPIRED_DONE"}]}\n' \
	>"$E2E_TMP/expire.json"
mock_start "$E2E_TMP/expire.json"
hearth_run http-expire -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Echo twice."
check_rc "http 404: exit status 0" 0
check "http 404: one line says the session ended and a new one starts" grep -q "mcp server demo: its session ended (HTTP 404: session .* expired); a new session starts (calls in flight fail: call again)" "$ERR"
check "http 404: the call sent into the ended session fails with that line; the next call, in a new session, answers" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "its session ended (HTTP 404" in res[-1]["content"] and "call again" in res[-1]["content"], "first %r" % res[-1:])
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and res[-1]["content"] == "AGAIN_z5", "second %r; stderr %r" % (res[-1:], ERR_TEXT[-300:]))
reqs = [json.loads(l) for l in open(ARGS[0]) if l.strip()]
inits = [r for r in reqs if r["method"] == "POST" and "\"initialize\"" in r["body"]]
need(len(inits) == 2 and not inits[1]["headers"].get("Mcp-Session-Id"), "initialize POSTs %r" % [i["headers"].get("Mcp-Session-Id") for i in inits])' "$HTTP_LOG"
mock_stop
http_mock_stop

# ---- Streamable HTTP: /mcp reconnect after the server restarted (line session) -----------------------
http_mock_start
RPORT=$HTTP_PORT
CFG=$(printf '{"mcpServers": {"demo": {"type": "http", "url": "http://127.0.0.1:%s/mcp"}}}' "$RPORT")
mock_start plain
mkfifo "$E2E_TMP/in.fifo"
timeout -k 5 60 "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" \
	<"$E2E_TMP/in.fifo" >"$E2E_TMP/restart.out" 2>"$E2E_TMP/restart.err" &
HPID=$!
track_pid "$HPID"
exec 3>"$E2E_TMP/in.fifo"
wait_out() { # PATTERN: wait (10 s at most) until hearth's output shows it
	_n=0
	while [ $_n -lt 100 ] && ! grep -Eq "$1" "$E2E_TMP/restart.out"; do
		sleep 0.1
		_n=$((_n + 1))
	done
	grep -Eq "$1" "$E2E_TMP/restart.out"
}
_n=0
while [ $_n -lt 40 ] && ! grep -q "demo: ready" "$E2E_TMP/restart.out"; do # once it has listed its tools
	printf '/mcp\n' >&3
	sleep 0.5
	_n=$((_n + 1))
done
check "http restart: the server is listed ready" wait_out "demo: ready, 5 tools; http http://127.0.0.1:$RPORT/mcp"
OLD_LOG=$HTTP_LOG
http_mock_stop
http_mock_start --port "$RPORT" 3>&- # the fifo's writer stays ours alone (EOF when we close it)
printf '/mcp reconnect demo\n' >&3
check "http restart: /mcp reconnect starts it again" wait_out "mcp server demo: starting again"
sleep 1
printf '/mcp\n' >&3
check "http restart: the new server's session is up (ready, reconnected 1 time)" \
	wait_out "demo: ready, 5 tools; http http://127.0.0.1:$RPORT/mcp; reconnected 1 time"
exec 3>&-
wait "$HPID"
RC=$?
untrack_pid "$HPID"
OUT=$E2E_TMP/restart.out ERR=$E2E_TMP/restart.err
check_rc "http restart: exit status 0" 0
check "http restart: the restarted server got a new initialize (no session id); DELETEs end the old session (at /mcp reconnect) and the new one (at exit)" pycheck '
reqs = [json.loads(l) for l in open(ARGS[0]) if l.strip()]
inits = [r for r in reqs if r["method"] == "POST" and "\"initialize\"" in r["body"]]
need(len(inits) == 1 and not inits[0]["headers"].get("Mcp-Session-Id"), "initialize %r" % inits)
new = {r["headers"].get("Mcp-Session-Id") for r in reqs if r["method"] == "POST" and r["headers"].get("Mcp-Session-Id")}
old = {r["headers"].get("Mcp-Session-Id") for r in (json.loads(l) for l in open(ARGS[1]) if l.strip()) if r["method"] == "POST" and r["headers"].get("Mcp-Session-Id")}
dels = [r["headers"].get("Mcp-Session-Id") for r in reqs if r["method"] == "DELETE"]
need(len(dels) == 2 and dels[0] in old and dels[1] in new, "DELETEs %r; old %r new %r" % (dels, old, new))' "$HTTP_LOG" "$OLD_LOG"
mock_stop
http_mock_stop

e2e_finish
