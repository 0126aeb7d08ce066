#!/bin/sh
# End-to-end: @path references attach the file to the user's message —
# in print mode, in the line session and in the full screen (where Tab
# completes the path) — checked in what the mock server received; files
# outside the workspace, too big or binary are not attached and say so.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
head -c 300000 /dev/zero | tr '\0' 'x' >"$REPO/big.txt"
printf 'outside-secret-31b7\n' >"$E2E_TMP/outside.txt"

# last_user NEEDLE: the last user message of the first chat request contains NEEDLE
last_user() {
	pycheck '
msgs = [m for m in CHAT[0]["messages"] if m["role"] == "user"]
t = text_of(msgs[-1]["content"])
need(ARGS[0] in t, "last user message lacks %r: %r" % (ARGS[0], t[:300]))' "$1"
}

# ---- print mode -----------------------------------------------------------
mock_start plain
(cd "$REPO" && hearth_run print -p --server "$MOCK_URL" "explain @hello.c please" &&
	echo "$RC" >"$E2E_TMP/rc")
OUT=$E2E_TMP/print.out ERR=$E2E_TMP/print.err RC=$(cat "$E2E_TMP/rc")
check_rc "print: exit status 0" 0
check "print: the mock received hello.c's content" last_user "HEARTH_MARKER_7f3a"
check "print: inside a <file> block after the task" last_user '<file path="hello.c">'
check "print: the task itself is kept" last_user "explain @hello.c please"
mock_stop

mock_start plain
(cd "$REPO" && hearth_run refuse -p --server "$MOCK_URL" \
	"look at @../outside.txt and @big.txt and @missing/x.c" && echo "$RC" >"$E2E_TMP/rc")
OUT=$E2E_TMP/refuse.out ERR=$E2E_TMP/refuse.err RC=$(cat "$E2E_TMP/rc")
check_rc "refuse: exit status 0 (the task still runs)" 0
check "refuse: outside the workspace is refused on stderr" grep -q "outside.txt: refused" "$ERR"
check "refuse: a big file is named with the limit" grep -q "big.txt: .*attachment limit" "$ERR"
check "refuse: a missing path is reported" grep -q "missing/x.c: no such file" "$ERR"
check "refuse: nothing of the outside file reached the server" pycheck '
need("outside-secret-31b7" not in json.dumps(CHAT), "outside content was sent")'
check "refuse: the big file was not sent" pycheck '
need("xxxxxxxxxxxxxxxxxxxx" not in json.dumps(CHAT), "big content was sent")'
mock_stop

# ---- line session (piped) -------------------------------------------------------
mock_start plain
(cd "$REPO" && hearth_run_stdin line "what does @hello.c print?" --line --server "$MOCK_URL" &&
	echo "$RC" >"$E2E_TMP/rc")
OUT=$E2E_TMP/line.out ERR=$E2E_TMP/line.err
check "line: the mock received hello.c's content" last_user "HEARTH_MARKER_7f3a"
check "line: the attachment is announced" grep -q "attached hello.c" "$OUT"
mock_stop

# ---- full screen: Tab completes, Enter attaches ------------------------------------
if command -v tmux >/dev/null 2>&1; then
	tmux_setup hearth-atref
	mock_start plain
	$T new-session -d -s s -x 100 -y 30 \
		"cd '$REPO' && '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED; sleep 30"
	tmux_wait atref ready "type a task"
	$T send-keys -t s "explain @hel" Tab
	tmux_wait atref completed "explain @hello.c"
	$T send-keys -t s "now" Enter
	tmux_wait atref attached "attached hello.c"
	mock_wait_request /v1/chat/completions 50
	check "tui: the mock received hello.c's content" last_user "HEARTH_MARKER_7f3a"
	check "tui: the completed path (and its space) were sent" last_user "explain @hello.c now"
	cleanup_tmux
	mock_stop
fi
e2e_finish
