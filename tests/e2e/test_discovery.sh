#!/bin/sh
# End-to-end: project discovery from a subdirectory (issue 18, item 2).  Run
# in repo/sub, hearth finds the project's .hearth/settings.json (its deny
# rules included), .mcp.json, command directories and AGENTS.md up to the
# repository root; the workspace stays the current directory; what it
# finds up there still needs trust and stays protected from writes.
# Also (item 5) Claude Code's command files with $ARGUMENTS.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
SUB=$REPO/sub
mkdir -p "$SUB" "$REPO/.hearth/prompts" "$REPO/.claude/commands"
DEMO=$E2E_ROOT/${BUILD:-build}/mcp-demo

# ---- deny rules of the repository root's settings apply in a subdirectory -------
printf '{"permissions": {"deny": ["bash(touch*)"]}}\n' >"$REPO/.hearth/settings.json"
mock_start bash_touch
hearth_run deny -p --server "$MOCK_URL" --cwd "$SUB" --approval yolo --output-format json "Make the file."
check_rc "deny from the root's settings: exit status 0" 0
check "deny from the root's settings: the command was refused, nothing made" pycheck '
r = out_json()
tc = r["tool_calls"]
need(len(tc) == 1 and tc[0]["is_error"] is True, "tool calls %r" % tc)
need(not os.path.exists(ARGS[0] + "/made.txt") and not os.path.exists(ARGS[0] + "/../made.txt"), "made.txt exists")
need("deny" in ERR_TEXT or "refused" in ERR_TEXT, "stderr %r" % ERR_TEXT[-300:])' "$SUB"
mock_stop

# ---- the workspace is the current directory -----------------------------------------
mock_start plain
hearth_run ws -p --server "$MOCK_URL" --cwd "$SUB" --output-format stream-json "Answer."
check "workspace: init's cwd is the subdirectory, not the repository root" pycheck '
init = [l for l in out_lines() if l.get("subtype") == "init"][0]
need(init["cwd"] == ARGS[0], "cwd %r" % init["cwd"])' "$SUB"
mock_stop

# ---- prompt templates and Claude Code's commands from the root -----------------------
printf 'description: say hello\nSay hello to $1 TEMPLATE_MARK_h1\n' >"$REPO/.hearth/prompts/hello.md"
printf -- '---\ndescription: fix an issue\nargument-hint: [issue]\n---\nFix issue $ARGUMENTS carefully CLAUDE_CMD_c2\n' \
	>"$REPO/.claude/commands/fix.md"
mock_start plain
hearth_run tpl -p --server "$MOCK_URL" --cwd "$SUB" "/hello world"
check_rc "template from the root's .hearth/prompts: exit status 0" 0
check "template from the root's .hearth/prompts: expanded and sent" pycheck '
need(len(CHAT) == 1 and "Say hello to world TEMPLATE_MARK_h1" in text_of(CHAT[0]["messages"][-1]["content"]),
     "sent %r; stderr %r" % (CHAT and CHAT[0]["messages"][-1], ERR_TEXT))'
mock_stop
mock_start plain
hearth_run cc -p --server "$MOCK_URL" --cwd "$SUB" "/fix 123 in the parser"
check_rc "Claude Code's .claude/commands: exit status 0" 0
check "Claude Code's .claude/commands: \$ARGUMENTS is the argument string" pycheck '
need(len(CHAT) == 1 and "Fix issue 123 in the parser carefully CLAUDE_CMD_c2" in text_of(CHAT[0]["messages"][-1]["content"]),
     "sent %r" % (CHAT and CHAT[0]["messages"][-1]))'
mock_stop

# ---- .mcp.json from the root: needs trust, then starts ---------------------------------
if [ -x "$DEMO" ]; then
	printf '{"mcpServers": {"demo": {"command": "%s"}}}\n' "$DEMO" >"$REPO/.mcp.json"
	mock_start plain
	hearth_run mcp_untrusted -p --server "$MOCK_URL" --cwd "$SUB" --output-format stream-json "Answer."
	check "root .mcp.json untrusted: not started, the notice names it" pycheck '
init = [l for l in out_lines() if l.get("subtype") == "init"][0]
need(init["mcp_servers"] == [], "servers %r" % init["mcp_servers"])
need("not trusted yet" in ERR_TEXT and ".mcp.json" in ERR_TEXT, "stderr %r" % ERR_TEXT)'
	mock_stop
	trust_project "$SUB"
	mock_start plain
	hearth_run mcp_trusted -p --server "$MOCK_URL" --cwd "$SUB" --output-format stream-json "Answer."
	check "root .mcp.json trusted from the subdirectory: the server starts" pycheck '
init = [l for l in out_lines() if l.get("subtype") == "init"][0]
need(init["mcp_servers"] == [{"name": "demo", "status": "connected"}], "servers %r; stderr %r" % (init["mcp_servers"], ERR_TEXT))
need(any(t.startswith("mcp__demo__") for t in tool_names(CHAT[0])) or "mcp__demo__" in text_of(CHAT[0]["messages"][0]["content"]),
     "tools %r, none named as deferred either" % tool_names(CHAT[0]))'
	mock_stop
	rm -f "$REPO/.mcp.json"
else
	not_ok "mcp-demo built" "$DEMO missing"
fi

# ---- the root's settings file stays protected from the subdirectory (a bare "write" allow rule,
# which would let a write outside the workspace through, does not cover a protected path) --
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"allow_outside_workspace": true}\n' >"$XDG_CONFIG_HOME/hearth/settings.json"
cp "$REPO/.hearth/settings.json" "$E2E_TMP/settings.before"
mock_start write_project_settings
hearth_run protect -p --server "$MOCK_URL" --cwd "$SUB" --allowedTools write --output-format json "Change the settings."
check "protected above the workspace: the write to ../.hearth/settings.json is refused" pycheck '
r = out_json()
tc = r["tool_calls"]
need(len(tc) == 1 and tc[0]["is_error"] is True, "tool calls %r" % tc)
need(open(ARGS[0]).read() == open(ARGS[1]).read(), "the settings file changed")
need("protect" in ERR_TEXT or "settings" in ERR_TEXT, "stderr %r" % ERR_TEXT[-400:])' \
	"$REPO/.hearth/settings.json" "$E2E_TMP/settings.before"
mock_stop
rm -f "$XDG_CONFIG_HOME/hearth/settings.json"

e2e_finish
