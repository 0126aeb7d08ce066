#!/bin/sh
# End-to-end in tmux: the line-mode session as a person sees it — the
# first-run screen without a server, a streamed answer, an edit shown as a
# diff, /help, /undo, an escape sequence in the answer shown as text, and
# Ctrl-D to leave.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-e2e
REPO=$E2E_TMP/repo
make_repo "$REPO"

# screen NAME PATTERN [TENTHS]: wait until the pane shows PATTERN
screen() { tmux_wait tmux "$@"; }

# ---- no server: the first-run screen --------------------------------------
$T new-session -d -s s -x 100 -y 30 "cd '$REPO' && '$HEARTH_BIN' --line --server http://127.0.0.1:9"
screen first_run "needs a llama-server"
screen first_run_how "llama-server -m MODEL.gguf --jinja"
$T send-keys -t s C-c
sleep 0.3
cleanup_tmux

# ---- an edit, /help, /undo ------------------------------------------------
mock_start edit_flow
$T new-session -d -s s -x 100 -y 40 "cd '$REPO' && '$HEARTH_BIN' --line --server '$MOCK_URL'"
screen banner "local-tiny"
$T send-keys -t s "Change the greeting." Enter
screen answer "Changed the greeting in hello.c."
screen diff '^\+.*hello, world'
check "tmux: the file was edited" grep -q 'hello, world' "$REPO/hello.c"
$T send-keys -t s "/help" Enter
screen help "/undo"
$T send-keys -t s "/undo" Enter
screen undo_ask 'undo would restore 1 file|undo\? \[y/N\]'
check "tmux: /undo asked before restoring" grep -qF 'hello, world' "$REPO/hello.c"
$T send-keys -t s "y" Enter
screen undo "undo: 1 file"
check "tmux: /undo restored the file" grep -qF 'printf("hello\n")' "$REPO/hello.c"
printf 'Reloaded rule RELOAD_4e1.\n' >"$REPO/AGENTS.md"
$T send-keys -t s "/reload" Enter
screen reload "context files reloaded"
$T send-keys -t s "And now?" Enter
screen after_reload "done\\."
check "tmux: after /reload the prompt carries the new AGENTS.md (session part: first user message)" pycheck '
need(CHAT and "RELOAD_4e1" in text_of(CHAT[-1]["messages"][0].get("content")) + text_of(CHAT[-1]["messages"][1].get("content")), "system message or the first user message")'
$T send-keys -t s C-d
sleep 0.5
check "tmux: Ctrl-D leaves hearth" sh -c "! $T has-session -t s 2>/dev/null"
rm -f "$REPO/AGENTS.md"
mock_stop

# ---- escape sequences in the answer are shown, not executed ----------------
mock_start escapes
$T new-session -d -s s -x 100 -y 30 "cd '$REPO' && '$HEARTH_BIN' --line --server '$MOCK_URL'"
screen banner2 "local-tiny"
$T send-keys -t s "Show me." Enter
screen escapes_visible '\^\['
check "tmux: the screen was not cleared by the answer" grep -q "local-tiny" "$E2E_TMP/pane.escapes_visible"
cleanup_tmux
mock_stop

e2e_finish
