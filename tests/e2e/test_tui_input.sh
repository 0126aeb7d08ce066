#!/bin/sh
# End-to-end in tmux: the full screen's input features as a person uses them —
# Ctrl-G edits the prompt in $EDITOR (a script that rewrites the file; one
# that fails leaves the prompt alone with a notice), /open FILE:LINE runs
# the editor with +LINE (and in a new tmux pane with open_in: tmux-pane),
# and --theme, the theme setting and /theme choose, list and switch themes.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-input
REPO=$E2E_TMP/repo
make_repo "$REPO"

# A fake editor: logs its arguments; with $E2E_TMP/ed.fail present exits 3;
# otherwise rewrites "draft" to "EDITED-BY-SCRIPT" in the last argument.
ED=$E2E_TMP/fake-editor.sh
cat >"$ED" <<EOS
#!/bin/sh
printf '%s\n' "\$*" >>'$E2E_TMP/ed.log'
[ -f '$E2E_TMP/ed.fail' ] && exit 3
for last; do :; done
ls -l "\$last" | cut -c1-10 >>'$E2E_TMP/ed.mode'
sed 's/draft/EDITED-BY-SCRIPT/' "\$last" >"\$last.new" && cat "\$last.new" >"\$last" && rm -f "\$last.new"
EOS
chmod +x "$ED"

screen() { tmux_wait input "$@"; }

# start W H URL [FLAGS]: hearth in a fresh detached session with the fake editor.
start() {
	$T new-session -d -s s -x "$1" -y "$2" \
		"cd '$REPO' && VISUAL= EDITOR='$ED' '$HEARTH_BIN' --tui --server '$3' ${4:-}; echo HEARTH_EXITED rc=\$?; sleep 30"
}

mock_start plain
start 100 30 "$MOCK_URL" "--theme light"
screen ready "type a task"

# ---- Ctrl-G ---------------------------------------------------------------
$T send-keys -t s "my draft prompt"
screen typed "my draft prompt"
$T send-keys -t s C-g
screen edited "my EDITED-BY-SCRIPT prompt"
check "input: the temporary file was private (0600)" grep -q -- '-rw-------' "$E2E_TMP/ed.mode"
check "input: the temporary file was removed" \
	sh -c "! ls /tmp/hearth-prompt-* 2>/dev/null | grep -q ."
check "input: the screen came back (status line)" grep -q "local-tiny" "$E2E_TMP/pane.edited"
touch "$E2E_TMP/ed.fail"
$T send-keys -t s " more" C-g
screen edit_failed "fake-editor.sh. exited with"
check "input: a failed edit keeps the prompt" \
	grep -q "my EDITED-BY-SCRIPT prompt more" "$E2E_TMP/pane.edit_failed"
rm -f "$E2E_TMP/ed.fail"
$T send-keys -t s C-u
# ---- /open ----------------------------------------------------------------
: >"$E2E_TMP/ed.log"
$T send-keys -t s "/open hello.c:5" Enter
screen opened "opened hello.c:5"
check "input: /open ran the editor with +LINE and the file" \
	grep -q "^+5 .*/repo/hello.c$" "$E2E_TMP/ed.log"
$T send-keys -t s "/open nope.c" Enter
screen open_missing "/open nope.c: .*No such file"

# ---- themes ---------------------------------------------------------------
$T send-keys -t s "/theme" Enter
screen theme_list "theme: light \(available: default, dark, light, high-contrast"
$T send-keys -t s "/theme high-contrast" Enter
screen theme_switched "theme: high-contrast"
$T send-keys -t s "/theme nosuch" Enter
screen theme_unknown "unknown theme 'nosuch'"
$T send-keys -t s C-c C-c
screen quit "HEARTH_EXITED rc=0"
cleanup_tmux

# ---- /open in a tmux pane ------------------------------------------------------
mkdir -p "$REPO/.hearth"
printf '{ "open_in": "tmux-pane", "theme": "dark" }\n' >"$REPO/.hearth/settings.json"
: >"$E2E_TMP/ed.log"
start 120 30 "$MOCK_URL"
screen pane_ready "type a task"
$T send-keys -t s "/open hello.c:3" Enter
screen pane_opened "opened hello.c:3 in a tmux pane"
_i=0
while [ $_i -lt 50 ] && ! grep -q hello.c "$E2E_TMP/ed.log"; do sleep 0.1; _i=$((_i + 1)); done
check "input: the editor ran in a new pane with +LINE" grep -q "^+3 .*/repo/hello.c$" "$E2E_TMP/ed.log"
# the fake editor exits at once, so its pane closes and hearth's is the one left
_i=0
while [ $_i -lt 50 ] && [ "$($T list-panes -t s 2>/dev/null | wc -l)" -gt 1 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
$T send-keys -t s "/theme" Enter
screen pane_still_running "theme: dark \(available"
cleanup_tmux
mock_stop

# ---- during a turn the foreground editor is refused (the stream would stall) ----
rm -f "$REPO/.hearth/settings.json"
: >"$E2E_TMP/ed.log"
mock_start slow
start 100 30 "$MOCK_URL"
screen busy_ready "type a task"
$T send-keys -t s "Take your time." Enter
screen busy "esc stop" 30
$T send-keys -t s C-g
screen busy_ctrl_g "Ctrl-G: not while a turn runs"
$T send-keys -t s Escape
screen busy_stopped " 1 turn " 30
check "input: the editor did not run during the turn" test ! -s "$E2E_TMP/ed.log"
$T send-keys -t s C-d
cleanup_tmux
mock_stop
e2e_finish
