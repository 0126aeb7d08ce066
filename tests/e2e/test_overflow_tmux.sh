#!/bin/sh
# End-to-end in tmux: in the full screen, a turn the server rejects as too
# long for its context shows its user message marked as rejected (not only
# the notice), and the next message goes out without it (issue 14 item 4).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-overflow
REPO=$E2E_TMP/repo
make_repo "$REPO"
python3 -c 'print("BIGMARKER " + "x" * 20000)' >"$REPO/big.txt"
printf '{"turns": [{"text": "First answer."}, {"http_error": 400, "body_fixture": "error_context_exceeded.txt"}, {"text": "Hello back."}]}\n' \
	>"$E2E_TMP/over.json"

screen() { tmux_wait tmux "$@"; }

mock_start "$E2E_TMP/over.json"
$T new-session -d -s s -x 120 -y 40 \
	"cd '$REPO' && '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
screen ready "type a task"
$T send-keys -t s "Say something short." Enter
screen first "First answer\\."
check "tmux: no message marked rejected before the overflow" sh -c '! grep -q "rejected" "$1"' _ "$E2E_TMP/pane.first"
$T send-keys -t s "Summarise @big.txt please." Enter
screen notice "left out of the conversation" 100
# the rejected message, then its mark on the next row
check "tmux: the rejected message is marked under it" python3 -c '
import sys
rows = [l.rstrip() for l in open(sys.argv[1], encoding="utf-8", errors="replace")]
i = [k for k, l in enumerate(rows) if "Summarise @big.txt please." in l and "›" in l]
assert i, "message not shown"
nxt = [l for l in rows[i[-1] + 1:] if l.strip()]
assert nxt and "✗ rejected" in nxt[0], "row after it: %r" % (nxt[:1],)
first = [k for k, l in enumerate(rows) if "Say something short." in l]
assert first and not any("rejected" in l for l in rows[first[0] + 1:first[0] + 2]), "the first message is marked"
' "$E2E_TMP/pane.notice"
$T send-keys -t s "hi" Enter
screen after "Hello back\\."
check "tmux: the mark stays after the next turn" grep -q "✗ rejected" "$E2E_TMP/pane.after"
check "tmux: the next request goes out without the rejected message" pycheck '
text = json.dumps(CHAT[-1]["messages"])
need("BIGMARKER" not in text and "Summarise" not in text, "rejected turn sent again")
need("Say something short." in text and "hi" in text, "history lost")'
$T send-keys -t s C-c
sleep 0.3
cleanup_tmux
mock_stop
e2e_finish
