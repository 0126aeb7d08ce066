#!/bin/sh
# End-to-end: the repo_map tool in `hearth -p` against the mock
# llama-server.  The map is built on the worker thread (src/io/work.h) and the
# call finishes on the loop: the tool result the model gets is the map; a
# SIGINT while a cold map of 2,000 files is being built ends hearth
# promptly (the build gives up at shutdown) with status 130 and no
# sanitizer report; in the full screen (tmux) keys, Esc and Ctrl-C work
# while that map is being built.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo

# ---- the map reaches the model ---------------------------------------------
make_repo "$REPO"
printf 'int\nhelper_twice(int x)\n{\n\treturn 2 * x;\n}\n' >"$REPO/util.c"
printf 'int helper_twice(int x);\nint use(void) { return helper_twice(1); }\n' >"$REPO/use.c"
mock_start repo_map
hearth_run map -p --output-format json --server "$MOCK_URL" --cwd "$REPO" "Show me the map."
check_rc "repo_map: exit status 0" 0
check "repo_map: the call succeeded; the tool result is the ranked map" pycheck '
r = out_json()
tc = r.get("tool_calls")
need([t.get("name") for t in tc] == ["repo_map"], "calls %r" % tc)
need(not tc[0].get("is_error"), "the call failed: %r" % tc)
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
res = [m for m in CHAT[1]["messages"] if m.get("role") == "tool"]
need(len(res) == 1, "tool messages %r" % res)
text = res[0].get("content")
text = text if isinstance(text, str) else json.dumps(text)
need(text.startswith("Repository map:"), "result %r" % text[:200])
need("util.c:" in text and "helper_twice" in text and "hello.c:" in text, "result %r" % text[:400])
need(text.index("util.c:") < text.index("hello.c:"), "util.c (used by use.c) is not first: %r" % text[:400])'
check "repo_map: stderr is empty" test ! -s "$ERR"
mock_stop

# ---- SIGINT during a cold map of 2,000 files ---------------------------------
BIG=$E2E_TMP/big
python3 - "$BIG" <<'PY'
# 2,000 C files of declarations (a parse cannot skip them, unlike function
# bodies): about 6 s for a cold map on the 2-core test machine
import os, sys
root = sys.argv[1]
for i in range(2000):
    d = os.path.join(root, "pkg%02d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "m%04d.c" % i), "w") as f:
        f.write("struct s%d {\n" % i)
        for k in range(200):
            f.write("\tint field_%d_%d;\n\tconst char *name_%d_%d;\n" % (i, k, i, k))
        f.write("};\n\n")
        for k in range(40):
            f.write("int f%d_%d(int x);\n" % (i, k))
        for k in range(10):
            f.write("int\nf%d_%d(int x)\n{\n\treturn x > %d ? f%d_%d(x - 1) : x;\n}\n\n"
                    % (i, k, k, max(i - 1, 0), k))
PY
mock_start repo_map
python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$HEARTH_BIN" -p --server "$MOCK_URL" --cwd "$BIG" \
	"Show me the map." </dev/null >"$E2E_TMP/sigint.out" 2>"$E2E_TMP/sigint.err" &
HPID=$!
track_pid "$HPID"
OUT=$E2E_TMP/sigint.out ERR=$E2E_TMP/sigint.err
if mock_wait_request /v1/chat/completions 150; then
	sleep 0.5 # the answer (a repo_map call) is a few ms: the map is being built
	T0=$(date +%s)
	kill -INT "$HPID" 2>/dev/null
	if wait_gone "$HPID" 100; then
		wait "$HPID"
		RC=$?
		T1=$(date +%s)
		check_rc "SIGINT during the map: exit status 130" 130
		check "SIGINT during the map: gone within 3 s" test $((T1 - T0)) -le 3
	else
		kill -KILL "$HPID" 2>/dev/null
		wait "$HPID" 2>/dev/null
		not_ok "SIGINT during the map: exit status 130" "hearth still running 10 s after SIGINT"
	fi
else
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	not_ok "SIGINT during the map: exit status 130" "no chat request reached the mock within 15 s"
	diag_file stderr "$ERR"
fi
untrack_pid "$HPID"
check "SIGINT during the map: no sanitizer or runtime error report" pycheck '
for w in ("AddressSanitizer", "LeakSanitizer", "runtime error", "ThreadSanitizer"):
    need(w not in ERR_TEXT, "stderr %r" % ERR_TEXT[:400])'
mock_stop

# ---- the full screen stays live while the map is built ----------------------
# A cold map of the 2,000 files takes seconds: keys typed meanwhile show at
# once, Esc ends the turn at once (the build goes on and is dropped), and
# Ctrl-C twice leaves at once.
if ! command -v tmux >/dev/null 2>&1; then
	skip "tui" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-rmap
rm -rf "$XDG_CACHE_HOME/hearth/repomap" # cold again: no disk cache
mock_start repo_map
$T new-session -d -s s -x 100 -y 30 \
	"cd '$BIG' && HOME='$E2E_TMP' '$HEARTH_BIN' --tui --server '$MOCK_URL'; echo HEARTH_EXITED rc=\$?; sleep 30"
tmux_wait tui ready "type a task" 100
$T send-keys -t s "Show me the map." Enter
if mock_wait_request /v1/chat/completions 150; then
	sleep 0.5
	$T send-keys -t s "typed while mapping"
	tmux_wait tui typed "typed while mapping" 15
	check "tui: the map was still being built (one chat request)" pycheck '
need(len(CHAT) == 1, "chat requests: %d" % len(CHAT))'
	$T send-keys -t s Escape
	tmux_wait tui aborted " 1 turn " 20
	$T send-keys -t s C-c
	tmux_wait tui ctrl_c_hint "Ctrl-C again" 20
	$T send-keys -t s C-c
	tmux_wait tui quit "HEARTH_EXITED rc=0" 30
else
	not_ok "tui: the task reached the mock" "no chat request within 15 s"
fi
cleanup_tmux
mock_stop

e2e_finish
