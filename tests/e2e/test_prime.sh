#!/bin/sh
# End-to-end: the warm cache between two turns of one session (issue 14).
# After an answer, while the user reads, hearth sends a zero-generation
# request (POST /completion, n_predict 0) for the conversation up to where
# the next user message begins, on the session's slot; a message sent
# while it runs waits for it (its work is the next request's prefix).  On a
# hybrid model whose generated tokens do not re-tokenize as generated
# (mock: gen_drift), the next turn then prefills only its new tokens (the
# issue's "follow-up <= new + 32") instead of re-reading the answer from
# the last checkpoint; cache_prime false turns it off.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
# two long answers: without the prime the next turn re-reads ~100 tokens of each
A1="The program prints hello. $(printf 'It calls puts with a constant string and returns zero; %.0s' 1 2 3 4 5 6)"
A2="Add a second puts call. $(printf 'Each puts writes its string and a newline to standard output; %.0s' 1 2 3 4 5 6)"
python3 -c 'import json,sys; print(json.dumps({"template": "qwen35", "hybrid": True, "gen_drift": True,
 "turns": [{"text": sys.argv[1]}, {"text": sys.argv[2]}]}))' "$A1" "$A2" >"$E2E_TMP/hybrid.json"

# the follow-up's own request: only the new user message (the mock counts ~4 bytes a token)
FOLLOWUP_CHECK='
comp = [r for r in REQ if r["path"] == "/completion"]
need(len(CHATREQ) == 2, "chat requests: %d" % len(CHATREQ))
t2 = SERVED[CHATREQ[1]["seq"]]["final"]["timings"]
new = (len("Second task PRIME_T2.") + 60) // 4  # the user message and the turn headers
need(t2["cache_n"] > 0 and t2["prompt_n"] <= new + 32,
     "turn 2 prefilled %d tokens (new about %d, cached %d)" % (t2["prompt_n"], new, t2["cache_n"]))'

not_pycheck() {
	! pycheck "$1" >/dev/null
}

mock_start "$E2E_TMP/hybrid.json"
hearth_run_stdin live "First task PRIME_T1.
Second task PRIME_T2." --line --server "$MOCK_URL" --cwd "$REPO"
check_rc "live: exit status 0" 0
check "live: after the answer, a zero-generation request up to the next user header on the session's slot" pycheck '
comp = [r for r in REQ if r["path"] == "/completion"]
need(comp, "no /completion")
b = comp[0]["body"]
need(b["n_predict"] == 0 and b["cache_prompt"] is True, "body %r" % {k: b[k] for k in b if k != "prompt"})
need(b["prompt"].endswith("<|im_start|>user"), "prompt ends %r" % b["prompt"][-40:])
need("PRIME_T1" in b["prompt"] and "The program prints hello." in b["prompt"], "turn 1 not in the prime")
need("PRIME_T2" not in b["prompt"], "the next message is in the prime")
need(b["id_slot"] == CHAT[0]["id_slot"] == CHAT[1]["id_slot"], "slots %r %r %r" % (b["id_slot"], CHAT[0]["id_slot"], CHAT[1]["id_slot"]))
need(REQ.index(CHATREQ[0]) < REQ.index(comp[0]) < REQ.index(CHATREQ[1]), "order")'
check "live: the follow-up turn prefills only its new tokens" pycheck "$FOLLOWUP_CHECK"
mock_stop

# the same without the prime: the follow-up re-reads the answer (what the prime saves)
mkdir -p "$REPO/.hearth"
printf '{"cache_prime": false}\n' >"$REPO/.hearth/settings.json"
mock_start "$E2E_TMP/hybrid.json"
hearth_run_stdin unprimed "First task PRIME_T1.
Second task PRIME_T2." --line --server "$MOCK_URL" --cwd "$REPO"
check_rc "cache_prime false: exit status 0" 0
check "cache_prime false: no /completion" pycheck 'need(not [r for r in REQ if r["path"] == "/completion"], "primed")'
check "cache_prime false: the follow-up re-reads the answer (the check above can fail)" not_pycheck "$FOLLOWUP_CHECK"
mock_stop
rm -f "$REPO/.hearth/settings.json"

e2e_finish
