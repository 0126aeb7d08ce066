#!/bin/sh
# End-to-end in tmux: `hearth -r` on a terminal opens the full-screen
# picker — this directory's sessions newest first with their first prompt
# and age; typing filters, Enter resumes the selected session in the full
# screen, Esc leaves without starting a session.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	skip "picker" "tmux not installed"
	e2e_finish
fi
tmux_setup hearth-picker
REPO=$E2E_TMP/repo
make_repo "$REPO"
mock_start plain
hearth_run one -p --server "$MOCK_URL" --cwd "$REPO" "Older task PICK_ALPHA."
check_rc "first session saved" 0
sleep 1.1
hearth_run two -p --server "$MOCK_URL" --cwd "$REPO" "Newer task PICK_BETA."
check_rc "second session saved" 0
OLDER=$(grep -l PICK_ALPHA "$XDG_STATE_HOME"/hearth/sessions/*/*.jsonl)
OLDER_ID=$(basename "$OLDER" .jsonl)

start() {
	$T new-session -d -s s -x 100 -y 20 \
		"cd '$REPO' && '$HEARTH_BIN' -r --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
}

# ---- search and Enter ---------------------------------------------------------
start
tmux_wait picker list "Resume a session .* 2 of 2"
tmux_wait picker newest_first "› Newer task PICK_BETA"
check "picker: the older session is listed below the newer one" python3 -c '
import sys
t = open(sys.argv[1], encoding="utf-8").read()
sys.exit(not (0 <= t.find("PICK_BETA") < t.find("PICK_ALPHA")))' "$E2E_TMP/pane.newest_first"
check "picker: the age is shown" grep -q "msgs · just now\|msgs · [0-9]*m ago" "$E2E_TMP/pane.newest_first"
$T send-keys -t s "alpha"
tmux_wait picker filtered "1 of 2"
$T send-keys -t s Enter
tmux_wait picker resumed "resumed session $OLDER_ID"
$T send-keys -t s C-c C-c
tmux_wait picker quit "HEARTH_EXITED rc=0"
cleanup_tmux

# ---- Esc cancels ----------------------------------------------------------------
tmux_setup hearth-picker2 # a fresh server: reusing the socket of the one just killed races
start
tmux_wait picker list2 "Resume a session"
$T send-keys -t s Escape
tmux_wait picker cancelled "HEARTH_EXITED rc=0"
check "picker: Esc started no session (still two files)" sh -c \
	"[ \$(ls '$XDG_STATE_HOME'/hearth/sessions/*/*.jsonl | wc -l) -eq 2 ]"
cleanup_tmux

# ---- Delete: asks, y deletes the session and its slot files ----------------------
tmux_setup hearth-picker3
mkdir -p "$XDG_STATE_HOME/hearth/slots"
printf x >"$XDG_STATE_HOME/hearth/slots/hearth-$OLDER_ID.bin"
start
tmux_wait picker list3 "Resume a session .* 2 of 2"
$T send-keys -t s Down DC
tmux_wait picker ask_delete "delete session $OLDER_ID \\(Older task PICK_ALPHA"
$T send-keys -t s n
tmux_wait picker kept "not deleted"
check "picker: n keeps the session" test -f "$OLDER"
$T send-keys -t s DC
tmux_wait picker ask_again "delete session $OLDER_ID"
$T send-keys -t s y
tmux_wait picker deleted "deleted session $OLDER_ID \\(2 files"
tmux_wait picker one_left "Resume a session .* 1 of 1"
check "picker: the session file and its slot file are gone" sh -c \
	"! test -e '$OLDER' && ! test -e '$XDG_STATE_HOME/hearth/slots/hearth-$OLDER_ID.bin'"
check "picker: the other session stays" sh -c \
	"[ \$(ls '$XDG_STATE_HOME'/hearth/sessions/*/*.jsonl | wc -l) -eq 1 ]"
$T send-keys -t s Escape
tmux_wait picker cancelled3 "HEARTH_EXITED rc=0"
cleanup_tmux
mock_stop
e2e_finish
