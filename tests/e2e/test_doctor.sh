#!/bin/sh
# End-to-end: `hearth doctor` against scripted servers (tests/net/mock_llama.py
# with /props, /slots, /v1/models, /apply-template and the slot-save answer
# scripted per misconfiguration, issue 17 item 6): each misconfiguration is
# named with its flag, a well-started server gets "nothing to change", and
# the recommended command line fits the model the server serves.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth

# doctor NAME SCENARIO-JSON [ENV...]: hearth doctor against a mock started with that scenario.
doctor() {
	_n=$1 _json=$2
	shift 2
	printf '%s\n' "$_json" >"$E2E_TMP/$_n.json"
	mock_start "$E2E_TMP/$_n.json"
	OUT=$E2E_TMP/$_n.out ERR=$E2E_TMP/$_n.err
	timeout -k 5 "$HEARTH_TIMEOUT" env "$@" "$HEARTH_BIN" doctor --server "$MOCK_URL" </dev/null >"$OUT" 2>"$ERR"
	RC=$?
	mock_stop
}

# has LABEL PATTERN: a line of the report matches PATTERN (grep -E).
has() {
	check "$1" grep -Eq -- "$2" "$OUT"
}
hasnt() {
	check "$1" sh -c '! grep -Eq -- "$1" "$2"' - "$2" "$OUT"
}

OPEN_THINK='<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n'
CLOSED_THINK='<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n'

# ---- everything the issue lists, at once ---------------------------------
doctor bad '{"props": {"total_slots": 4, "model_path": "/models/Qwen3-8B-Q4_K_M.gguf",
  "default_generation_settings": {"n_ctx": 8192}},
  "models": {"object": "list", "data": [{"id": "/models/Qwen3-8B-Q4_K_M.gguf", "meta": {"n_ctx_train": 40960}}]},
  "render_prompt": "'"$OPEN_THINK"'"}'
check_rc "bad: exit status 1 (things to change)" 1
has "bad: 4 slots, what -np auto picks → -np 1" '✗ slots: 4 \(what -np auto picks\).*→ -np 1'
has "bad: context per slot 8192 → -c" '✗ context per slot: 8192 tokens.*→ -c 65536 per slot'
has "bad: thinking on at the engine → --reasoning off" '✗ thinking is on at the engine.*→ --reasoning off'
has "bad: no --slot-save-path" '✗ no --slot-save-path.*→ --slot-save-path DIR'
has "bad: model id is the file name → --alias" '✗ the model id is the file name \(/models/Qwen3-8B-Q4_K_M.gguf\).*→ --alias Qwen3-8B-Q4_K_M'
has "bad: --jinja is fine" '✓ --jinja'
has "bad: recommended line for the model it sees, context capped at n_ctx_train" \
	'^  llama-server -m /models/Qwen3-8B-Q4_K_M.gguf --host 127.0.0.1 --port [0-9]+ --jinja --reasoning off -np 1 -c 40960 .*--slot-save-path .* --alias Qwen3-8B-Q4_K_M'
has "bad: the count" '^5 things to change\.$'

# ---- a well-started server --------------------------------------------------
doctor good '{"props": {"total_slots": 1, "model_path": "/m/q.gguf", "default_generation_settings": {"n_ctx": 65536}},
  "models": {"object": "list", "data": [{"id": "qwen3-8b", "meta": {"n_ctx_train": 262144}}]},
  "slot_save_path": "'"$E2E_TMP"'", "render_prompt": "'"$CLOSED_THINK"'"}'
check_rc "good: exit status 0" 0
has "good: nothing to change" '^nothing to change\.$'
hasnt "good: no ✗ line" '✗'
has "good: thinking off, slot save, alias all seen" '✓ thinking off at the engine'
has "good: slot save seen" '✓ --slot-save-path'
has "good: alias seen, kept in the recommended line" '--alias qwen3-8b'

# ---- --no-jinja: a render with tools fails naming --jinja ----------------------
doctor nojinja '{"props": {"total_slots": 1, "default_generation_settings": {"n_ctx": 65536}},
  "render_error": "tools param requires --jinja flag"}'
has "nojinja: → --jinja" '✗ no Jinja chat template.*→ --jinja'
doctor nocaps '{"props": {"total_slots": 1, "chat_template_caps": null, "default_generation_settings": {"n_ctx": 65536}}}'
has "nocaps: no template caps → --jinja" '✗ no Jinja chat template.*→ --jinja'

# ---- a quantized KV cache -------------------------------------------------
doctor kvq4 '{"props": {"total_slots": 1, "cache_type_k": "q4_0", "default_generation_settings": {"n_ctx": 65536}}}'
has "kvq4: q4_0 → -ctk q8_0 -ctv q8_0" '✗ KV cache type q4_0.*→ -ctk q8_0 -ctv q8_0'

# ---- a hybrid model ----------------------------------------------------------
doctor hybrid '{"props": {"total_slots": 1, "model_path": "/m/Qwen3.5-35B-A3B-Q4_K_M.gguf", "default_generation_settings": {"n_ctx": 65536}},
  "models": {"object": "list", "data": [{"id": "qwen35"}]}}'
has "hybrid: named with its flags" '· hybrid model.*--ctx-checkpoints 64'
has "hybrid: the recommended line keeps more checkpoints" '^  llama-server .*--ctx-checkpoints 64$'

# ---- --no-slots ---------------------------------------------------------------
doctor noslots '{"slots": false, "props": {"total_slots": 1, "default_generation_settings": {"n_ctx": 65536}}}'
has "noslots: → drop --no-slots" '✗ /slots is off \(--no-slots\).*→ drop --no-slots'

# ---- a plain OpenAI-compatible server ----------------------------------------
doctor plainctx '{"plain": true, "models": {"object": "list", "data": [{"id": "m", "max_model_len": 32768}]}}'
check_rc "plainctx: exit status 0" 0
has "plainctx: not llama-server, context from /v1/models" '✓ model m, context 32768 tokens \(from /v1/models\)'
doctor plainnoctx '{"plain": true, "models": {"object": "list", "data": [{"id": "llama3"}]}}'
check_rc "plainnoctx: exit status 1" 1
has "plainnoctx: → server_context" '✗ model llama3: /v1/models states no context.*"server_context"'

# ---- a key ---------------------------------------------------------------------
doctor key '{"api_key": "sk-doc-0123456789", "props": {"total_slots": 1, "default_generation_settings": {"n_ctx": 65536}}}' \
	OPENAI_API_KEY=sk-doc-0123456789
check "key: the report came with the key" grep -q '✓ slots: 1' "$OUT"
doctor nokey '{"api_key": "sk-doc-0123456789"}'
check_rc "nokey: exit status 3" 3
check "nokey: says to set OPENAI_API_KEY" grep -q 'wants an API key: set OPENAI_API_KEY' "$ERR"

# ---- nothing there -------------------------------------------------------------
OUT=$E2E_TMP/none.out ERR=$E2E_TMP/none.err
timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" doctor --server "http://127.0.0.1:$(closed_port)" </dev/null >"$OUT" 2>"$ERR"
RC=$?
check_rc "none: exit status 3" 3
check "none: one line that says what to do" grep -q 'no server at .*start one, or pass --server' "$ERR"

e2e_finish
