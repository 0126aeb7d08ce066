#!/bin/sh
# End-to-end: MCP at scale against real servers nobody on the project wrote
# (issue 18, item 4): @modelcontextprotocol/server-everything and
# server-filesystem from npm, pinned, installed into build/npm (offline
# afterwards).  Checked: a long-running operation longer than mcp_timeout
# finishes because its progress notifications extend the wait; a call
# without progress is cancelled alone and the server answers the next
# one; nine read-only filesystem look-ups pass the explore cutoff; with
# more tools than a request offers (the two servers plus mcp-demo
# --many=60) what fits is offered, the rest wait behind tool_search, a
# notice says so and tool_search finds one that did not fit; /mcp lists
# the servers and their tools (print mode); its prompts as commands in
# print mode and the line session (quoted and NAME=value arguments);
# server-everything over
# Streamable HTTP (with a header from .mcp.json) and over HTTP+SSE lists
# its tools and answers a call.  Skipped (as a skip) only without node/npm.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
EVERYTHING_VERSION=2026.8.31
FILESYSTEM_VERSION=2026.8.31
DEMO=$E2E_ROOT/${BUILD:-build}/mcp-demo
: "${HEARTH_NPM_DIR:=$E2E_ROOT/build/npm}"
NM=$HEARTH_NPM_DIR/node_modules/@modelcontextprotocol
EV=$NM/server-everything/dist/index.js
FS=$NM/server-filesystem/dist/index.js

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	skip "npm MCP servers" "node and npm are not installed (make bootstrap installs them)"
	e2e_finish
fi
[ -x "$DEMO" ] || { not_ok "demo server built" "$DEMO missing (make $DEMO)"; e2e_finish; }
installed() { # PKG VERSION: whether build/npm holds exactly that version
	python3 -c 'import json, sys
try:
    v = json.load(open(sys.argv[1] + "/package.json"))["version"]
except (OSError, ValueError, KeyError):
    sys.exit(1)
sys.exit(0 if v == sys.argv[2] else 1)' "$NM/$1" "$2"
}
if ! installed server-everything "$EVERYTHING_VERSION" || ! installed server-filesystem "$FILESYSTEM_VERSION"; then
	timeout 300 npm install --prefix "$HEARTH_NPM_DIR" --no-audit --no-fund --ignore-scripts --loglevel=error \
		"@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
		"@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION" >"$E2E_TMP/npm.log" 2>&1
fi
if ! installed server-everything "$EVERYTHING_VERSION" || ! installed server-filesystem "$FILESYSTEM_VERSION"; then
	not_ok "the npm MCP servers install into $HEARTH_NPM_DIR" "npm install failed:"
	diag_file "npm" "$E2E_TMP/npm.log"
	e2e_finish
fi
ok "server-everything $EVERYTHING_VERSION and server-filesystem $FILESYSTEM_VERSION installed from npm"

REPO=$E2E_TMP/repo
make_repo "$REPO"
mkdir -p "$REPO/.hearth"
printf '{"defer_tools": false, "mcp_timeout": 1}\n' >"$REPO/.hearth/settings.json"
STDIO_CFG=$(printf '{"mcpServers": {"ev": {"command": "node", "args": ["%s"]}, "fs": {"command": "node", "args": ["%s", "."]}}}' "$EV" "$FS")
trust_project "$REPO"
ms() { python3 -c 'import time; print(int(time.monotonic() * 1000))'; }

# ---- progress extends mcp_timeout ---------------------------------------------------
mock_start mcp_npm_progress
T0=$(ms)
hearth_run progress -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$STDIO_CFG" "Run the long operation, then add 2 and 40."
T1=$(ms)
check_rc "progress: exit status 0" 0
check "progress: a 3 s operation with mcp_timeout 1 finishes (its progress extends the wait), then get-sum answers" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "Long running operation completed" in text_of(res[-1]["content"]), "tool results %r; stderr %r" % (res, ERR_TEXT[-400:]))
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and "42" in text_of(res[-1]["content"]), "get-sum %r" % res)
need("PROGRESS_DONE_e5" in OUT_TEXT, "answer %r" % OUT_TEXT)
need("did not answer" not in ERR_TEXT, "stderr %r" % ERR_TEXT[-400:])'
echo "# progress: the run took $((T1 - T0)) ms (a 3 s operation, mcp_timeout 1 s)"
mock_stop

# ---- a call without progress is cancelled alone ----------------------------------------
DEMO_CFG=$(printf '{"mcpServers": {"demo": {"command": "%s", "args": ["--log=%s"]}}}' "$DEMO" "$E2E_TMP/demo.log")
mock_start mcp_npm_timeout
T0=$(ms)
hearth_run timeout -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$DEMO_CFG" "Sleep, then echo."
T1=$(ms)
check_rc "timeout: exit status 0" 0
check "timeout: the 30 s call is cancelled after mcp_timeout; the server answers the next call" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "did not answer tools/call sleep within 1 s" in text_of(res[-1]["content"]) and
     "the server keeps running" in text_of(res[-1]["content"]), "sleep result %r" % res)
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and text_of(res[-1]["content"]) == "STILL_HERE_q8", "echo result %r" % res)
need("its tools are removed" not in ERR_TEXT, "the server was dropped: %r" % ERR_TEXT[-400:])'
check "timeout: notifications/cancelled names the request; tools/call carried a progressToken" pycheck '
log = open(ARGS[0]).read()
need(re.search(r"\"method\":\"notifications/cancelled\",\"params\":\{\"requestId\":3", log), "log %r" % log[-600:])
need("\"progressToken\":3" in log, "no progress token: %r" % log[-600:])' "$E2E_TMP/demo.log"
check "timeout: the whole run stays short (the cancel does not wait for the 30 s)" test $((T1 - T0)) -lt 20000
echo "# timeout: the run took $((T1 - T0)) ms"
mock_stop

# ---- read-only MCP look-ups and the explore cutoff -------------------------------------
mock_start mcp_npm_readonly
hearth_run readonly -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$STDIO_CFG" "List the directory nine times."
check_rc "read-only: exit status 0" 0
check "read-only: nine list_directory calls (readOnlyHint) in a row, none refused by the cutoff (explore_cutoff 6)" pycheck '
res = [text_of(m["content"]) for m in CHAT[-1]["messages"] if m["role"] == "tool"]
need(len(res) == 9, "tool results: %d" % len(res))
need(all("hello.c" in r for r in res), "results %r" % res[:2])
need(not any("is not available now" in r for r in res), "refused: %r" % [r for r in res if "not available" in r][:1])
need(not any("explored for" in text_of(m.get("content")) for m in CHAT[-1]["messages"]), "the cutoff note was sent")
need("EXPLORED_k4" in OUT_TEXT, "answer %r" % OUT_TEXT)'
mock_stop

# ---- resources (as two read-only tools) and prompts (as /commands) ---------------------
mock_start mcp_npm_resources
hearth_run resources -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$STDIO_CFG" "Read the features document."
check_rc "resources: exit status 0" 0
check "resources: list_resources lists the documents, read_resource reads one" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "demo://resource/static/document/features.md" in text_of(res[-1]["content"]), "list %r" % res[-1:])
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and len(text_of(res[-1]["content"])) > 200 and "error" not in text_of(res[-1]["content"])[:40].lower(), "read %r" % text_of(res[-1]["content"])[:300])
need("RESOURCES_DONE_y7" in OUT_TEXT, "answer")'
mock_stop
mock_start plain
hearth_run prompt -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$STDIO_CFG" "/mcp__ev__args-prompt Paris"
check_rc "prompt: exit status 0" 0
check "prompt: /mcp__ev__args-prompt Paris becomes the task (prompts/get)" pycheck '
last = CHAT[0]["messages"][-1]
need(last["role"] == "user" and "weather in Paris" in text_of(last["content"]), "task %r" % last)'
mock_stop
hearth_run prompt-usage -p --cwd "$REPO" --mcp-config "$STDIO_CFG" "/mcp__ev__args-prompt"
check_rc "prompt without its required argument: usage error" 2
check "prompt without its required argument: the usage line" grep -q "/mcp__ev__args-prompt needs city; usage: /mcp__ev__args-prompt city \[state\]" "$ERR"
printf '{"turns": [{"text": "ONE"}, {"text": "TWO"}]}\n' >"$E2E_TMP/two.json"
mock_start "$E2E_TMP/two.json"
printf '%s\n' "/mcp__ev__args-prompt \"New York\" state='NY'" "/mcp__ev__completable-prompt name=Eve department=Sales" |
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$STDIO_CFG" \
	>"$E2E_TMP/lprompt.out" 2>"$E2E_TMP/lprompt.err"
RC=$? OUT=$E2E_TMP/lprompt.out ERR=$E2E_TMP/lprompt.err
check_rc "prompt (line session): exit status 0" 0
check "prompt (line session): quoted and NAME=value arguments; each prompt's text is a turn" pycheck '
users = [text_of(c["messages"][-1]["content"]) for c in CHAT]
need(len(users) == 2, "chat requests: %d; out %r" % (len(users), OUT_TEXT[-400:]))
need(users[0].endswith("What'"'"'s weather in New York, NY?"), "first %r" % users[0][-80:])
need(users[1].endswith("Please promote Eve to the head of the Sales team."), "second %r" % users[1][-80:])'
mock_stop

# ---- more tools than a request offers ---------------------------------------------------
MANY_CFG=$(printf '{"mcpServers": {"ev": {"command": "node", "args": ["%s"]}, "fs": {"command": "node", "args": ["%s", "."]}, "demo": {"command": "%s", "args": ["--many=60"]}}}' "$EV" "$FS" "$DEMO")
hearth_run mcplist -p --cwd "$REPO" --mcp-config "$MANY_CFG" "/mcp"
check_rc "/mcp (print mode): exit status 0" 0
check "/mcp (print mode): every server with its state, command and tools; the offered/waiting counts" pycheck '
need(re.search(r"^ev: ready, 15 tools; stdio: node ", OUT_TEXT, re.M), "ev line: %r" % OUT_TEXT[:300])
need("  /mcp__ev__args-prompt city [state] (prompt): " in OUT_TEXT, "no prompt line")
need("  mcp__ev__read_resource (read-only): " in OUT_TEXT, "no resource tool")
need(re.search(r"^fs: ready, 14 tools; stdio: node ", OUT_TEXT, re.M), "fs line")
need(re.search(r"^demo: ready, 65 tools; stdio: ", OUT_TEXT, re.M), "demo line")
need("  mcp__fs__list_directory (read-only): " in OUT_TEXT and "  mcp__fs__write_file: " in OUT_TEXT, "tool lines")
m = re.search(r"extension tools: (\d+) offered to the model, (\d+) wait behind tool_search \((\d+) because a request offers at most 48 tools\)", OUT_TEXT)
need(m and int(m.group(1)) + int(m.group(2)) == 94 and int(m.group(3)) > 0, "counts: %r" % OUT_TEXT[-300:])
print("# /mcp: %s offered, %s wait (%s because of the 48-tool limit)" % m.groups())'
sed -n 's/^extension tools: /# extension tools: /p' "$OUT"
hearth_run reconnect -p --cwd "$REPO" --mcp-config "$STDIO_CFG" "/mcp reconnect ev"
check_rc "/mcp reconnect (print mode): exit status 0" 0
check "/mcp reconnect (print mode): the server is stopped, started again and listed" pycheck '
need("mcp server ev: starting again" in OUT_TEXT, "out %r" % OUT_TEXT[:200])
need(re.search(r"^ev: ready, 15 tools; stdio: node .*; reconnected 1 time$", OUT_TEXT, re.M), "out %r" % OUT_TEXT[:300])'
hearth_run reconnect-bad -p --cwd "$REPO" --mcp-config "$STDIO_CFG" "/mcp reconnect nope"
check_rc "/mcp reconnect NAME that is not configured: usage error" 2
check "/mcp reconnect NAME that is not configured: one line says so" grep -q 'no mcp server named "nope"; /mcp lists them' "$ERR"
mock_start mcp_npm_overflow
hearth_run overflow -p --verbose --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$MANY_CFG" "Use gen_59."
check_rc "overflow: exit status 0" 0
check "overflow: the first request offers at most 48 tools, tool_search among them; a notice says the rest wait" pycheck '
n = tool_names(CHAT[0])
need(len(n) <= 48 and "tool_search" in n and "mcp__demo__gen_59" not in n, "%d tools offered: %r" % (len(n), n[-5:]))
need(re.search(r"\d+ extension tools do not fit the 48 tools a request offers: they wait behind tool_search", ERR_TEXT), "stderr %r" % ERR_TEXT[-500:])
print("# overflow: %d tools offered in the first request" % len(n))'
check "overflow: tool_search finds the tool that did not fit, it is offered next and answers" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "loaded mcp__demo__gen_59" in text_of(res[-1]["content"]), "tool_search %r" % res[-1:])
need("mcp__demo__gen_59" in tool_names(CHAT[1]), "not offered after the search")
res = [m for m in CHAT[2]["messages"] if m["role"] == "tool"]
need(res and "error" not in text_of(res[-1]["content"]).lower(), "gen_59 %r" % res[-1:])
need("OVERFLOW_DONE_m1" in OUT_TEXT, "answer %r" % OUT_TEXT)'
mock_stop

# ---- Streamable HTTP and HTTP+SSE --------------------------------------------------------
# start_everything MODE: server-everything listening on a free port (PORT, EV_PID, EV_LOG)
start_everything() {
	EV_LOG=$E2E_TMP/ev-$1.log
	for _try in 1 2 3; do
		PORT=$(closed_port)
		(cd "$E2E_TMP" && PORT=$PORT exec node "$EV" "$1") >"$EV_LOG" 2>&1 &
		EV_PID=$!
		track_pid "$EV_PID"
		for _i in $(seq 100); do
			grep -Eqi "listening on port|running on port" "$EV_LOG" && return 0
			kill -0 "$EV_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$EV_PID" 2>/dev/null
		untrack_pid "$EV_PID"
	done
	return 1
}
stop_everything() {
	kill "$EV_PID" 2>/dev/null
	wait_gone "$EV_PID" 50
	untrack_pid "$EV_PID"
}
for MODE in streamableHttp sse; do
	if ! start_everything "$MODE"; then
		not_ok "$MODE: server-everything starts" "its log:"
		diag_file "ev" "$EV_LOG"
		continue
	fi
	if [ "$MODE" = sse ]; then
		CFG=$(printf '{"mcpServers": {"ev": {"type": "sse", "url": "http://127.0.0.1:%s/sse"}}}' "$PORT")
	else
		CFG=$(printf '{"mcpServers": {"ev": {"type": "http", "url": "http://127.0.0.1:%s/mcp", "headers": {"X-Hearth-Test": "${HEARTH_E2E_HDR}"}}}}' "$PORT")
	fi
	mock_start mcp_npm_http
	T0=$(ms)
	HEARTH_E2E_HDR=hdr-value hearth_run "http-$MODE" -p --server "$MOCK_URL" --cwd "$REPO" --mcp-config "$CFG" "Add 20 and 22."
	T1=$(ms)
	check_rc "$MODE: exit status 0" 0
	check "$MODE: server-everything lists its 13 tools (and the 2 resource tools) and answers get-sum over HTTP" pycheck '
n = tool_names(CHAT[0])
need(len([t for t in n if t.startswith("mcp__ev__")]) == 15, "tools %r; stderr %r" % (n, ERR_TEXT[-400:]))
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "42" in text_of(res[-1]["content"]), "get-sum %r" % res)
need("HTTP_DONE_w3" in OUT_TEXT, "answer %r" % OUT_TEXT)'
	echo "# $MODE: the run (start-up, two requests, one call) took $((T1 - T0)) ms"
	mock_stop
	stop_everything
done

# ---- an HTTP server that refuses: one line, the run goes on ------------------------------
PORT=$(closed_port)
mock_start plain
hearth_run http-refused -p --server "$MOCK_URL" --cwd "$REPO" \
	--mcp-config "{\"mcpServers\": {\"gone\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:$PORT/mcp\"}}}" "Hello."
check_rc "http refused: the run completes" 0
check "http refused: one line names the server and the failure" grep -q "mcp server gone: .*127.0.0.1:$PORT.*; its tools are removed" "$ERR"
mock_stop

e2e_finish
