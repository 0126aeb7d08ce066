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

e2e_finish
