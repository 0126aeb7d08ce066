#!/bin/sh
# End-to-end: small-model discipline against the mock llama-server — the
# think tier (--think, think_word, /think in a session), the
# explore→produce cutoff, and deferred tools loaded with tool_search.  We
# check, through the mock's request log, exactly what hearth sent.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
TASK='Change the greeting in hello.c to hello, world.'
export XDG_CONFIG_HOME="$E2E_TMP/config"
mkdir -p "$XDG_CONFIG_HOME"

# ---- think: off by default, --think for the whole (only) turn -------------
make_repo "$REPO"
mock_start edit_flow
hearth_run think -p --think --server "$MOCK_URL" --cwd "$REPO" "$TASK"
check_rc "--think: exit status 0" 0
check "--think: enable_thinking true in every request of the turn" pycheck '
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))
for i, b in enumerate(CHAT):
    k = b.get("chat_template_kwargs") or {}
    need(k.get("enable_thinking") is True, "request %d: %r" % (i, k))'
mock_stop

make_repo "$E2E_TMP/repo_tw"
mock_start plain
hearth_run think_word -p --output-format json --server "$MOCK_URL" --cwd "$E2E_TMP/repo_tw" \
	"ultrathink: why is the sky blue?"
check_rc "think_word: exit status 0" 0
check "think_word: a task with ultrathink thinks; stats count it" pycheck '
need(CHAT, "no chat request")
for i, b in enumerate(CHAT):
    need((b.get("chat_template_kwargs") or {}).get("enable_thinking") is True, "request %d" % i)
need(out_json().get("discipline", {}).get("think_turns") == 1, "discipline %r" % out_json().get("discipline"))'
mock_stop

mkdir -p "$E2E_TMP/repo_tw/.hearth"
echo '{"think_word": ""}' >"$E2E_TMP/repo_tw/.hearth/settings.json"
mock_start plain
hearth_run think_word_off -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo_tw" \
	"ultrathink: why is the sky blue?"
check "think_word \"\": no thinking" pycheck '
need(CHAT, "no chat request")
need(all((b.get("chat_template_kwargs") or {}).get("enable_thinking") is False for b in CHAT), "thinking on")'
mock_stop

# ---- /think in the line session: the next turn only -----------------------
mock_start plain
printf '/think\nfirst question\nsecond question\n' | (cd "$REPO" && timeout -k 5 "$HEARTH_TIMEOUT" \
	"$HEARTH_BIN" --line --server "$MOCK_URL" >"$E2E_TMP/line.out" 2>"$E2E_TMP/line.err")
RC=$?
OUT=$E2E_TMP/line.out ERR=$E2E_TMP/line.err
check_rc "/think: line session exit status 0" 0
check "/think: the first turn thinks, the second does not" pycheck '
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
need(all("You are hearth" in b["messages"][0].get("content", "") for b in CHAT), "no system prompt")
got = [(b.get("chat_template_kwargs") or {}).get("enable_thinking") for b in CHAT]
need(got == [True, False], "enable_thinking per request: %r" % got)'
mock_stop

# ---- /think in the full screen (tmux) -----------------------------------------
if command -v tmux >/dev/null 2>&1; then
	tmux_setup hearth-disc
	mock_start plain
	$T new-session -d -s s -x 100 -y 30 \
		"cd '$REPO' && '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
	tmux_wait tui ready "type a task"
	$T send-keys -t s "/think" Enter
	tmux_wait tui think_said "next turn thinks"
	$T send-keys -t s "first question" Enter
	tmux_wait tui first_answer "The answer is 42"
	$T send-keys -t s "second question" Enter
	tmux_wait tui second_answer "done[.]"
	check "/think (full screen): the first turn thinks, the second does not" pycheck '
got = [(b.get("chat_template_kwargs") or {}).get("enable_thinking") for b in CHAT]
need(got == [True, False], "enable_thinking per request: %r" % got)'
	check "full screen: the system prompt (read after the first frame) is in every request" pycheck '
for i, b in enumerate(CHAT):
    m = b["messages"][0]
    u = b["messages"][1]
    need(m.get("role") == "system" and "You are hearth" in m.get("content", "") and "\nGit: " not in m.get("content", ""),
         "request %d starts with %r" % (i, str(m)[:200]))
    need(u.get("role") == "user" and u.get("content", "").startswith("# This session\nWorkspace root: ")
         and "\nGit: " in u.get("content", ""), "request %d: the session part is not in the first user message: %r" % (i, str(u)[:200]))
need(CHAT[0]["messages"][:2] == CHAT[1]["messages"][:2], "the system prompt or the session part changed between turns")'
	$T send-keys -t s C-c C-c
	tmux_wait tui quit "HEARTH_EXITED rc=0"
	cleanup_tmux
	mock_stop
else
	skip "/think in the full screen" "no tmux"
fi

# ---- explore→produce cutoff ----------------------------------------------
make_repo "$E2E_TMP/cut"
CUT=$E2E_TMP/cut
mock_start explore_cutoff
hearth_run cutoff -p --output-format json --server "$MOCK_URL" --cwd "$CUT" "$TASK"
check_rc "cutoff: exit status 0" 0
check "cutoff: the 7th request ends with the note, appended after the 6th tool result" pycheck '
need(len(CHAT) == 9, "chat requests: %d" % len(CHAT))
for i in range(6):
    need(not any("[hearth]" in str(m.get("content")) for m in CHAT[i]["messages"]), "note early in request %d" % i)
last = CHAT[6]["messages"][-1]
need(last.get("role") == "user" and "only edit, write and bash" in str(last.get("content")), "last message %r" % last)
need(CHAT[6]["messages"][-2].get("role") == "tool", "before the note: %r" % CHAT[6]["messages"][-2])
for i in range(len(CHAT) - 1):
    a, b = CHAT[i]["messages"], CHAT[i + 1]["messages"]
    need(b[:len(a)] == a, "request %d is not a prefix of request %d" % (i, i + 1))
first = json.dumps(CHAT[0].get("tools"), sort_keys=True)
need(all(json.dumps(b.get("tools"), sort_keys=True) == first for b in CHAT), "tools changed")'
check "cutoff: the read after the cutoff is refused, the edit runs" pycheck '
tool_msgs = [m for m in CHAT[7]["messages"] if m.get("role") == "tool"]
need("not available now" in str(tool_msgs[-1].get("content")), "last tool result %r" % tool_msgs[-1])
need(out_json().get("discipline", {}).get("explore_cutoffs") == 1, "discipline %r" % out_json().get("discipline"))
need(out_json().get("tool_failures") == 0, "tool_failures %r" % out_json().get("tool_failures"))'
check "cutoff: hello.c was changed" contains "$CUT/hello.c" 'hello, world'
mock_stop

make_repo "$E2E_TMP/cut2"
mkdir -p "$E2E_TMP/cut2/.hearth"
echo '{"explore_cutoff": 0}' >"$E2E_TMP/cut2/.hearth/settings.json"
mock_start explore_cutoff
hearth_run cutoff_off -p --output-format json --server "$MOCK_URL" --cwd "$E2E_TMP/cut2" "$TASK"
check "cutoff 0: no note, nothing refused" pycheck '
need(len(CHAT) == 9, "chat requests: %d" % len(CHAT))
need(not any("[hearth]" in str(m.get("content")) for m in CHAT[-1]["messages"]), "note sent")
need(out_json().get("discipline", {}).get("explore_cutoffs") == 0, "discipline %r" % out_json().get("discipline"))'
mock_stop

# ---- deferred tools -------------------------------------------------------
make_repo "$E2E_TMP/ts"
mock_start plain
hearth_run defer_default -p --server "$MOCK_URL" --cwd "$E2E_TMP/ts" "hi"
check "defer_tools true (default, issue 14: a short first prompt): core tools and tool_search up front" pycheck '
n = tool_names(CHAT[0])
need(n == ["read", "write", "edit", "bash", "grep", "tool_search"], "tools %r" % n)
need("Not loaded yet (call tool_search with the name first): find, ls, outline, repo_map, remember"
     in CHAT[0]["messages"][0]["content"], "the system prompt does not list the tools to load")'
mock_stop

mkdir -p "$E2E_TMP/ts/.hearth"
echo '{"defer_tools": "auto"}' >"$E2E_TMP/ts/.hearth/settings.json"
mock_start plain
hearth_run defer_auto -p --server "$MOCK_URL" --cwd "$E2E_TMP/ts" "hi"
check "defer_tools auto: the small built-in set goes up front, no tool_search" pycheck '
n = tool_names(CHAT[0])
need("outline" in n and "repo_map" in n and "tool_search" not in n, "tools %r" % n)
need("Not loaded yet" not in CHAT[0]["messages"][0]["content"], "the system prompt lists tools to load")'
mock_stop

mkdir -p "$E2E_TMP/ts/.hearth"
echo '{"defer_tools": true}' >"$E2E_TMP/ts/.hearth/settings.json"
mock_start tool_search
hearth_run tool_search -p --output-format json --server "$MOCK_URL" --cwd "$E2E_TMP/ts" "What does hello.c define?"
check_rc "tool_search: exit status 0" 0
check "tool_search: core tools and tool_search up front; outline appended after the search" pycheck '
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))
n0, n1, n2 = tool_names(CHAT[0]), tool_names(CHAT[1]), tool_names(CHAT[2])
need(n0 == ["read", "write", "edit", "bash", "grep", "tool_search"], "first tools %r" % n0)
need(n1 == n0 + ["outline"], "second tools %r" % n1)
need(CHAT[1]["tools"][:len(n0)] == CHAT[0]["tools"], "earlier tool entries changed")
need(n2 == n1, "third tools %r" % n2)
need("repo_map" in CHAT[0]["messages"][0]["content"] and "tool_search" in CHAT[0]["messages"][0]["content"],
     "the system prompt does not list the tools to load")'
check "tool_search: the outline call ran; schema tokens saved reported" pycheck '
r = out_json()
tc = r.get("tool_calls")
need([t.get("name") for t in tc] == ["tool_search", "outline"], "calls %r" % tc)
need(not any(t.get("is_error") for t in tc), "a call failed: %r" % tc)
d = r.get("discipline", {})
need(d.get("tools_loaded") == 1, "discipline %r" % d)
need(isinstance(d.get("schema_tokens_saved"), (int, float)) and d["schema_tokens_saved"] > 0, "discipline %r" % d)'
mock_stop

# the load changes the tool list the Qwen3.5 template renders at the top: on a
# hybrid model the next request re-prefills it all, reported as planned
mock_start tool_search_hybrid
hearth_run tool_search_hybrid -p --output-format json --server "$MOCK_URL" --cwd "$E2E_TMP/ts" "What does hello.c define?"
check_rc "tool load, hybrid cache: exit status 0" 0
check "tool load, hybrid cache: one cache break, planned, cause tools loaded" pycheck '
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))
t = [s.get("final", {}).get("timings", {}) for s in CHAT_SERVED]
need(t[1].get("cache_n", 1) == 0, "the request after the load reused %r" % t[1])
need(t[2].get("cache_n", 0) > 0, "the request after that did not reuse: %r" % t[2])
br = out_json().get("cache_breaks")
need(isinstance(br, list) and len(br) == 1, "breaks %r" % br)
need(br[0].get("planned") is True, "not planned: %r" % br)
need(br[0].get("cause", "").startswith("expected: tools loaded (outline)"), "cause %r" % br)'
mock_stop

mock_start plain
hearth_run tools_flag -p --tools read,outline --server "$MOCK_URL" --cwd "$E2E_TMP/ts" "hi"
check "--tools read,outline: both offered as listed, no tool_search" pycheck '
need(tool_names(CHAT[0]) == ["read", "outline"], "tools %r" % tool_names(CHAT[0]))'
mock_stop

echo '{"defer_tools": false}' >"$E2E_TMP/ts/.hearth/settings.json"
mock_start plain
hearth_run no_defer -p --server "$MOCK_URL" --cwd "$E2E_TMP/ts" "hi"
check "defer_tools false: every tool up front, no tool_search" pycheck '
n = tool_names(CHAT[0])
need("outline" in n and "repo_map" in n and "tool_search" not in n, "tools %r" % n)'
mock_stop

# ---- memory: remember writes after its checks; the next session loads it ---
make_repo "$E2E_TMP/mem"
mock_start remember
hearth_run remember -p --output-format json --server "$MOCK_URL" --cwd "$E2E_TMP/mem" "Remember where the greeting is."
check_rc "remember: exit status 0" 0
check "remember: the project entry is written; the missing path is refused" pycheck '
tc = out_json().get("tool_calls")
need([t.get("is_error") for t in tc] == [False, True], "calls %r" % tc)
need(open(ARGS[0]).read() == "- The greeting lives in hello.c\n", "memory file %r" % open(ARGS[0]).read())
head = "".join(str(m.get("content")) for m in CHAT[-1]["messages"][:2])
need("The greeting lives in hello.c" not in head, "prompt changed mid-session")' \
	"$E2E_TMP/mem/.hearth/memory/project.md"
mock_stop
mock_start plain
hearth_run remember2 -p --server "$MOCK_URL" --cwd "$E2E_TMP/mem" "hi"
check "memory: the next session's system prompt holds the entry" pycheck '
head = CHAT[0]["messages"][1]["content"]  # the session part opens the first user message (issue 14)
need("### project\n- The greeting lives in hello.c" in head, "session part: %r" % head[-300:])'
mock_stop

e2e_finish
