#!/bin/sh
# End-to-end in tmux: what the full screen shows beyond a live turn — a
# session made by `hearth -p` resumed with -c (its question, answer and the
# edit's diff drawn on start), `/` search in the transcript, and the
# full-screen diff viewer (opened with /diff and from a tool line, n to the
# next hunk, q to close).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-tview
REPO=$E2E_TMP/repo
make_repo "$REPO"

screen() { tmux_wait tview "$@"; }

# screen_row NAME ROW PATTERN: wait until row ROW (1-based) of the pane matches PATTERN
screen_row() {
	_i=0
	while [ $_i -lt 50 ]; do
		$T capture-pane -p -t s >"$E2E_TMP/pane.$1" 2>/dev/null
		if sed -n "$2p" "$E2E_TMP/pane.$1" | grep -Eq "$3"; then
			ok "tview: $1"
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	not_ok "tview: $1" "row $2 of the pane does not show /$3/:"
	sed 's/^/#   /' "$E2E_TMP/pane.$1"
}

# A fake editor: logs its arguments (e in the diff viewer opens the place shown).
ED=$E2E_TMP/fake-editor.sh
printf '#!/bin/sh\necho "$@" >>"%s/editor.log"\n' "$E2E_TMP" >"$ED"
chmod +x "$ED"

# start W H ARGS...: hearth --tui in a fresh detached session of W x H cells.
start() {
	_w=$1 _h=$2
	shift 2
	$T new-session -d -s s -x "$_w" -y "$_h" \
		"cd '$REPO' && VISUAL= EDITOR='$ED' HOME='$HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$HEARTH_BIN' --tui $*; echo HEARTH_EXITED rc=\$?; sleep 30"
}

# ---- a print-mode session resumed in the full screen -------------------------
mock_start edit_flow
hearth_run print -p --server "$MOCK_URL" --cwd "$REPO" "Change the greeting."
check_rc "print run: exit status 0" 0
mock_stop
git -C "$REPO" checkout -q hello.c
mock_start plain
start 120 40 -c --server "$MOCK_URL"
screen resumed "resumed session"
check "resume: the earlier question is drawn" grep -q '› Change the greeting.' "$E2E_TMP/pane.resumed"
check "resume: the earlier edit is drawn as a tool line" grep -q '● edit' "$E2E_TMP/pane.resumed"
check "resume: the edit's diff is drawn" grep -Eq '\+.*hello, world' "$E2E_TMP/pane.resumed"
check "resume: the earlier answer is drawn" grep -q 'Changed the greeting in hello.c.' "$E2E_TMP/pane.resumed"
$T send-keys -t s C-c C-c
screen resumed_quit "HEARTH_EXITED rc=0"
cleanup_tmux
mock_stop

# ---- the diff viewer: /diff after an edit, n, q; Ctrl-T on the edit --------
mock_start edit_flow
start 160 40 --server "$MOCK_URL"
screen dv_ready "type a task"
$T send-keys -t s "Change the greeting." Enter
screen dv_answer "Changed the greeting in hello.c."
$T send-keys -t s "/diff" Enter
screen dv_open "diff · file 1/1 · hunk"
check "diff viewer: side by side at 160 columns" grep -Eq '│ +[0-9]+ \+ .*hello, world' "$E2E_TMP/pane.dv_open"
check "diff viewer: the old line on the left" grep -Eq '^ +[0-9]+ - .*│' "$E2E_TMP/pane.dv_open"
$T send-keys -t s n
screen_row dv_next 2 '^@@ -[0-9]'
$T send-keys -t s e
_i=0
while [ $_i -lt 50 ] && [ ! -s "$E2E_TMP/editor.log" ]; do sleep 0.1; _i=$((_i + 1)); done
screen dv_edited "diff · file 1/1"
check "diff viewer: e opened the hunk's place in \$EDITOR" grep -Eq '^\+[0-9]+ .*hello.c$' "$E2E_TMP/editor.log"
$T send-keys -t s q
screen dv_closed "Changed the greeting in hello.c."
check "diff viewer: q gave the transcript back" sh -c "! grep -q 'diff · file' '$E2E_TMP/pane.dv_closed'"
$T send-keys -t s C-t
screen dv_tool "diff · file 1/1"
check "diff viewer: Ctrl-T opened the edit's diff" grep -q 'hello.c' "$E2E_TMP/pane.dv_tool"
$T send-keys -t s Escape
screen dv_tool_closed "Changed the greeting in hello.c."
# ---- search: Ctrl-F, incremental, Enter then n, Esc --------------------------
$T send-keys -t s C-f
screen search_prompt "type to search"
$T send-keys -t s "greeting"
screen search_found '/greeting  1/[0-9]+'
$T send-keys -t s Enter
screen search_browse 'n/N next/prev'
$T send-keys -t s n
screen search_next '/greeting  2/[0-9]+'
$T send-keys -t s Escape
screen search_left 'ctrl-o open'
check "search: Esc took the prompt away" sh -c "! grep -q '/greeting  ' '$E2E_TMP/pane.search_left'"
$T send-keys -t s C-c C-c
screen dv_quit "HEARTH_EXITED rc=0"
cleanup_tmux
mock_stop

e2e_finish
