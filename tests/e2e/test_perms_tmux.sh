#!/bin/sh
# End-to-end in tmux: the approval question as a person sees it.
#   full screen: a bash call that changes files opens the question box with
#   the command; n refuses (the model is told), y runs it, a runs it and
#   does not ask again for the same command this session; /approval shows
#   and sets the mode; an edit in mode ask shows the diff before it runs.
#   line session: the same question as text, answered with y.
#   the change asked about is the one that lands (the edit tool's own
#   preview): an edit with replace_all shows every occurrence changed, an
#   edit in a CRLF file shows the hunk where it lands, in the full-screen
#   box and in the line session; after y the file holds exactly that.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-perms
REPO=$E2E_TMP/repo
make_repo "$REPO"

screen() { tmux_wait perms "$@"; }

# a scenario: the same bash call four times (one per turn), then read + edit
cat >"$E2E_TMP/ask.json" <<'EOS'
{"turns": [
  {"tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt && echo made"}}]},
  {"text": "First turn over."},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt && echo made"}}]},
  {"text": "Second turn over."},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt && echo made"}}]},
  {"text": "Third turn over."},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt && echo made"}}]},
  {"text": "Fourth turn over."},
  {"tool_calls": [{"name": "read", "arguments": {"path": "hello.c"}}]},
  {"tool_calls": [{"name": "edit", "arguments": {"path": "hello.c", "old_text": "\tprintf(\"hello\\n\");", "new_text": "\tprintf(\"hello, world\\n\");"}}]},
  {"text": "Edited."}
]}
EOS

# ---- full screen ------------------------------------------------------------
mock_start "$E2E_TMP/ask.json"
$T new-session -d -s s -x 120 -y 40 \
	"cd '$REPO' && HOME='$E2E_TMP/home' '$HEARTH_BIN' --tui --sandbox off --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
screen ready "type a task"
$T send-keys -t s "make a file" Enter
screen box "allow bash: touch made.txt && echo made \\?"
screen box_keys "y yes · n no · a always \\(bash\\(touch made.txt:\\*\\)\\)"
$T send-keys -t s n
screen declined "First turn over."
check "tui: n: the command did not run" test ! -e "$REPO/made.txt"
check "tui: n: the model was told the user declined" pycheck '
tools = [m for m in CHAT[-1]["messages"] if m.get("role") == "tool"]
need(tools and "declined" in str(tools[-1].get("content")), "last tool result: %r" % (tools[-1:],))'
$T send-keys -t s "again" Enter
screen box2 "allow bash: touch made.txt"
# issue 15: while the question is up the call's header has no timer counting the wait
sleep 1.2
screen box2_header "● bash touch made.txt && echo made +waiting to run"
check "tui: the header does not count the approval's time as running" \
	sh -c "! grep -q 'running [0-9]' '$E2E_TMP/pane.box2_header'"
$T send-keys -t s y
screen yes "Second turn over."
check "tui: once approved the call's time is its own (well under the 1.2 s the question was up)" \
	sh -c "grep -Eq '● bash touch made.txt && echo made .* 0\.[0-9]s ✓' '$E2E_TMP/pane.yes'"
check "tui: y: the command ran" test -e "$REPO/made.txt"
rm -f "$REPO/made.txt"
$T send-keys -t s "once more" Enter
screen box3 "allow bash: touch made.txt"
$T send-keys -t s a
screen always "Third turn over."
check "tui: a: the command ran" test -e "$REPO/made.txt"
rm -f "$REPO/made.txt"
$T send-keys -t s "and again" Enter
screen not_asked "Fourth turn over."
check "tui: after a, the same command ran without asking" test -e "$REPO/made.txt"
$T send-keys -t s "/approval" Enter
screen approval_show "approval: auto-edit"
screen approval_sandbox "sandbox: off \\(bash commands that are not read-only ask\\)"
screen approval_rule "allowed this session bash\\(touch made.txt:\\*\\)"
$T send-keys -t s "/approval ask" Enter
screen approval_set "approval: ask \\(every change asks\\)"
$T send-keys -t s "/permissions" Enter
screen permissions_show "permissions in force \\(change the mode with /approval MODE\\)"
$T send-keys -t s "edit it" Enter
screen edit_box "allow edit hello.c \\?"
screen edit_diff '\+.*printf\("hello, world\\n"\);'
check "tui: the file is not edited before the answer" grep -qF 'printf("hello\n")' "$REPO/hello.c"
$T send-keys -t s y
screen edited "Edited\\."
check "tui: y: the edit was made" grep -q 'hello, world' "$REPO/hello.c"
$T send-keys -t s C-c C-c
screen quit "HEARTH_EXITED rc=0"
cleanup_tmux
mock_stop
rm -f "$REPO/made.txt"
git -C "$REPO" checkout -q hello.c

# ---- the preview is what lands: replace_all and a CRLF file -------------------
# twice.txt has "red" twice; dos.txt has CRLF line ends.  Each is read, then
# edited in mode ask; the box must show the change the edit tool will make.
cat >"$E2E_TMP/preview.json" <<'EOS'
{"turns": [
  {"tool_calls": [{"name": "read", "arguments": {"path": "twice.txt"}}]},
  {"tool_calls": [{"name": "edit", "arguments": {"path": "twice.txt", "old_text": "red", "new_text": "blue", "replace_all": true}}]},
  {"text": "Both reds are blue."},
  {"tool_calls": [{"name": "read", "arguments": {"path": "dos.txt"}}]},
  {"tool_calls": [{"name": "edit", "arguments": {"path": "dos.txt", "old_text": "three\nfour", "new_text": "THREE\nFOUR"}}]},
  {"text": "Dos edited."}
]}
EOS
preview_files() {
	printf 'red top\nmid\nred bottom\n' >"$REPO/twice.txt"
	printf 'one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n' >"$REPO/dos.txt"
}
preview_files
mock_start "$E2E_TMP/preview.json"
$T new-session -d -s s -x 120 -y 40 \
	"cd '$REPO' && HOME='$E2E_TMP/home' '$HEARTH_BIN' --tui --approval ask --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
screen pv_ready "type a task"
screen pv_status_sandbox "sandbox: workspace-write \\(bwrap\\)" # the help line, once the probe ended
$T send-keys -t s "recolor" Enter
screen pv_all_box "allow edit twice.txt \\?"
screen pv_all_top '\+blue top'
screen pv_all_bottom '\+blue bottom'
check "tui: replace_all: not written before the answer" grep -q 'red bottom' "$REPO/twice.txt"
$T send-keys -t s y
screen pv_all_done "Both reds are blue\\."
check "tui: replace_all: y wrote both occurrences" \
	sh -c "test \"\$(cat '$REPO/twice.txt')\" = \"\$(printf 'blue top\nmid\nblue bottom')\""
$T send-keys -t s "fix dos" Enter
screen pv_crlf_box "allow edit dos.txt \\?"
screen pv_crlf_hunk '@@ -1,6 \+1,6 @@'
screen pv_crlf_new '\+FOUR'
$T send-keys -t s y
screen pv_crlf_done "Dos edited\\."
check "tui: CRLF: y wrote the hunk shown, line ends kept" \
	sh -c "printf 'one\r\ntwo\r\nTHREE\r\nFOUR\r\nfive\r\nsix\r\n' | cmp -s - '$REPO/dos.txt'"
$T send-keys -t s C-c C-c
screen pv_quit "HEARTH_EXITED rc=0"
cleanup_tmux
mock_stop

# the same in the line session
preview_files
mock_start "$E2E_TMP/preview.json"
$T new-session -d -s s -x 120 -y 40 \
	"cd '$REPO' && HOME='$E2E_TMP/home' '$HEARTH_BIN' --line --approval ask --server '$MOCK_URL'"
screen lpv_ready "type a task"
$T send-keys -t s "recolor" Enter
screen lpv_all_ask '\\? allow edit twice.txt'
screen lpv_all_top '^\+blue top'
screen lpv_all_bottom '^\+blue bottom'
$T send-keys -t s y Enter
screen lpv_all_done "Both reds are blue\\."
check "line: replace_all: y wrote both occurrences" \
	sh -c "test \"\$(cat '$REPO/twice.txt')\" = \"\$(printf 'blue top\nmid\nblue bottom')\""
$T send-keys -t s "fix dos" Enter
screen lpv_crlf_ask '\\? allow edit dos.txt'
screen lpv_crlf_hunk '^@@ -1,6 \+1,6 @@'
$T send-keys -t s y Enter
screen lpv_crlf_done "Dos edited\\."
check "line: CRLF: y wrote the hunk shown, line ends kept" \
	sh -c "printf 'one\r\ntwo\r\nTHREE\r\nFOUR\r\nfive\r\nsix\r\n' | cmp -s - '$REPO/dos.txt'"
$T send-keys -t s C-d
sleep 0.5
cleanup_tmux
mock_stop
rm -f "$REPO/twice.txt" "$REPO/dos.txt"

# ---- line session ------------------------------------------------------------
mock_start bash_touch
$T new-session -d -s s -x 120 -y 30 "cd '$REPO' && HOME='$E2E_TMP/home' '$HEARTH_BIN' --line --sandbox off --server '$MOCK_URL'"
screen line_ready "type a task"
$T send-keys -t s "make a file" Enter
screen line_ask '\? allow bash: touch made.txt && echo made'
screen line_keys 'y = yes, n = no, a = always \(bash\(touch made.txt:\*\)\) \[y/N/a\]'
$T send-keys -t s "maybe" Enter
screen line_again "answer y, n or a"
$T send-keys -t s y Enter
screen line_done "Done with the file."
check "line: y: the command ran" test -e "$REPO/made.txt"
$T send-keys -t s C-d
sleep 0.5
cleanup_tmux
mock_stop

e2e_finish
