#!/bin/sh
# End-to-end: the engines a team puts behind hearth (issue 17 item 5),
# each as a scripted server of its shape (tests/net/mock_llama.py "shape"):
# vLLM and SGLang (GET /health, /v1/models with max_model_len, their
# /metrics; no /props, no /slots) and llama-swap (several models behind one
# port, loaded on the first request for them, /running, each model's
# llama-server under /upstream/NAME/).  A tool-using turn runs through each.
# With several servers for a tier, the least loaded by their /metrics
# (running + queued requests) takes the turn, with the reason shown.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
export XDG_STATE_HOME=$E2E_TMP/state XDG_CONFIG_HOME=$E2E_TMP/config
LS='{"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}'

# tool_turn NAME: the checks of a tool-using turn answered "$2" by the mock in MOCK_LOG.
tool_turn() {
	check_rc "$1: exit status 0" 0
	check "$1: the answer after the tool call" pycheck '
need(out_json().get("result") == ARGS[0], "result %r" % out_json().get("result"))
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
msgs = CHAT[1]["messages"]
need(any(m["role"] == "tool" and "hello.c" in text_of(m.get("content")) for m in msgs), "no ls result in %r" % msgs)' "$2"
}

# ---- vLLM ----------------------------------------------------------------
printf '{"shape": "vllm", "n_ctx": 40960, "turns": [%s, {"text": "VLLM-DONE"}]}\n' "$LS" >"$E2E_TMP/vllm.json"
mock_start "$E2E_TMP/vllm.json"
hearth_run vllm -p --cwd "$REPO" --server "$MOCK_URL/v1" --output-format json "list the files"
tool_turn vllm VLLM-DONE
check "vllm: the model id from /v1/models in every request, no llama-server fields" pycheck '
for b in CHAT:
    need(b.get("model") == "Qwen/Qwen3-8B", "model %r" % b.get("model"))
    need("id_slot" not in b and "cache_prompt" not in b, "llama fields in %r" % sorted(b))'
check "vllm: /health answered, so /v1/models was not asked in its place; /props and /slots 404" pycheck '
paths = [r["path"] for r in REQ]
need("/health" in paths and "/props" in paths, "paths %r" % paths)
st = {SERVED[r["seq"]]["path"]: SERVED[r["seq"]]["status"] for r in REQ if r["seq"] in SERVED}
need(st.get("/props") == 404 and st.get("/health") == 200, "statuses %r" % st)'
mock_stop

# ---- SGLang --------------------------------------------------------------
printf '{"shape": "sglang", "turns": [%s, {"text": "SGLANG-DONE"}]}\n' "$LS" >"$E2E_TMP/sglang.json"
mock_start "$E2E_TMP/sglang.json"
hearth_run sglang -p --cwd "$REPO" --server "$MOCK_URL" --output-format json "list the files"
tool_turn sglang SGLANG-DONE
mock_stop

# ---- llama-swap: two models behind one port, as two tiers ------------------
printf '{"shape": "llama-swap", "swap_models": ["qwen-9b", "qwen-35b"], "load_s": 1.5, "turns": [%s, {"text": "SWAP-DONE"}, {"text": "SWAP-DEEP"}]}\n' "$LS" >"$E2E_TMP/swap.json"
mock_start "$E2E_TMP/swap.json"
SWAP_URL=$MOCK_URL
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"servers": [{"name": "fast", "url": "%s", "model": "qwen-9b"}, {"name": "deep", "url": "%s", "role": "workhorse", "model": "qwen-35b"}]}\n' \
	"$SWAP_URL" "$SWAP_URL" >"$XDG_CONFIG_HOME/hearth/settings.json"
T0=$(date +%s)
hearth_run swap -p --cwd "$REPO" --output-format json "list the files"
T1=$(date +%s)
tool_turn swap SWAP-DONE
check "swap: every request named the tier's model; the first waited for it to load" pycheck '
for b in CHAT:
    need(b.get("model") == "qwen-9b", "model %r" % b.get("model"))
need(CHAT_SERVED[0].get("served_ms", 0) >= 1400, "first request served in %r ms" % CHAT_SERVED[0].get("served_ms"))
need(CHAT_SERVED[1].get("served_ms", 0) < 1400, "second request served in %r ms (loaded already)" % CHAT_SERVED[1].get("served_ms"))'
check "swap: the run took the load time" test $((T1 - T0)) -ge 1
hearth_run swapdeep -p --cwd "$REPO" --route deep --output-format json "think hard"
check_rc "swap --route deep: exit status 0" 0
check "swap --route deep: the workhorse model answered" pycheck '
need(out_json().get("result") == "SWAP-DEEP", "result %r" % out_json().get("result"))
need(CHAT[-1].get("model") == "qwen-35b", "model %r" % CHAT[-1].get("model"))'
check "swap: /running shows the model swapped in" sh -c \
	'curl -s "$1/running" | grep -q "\"model\":\"qwen-35b\""' - "$SWAP_URL"
mock_stop

# ---- the least loaded of two servers, by their /metrics ------------------
# a (SGLang) runs 2 and queues 3; b (vLLM) runs 1 and queues none: b takes
# the turn though a comes first, and says why.
printf '{"shape": "sglang", "load": [2, 3], "turns": [{"text": "UNEXPECTED: a"}]}\n' >"$E2E_TMP/a.json"
printf '{"shape": "vllm", "load": [1, 0], "turns": [%s, {"text": "B-LEAST-LOADED"}]}\n' "$LS" >"$E2E_TMP/b.json"
mock_start "$E2E_TMP/a.json"
A_URL=$MOCK_URL A_LOG=$MOCK_LOG
mock_start "$E2E_TMP/b.json"
B_URL=$MOCK_URL B_LOG=$MOCK_LOG
printf '{"servers": [{"name": "a", "url": "%s"}, {"name": "b", "url": "%s"}]}\n' "$A_URL" "$B_URL" \
	>"$XDG_CONFIG_HOME/hearth/settings.json"
(sleep 4; printf 'list the files\n'; sleep 5) |
	(cd "$REPO" && timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line >"$E2E_TMP/load.out" 2>&1)
check "load: b (less loaded by /metrics) took the turn, with the reason" \
	grep -q "→ b (interactive): a is busier (2 running, 3 queued), b has 1 running, 0 queued" "$E2E_TMP/load.out"
check "load: b answered after the tool call; a got no chat request, only /metrics polls" sh -c \
	'grep -q B-LEAST-LOADED "$1" && test "$(grep -c "\"path\": \"/v1/chat/completions\"" "$2")" = 0 &&
	 grep -q "\"path\": \"/metrics\"" "$2"' - "$E2E_TMP/load.out" "$A_LOG"

[ -n "${KEEP:-}" ] && cp -r "$E2E_TMP" "$KEEP"
e2e_finish
