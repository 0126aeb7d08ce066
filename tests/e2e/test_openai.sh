#!/bin/sh
# End-to-end: hearth against a plain OpenAI-compatible server (issue 17
# item 1): the mock in "plain" mode has none of llama-server's endpoints
# (/health, /props, /slots, /apply-template answer 404), streams no
# prompt_progress and no timings, and refuses every request without
# "Authorization: Bearer KEY".  A tool-using turn must work with the base
# URL with and without /v1, with OPENAI_BASE_URL, and with the key from
# OPENAI_API_KEY; without the key hearth says what to set.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
KEY=sk-test-4f9b2c1e7d
ANSWER='Changed the greeting in hello.c.'

# run_edit NAME SUFFIX [ENV...]: the edit flow against a fresh mock, --server $MOCK_URL$SUFFIX.
run_edit() {
	_name=$1 _suffix=$2
	shift 2
	rm -rf "$E2E_TMP/$_name"
	make_repo "$E2E_TMP/$_name"
	mock_start openai_plain
	(cd "$E2E_TMP/$_name" && OUT=$E2E_TMP/$_name.out ERR=$E2E_TMP/$_name.err &&
		timeout -k 5 "$HEARTH_TIMEOUT" env "$@" "$HEARTH_BIN" -p --output-format json \
			--server "$MOCK_URL$_suffix" \
			"Change the greeting in hello.c to hello, world." </dev/null >"$OUT" 2>"$ERR"
		echo $? >"$E2E_TMP/rc")
	RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
	OUT=$E2E_TMP/$_name.out ERR=$E2E_TMP/$_name.err
}

# check_flow NAME: the turn ran: answer, file edited, three chat requests with the key.
check_flow() {
	check_rc "$1: exit status 0" 0
	check "$1: the answer" pycheck '
need(out_json().get("result") == "'"$ANSWER"'", "result %r" % out_json().get("result"))'
	check "$1: hello.c edited" grep -q 'hello, world' "$E2E_TMP/$1/hello.c"
	check "$1: three chat requests, each with the Bearer key, model from /v1/models" pycheck '
need(len(CHAT) == 3, "chat requests: %d" % len(CHAT))
for r in CHATREQ:
    h = {k.lower(): v for k, v in r["headers"].items()}
    need(h.get("authorization") == "Bearer '"$KEY"'", "authorization %r" % h.get("authorization"))
    need(r["body"].get("model") == "plain-model-7b", "model %r" % r["body"].get("model"))'
	check "$1: no llama-server fields in the requests (return_progress, cache_prompt, id_slot)" pycheck '
for b in CHAT:
    bad = [k for k in ("return_progress", "cache_prompt", "id_slot") if k in b]
    need(not bad, "sent %r" % bad)
need(CHAT[0].get("stream_options", {}).get("include_usage") is True, "usage not asked for")'
	check "$1: usage counted without timings" pycheck '
u = out_json().get("usage") or {}
need(u.get("input_tokens", 0) > 0 and u.get("output_tokens", 0) > 0, "usage %r" % u)'
}

# ---- base URL without /v1, key from OPENAI_API_KEY ---------------------
run_edit root "" OPENAI_API_KEY=$KEY
check_flow root
check "root: /health was asked, then /v1/models stood in" pycheck '
paths = [r["path"] for r in REQ]
need("/health" in paths and paths.index("/health") < paths.index("/v1/models"), "paths %r" % paths)'
mock_stop

# ---- base URL with /v1 ---------------------------------------------------
run_edit v1 "/v1" OPENAI_API_KEY=$KEY
check_flow v1
check "v1: no doubled /v1 in any path" pycheck '
bad = [r["path"] for r in REQ if r["path"].startswith("/v1/v1")]
need(not bad, "paths %r" % bad)'
mock_stop

# ---- OPENAI_BASE_URL (with /v1/) instead of --server -----------------------
rm -rf "$E2E_TMP/envurl"
make_repo "$E2E_TMP/envurl"
mock_start openai_plain
(cd "$E2E_TMP/envurl" && timeout -k 5 "$HEARTH_TIMEOUT" env OPENAI_API_KEY=$KEY \
	OPENAI_BASE_URL="$MOCK_URL/v1/" "$HEARTH_BIN" -p --output-format json \
	"Change the greeting in hello.c to hello, world." </dev/null >"$E2E_TMP/envurl.out" \
	2>"$E2E_TMP/envurl.err"; echo $? >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc") OUT=$E2E_TMP/envurl.out ERR=$E2E_TMP/envurl.err
check_flow envurl
mock_stop

# ---- no key: one line that says what to set ------------------------------
run_edit nokey "/v1"
check_rc "nokey: exit status 1" 1
check "nokey: stderr names OPENAI_API_KEY" grep -q 'wants an API key.*set OPENAI_API_KEY' "$ERR"
check "nokey: no chat request was sent" pycheck 'need(not CHAT, "chat requests: %d" % len(CHAT))'
mock_stop

# ---- a wrong key: refused, said so ---------------------------------------
run_edit badkey "/v1" OPENAI_API_KEY=sk-wrong-0000000000
check_rc "badkey: exit status 1" 1
check "badkey: stderr says the key was refused" grep -q 'refused the API key from OPENAI_API_KEY' "$ERR"
mock_stop

# ---- the key is not sent to a server that does not ask for it ------------
rm -rf "$E2E_TMP/askless"
make_repo "$E2E_TMP/askless"
mock_start edit_flow
(cd "$E2E_TMP/askless" && timeout -k 5 "$HEARTH_TIMEOUT" env OPENAI_API_KEY=$KEY "$HEARTH_BIN" -p \
	--server "$MOCK_URL" "Change the greeting in hello.c to hello, world." </dev/null \
	>"$E2E_TMP/askless.out" 2>"$E2E_TMP/askless.err"; echo $? >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc") OUT=$E2E_TMP/askless.out ERR=$E2E_TMP/askless.err
check_rc "askless: exit status 0 (llama-server mock without a key)" 0
check "askless: no Authorization header on any request" pycheck '
bad = [r["path"] for r in REQ if any(k.lower() == "authorization" for k in r["headers"])]
need(not bad, "sent to %r" % bad)'
check "askless: llama-server fields still sent (return_progress, id_slot)" pycheck '
need(CHAT and all("return_progress" in b and "id_slot" in b for b in CHAT), "missing")'
mock_stop

e2e_finish
