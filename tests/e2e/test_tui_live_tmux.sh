#!/bin/sh
# End-to-end in tmux, at 120x32 and at 60x20 (issue 15): what the full
# screen shows while it works, as a person sees it.
#   approval   a bash command longer than the box is wrapped whole (its
#              tail is on screen, no "…" in it), the "a always" rule whole
#   live       the running command's last lines stream under its header;
#              its time counts from the approval, not from the question
#   liveness   a spinner with the turn's time while it runs; the live
#              decode speed of a streaming answer; "scrolled back — End to
#              follow" after PgUp
#   headers    grep shows its pattern, scope and hits; read its range;
#              find and ls their counts
#   focus      Ctrl-P focuses the last call, k moves up, Enter opens the
#              one in focus (not the last), a opens every one
#   notices    a "queued" notice typed during a streaming answer comes
#              after the answer, which stays whole
#   Esc        while a prompt is processed: the prefill bar goes, the
#              panel stops, "[interrupted]" marks the cut
#   read cap   a read of a big file in a small context is cut to what the
#              context can take, with a note on how to read the rest
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-live
REPO=$E2E_TMP/repo
make_repo "$REPO"
# a file of 3000 numbered lines (~100 KB) for the read cap
python3 -c 'import sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 3001):
        f.write("line %04d of the big file, padded to be long enough: %s\n" % (i, "x" * 20))' "$REPO/big.txt"

# The long command: ~250 characters, its tail after a ";" (what a cut hid)
PAD=$(printf 'pad%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
LONGCMD="touch live.txt; for i in 1 2 3 4 5 6 7 8; do echo live-line-\$i; sleep 0.4; done; echo $PAD; echo TAIL-END-MARK"
python3 - "$E2E_TMP/live.json" "$LONGCMD" <<'EOF'
import json, sys
cmd = sys.argv[2]
turns = [
  {"tool_calls": [{"name": "bash", "arguments": {"command": cmd}}]},
  {"text": "Ran it."},
  {"tool_calls": [{"name": "grep", "arguments": {"pattern": "main|printf", "path": "."}},
                  {"name": "read", "arguments": {"path": "hello.c", "offset": 2, "limit": 5}},
                  {"name": "find", "arguments": {"pattern": "*.c"}},
                  {"name": "ls", "arguments": {"path": "."}}]},
  {"text": "Looked around."},
  {"text": "alpha bravo charlie delta echo foxtrot golf", "piece_size": 2, "delay_ms": 120},
  {"text": "Queued one answered."},
  {"tool_calls": [{"name": "read", "arguments": {"path": "big.txt"}}]},
  {"text": "Read the big file."},
]
json.dump({"n_ctx": 8192, "turns": turns}, open(sys.argv[1], "w"))
EOF

screen() { tmux_wait "live $W" "$@"; }
pane() { $T capture-pane -p -t s; }

run_size() {
	W=$1
	H=$2
	rm -f "$REPO/live.txt"
	mock_start "$E2E_TMP/live.json"
	$T new-session -d -s s -x "$W" -y "$H" \
		"cd '$REPO' && HOME='$E2E_TMP/home' '$HEARTH_BIN' --tui --sandbox off --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
	screen ${W}_ready "type a task"

	# ---- 1. the approval box: the whole command, the whole rule ----------------
	$T send-keys -t s "run the long one" Enter
	screen ${W}_box "allow bash"
	screen ${W}_box_tail "TAIL-END-MARK"
	check "live $W: the box shows the whole command, wrapped (its rows joined are the command)" \
		python3 -c 'import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = [i for i, l in enumerate(rows) if "┌ allow" in l][0]
x0 = rows[top].index("┌")
x1 = rows[top].index("┐", x0)
inner = "".join(l[x0 + 2:x1 - 1] for l in rows[top + 2:] if len(l) > x1 and l[x0] == "│")
sys.exit(0 if sys.argv[2] in inner else "box text: %r" % inner)' "$E2E_TMP/pane.${W}_box_tail" "$LONGCMD"
	check "live $W: no ellipsis inside the command in the box" \
		sh -c "! grep -q 'pad…\\|live-line-…\\|sleep 0…' '$E2E_TMP/pane.${W}_box_tail'"
	check "live $W: the a-always rule is shown whole" \
		sh -c "tr -d '\\n│ ' <'$E2E_TMP/pane.${W}_box_tail' | grep -q 'aalways(bash(touch:\\*),bash(for:\\*)\\|aalways(bash(touchlive.txt:\\*)\\|aalways(bash('"
	sleep 2 # the question waits: this time is not the command's
	$T send-keys -t s y

	# ---- 3. live output under the running header; 9. the spinner ---------------
	screen ${W}_live "live-line-[2-5]"
	check "live $W: the command is still running while its lines show" \
		grep -q "running [0-9.]*s" "$E2E_TMP/pane.${W}_live"
	check "live $W: a spinner with the turn's time while it runs" \
		grep -Eq '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [0-9]+\.[0-9]s' "$E2E_TMP/pane.${W}_live"
	screen ${W}_ran "Ran it\\."
	check "live $W: the finished command's time counts from the approval (3.2 s of sleeps, < 4.5 s)" \
		python3 -c 'import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.findall(r"([0-9]+\.[0-9])s ✓", t)
sys.exit(0 if m and 3.0 <= float(m[0]) < 4.5 else "times: %r" % m)' "$E2E_TMP/pane.${W}_ran"
	check "live $W: the live lines are gone once it finished (collapsed)" \
		sh -c "! grep -q 'live-line-8' '$E2E_TMP/pane.${W}_ran'"

	# ---- 8. tool headers ----------------------------------------------------------
	$T send-keys -t s "look around" Enter
	screen ${W}_looked "Looked around\\."
	screen ${W}_grep_hdr 'grep "main\|printf" in \.'
	screen ${W}_grep_hits '2 hits in 1 file'
	screen ${W}_read_hdr 'read hello\.c:2\+5'
	screen ${W}_read_range 'lines 2-6 of 9'
	screen ${W}_find_hdr 'find "\*\.c" in \. .*1 file'
	screen ${W}_ls_hdr 'ls \. .*[0-9]+ entr(y|ies)'

	# ---- 2. focus: move between items, open the one in focus, open all ----------
	$T send-keys -t s C-p
	screen ${W}_focus "▸ ls"
	screen ${W}_focus_keys "focus: ↑↓ move"
	$T send-keys -t s k k
	screen ${W}_focus_read "▸ read"
	$T send-keys -t s Enter
	screen ${W}_read_open "HEARTH_MARKER_7f3a"
	check "live $W: Enter opened the read in focus, not the last call (ls)" \
		sh -c "! grep -q 'hello.c  *[0-9]* bytes' '$E2E_TMP/pane.${W}_read_open'"
	$T send-keys -t s a
	screen ${W}_all_open_focus "▸ read"
	$T send-keys -t s Escape
	sleep 0.3
	check "live $W: Esc left focus mode" sh -c "! $T capture-pane -p -t s | grep -q '▸'"
	$T send-keys -t s End
	screen ${W}_all_open "hello.c  *[0-9]+ bytes"
	$T send-keys -t s PageUp
	screen ${W}_scrolled "scrolled back — End to follow"
	$T send-keys -t s End
	sleep 0.3
	check "live $W: End follows again" sh -c "! $T capture-pane -p -t s | grep -q 'scrolled back'"

	# ---- 7. a notice during a streaming answer; 9. decode speed -----------------
	$T send-keys -t s "stream slowly" Enter
	screen ${W}_streaming "alpha br"
	$T send-keys -t s "and then this" Enter
	screen ${W}_tps '[0-9]\.[0-9]s · [0-9.]+ tok/s' 30
	screen ${W}_queued_answer "Queued one answered\\." 60
	check "live $W: the streamed answer is whole, the queued notice after it" \
		python3 -c 'import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
a = [i for i, l in enumerate(lines) if "alpha bravo charlie delta echo foxtrot golf" in l]
q = [i for i, l in enumerate(lines) if "queued: sent when this turn ends" in l]
sys.exit(0 if a and q and q[0] > a[0] else "answer rows %r, notice rows %r" % (a, q))' "$E2E_TMP/pane.${W}_queued_answer"

	# ---- 14. a read capped to what the context can take ---------------------------
	$T send-keys -t s "read the big file" Enter
	screen ${W}_big "Read the big file\\."
	screen ${W}_big_hdr 'read big\.txt .*lines 1-[0-9]+ of 3000'
	check "live $W: the read sent to the model fits the 8k context, with a note" pycheck '
res = [m for m in CHAT[-1]["messages"] if m.get("role") == "tool"]
t = text_of(res[-1].get("content")) if res else ""
need(len(t) < 8192 * 3, "tool result is %d bytes" % len(t))
need("what the context has room for" in t and "offset=" in t, "note: %r" % t[-300:])'
	$T send-keys -t s C-c C-c
	screen ${W}_quit "HEARTH_EXITED rc=0"
	cleanup_tmux
	mock_stop

	# ---- 5. Esc while the prompt is processed ------------------------------------
	mock_start slow
	$T new-session -d -s s -x "$W" -y "$H" \
		"cd '$REPO' && HOME='$E2E_TMP/home' '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
	screen ${W}_slow_ready "type a task"
	$T send-keys -t s "Take your time." Enter
	# the prefill bar: "PREFILL ███░░" on the server row at 60, "0/2.1k new" in the panel at 120
	BAR='PREFILL|[0-9.]+k? new'
	screen ${W}_prefill "$BAR" 30
	$T send-keys -t s Escape
	screen ${W}_interrupted "\\[interrupted\\]" 30
	sleep 0.3
	pane >"$E2E_TMP/pane.${W}_after_esc"
	check "live $W: after Esc no prefill bar" sh -c "! grep -Eq '$BAR|░░░' '$E2E_TMP/pane.${W}_after_esc'"
	check "live $W: after Esc the panel does not say decoding" \
		sh -c "! grep -Eq 'decod(e|ing)' '$E2E_TMP/pane.${W}_after_esc'"
	check "live $W: after Esc no spinner" \
		sh -c "! grep -Eq '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [0-9]+\.[0-9]s' '$E2E_TMP/pane.${W}_after_esc'"
	$T send-keys -t s C-c C-c
	screen ${W}_slow_quit "HEARTH_EXITED rc=0"
	cleanup_tmux
	mock_stop
}

run_size 120 32
run_size 60 20
e2e_finish
