#!/bin/sh
# End-to-end in tmux, at 120x32 and 60x20 (issue 15, item 12): what cannot
# be checkpointed is said once a session, not every turn.  A file over the
# snapshot limit (sparse, 65 MB) that each turn's bash call touches would
# be "not checkpointed" at every checkpoint; the whole transcript (scroll-back
# included) shows the line once over three turns.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-notices
REPO=$E2E_TMP/repo
screen() { tmux_wait notices "$@"; }

cat >"$E2E_TMP/three.json" <<'EOS'
{"turns": [
  {"tool_calls": [{"name": "bash", "arguments": {"command": "echo one >> huge.bin && echo one > a.txt"}}]},
  {"text": "Turn one over."},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "echo two >> huge.bin && echo two > a.txt"}}]},
  {"text": "Turn two over."},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "echo three >> huge.bin && echo three > a.txt"}}]},
  {"text": "Turn three over."}
]}
EOS

for SIZE in 120x32 60x20; do
	W=${SIZE%x*}
	H=${SIZE#*x}
	cleanup_tmux
	rm -rf "$REPO" && make_repo "$REPO"
	truncate -s 65M "$REPO/huge.bin"
	mock_start "$E2E_TMP/three.json"
	$T new-session -d -s s -x "$W" -y "$H" \
		"cd '$REPO' && '$HEARTH_BIN' --tui --approval yolo --sandbox off --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
	screen "ready_$SIZE" "type a task"
	$T send-keys -t s "first" Enter
	screen "one_$SIZE" "Turn one over\." 100
	$T send-keys -t s "second" Enter
	screen "two_$SIZE" "Turn two over\." 100
	$T send-keys -t s "third" Enter
	screen "three_$SIZE" "Turn three over\." 100
	# the whole transcript, scrolled back included
	$T capture-pane -p -S - -E - -t s >"$E2E_TMP/all_$SIZE"
	n=$(grep -c 'huge.bin: not checkpointed' "$E2E_TMP/all_$SIZE")
	if [ "$n" = 1 ]; then
		ok "notices $SIZE: \"huge.bin: not checkpointed\" said once over three turns"
	else
		not_ok "notices $SIZE: \"huge.bin: not checkpointed\" said once over three turns" "said $n times:"
		sed 's/^/#   /' "$E2E_TMP/all_$SIZE" | tail -40
	fi
	check "notices $SIZE: each turn's bash call ran (the file was touched three times)" \
		sh -c "[ \"\$(tail -c 14 '$REPO/huge.bin')\" = \"\$(printf 'one\\ntwo\\nthree')\" ]"
	$T send-keys -t s C-c C-c
	screen "quit_$SIZE" "HEARTH_EXITED rc=0"
	mock_stop
done
e2e_finish
