#!/bin/sh
# End-to-end: hearth as a drop-in for Claude Code's headless mode (issue 18,
# item 3).  First the protocol by hand: --input-format stream-json (user
# messages and control requests as JSON lines on stdin, several turns in one
# process), the fields consumers read (assistant id/model/stop_reason/usage,
# result total_cost_usd/duration_api_ms/uuid/permission_denials/modelUsage,
# init mcp_servers, error_max_turns) and Claude Code's flags.  Then the real
# Claude Agent SDK from npm (installed into build/npm, offline afterwards),
# its executable set to hearth, drives a two-turn session with a tool call
# against the mock server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
SDK_VERSION=0.3.332
DEMO=$E2E_ROOT/${BUILD:-build}/mcp-demo
: "${HEARTH_NPM_DIR:=$E2E_ROOT/build/npm}"

user_line() { # TEXT: one SDK user message
	python3 -c 'import json, sys; print(json.dumps({"type": "user", "session_id": "", "parent_tool_use_id": None,
	"message": {"role": "user", "content": [{"type": "text", "text": sys.argv[1]}]}}))' "$1"
}

# stream_run NAME INPUTFILE ARGS...: hearth with INPUTFILE on stdin in stream-json mode
stream_run() {
	OUT=$E2E_TMP/$1.out
	ERR=$E2E_TMP/$1.err
	_in=$2
	shift 2
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --output-format stream-json --verbose --input-format stream-json \
		--server "$MOCK_URL" --cwd "$REPO" "$@" <"$_in" >"$OUT" 2>"$ERR"
	RC=$?
}

# ---- two turns by hand, with a control request and a bad line ------------------
mock_start sdk_two_turns
IN=$E2E_TMP/two.in
{
	echo '{"request_id":"req_1","type":"control_request","request":{"subtype":"initialize","systemPrompt":[""]}}'
	user_line "What does hello.c do? TURN_ONE_q1"
	echo 'this line is not json'
	echo '{"request_id":"req_2","type":"control_request","request":{"subtype":"set_model","model":"x"}}'
	echo '{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":"TURN_TWO_q2"}}'
} >"$IN"
stream_run two "$IN" --max-turns 6 --allowedTools "Read,Bash(git log:*)"
check_rc "stream-json input: exit status 0" 0
check "stream-json input: initialize answered, an unknown control request refused" pycheck '
L = out_lines()
cr = [l for l in L if l.get("type") == "control_response"]
need(len(cr) == 2, "control responses: %r" % cr)
r1 = [c["response"] for c in cr if c["response"].get("request_id") == "req_1"][0]
need(r1["subtype"] == "success" and isinstance(r1["response"].get("commands"), list), "initialize: %r" % r1)
r2 = [c["response"] for c in cr if c["response"].get("request_id") == "req_2"][0]
need(r2["subtype"] == "error" and "set_model" in r2.get("error", ""), "set_model: %r" % r2)'
check "stream-json input: each result counts its own turn (usage, num_turns, modelUsage)" pycheck '
L = out_lines()
turns, cur = [], []
for l in L:
    if l.get("type") == "assistant":
        cur.append(l["message"]["usage"]["output_tokens"])
    elif l.get("type") == "result":
        turns.append((l, cur))
        cur = []
need(len(turns) == 2, "results: %d" % len(turns))
for r, outs in turns:
    need(r["usage"]["output_tokens"] == sum(outs) > 0, "result output_tokens %r, its assistant messages %r" % (r["usage"]["output_tokens"], outs))
    mu = list(r["modelUsage"].values())[0]
    need(mu["outputTokens"] == sum(outs), "modelUsage %r" % mu)
need([r["num_turns"] for r, _ in turns] == [2, 1], "num_turns %r" % [r["num_turns"] for r, _ in turns])'
check "stream-json input: the bad line is one line on stderr naming it" pycheck '
need("stdin line 3 is not JSON" in ERR_TEXT, "stderr: %r" % ERR_TEXT[-500:])'
check "stream-json input: two turns, two results, one process, one conversation" pycheck '
L = out_lines()
res = [l for l in L if l.get("type") == "result"]
need(len(res) == 2, "results: %d" % len(res))
need([r["subtype"] for r in res] == ["success", "success"], "subtypes %r" % [r["subtype"] for r in res])
need("FIRST_ANSWER_d41" in res[0]["result"] and "SECOND_ANSWER_8f0" in res[1]["result"], "results %r" % [r["result"] for r in res])
need(res[0]["session_id"] == res[1]["session_id"] != "", "session ids differ")
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))
last = CHAT[2]["messages"]
need("TURN_TWO_q2" in text_of(last[-1].get("content")), "turn two: %r" % last[-1])
need(any("TURN_ONE_q1" in text_of(m.get("content")) for m in last) and
     any("FIRST_ANSWER_d41" in text_of(m.get("content")) for m in last), "turn one is not in turn two'"'"'s conversation")'
check "stream-json output: Claude Code's fields (assistant, result, init, user)" pycheck '
L = out_lines()
init = [l for l in L if l.get("type") == "system" and l.get("subtype") == "init"]
need(len(init) == 1 and init[0].get("mcp_servers") == [] and init[0].get("permissionMode") == "acceptEdits", "init %r" % init)
asst = [l for l in L if l.get("type") == "assistant"]
need(len(asst) == 3, "assistant messages: %d" % len(asst))
ids = set()
for a in asst:
    m = a["message"]
    for k in ("id", "model", "stop_reason", "usage", "content"):
        need(k in m, "assistant message lacks %s: %r" % (k, m))
    need(m["model"] == init[0]["model"] and m["type"] == "message", "model/type %r" % m)
    need(isinstance(m["usage"].get("input_tokens"), (int, float)) and m["usage"].get("output_tokens", 0) > 0, "usage %r" % m["usage"])
    need("uuid" in a and a.get("parent_tool_use_id", 1) is None, "wrapper %r" % {k: a.get(k) for k in ("uuid", "parent_tool_use_id")})
    ids.add(m["id"])
need(len(ids) == 3, "message ids are not distinct: %r" % ids)
need([a["message"]["stop_reason"] for a in asst] == ["tool_use", "end_turn", "end_turn"], "stop reasons %r" % [a["message"]["stop_reason"] for a in asst])
need(asst[0]["message"]["content"][0]["type"] == "tool_use", "first message %r" % asst[0])
tr = [l for l in L if l.get("type") == "user"]
need(len(tr) == 1 and tr[0]["message"]["content"][0]["type"] == "tool_result" and "uuid" in tr[0], "tool results %r" % tr)
for r in [l for l in L if l.get("type") == "result"]:
    for k in ("total_cost_usd", "duration_api_ms", "uuid", "permission_denials", "modelUsage", "duration_ms", "num_turns", "usage"):
        need(k in r, "result lacks %s" % k)
    need(r["total_cost_usd"] == 0 and r["permission_denials"] == [], "cost/denials %r" % r)
    mu = r["modelUsage"].get(init[0]["model"])
    need(mu and mu["outputTokens"] > 0 and "costUSD" in mu, "modelUsage %r" % r["modelUsage"])'
mock_stop

# ---- --disallowedTools: a refusal is a permission denial -------------------------
mock_start sdk_two_turns
user_line "Read hello.c please." >"$E2E_TMP/deny.in"
stream_run deny "$E2E_TMP/deny.in" --disallowedTools Read --permission-mode bypassPermissions
check_rc "--disallowedTools: exit status 0" 0
check "--disallowedTools Read: the read call is refused and listed in permission_denials" pycheck '
L = out_lines()
res = [l for l in L if l.get("type") == "result"]
need(len(res) == 1, "results %d" % len(res))
d = res[0]["permission_denials"]
need(len(d) == 1 and d[0]["tool_name"] == "read" and d[0]["tool_input"] == {"path": "hello.c"} and d[0]["tool_use_id"],
     "denials %r" % d)
tr = [l for l in L if l.get("type") == "user"][0]["message"]["content"][0]
need(tr["is_error"] is True, "tool result %r" % tr)'
check "--permission-mode bypassPermissions: init says so" pycheck '
init = [l for l in out_lines() if l.get("subtype") == "init"][0]
need(init["permissionMode"] == "bypassPermissions", "init %r" % init)'
mock_stop

# ---- --mcp-config JSON, initialize's appendSystemPrompt ------------------------------
mock_start plain
{
	echo '{"request_id":"req_1","type":"control_request","request":{"subtype":"initialize","appendSystemPrompt":"INIT_APPEND_p4"}}'
	user_line "Answer."
} >"$E2E_TMP/mcp.in"
stream_run mcpcfg "$E2E_TMP/mcp.in" --append-system-prompt FLAG_APPEND_f3 \
	--mcp-config "{\"mcpServers\": {\"demo\": {\"command\": \"$DEMO\"}}}"
check_rc "--mcp-config: exit status 0" 0
check "--mcp-config JSON: the server starts (init lists it, its tools are offered)" pycheck '
init = [l for l in out_lines() if l.get("subtype") == "init"][0]
need(init["mcp_servers"] == [{"name": "demo", "status": "connected"}], "servers %r; stderr %r" % (init["mcp_servers"], ERR_TEXT))
need(any(t.startswith("mcp__demo__") for t in tool_names(CHAT[0])) or "mcp__demo__" in text_of(CHAT[0]["messages"][0]["content"]),
     "tools %r, none named as deferred either" % tool_names(CHAT[0]))'
check "initialize appendSystemPrompt: after --append-system-prompt, at the end of the system prompt" pycheck '
t = text_of(CHAT[0]["messages"][0]["content"]).rstrip()
need(t.endswith("INIT_APPEND_p4") and "FLAG_APPEND_f3" in t and t.index("FLAG_APPEND_f3") < t.index("INIT_APPEND_p4"), "system tail %r" % t[-200:])'
mock_stop

# ---- --max-turns: error_max_turns --------------------------------------------------
mock_start max_steps
user_line "Keep looking." >"$E2E_TMP/max.in"
stream_run max "$E2E_TMP/max.in" --max-turns=2
check_rc "--max-turns 2: exit status 1" 1
check "--max-turns 2: result error_max_turns with errors" pycheck '
res = [l for l in out_lines() if l.get("type") == "result"]
need(len(res) == 1 and res[0]["subtype"] == "error_max_turns" and res[0]["is_error"] is True, "result %r" % res)
need(isinstance(res[0].get("errors"), list) and res[0]["errors"], "errors %r" % res[0].get("errors"))
need(len(CHAT) == 2, "chat requests %d" % len(CHAT))'
mock_stop

# ---- --system-prompt: Claude Code's replacement; empty keeps hearth's own ------------
mock_start plain
hearth_run sysprompt -p --server "$MOCK_URL" --cwd "$REPO" --output-format json \
	--system-prompt "REPLACED_PROMPT_k2" --append-system-prompt "AND_APPENDED_k3" "Answer."
check_rc "--system-prompt: exit status 0" 0
check "--system-prompt: the text replaces the system prompt (--append-system-prompt after it)" pycheck '
sys_ = [m for m in CHAT[-1]["messages"] if m.get("role") == "system"]
need(len(sys_) == 1, "system messages %r" % sys_)
t = text_of(sys_[0].get("content"))
need(t.startswith("REPLACED_PROMPT_k2") and t.rstrip().endswith("AND_APPENDED_k3") and len(t) < 200, "system prompt %r" % t[:300])'
hearth_run sysempty -p --server "$MOCK_URL" --cwd "$REPO" --output-format json --system-prompt "" "Answer."
check "--system-prompt \"\": hearth keeps its own prompt" pycheck '
sys_ = [m for m in CHAT[-1]["messages"] if m.get("role") == "system"]
need(sys_ and len(text_of(sys_[0].get("content"))) > 500, "system prompt %r" % sys_[:1])'
mock_stop

# ---- initialize's systemPrompt: the SDK's replacement ([""]: none given) -------------
mock_start plain
{
	echo '{"request_id":"req_1","type":"control_request","request":{"subtype":"initialize","systemPrompt":["SDK_PROMPT_s1","SDK_PROMPT_s2"],"appendSystemPrompt":"SDK_APPEND_s3"}}'
	user_line "Answer."
} >"$E2E_TMP/sys.in"
stream_run initsys "$E2E_TMP/sys.in"
check_rc "initialize systemPrompt: exit status 0" 0
check "initialize systemPrompt: its strings replace the system prompt, appendSystemPrompt after them" pycheck '
t = text_of(CHAT[0]["messages"][0]["content"])
need(t.startswith("SDK_PROMPT_s1\n\nSDK_PROMPT_s2") and t.rstrip().endswith("SDK_APPEND_s3") and len(t) < 200,
     "system prompt %r" % t[:300])'
{
	echo '{"request_id":"req_1","type":"control_request","request":{"subtype":"initialize","systemPrompt":[""]}}'
	user_line "Answer."
} >"$E2E_TMP/sys0.in"
stream_run initsys0 "$E2E_TMP/sys0.in"
check "initialize systemPrompt [\"\"]: hearth keeps its own prompt" pycheck '
t = text_of(CHAT[-1]["messages"][0]["content"])
need(len(t) > 500 and "SDK_PROMPT" not in t, "system prompt %r" % t[:300])'
mock_stop

# ---- --append-system-prompt, --resume ID (=ID form) ---------------------------------
mock_start plain
hearth_run append -p --server "$MOCK_URL" --cwd "$REPO" --output-format json --append-system-prompt "APPENDED_RULE_z9" "Answer."
check_rc "--append-system-prompt: exit status 0" 0
check "--append-system-prompt: the text ends the system prompt" pycheck '
sysm = CHAT[0]["messages"][0]
need(sysm["role"] == "system" and text_of(sysm["content"]).rstrip().endswith("APPENDED_RULE_z9"), "system %r" % text_of(sysm["content"])[-200:])'
SID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT")
mock_stop
mock_start plain
hearth_run resume -p --server "$MOCK_URL" --cwd "$REPO" --resume="$SID" "Second question RESUMED_k3"
check_rc "--resume=ID: exit status 0" 0
check "--resume=ID: the earlier turn is in the conversation" pycheck '
ms = CHAT[0]["messages"]
need(any(text_of(m.get("content")).endswith("Answer.") for m in ms) and "RESUMED_k3" in text_of(ms[-1]["content"]), "messages %r" % ms)'
mock_stop

# ---- the Claude Agent SDK from npm ----------------------------------------------------
SDK_MODULES=$HEARTH_NPM_DIR/node_modules
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	not_ok "node and npm present (make bootstrap installs npm)" "the Agent SDK test needs them"
	e2e_finish
fi
if [ ! -f "$SDK_MODULES/@anthropic-ai/claude-agent-sdk/sdk.mjs" ]; then
	# the platform's Claude Code binary is an optional dependency: hearth stands in for it
	timeout 300 npm install --prefix "$HEARTH_NPM_DIR" --omit=optional --no-audit --no-fund --ignore-scripts \
		--loglevel=error "@anthropic-ai/claude-agent-sdk@$SDK_VERSION" >"$E2E_TMP/npm.log" 2>&1
fi
if [ ! -f "$SDK_MODULES/@anthropic-ai/claude-agent-sdk/sdk.mjs" ]; then
	not_ok "the Agent SDK installs from npm into $HEARTH_NPM_DIR" "npm install failed:"
	diag_file "npm" "$E2E_TMP/npm.log"
	e2e_finish
fi
mock_start sdk_two_turns
OUT=$E2E_TMP/sdk.out ERR=$E2E_TMP/sdk.err
HEARTH_SERVER=$MOCK_URL timeout -k 5 60 node "$E2E_ROOT/tests/e2e/sdk/two_turns.mjs" "$HEARTH_BIN" "$REPO" "$SDK_MODULES" \
	"$DEMO" >"$OUT" 2>"$ERR"
RC=$?
check_rc "Agent SDK: node exit status 0" 0
check "Agent SDK: two turns with a tool call, the SDK saw every message" pycheck '
need("SDK_DONE" in OUT_TEXT, "the SDK did not finish: %r" % [l for l in OUT_TEXT.split("\n") if l.startswith("SDK_")])
L = [json.loads(l) for l in OUT_TEXT.split("\n") if l.startswith("{")]
res = [l for l in L if l.get("type") == "result"]
need([r["subtype"] for r in res] == ["success", "success"], "results %r" % res)
need("FIRST_ANSWER_d41" in res[0]["result"] and "SECOND_ANSWER_8f0" in res[1]["result"], "answers %r" % [r["result"] for r in res])
need(any(l.get("type") == "system" and l.get("subtype") == "init" for l in L), "no init message")
tu = [b for l in L if l.get("type") == "assistant" for b in l["message"]["content"] if b.get("type") == "tool_use"]
need(len(tu) == 1 and tu[0]["name"] == "read", "tool uses %r" % tu)
need(len(CHAT) == 3 and "SDK_TURN_TWO" in text_of(CHAT[2]["messages"][-1]["content"]), "chat requests %d" % len(CHAT))'
check "Agent SDK: its systemPrompt append and its MCP server (--mcp-config) reach the model" pycheck '
L = [json.loads(l) for l in OUT_TEXT.split("\n") if l.startswith("{")]
init = [l for l in L if l.get("subtype") == "init"][0]
need(init["mcp_servers"] == [{"name": "demo", "status": "connected"}], "init servers %r; stderr %r" % (init["mcp_servers"], ERR_TEXT[-300:]))
need("SDK_APPEND_RULE_a7" in text_of(CHAT[0]["messages"][0]["content"]), "system prompt tail %r" % text_of(CHAT[0]["messages"][0]["content"])[-200:])
need(any(t.startswith("mcp__demo__") for t in tool_names(CHAT[0])) or "mcp__demo__" in text_of(CHAT[0]["messages"][0]["content"]),
     "tools %r, none named as deferred either" % tool_names(CHAT[0]))'
mock_stop

e2e_finish
