#!/bin/sh
# End-to-end: `hearth -p` drives scripted agent flows against the mock
# llama-server (tests/net/mock_llama.py + tests/net/scenarios/*.json) and
# we check the answer, the exit status, the files changed and, through the
# mock's request log, exactly what hearth sent.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
ANSWER='Changed the greeting in hello.c.'

# ---- edit_flow: read hello.c, edit a line, answer ------------------------
make_repo "$REPO"
sed 's/printf("hello\\n");/printf("hello, world\\n");/' "$REPO/hello.c" >"$E2E_TMP/hello.want"
mock_start edit_flow
(cd "$REPO" && hearth_run edit_flow -p --server "$MOCK_URL" \
	"Change the greeting in hello.c to hello, world." && echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/edit_flow.out ERR=$E2E_TMP/edit_flow.err
check_rc "edit_flow: exit status 0" 0
check "edit_flow: stdout is the final answer and a newline" same_text "$OUT" "$ANSWER"
check "edit_flow: hello.c changed exactly as the scripted edit says" \
	cmp "$REPO/hello.c" "$E2E_TMP/hello.want"
check "edit_flow: stderr is empty without --verbose" test ! -s "$ERR"
check "edit_flow: no terminal escapes on stdout" no_term_escapes "$OUT"
check "edit_flow: three chat requests (read, edit, answer)" pycheck '
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))'

check "request: stream, return_progress, stream_options.include_usage, cache_prompt" pycheck '
need(CHAT, "no chat request")
for i, b in enumerate(CHAT):
    need(b.get("stream") is True, "request %d: stream=%r" % (i, b.get("stream")))
    need(b.get("return_progress") is True, "request %d: return_progress=%r" % (i, b.get("return_progress")))
    so = b.get("stream_options") or {}
    need(so.get("include_usage") is True, "request %d: stream_options=%r" % (i, so))
    need(b.get("cache_prompt") is True, "request %d: cache_prompt=%r" % (i, b.get("cache_prompt")))'

check "request: integer id_slot, the same in every request" pycheck '
need(CHAT, "no chat request")
s = [b.get("id_slot") for b in CHAT]
need(all(type(x) is int for x in s), "id_slot values %r" % s)
need(len(set(s)) == 1, "id_slot changes between requests: %r" % s)'

check "request: enable_thinking false; temperature 0.6 top_p 0.95 top_k 20 presence_penalty 0" pycheck '
need(CHAT, "no chat request")
for i, b in enumerate(CHAT):
    k = b.get("chat_template_kwargs") or {}
    need(k.get("enable_thinking") is False, "request %d: chat_template_kwargs=%r" % (i, k))
    got = {f: b.get(f) for f in ("temperature", "top_p", "top_k", "presence_penalty")}
    need(got == {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "presence_penalty": 0},
         "request %d: %r" % (i, got))'

check "request: tools array with read write edit bash grep find ls" pycheck '
need(CHAT, "no chat request")
for i, b in enumerate(CHAT):
    t = b.get("tools")
    need(isinstance(t, list) and t, "request %d: tools=%r" % (i, t))
    for e in t:
        need(e.get("type") == "function" and isinstance(e.get("function"), dict)
             and e["function"].get("name") and isinstance(e["function"].get("parameters"), dict),
             "request %d: bad tool entry %r" % (i, e))
    names = tool_names(b)
    missing = {"read", "write", "edit", "bash", "grep", "tool_search"} - set(names)
    need(not missing, "request %d: missing tools %s (have %s)" % (i, sorted(missing), names))
    need(len(names) == len(set(names)), "duplicate tool names %r" % names)'

check "request: each messages array is a prefix of the next (cache stability)" pycheck '
need(len(CHAT) >= 2, "fewer than 2 chat requests")
for i in range(len(CHAT) - 1):
    a, b = CHAT[i]["messages"], CHAT[i + 1]["messages"]
    need(len(b) > len(a), "request %d has %d messages, request %d has %d" % (i, len(a), i + 1, len(b)))
    for j, m in enumerate(a):
        need(m == b[j], "request %d message %d changed:\n  %r\n  %r" % (i + 1, j, m, b[j]))'

check "request: tools identical in every request (cache stability)" pycheck '
need(CHAT, "no chat request")
first = json.dumps(CHAT[0].get("tools"), sort_keys=True)
for i, b in enumerate(CHAT[1:]):
    need(json.dumps(b.get("tools"), sort_keys=True) == first, "tools differ in request %d" % (i + 1))'

check "request: the task is the last user message of the first request" pycheck '
need(CHAT, "no chat request")
m = CHAT[0]["messages"]
need(m and m[-1].get("role") == "user", "last message: %r" % (m[-1] if m else None))
need("Change the greeting in hello.c" in text_of(m[-1].get("content")), "task missing: %r" % m[-1])
need(all(x.get("role") in ("system", "user") for x in m), "roles %r" % [x.get("role") for x in m])'

check "request: tool calls and results go back with the server's ids" pycheck '
need(len(CHAT) == 3 and len(CHAT_SERVED) == 3, "want 3 chat requests")
for step, name in ((0, "read"), (1, "edit")):
    tid = CHAT_SERVED[step]["tool_call_ids"][0]
    new = CHAT[step + 1]["messages"][len(CHAT[step]["messages"]):]
    need(len(new) >= 2, "request %d adds %d messages" % (step + 1, len(new)))
    a, t = new[0], new[1]
    need(a.get("role") == "assistant", "first new message is %r" % a)
    calls = a.get("tool_calls") or []
    need(len(calls) == 1 and calls[0].get("id") == tid and calls[0].get("type") == "function"
         and calls[0]["function"]["name"] == name, "assistant tool_calls %r (want id %s)" % (calls, tid))
    args = calls[0]["function"]["arguments"]
    args = json.loads(args) if isinstance(args, str) else args
    need(isinstance(args, dict) and args.get("path") == "hello.c", "arguments %r" % args)
    need(t.get("role") == "tool" and t.get("tool_call_id") == tid, "tool result message %r" % t)
    if name == "read":
        need("HEARTH_MARKER_7f3a" in text_of(t.get("content")), "read result lacks the file: %r" % t)'

mock_stop

# ---- text_toolcall: a <tool_call> in plain content is recovered and run ---
make_repo "$E2E_TMP/repo2"
mock_start text_toolcall
hearth_run text_toolcall -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "What does hello.c print?"
check_rc "text_toolcall: exit status 0" 0
check "text_toolcall: stdout is the answer" same_text "$OUT" "hello.c prints a greeting."
check "text_toolcall: the recovered read ran and its result was sent" pycheck '
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
new = CHAT[1]["messages"][len(CHAT[0]["messages"]):]
need(any("HEARTH_MARKER_7f3a" in text_of(m.get("content")) for m in new),
     "no message with the contents of hello.c after the first request: %r" % new)
need(not any("<tool_call>" in text_of(m.get("content")) and m.get("role") != "assistant" for m in new),
     "raw tool-call text sent back as a non-assistant message")'
mock_stop

# ---- parallel tool calls in one step --------------------------------------
mock_start parallel_tools
hearth_run parallel -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Look around."
check_rc "parallel_tools: exit status 0" 0
check "parallel_tools: stdout is the answer" same_text "$OUT" "Two tools ran."
check "parallel_tools: both results sent back, one per tool call id" pycheck '
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
ids = CHAT_SERVED[0]["tool_call_ids"]
new = CHAT[1]["messages"][len(CHAT[0]["messages"]):]
got = [m.get("tool_call_id") for m in new if m.get("role") == "tool"]
need(sorted(got) == sorted(ids), "tool results for %r, calls were %r" % (got, ids))
a = [m for m in new if m.get("role") == "assistant"]
need(len(a) == 1 and len(a[0].get("tool_calls") or []) == 2, "assistant messages %r" % a)'
mock_stop

# ---- tool-parse error: once is retried, twice fails -----------------------
mock_start toolparse_error
hearth_run toolparse_error -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Read hello.c."
check_rc "toolparse_error: recovers, exit status 0" 0
check "toolparse_error: stdout is the retried answer" same_text "$OUT" "Recovered after a retry."
check "toolparse_error: exactly one retry" pycheck '
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
need(not any("does not match the expected" in text_of(m.get("content")) and m.get("role") == "assistant"
             for m in CHAT[1]["messages"]), "the raw server error was fed back as assistant text")'
mock_stop

mock_start toolparse_twice
hearth_run toolparse_twice -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Read hello.c."
check_rc "toolparse_twice: the turn goes on, exit status 0" 0
check "toolparse_twice: stdout is the plain answer" same_text "$OUT" "Answered in plain text."
check "toolparse_twice: one retry of the same request, then the model is told" pycheck '
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))
need(CHAT[0]["messages"] == CHAT[1]["messages"], "the retry changed the messages")
added = CHAT[2]["messages"][len(CHAT[0]["messages"]):]
need([m["role"] for m in added] == ["assistant", "user"], "added roles: %r" % [m["role"] for m in added])
need("could not be parsed" in added[1]["content"], "notice: %r" % added[1]["content"][:200])
need("does not match the expected" in added[1]["content"], "server message not quoted")
need("{\"error\"" not in json.dumps(added[0]), "raw error JSON sent back as assistant text")'
mock_stop

# ---- context exceeded: a plain HTTP 400 -----------------------------------
mock_start context_exceeded
hearth_run context_exceeded -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Read everything."
check_rc "context_exceeded: exit status 1" 1
check "context_exceeded: one-line error with n_prompt_tokens 9036 and n_ctx 8192" pycheck '
lines = [l for l in ERR_TEXT.split("\n") if l.strip()]
need(len(lines) == 1, "stderr lines: %r" % lines[:5])
need("9036" in lines[0] and "8192" in lines[0], "numbers missing: %r" % lines[0])
need("UNEXPECTED" not in OUT_TEXT, "stdout: %r" % OUT_TEXT[:200])'
mock_stop

# ---- loading: 503 for the first two requests, then ready ------------------
mock_start loading_then_ready
hearth_run loading -p --verbose --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Are you ready?"
check_rc "loading_then_ready: waits for the model, exit status 0" 0
check "loading_then_ready: stdout is the answer" same_text "$OUT" "Ready now."
check "loading_then_ready: --verbose stderr says the model is loading" pycheck '
need(re.search(r"loading", ERR_TEXT, re.I), "stderr: %r" % ERR_TEXT[:300])
need(sum(1 for r in REQ if SERVED.get(r["seq"], {}).get("status") == 503) == 2, "503 count")'
mock_stop

# ---- dropped connection mid-stream ---------------------------------------
mock_start dropped
hearth_run dropped -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Answer at length."
check_rc "dropped: exit status 1" 1
check "dropped: one clear line on stderr" pycheck '
lines = [l for l in ERR_TEXT.split("\n") if l.strip()]
need(len(lines) == 1, "stderr lines: %r" % lines[:5])
need(re.search(r"connection|closed|dropped|incomplete|interrupted|truncated|ended|reset|lost|partial",
               lines[0], re.I), "unclear message: %r" % lines[0])
need("UNEXPECTED" not in OUT_TEXT, "a later retry answered: %r" % OUT_TEXT[:200])'
mock_stop

# ---- a length stop prints the partial answer (issue 14 item 5) ---------------
printf '{"turns": [{"text": "The first half of a long answer", "finish_reason": "length"}]}\n' >"$E2E_TMP/length.json"
mock_start "$E2E_TMP/length.json"
hearth_run length -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Write a long answer."
check_rc "length stop: exit status 1" 1
check "length stop: stdout has the partial answer" same_text "$OUT" "The first half of a long answer"
check "length stop: stderr says it was cut off at the token limit" pycheck '
lines = [l for l in ERR_TEXT.split("\n") if l.strip()]
need(len(lines) == 1 and "token limit" in lines[0], "stderr: %r" % lines)'
mock_stop

# ---- one byte per chunk gives the same result -----------------------------
mock_start one_byte
hearth_run one_byte -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Read hello.c slowly."
check_rc "one_byte: exit status 0" 0
check "one_byte: the same answer as whole chunks (UTF-8 split across chunks)" \
	same_text "$OUT" "One byte at a time: été, 中文, done."
check "one_byte: the tool call split into single bytes was run" pycheck '
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
new = CHAT[1]["messages"][len(CHAT[0]["messages"]):]
need(any(m.get("role") == "tool" and "HEARTH_MARKER_7f3a" in text_of(m.get("content")) for m in new),
     "no read result: %r" % new)'
mock_stop

# ---- max steps ------------------------------------------------------------
mock_start max_steps
hearth_run max_steps -p --max-steps 2 --server "$MOCK_URL" --cwd "$E2E_TMP/repo2" "Keep looking."
check_rc "max_steps: --max-steps 2 stops with exit status 1" 1
check "max_steps: one-line error mentioning max-steps; stopped at the limit" pycheck '
lines = [l for l in ERR_TEXT.split("\n") if l.strip()]
need(len(lines) == 1 and "max-steps" in lines[0], "stderr: %r" % lines[:5])
need(2 <= len(CHAT) <= 3, "chat requests: %d" % len(CHAT))
need("UNEXPECTED" not in OUT_TEXT, "stdout: %r" % OUT_TEXT[:200])'
mock_stop

mock_start max_steps
hearth_run max_steps_json -p --max-steps 2 --output-format json --server "$MOCK_URL" \
	--cwd "$E2E_TMP/repo2" "Keep looking."
check_rc "max_steps json: exit status 1" 1
check "max_steps json: result subtype error_max_turns (Claude Code's name), is_error true" pycheck '
r = out_json()
need(r.get("type") == "result" and r.get("subtype") == "error_max_turns" and r.get("is_error") is True,
     "result: %r" % {k: r.get(k) for k in ("type", "subtype", "is_error")})
need(r.get("num_turns") == len(CHAT), "num_turns %r, chat requests %d" % (r.get("num_turns"), len(CHAT)))'
mock_stop

e2e_finish
