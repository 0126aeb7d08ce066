#!/bin/sh
# End-to-end in tmux: MCP in the full screen (issue 18).  Two servers from
# the project's .mcp.json: mcp-demo with prompts (logging what it
# receives) and one that fails its handshake.  Checked on the screen:
# the / popup offers the prompts with their arguments and description,
# Tab completes one; `/mcp__demo__brief "New York" tone='very dry'` asks
# the server (prompts/get with the quoted and named arguments) and its
# text becomes the user's turn, which the model answers; a missing
# required argument gives the usage; /mcp lists each server with its
# state, command, tools and prompts (the failed one with why and how to
# reconnect it) and the offered/waiting counts; /mcp reconnect demo
# starts it again (a second initialize reaches it) and /mcp then says
# "reconnected 1 time".
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
DEMO=$E2E_ROOT/${BUILD:-build}/mcp-demo
[ -x "$DEMO" ] || { not_ok "demo server built" "$DEMO missing (make $DEMO)"; e2e_finish; }
tmux_setup hearth-mcp
REPO=$E2E_TMP/repo
make_repo "$REPO"
screen() { tmux_wait mcp "$@"; }
DLOG=$E2E_TMP/demo.log
printf '{"mcpServers": {"demo": {"command": "%s", "args": ["--prompts", "--log=%s"]}, "bad": {"command": "%s", "args": ["--fail=init"]}}}\n' \
	"$DEMO" "$DLOG" "$DEMO" >"$REPO/.mcp.json"
mkdir -p "$REPO/.hearth"
printf '{"defer_tools": false}\n' >"$REPO/.hearth/settings.json"
trust_project "$REPO"
printf '{"turns": [{"text": "BRIEF-ANSWERED-k2"}, {"text": "SECOND"}]}\n' >"$E2E_TMP/sc.json"
mock_start "$E2E_TMP/sc.json"

$T new-session -d -s s -x 200 -y 50 \
	"cd '$REPO' && '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
screen ready "type a task" 100
screen bad_reported "mcp server bad: sent invalid JSON" 100

# ---- the / popup offers the prompts; Tab completes one -------------------------------------
$T send-keys -t s "/mcp__d"
screen popup_brief '/mcp__demo__brief topic \[tone\] +A brief on a topic\.'
screen popup_hello '/mcp__demo__hello +Say hello\.'
$T send-keys -t s Tab
screen tab_common '› /mcp__demo__ *│'
$T send-keys -t s "b" Tab
screen tab_one '› /mcp__demo__brief  *│'

# ---- running one: prompts/get with the quoted and named arguments, the text is the turn ----
$T send-keys -t s "\"New York\" tone='very dry'" Enter
screen prompt_text '› PROMPT brief \{"topic":"New York","tone":"very dry"\}'
screen answered "BRIEF-ANSWERED-k2"
check "mcp tmux: the prompt's text went to the model as the user's turn" pycheck '
need(len(CHAT) == 1, "chat requests: %d" % len(CHAT))
last = CHAT[0]["messages"][-1]
need(last["role"] == "user" and text_of(last["content"]).endswith("PROMPT brief {\"topic\":\"New York\",\"tone\":\"very dry\"}"), "last %r" % last)'
check "mcp tmux: prompts/get carried the arguments as typed" python3 -c '
import json, sys
gets = [json.loads(l) for l in open(sys.argv[1]) if "prompts/get" in l]
assert len(gets) == 1, gets
assert gets[0]["params"] == {"name": "brief", "arguments": {"topic": "New York", "tone": "very dry"}}, gets[0]' "$DLOG"
$T send-keys -t s "/mcp__demo__brief" Enter
screen usage '/mcp__demo__brief needs topic; usage: /mcp__demo__brief topic \[tone\]'

# ---- /mcp: servers, state, tools, prompts; /mcp reconnect ------------------------------------
$T send-keys -t s "/mcp" Enter
screen list_demo 'demo: ready, 5 tools; stdio: .*mcp-demo --prompts'
screen list_tool '  mcp__demo__add: Add two numbers\.'
screen list_prompt '  /mcp__demo__brief topic \[tone\] \(prompt\): A brief on a topic\.'
screen list_bad 'bad: failed, 0 tools; stdio: .*mcp-demo --fail=init'
screen list_bad_why '  failed: sent invalid JSON at line 1'
screen list_bad_how '\(/mcp reconnect bad to start it again\)'
screen list_counts 'extension tools: 5 offered to the model, 0 wait behind tool_search'
$T send-keys -t s "/mcp reconnect demo" Enter
screen reconnecting 'mcp server demo: starting again'
_n=0
while [ $_n -lt 100 ] && [ "$(grep -c '"initialize"' "$DLOG")" -lt 2 ]; do
	sleep 0.1
	_n=$((_n + 1))
done
check "mcp tmux: /mcp reconnect demo started it again (a second initialize)" \
	test "$(grep -c '"initialize"' "$DLOG")" -eq 2
$T send-keys -t s "/clear" Enter
screen cleared "conversation cleared"
$T send-keys -t s "/mcp" Enter
screen list_again 'demo: ready, 5 tools; stdio: '
screen list_again_count 'reconnected 1 time'
screen list_again_tools 'extension tools: 5 offered to the model, 0 wait behind tool_search'
$T send-keys -t s "/mcp reconnect nope" Enter
screen reconnect_unknown 'no mcp server named "nope"; /mcp lists them'
$T send-keys -t s "/mcp__demo__hello" Enter
screen after_reconnect '› PROMPT hello \{\}'
$T send-keys -t s C-c C-c
screen quit "HEARTH_EXITED rc=0"
cleanup_tmux
[ -n "${KEEP:-}" ] && cp -r "$E2E_TMP" "$KEEP"
e2e_finish
