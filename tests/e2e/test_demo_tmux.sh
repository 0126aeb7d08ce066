#!/bin/sh
# End-to-end in tmux: `hearth --demo` replays a recorded session in the full
# screen with no server and no key: the slot panel, the prefill bar with its
# ETA, a diff, an undo, an escalation to Claude with its reason; q and
# Ctrl-C leave it cleanly (exit 0, the terminal given back), and it runs
# nothing: the directory it starts in stays empty.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

if [ ! -x "$HEARTH_BIN" ]; then
	not_ok "hearth binary present" "HEARTH_BIN=$HEARTH_BIN"
	e2e_finish
fi
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-demo
EMPTY=$E2E_TMP/empty
mkdir -p "$EMPTY"
# no server anywhere: a closed port, so a demo that tried to connect would show it
HEARTH_SERVER=http://127.0.0.1:9
export HEARTH_SERVER

screen() { tmux_wait demo "$@"; }
start() {
	$T new-session -d -s s -x 140 -y 45 \
		"cd '$EMPTY' && '$HEARTH_BIN' --demo; echo HEARTH_EXITED rc=\$?; sleep 30"
}

start
screen slots 'slot 0 +PREFILL .*◀ you' 100
screen slot_idle 'slot 1 +idle'
screen prefill_bar '█+░* +[0-9]+%' 50
screen eta 'ETA [0-9]+\.[0-9]s' 50
screen model 'Qwen3\.5-9B'
screen diff_del '15 -  +for \(size_t i = 0; i <= c->n; i\+\+\)' 150
screen diff_add '15 \+  +for \(size_t i = 0; i < c->n; i\+\+\)' 20
screen tool_failed 'bash make test .*✗' 100
screen undo 'undo: 1 file' 150
screen undo_file 'M src/cart\.c \+1 -1'
screen escalation '→ claude \(consult\): `make test` still failing after 3 edit-test cycles' 250
screen route_claude 'gguf · claude' 30
screen end 'end of the demo: q quits' 200
$T send-keys -t s q
screen quit_q 'HEARTH_EXITED rc=0' 50
screen screen_restored '^HEARTH_EXITED' 10
check "the demo wrote nothing where it ran" test -z "$(ls -A "$EMPTY")"
$T kill-session -t s 2>/dev/null

# Ctrl-C in the middle of the prefill
start
screen prefill_again 'PREFILL' 100
$T send-keys -t s C-c
screen quit_ctrl_c 'HEARTH_EXITED rc=0' 50

e2e_finish
