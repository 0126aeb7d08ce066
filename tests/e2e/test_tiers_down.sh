#!/bin/sh
# End-to-end: servers that are down, in the line session (issue 17 item 5;
# the full screen is in test_tiers_tmux.sh).
#  - The start tier does not answer at launch: it is skipped with a notice
#    at once (no waiting), the turns go to the next tier; when it answers
#    later, hearth says so and the next turn starts on it again.
#  - A tier without /slots (a plain OpenAI-compatible server) that died
#    mid-session is asked again (GET /health, else /v1/models) with a
#    backoff, and is used again once it answers.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
export XDG_STATE_HOME=$E2E_TMP/state XDG_CONFIG_HOME=$E2E_TMP/config
mkdir -p "$XDG_CONFIG_HOME/hearth"
settings() { # SMALL_URL BIG_URL
	printf '{"servers": [{"name": "small", "url": "%s", "role": "interactive"}, {"name": "big", "url": "%s", "role": "workhorse"}]}\n' \
		"$1" "$2" >"$XDG_CONFIG_HOME/hearth/settings.json"
}
chats() { # LOG: the number of chat requests in it
	grep -c '"event": "request".*"path": "/v1/chat/completions"' "$1"
}
# wait_for FILE TEXT SECONDS: until FILE holds TEXT (bounded).
wait_for() {
	_n=$(($3 * 10))
	while [ $_n -gt 0 ] && ! grep -q "$2" "$1" 2>/dev/null; do
		sleep 0.1
		_n=$((_n - 1))
	done
}

# ---- the start tier is down at launch: skipped at once; back later -------
SMALL_PORT=$(closed_port)
printf '{"turns": [{"text": "BIG-ONE"}, {"text": "UNEXPECTED: big again"}]}\n' >"$E2E_TMP/big.json"
printf '{"turns": [{"text": "SMALL-BACK"}]}\n' >"$E2E_TMP/small.json"
mock_start "$E2E_TMP/big.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
settings "http://127.0.0.1:$SMALL_PORT" "$BIG_URL"
FIFO=$E2E_TMP/in.fifo
mkfifo "$FIFO"
(cd "$REPO" && timeout -k 5 60 "$HEARTH_BIN" --line <"$FIFO" >"$E2E_TMP/launch.out" 2>&1) &
HPID=$!
exec 7>"$FIFO"
wait_for "$E2E_TMP/launch.out" "does not answer" 10
T0=$(date +%s)
printf 'say hi\n' >&7
wait_for "$E2E_TMP/launch.out" BIG-ONE 15
T1=$(date +%s)
check "launch: the dead start tier is skipped at once, with a notice that says what happens" \
	grep -q "small does not answer; turns start on big (workhorse) until it does (hearth keeps asking)" "$E2E_TMP/launch.out"
check "launch: the turn went to big with the reason, without waiting for small" sh -c \
	'grep -q "→ big (workhorse): small is down; skipped" "$1" && grep -q BIG-ONE "$1" && test $(($3 - $2)) -le 5' \
	- "$E2E_TMP/launch.out" "$T0" "$T1"
check "launch: no first-run screen (another tier serves)" sh -c '! grep -q "hearth needs a llama-server" "$1"' - "$E2E_TMP/launch.out"
mock_start "$E2E_TMP/small.json" --port "$SMALL_PORT"
SMALL_LOG=$MOCK_LOG
wait_for "$E2E_TMP/launch.out" "answers again" 15
check "launch: small coming up is noticed and said" grep -q "127.0.0.1:$SMALL_PORT answers again: turns start there" "$E2E_TMP/launch.out"
printf 'and now\n' >&7
wait_for "$E2E_TMP/launch.out" SMALL-BACK 15
exec 7>&-
wait "$HPID"
check "launch: the next turn started on small again" sh -c \
	'grep -q SMALL-BACK "$1" && test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$2")" = 1 &&
	 test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$3")" = 1' - "$E2E_TMP/launch.out" "$SMALL_LOG" "$BIG_LOG"

# ---- a plain server (no /slots) dies mid-session and comes back ------------
printf '{"plain": true, "turns": [{"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}, {"hang": true}]}\n' >"$E2E_TMP/plain1.json"
printf '{"plain": true, "turns": [{"text": "PLAIN-SMALL-AGAIN"}]}\n' >"$E2E_TMP/plain2.json"
printf '{"turns": [{"text": "BIG-CARRIED-ON"}, {"text": "UNEXPECTED: big on the second turn"}]}\n' >"$E2E_TMP/big2.json"
mock_start "$E2E_TMP/plain1.json"
P1_PID=$MOCK_PID P1_LOG=$MOCK_LOG P_PORT=$MOCK_PORT P_URL=$MOCK_URL
mock_start "$E2E_TMP/big2.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
settings "$P_URL" "$BIG_URL"
rm -f "$FIFO"
mkfifo "$FIFO"
(cd "$REPO" && timeout -k 5 90 "$HEARTH_BIN" --line <"$FIFO" >"$E2E_TMP/back.out" 2>&1) &
HPID=$!
exec 7>"$FIFO"
wait_for "$E2E_TMP/back.out" "type a task" 10
printf 'list the files\n' >&7
_n=200
while [ "$(chats "$P1_LOG")" -lt 2 ] && [ $_n -gt 0 ]; do
	sleep 0.1
	_n=$((_n - 1))
done
kill -9 "$P1_PID"
wait_for "$E2E_TMP/back.out" BIG-CARRIED-ON 20
check "plain: the turn went on on big when small died" grep -q "→ big (workhorse): small stopped answering; skipped, the session goes on" "$E2E_TMP/back.out"
sleep 1
mock_start "$E2E_TMP/plain2.json" --port "$P_PORT"
P2_LOG=$MOCK_LOG
# the liveness checks back off (2 s, 4 s, 8 s...): small is seen up within ~15 s
_n=250
while ! grep -q '"path": "/health"' "$P2_LOG" 2>/dev/null && [ $_n -gt 0 ]; do
	sleep 0.1
	_n=$((_n - 1))
done
sleep 1
printf 'again\n' >&7
wait_for "$E2E_TMP/back.out" PLAIN-SMALL-AGAIN 15
exec 7>&-
wait "$HPID"
check "plain: small (no /slots) was asked again and took the next turn" sh -c \
	'grep -q PLAIN-SMALL-AGAIN "$1" && test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$2")" = 1' - "$E2E_TMP/back.out" "$P2_LOG"
check "plain: it was asked with GET /health, then /v1/models (it has no /health)" python3 -c '
import json, sys
paths = [json.loads(l)["path"] for l in open(sys.argv[1]) if "\"request\"" in l]
i = paths.index("/health")
assert "/v1/models" in paths[i:], paths' "$P2_LOG"
check "plain: big got only the turn small could not finish" test "$(chats "$BIG_LOG")" = 1

[ -n "${KEEP:-}" ] && cp -r "$E2E_TMP" "$KEEP"
e2e_finish
