#!/bin/sh
# End-to-end: the full screen stays live while a grep walks a 30,000-file
# repository (with a .gitattributes) and while the turn's checkpoint of that
# tree is taken (core.autocrlf=true, set after the commit: every file is
# hashed from disk, seconds of work): both run on the worker thread (io/work.h), so text typed
# meanwhile is echoed at once.  Each echo is timed by a bounded poll of the
# pane (5 ms steps); the best of three keys must show within 100 ms, and the
# tool must still be running then (the mock has not been asked again).
# The grep's first rows (three files near the start of the walk match) are
# on the screen while it still runs.  Quitting right after the answer does
# not wait for the turn's end snapshot beyond its bound
# (FRONT_CHECKPOINT_QUIT_MS, 3 s, plus slack for a loaded machine), and the
# next start's /undo (hearth -c -p) still takes the turn back.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if [ -n "${HEARTH_SANITIZED:-}" ]; then
	# make asan: this suite measures the release build's latency and quit time; under a
	# sanitizer quitting waits for the whole 30,000-file end snapshot (74-364 s measured),
	# a known gap (issue 16). grep, checkpoints and /undo run under ASan in their own suites.
	skip "tools live" "latency and quit time are measured by make test, not under a sanitizer"
	e2e_finish
fi
if ! command -v tmux >/dev/null 2>&1; then
	printf 'ok - tui # SKIP tmux not found (make bootstrap installs it)\n'
	e2e_finish
fi
BIG=$E2E_TMP/big
python3 - "$BIG" <<'PY'
import os, subprocess, sys
root = sys.argv[1]
os.makedirs(root)
with open(os.path.join(root, ".gitattributes"), "w") as f:
    f.write("*.sh text eol=lf\n*.bat text eol=crlf\n*.c diff=cpp\n")
# 160 lines a file (385 MB): the grep and the checkpoint must last long enough
# to type while they run (a 40-line tree's grep took 0.6 s on two threads)
line = "static int value_of_something(struct thing *t) { return t->count + t->size; }\n"
for i in range(30000):
    d = os.path.join(root, "d%02d" % (i // 1000), "s%02d" % (i // 50 % 20))
    if i % 50 == 0:
        os.makedirs(d, exist_ok=True)
    ext = ".bat" if i % 500 == 0 else ".c"
    text = line * 160 + ("/* marker xyz1234bx */\n" if i in (1, 2, 3) else "")
    with open(os.path.join(d, "f%05d%s" % (i, ext)), "w", newline="") as f:
        f.write(text.replace("\n", "\r\n") if ext == ".bat" else text)
for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"],
            ["git", "config", "core.autocrlf", "true"]):
    subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
PY
tmux_setup hearth-live

# echo_ms TEXT: type TEXT into pane s; the milliseconds until the pane shows it (9999: never, 2 s)
echo_ms() {
	python3 - "$T" "$1" <<'PY'
import subprocess, sys, time
t, text = sys.argv[1].split(), sys.argv[2]
t0 = time.monotonic()
subprocess.run(t + ["send-keys", "-t", "s", "-l", text], check=True)
while time.monotonic() - t0 < 2:
    pane = subprocess.run(t + ["capture-pane", "-p", "-t", "s"], capture_output=True, text=True).stdout
    if text in pane:
        print(int((time.monotonic() - t0) * 1000))
        sys.exit(0)
    time.sleep(0.005)
print(9999)
PY
}

# chats: how many chat requests the mock has seen
chats() {
	grep -c '"event": "request".*"path": "/v1/chat/completions"' "$MOCK_LOG"
}

# best3 TAG: the best of three echoes (ms), typing "q<a|b|c>TAG"
best3() {
	_best=9999
	for _k in a b c; do
		_ms=$(echo_ms "q${_k}$1")
		[ "$_ms" -lt "$_best" ] && _best=$_ms
	done
	echo "$_best"
}

# live LABEL NREQ: one echo while the mock has seen NREQ chat requests (the
# tool still runs after it): within 100 ms, or, on a machine so loaded that
# the idle screen's own best echo is slower, within 100 ms of that
live() {
	# up to three keys, as the idle figure is the best of three: one slow
	# sample on a loaded machine (the measuring python and tmux are slowed
	# too) is not the loop; a loop held by the tool fails all three
	for _k in a b c; do
		_ms=$(echo_ms "q$2$_k")
		[ "$_ms" -le 100 -o "$_ms" -le $((IDLE + 100)) ] && break
	done
	_n=$(chats)
	printf '# %s: echo %s ms (idle screen: best %s ms); chat requests so far %s\n' "$1" "$_ms" "$IDLE" "$_n"
	check "$1: typed text echoed within 100 ms ($_ms ms; idle screen: $IDLE ms)" \
		test "$_ms" -le 100 -o "$_ms" -le $((IDLE + 100))
	check "$1: the tool was still running (chat requests: $_n, want $2)" test "$_n" -eq "$2"
}

mock_start tools_live
$T new-session -d -s s -x 120 -y 30 \
	"cd '$BIG' && HOME='$E2E_TMP' '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
tmux_wait tui ready "type a task" 100
IDLE=$(best3 0)
$T send-keys -t s C-u
$T send-keys -t s "Search the tree." Enter
if mock_wait_request /v1/chat/completions 150; then
	sleep 0.05 # the answer (a grep call) is a few ms: the grep walks 30,000 files
	live "grep of 30,000 files" 1
	if tmux_wait tui "the grep's first rows while it runs" "f00001\.c:161:" 300; then
		_n=$(chats)
		check "the rows were shown before the grep ended (chat requests: $_n, want 1)" test "$_n" -eq 1
	fi
	for _w in $(seq 1 3000); do # the grep's result comes back as the second request
		[ "$(chats)" -ge 2 ] && break
		sleep 0.02
	done
	sleep 0.05 # the write's checkpoint: 30,000 files with a .gitattributes
	live "checkpoint of 30,000 files" 2
	tmux_wait tui answered "Searched and wrote notes.txt" 600
	check "the write ran after its checkpoint" test -f "$BIG/notes.txt"
	check "the checkpoint is under a private ref" sh -c "cd '$BIG' && git for-each-ref refs/hearth | grep -q ."
	# quit at once: the end snapshot of 30,000 files (every file hashed: core.autocrlf) may still run
	$T send-keys -t s C-c
	sleep 0.3
	_t0=$(date +%s%N)
	$T send-keys -t s C-c
	tmux_wait tui quit "HEARTH_EXITED rc=0" 600
	_ms=$((($(date +%s%N) - _t0) / 1000000))
	printf '# quit took %s ms\n' "$_ms"
	check "quit within the snapshot's bound ($_ms ms; 3 s + 5 s slack)" test "$_ms" -le 8000
	(cd "$BIG" && HOME=$E2E_TMP timeout 300 "$HEARTH_BIN" -c -p --server "$MOCK_URL" "/undo" \
		>"$E2E_TMP/undo.out" 2>&1)
	check "the next start's /undo takes the write back" test ! -e "$BIG/notes.txt"
	[ -e "$BIG/notes.txt" ] && diag_file "/undo" "$E2E_TMP/undo.out"
else
	not_ok "tui: the first chat request" "no chat request reached the mock within 15 s"
fi
mock_stop
e2e_finish
