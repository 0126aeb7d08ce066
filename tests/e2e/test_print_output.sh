#!/bin/sh
# End-to-end: the output formats of `hearth -p` (text, json, stream-json),
# terminal-escape hygiene on stdout, --verbose, and a stdout closed early.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
ANSWER='Changed the greeting in hello.c.'
make_repo "$REPO"

# ---- --output-format json --------------------------------------------------
mock_start edit_flow
hearth_run json -p --output-format json --server "$MOCK_URL" --cwd "$REPO" \
	"Change the greeting in hello.c to hello, world."
check_rc "json: exit status 0" 0
check "json: no terminal escapes on stdout" no_term_escapes "$OUT"
check "json: stdout is one JSON object on one line" pycheck '
lines = [l for l in OUT_TEXT.split("\n") if l.strip()]
need(len(lines) == 1, "stdout has %d non-empty lines" % len(lines))
need(isinstance(out_json(), dict), "not an object")'
check "json: type, subtype, is_error, result, num_turns, session_id, duration_ms, model" pycheck '
r = out_json()
need(r.get("type") == "result", "type %r" % r.get("type"))
need(r.get("subtype") == "success", "subtype %r" % r.get("subtype"))
need(r.get("is_error") is False, "is_error %r" % r.get("is_error"))
need(r.get("result") == ARGS[0], "result %r" % r.get("result"))
need(r.get("num_turns") == len(CHAT) == 3, "num_turns %r, chat requests %d" % (r.get("num_turns"), len(CHAT)))
need(isinstance(r.get("session_id"), str) and r["session_id"], "session_id %r" % r.get("session_id"))
need(type(r.get("duration_ms")) in (int, float) and r["duration_ms"] >= 0, "duration_ms %r" % r.get("duration_ms"))
need(isinstance(r.get("model"), str) and r["model"], "model %r" % r.get("model"))' "$ANSWER"
check "json: tool_calls list name, input, is_error, duration_ms" pycheck '
r = out_json()
tc = r.get("tool_calls")
need(isinstance(tc, list) and len(tc) == 2, "tool_calls %r" % tc)
need([t.get("name") for t in tc] == ["read", "edit"], "names %r" % [t.get("name") for t in tc])
need(tc[0].get("input") == {"path": "hello.c"}, "read input %r" % tc[0].get("input"))
need(tc[1].get("input") == {"path": "hello.c", "old_text": "\tprintf(\"hello\\n\");",
                            "new_text": "\tprintf(\"hello, world\\n\");"}, "edit input %r" % tc[1].get("input"))
for t in tc:
    need(t.get("is_error") is False, "is_error %r" % t)
    need(type(t.get("duration_ms")) in (int, float) and t["duration_ms"] >= 0, "duration_ms %r" % t)'
check "json: usage, timings, cache_reuse" pycheck '
r = out_json()
u = r.get("usage") or {}
for k in ("input_tokens", "output_tokens", "cache_read_input_tokens"):
    need(type(u.get(k)) is int and u[k] >= 0, "usage.%s = %r" % (k, u.get(k)))
need(u["output_tokens"] > 0, "output_tokens is 0")
need(u["cache_read_input_tokens"] > 0, "the mock reported cached tokens on turns 2-3, usage says 0")
t = r.get("timings") or {}
for k in ("prompt_ms", "predicted_ms", "prompt_per_second", "predicted_per_second"):
    need(type(t.get(k)) in (int, float) and t[k] >= 0, "timings.%s = %r" % (k, t.get(k)))
c = r.get("cache_reuse", "absent")
need(c is None or (type(c) in (int, float) and 0 <= c <= 1), "cache_reuse %r" % (c,))'
mock_stop

# ---- --output-format stream-json --------------------------------------------
make_repo "$E2E_TMP/repo_s"
mock_start edit_flow
hearth_run stream_json -p --output-format stream-json --server "$MOCK_URL" --cwd "$E2E_TMP/repo_s" \
	"Change the greeting in hello.c to hello, world."
check_rc "stream-json: exit status 0" 0
check "stream-json: no terminal escapes on stdout" no_term_escapes "$OUT"
check "stream-json: every line is one JSON object" pycheck '
ev = out_lines()
need(ev and all(isinstance(e, dict) for e in ev), "no events or a non-object line")
need(OUT_TEXT.endswith("\n"), "last line not terminated")'
check "stream-json: first line system/init with cwd, session_id, tools, model" pycheck '
e = out_lines()[0]
need(e.get("type") == "system" and e.get("subtype") == "init", "first event %r" % e)
need(os.path.realpath(e.get("cwd") or "") == os.path.realpath(ARGS[0]), "cwd %r" % e.get("cwd"))
need(isinstance(e.get("session_id"), str) and e["session_id"], "session_id %r" % e.get("session_id"))
need({"read", "write", "edit", "bash", "grep", "find", "ls"} <= set(e.get("tools") or []), "tools %r" % e.get("tools"))
need(isinstance(e.get("model"), str), "model %r" % e.get("model"))' "$E2E_TMP/repo_s"
check "stream-json: text_delta stream events carry the answer" pycheck '
ev = out_lines()
d = [e["event"] for e in ev if e.get("type") == "stream_event"
     and isinstance(e.get("event"), dict) and e["event"].get("type") == "content_block_delta"]
need(d, "no content_block_delta events")
need(all(x.get("delta", {}).get("type") in ("text_delta", "input_json_delta", "thinking_delta") for x in d),
     "unknown delta types")
need(all(type(x.get("index")) is int for x in d), "delta without an integer index")
text = "".join(x["delta"].get("text", "") for x in d if x["delta"].get("type") == "text_delta")
need(ARGS[0] in text, "text deltas %r" % text[:300])
need(len([x for x in d if x["delta"].get("type") == "text_delta"]) > 1, "answer not streamed in pieces")' "$ANSWER"
check "stream-json: system/progress events with prompt_progress" pycheck '
p = [e for e in out_lines() if e.get("type") == "system" and e.get("subtype") == "progress"]
need(p, "no progress events")
for e in p:
    pp = e.get("prompt_progress") or {}
    need({"total", "cache", "processed", "time_ms"} <= set(pp), "prompt_progress %r" % pp)
need(any(e["prompt_progress"]["cache"] > 0 for e in p), "no progress event shows the cached prefix")'
check "stream-json: one assistant message per step with tool_use blocks" pycheck '
a = [e for e in out_lines() if e.get("type") == "assistant"]
need(len(a) == 3 == len(CHAT), "assistant messages %d, chat requests %d" % (len(a), len(CHAT)))
uses = []
for e in a:
    m = e.get("message") or {}
    need(m.get("role") == "assistant" and isinstance(m.get("content"), list), "message %r" % m)
    uses.append([b for b in m["content"] if b.get("type") == "tool_use"])
need([[b.get("name") for b in u] for u in uses] == [["read"], ["edit"], []], "tool_use blocks %r" % uses)
for u in uses[:2]:
    need(isinstance(u[0].get("id"), str) and u[0]["id"] and isinstance(u[0].get("input"), dict),
         "tool_use %r" % u[0])
need(uses[0][0]["input"] == {"path": "hello.c"}, "read input %r" % uses[0][0]["input"])
last = [b for b in a[-1]["message"]["content"] if b.get("type") == "text"]
need(last and last[-1].get("text") == ARGS[0], "final text block %r" % last)' "$ANSWER"
check "stream-json: one user tool_result per tool call, matching ids" pycheck '
ev = out_lines()
ids = [b["id"] for e in ev if e.get("type") == "assistant"
       for b in e["message"]["content"] if b.get("type") == "tool_use"]
res = [b for e in ev if e.get("type") == "user"
       for b in (e.get("message") or {}).get("content") or [] if b.get("type") == "tool_result"]
need([r.get("tool_use_id") for r in res] == ids, "tool_result ids %r, tool_use ids %r" %
     ([r.get("tool_use_id") for r in res], ids))
need(all(r.get("is_error") is False for r in res), "is_error %r" % [r.get("is_error") for r in res])
need(all("content" in r for r in res), "tool_result without content")
need("HEARTH_MARKER_7f3a" in json.dumps(res[0].get("content")), "read result lacks the file")
need(all(e.get("message", {}).get("role") == "user" for e in ev if e.get("type") == "user"), "role")'
check "stream-json: last line is the result, same session_id" pycheck '
ev = out_lines()
r = ev[-1]
need(r.get("type") == "result" and r.get("subtype") == "success" and r.get("is_error") is False,
     "last event %r" % {k: r.get(k) for k in ("type", "subtype", "is_error")})
need(r.get("result") == ARGS[0] and r.get("num_turns") == 3, "result %r" % r.get("result"))
need(r.get("session_id") == ev[0].get("session_id"), "session ids differ")
for k in ("duration_ms", "tool_calls", "usage", "timings", "cache_reuse", "model"):
    need(k in r, "result lacks %s" % k)
need(sum(1 for e in ev if e.get("type") == "result") == 1, "more than one result event")' "$ANSWER"
check "stream-json: events in order (init first, result last, progress before text)" pycheck '
ev = out_lines()
kinds = [e.get("type") + "/" + str(e.get("subtype", "")) for e in ev]
need(kinds[0] == "system/init" and kinds[-1].startswith("result/"), "order %r" % kinds[:3])
first_prog = next(i for i, e in enumerate(ev) if e.get("subtype") == "progress")
first_text = next(i for i, e in enumerate(ev) if e.get("type") == "stream_event")
need(first_prog < first_text, "progress after the first text delta")'
mock_stop

# ---- terminal escapes from the model never reach stdout raw -----------------
for fmt in text json stream-json; do
	mock_start escapes
	hearth_run "escapes_$fmt" -p --output-format "$fmt" --server "$MOCK_URL" --cwd "$REPO" "Say it."
	check_rc "escapes ($fmt): exit status 0" 0
	check "escapes ($fmt): no ESC or C1 control on stdout" no_term_escapes "$OUT"
	mock_stop
done
OUT=$E2E_TMP/escapes_text.out
check "escapes (text): the visible words of the answer are kept" pycheck '
need("alert" in OUT_TEXT and "done." in OUT_TEXT and "clear" in OUT_TEXT, "stdout %r" % OUT_TEXT[:300])'

# ---- --verbose: progress on stderr, stdout unchanged ------------------------
mock_start plain
hearth_run verbose -p --verbose --server "$MOCK_URL" --cwd "$REPO" "What is the answer?"
check_rc "verbose: exit status 0" 0
check "verbose: stdout is still only the answer" same_text "$OUT" "The answer is 42."
check "verbose: prefill progress goes to stderr" grep -Eq '^hearth: prefill +[0-9]+%  [0-9]+/[0-9]+ new, [0-9]+ cached' "$ERR"
mock_stop

mock_start plain
hearth_run quiet -p --server "$MOCK_URL" --cwd "$REPO" "What is the answer?"
check_rc "quiet: exit status 0" 0
check "quiet: stdout is the answer" same_text "$OUT" "The answer is 42."
check "quiet: nothing on stderr without --verbose" test ! -s "$ERR"
mock_stop

# ---- a long answer, whole and with stdout closed early ---------------------
mock_start long_answer
hearth_run long -p --server "$MOCK_URL" --cwd "$REPO" "Say LONG many times."
check_rc "long answer: exit status 0" 0
check "long answer: 128 KiB answer printed whole" pycheck '
need(OUT_TEXT == "LONG" * 32768 + "\n", "stdout: %d bytes" % len(OUT_TEXT))'
mock_stop

# closed_stdout NAME FORMAT: hearth's stdout is a pipe whose reader exits
# after one byte; hearth must end (no hang) and not crash (SIGPIPE death or
# an error exit are fine; SIGSEGV/SIGABRT/timeout are not).
closed_stdout() {
	mock_start long_answer
	rm -f "$E2E_TMP/rc"
	{
		timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" -p --output-format "$2" --server "$MOCK_URL" \
			--cwd "$REPO" "Say LONG many times." 2>"$E2E_TMP/closed_$2.err" </dev/null
		echo $? >"$E2E_TMP/rc"
	} | head -c1 >/dev/null
	RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
	OUT=/dev/null ERR=$E2E_TMP/closed_$2.err
	case $RC in
	124 | 137 | missing) not_ok "$1: hearth ends when stdout is closed" "timed out (status $RC)" ;;
	141 | [0-9] | [0-9][0-9] | 1[01][0-9] | 12[0-7]) ok "$1: hearth ends when stdout is closed" ;;
	*) not_ok "$1: hearth ends when stdout is closed" "crashed: status $RC"; diag_file stderr "$ERR" ;;
	esac
	mock_stop
}
closed_stdout "closed stdout (text)" text
closed_stdout "closed stdout (stream-json)" stream-json

e2e_finish
