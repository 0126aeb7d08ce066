#!/bin/sh
# End-to-end: /fork in both interactive front ends.  The line session
# (piped input) lists the typed messages and forks before message 2: a
# second session file appears, recording the first as forked_from, with
# only the messages before the fork point, while the first file keeps all
# of them.  In the full screen (tmux), /fork 2 puts message 2 back into
# the editor.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
SESSIONS=$XDG_STATE_HOME/hearth/sessions
export SESSIONS

# ---- line session ----------------------------------------------------------
mock_start plain
printf 'First task FORK_A.\nSecond task FORK_B.\n/fork\n/fork 2\n' |
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" \
	>"$E2E_TMP/line.out" 2>"$E2E_TMP/line.err"
RC=$? OUT=$E2E_TMP/line.out ERR=$E2E_TMP/line.err
check_rc "line /fork: exit status 0" 0
check "line /fork: the typed messages are listed" grep -q '  2  Second task FORK_B.' "$OUT"
check "line /fork: the fork is announced with the message" grep -q 'forked session .* before message 2' "$OUT"
check "line /fork: two session files; the fork records its parent and keeps 2 messages" pycheck '
import glob
files = sorted(glob.glob(os.environ["SESSIONS"] + "/*/*.jsonl"))
need(len(files) == 2, "files %r" % files)
rows = {f: [json.loads(l) for l in open(f, encoding="utf-8")] for f in files}
fork = [f for f in files if any(r.get("type") == "meta" and r["meta"].get("forked_from") for r in rows[f])]
need(len(fork) == 1, "no file with forked_from")
orig = [f for f in files if f not in fork][0]
parent = [r["meta"]["forked_from"] for r in rows[fork[0]] if r.get("type") == "meta" and r["meta"].get("forked_from")][0]
need(parent.split()[0] == os.path.basename(orig)[:-6], "forked_from %r vs %r" % (parent, orig))
msgs = lambda f: [r for r in rows[f] if r.get("type") == "message"]
need(len(msgs(orig)) == 4, "original has %d messages" % len(msgs(orig)))
need(len(msgs(fork[0])) == 2, "fork has %d messages" % len(msgs(fork[0])))'
mock_stop

# ---- full screen -------------------------------------------------------------
if command -v tmux >/dev/null 2>&1; then
	tmux_setup hearth-fork
	mock_start plain
	$T new-session -d -s s -x 100 -y 30 \
		"cd '$REPO' && '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
	tmux_wait fork ready "type a task"
	$T send-keys -t s "Alpha task FORK_C." Enter
	tmux_wait fork answer1 "The answer is 42."
	$T send-keys -t s "Beta task FORK_D." Enter
	sleep 1
	$T send-keys -t s "/fork" Enter
	tmux_wait fork list "2  Beta task FORK_D."
	$T send-keys -t s "/fork 2" Enter
	tmux_wait fork forked "→ forked session [0-9]"
	tmux_wait fork editor "› Beta task FORK_D."
	$T send-keys -t s C-c C-c
	tmux_wait fork quit "HEARTH_EXITED rc=0"
	cleanup_tmux
	mock_stop
else
	skip "fork tui" "tmux not installed"
fi

e2e_finish
