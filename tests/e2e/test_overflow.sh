#!/bin/sh
# End-to-end: overflow never poisons a session (issue 14 item 4).  A turn the
# server rejects as longer than its context is taken out of the conversation
# (its message and attachment), in the session file too, so the next "hi" of
# the resumed session is sent small; a message that cannot fit the context
# whatever is compacted is refused before it is sent.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
python3 -c 'print("BIGMARKER " + "x" * 20000)' >"$REPO/big.txt"
printf '{"turns": [{"text": "First answer."}, {"http_error": 400, "body_fixture": "error_context_exceeded.txt"}, {"text": "Hello back."}]}\n' \
	>"$E2E_TMP/over.json"
mock_start "$E2E_TMP/over.json"
mark() { grep -c '"event": "request"' "$MOCK_LOG"; }

hearth_run first -p --server "$MOCK_URL" --cwd "$REPO" "Say something short."
check_rc "first turn: exit status 0" 0
hearth_run over -p -c --server "$MOCK_URL" --cwd "$REPO" --verbose "Summarise @big.txt please."
check_rc "overflow: exit status 1" 1
check "overflow: the server's context error is reported" contains "$ERR" "exceeds the server's per-slot context"
check "overflow: the rejected turn is left out, compaction offered" contains "$ERR" "left out of the conversation; /compact makes room"
N=$(mark)
hearth_run hi -p -c --server "$MOCK_URL" --cwd "$REPO" "hi"
check_rc "hi after the overflow: exit status 0" 0
check "hi after the overflow: the answer" contains "$OUT" "Hello back."
check "hi after the overflow: sent small, without the rejected message or its attachment" pycheck '
R = REQ[int(ARGS[0]):]
chat = [r["body"] for r in R if r["path"] in CHAT_PATHS]
need(len(chat) == 1, "requests %d" % len(chat))
text = json.dumps(chat[0]["messages"])
need("BIGMARKER" not in text and "Summarise" not in text, "rejected turn sent again")
need("Say something short." in text and "First answer." in text and "hi" in text, "history lost: %s" % text[:300])
need(len(json.dumps(chat[0])) < 40000, "request of %d bytes" % len(json.dumps(chat[0])))' "$N"
mock_stop

# ---- a message that cannot fit at all: refused before sending -------------------
printf '{"n_ctx": 1000, "turns": [{"text": "UNEXPECTED"}]}\n' >"$E2E_TMP/small.json"
mock_start "$E2E_TMP/small.json"
hearth_run huge -p --server "$MOCK_URL" --cwd "$REPO" "Summarise @big.txt please."
check "too big for the context: fails" sh -c '[ "$1" -ne 0 ]' sh "$RC"
check "too big for the context: says so" contains "$ERR" "it was not sent; shorten it or attach less"
check "too big for the context: nothing sent" pycheck 'need(not CHAT, "%d chat requests" % len(CHAT))'
mock_stop
e2e_finish
