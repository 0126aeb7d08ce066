#!/bin/sh
# End-to-end: stdin of `hearth -p` read as a stream (issue 18, item 1): a
# socket (what Node's child_process gives) carries the task; piped content
# follows a task given as arguments; an open stdin nobody writes to does
# not hold the task for more than the wait (3 s); a socket carries a task
# from a real Node child_process when node is installed.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"

# run_socket NAME DATA ARGS...: hearth with stdin a socket (python socketpair) carrying DATA
run_socket() {
	OUT=$E2E_TMP/$1.out
	ERR=$E2E_TMP/$1.err
	_data=$2
	shift 2
	timeout -k 5 "$HEARTH_TIMEOUT" python3 -c '
import socket, subprocess, sys
a, b = socket.socketpair()
p = subprocess.Popen(sys.argv[4:], stdin=b, stdout=open(sys.argv[2], "wb"), stderr=open(sys.argv[3], "wb"))
b.close()
a.sendall(sys.argv[1].encode())
a.shutdown(socket.SHUT_WR)
sys.exit(p.wait())' "$_data" "$OUT" "$ERR" "$HEARTH_BIN" "$@"
	RC=$?
}

# ---- the task on a socket ---------------------------------------------------
mock_start plain
run_socket socket_task "Task on a socket SOCK_7c1." -p --server "$MOCK_URL" --cwd "$REPO"
check_rc "socket stdin: exit status 0" 0
check "socket stdin: the task read from the socket was sent" pycheck '
need(len(CHAT) == 1, "chat requests: %d; stderr %r" % (len(CHAT), ERR_TEXT))
need("SOCK_7c1" in text_of(CHAT[0]["messages"][-1].get("content")), "last message %r" % CHAT[0]["messages"][-1])'
mock_stop

# ---- piped content follows the task ------------------------------------------
mock_start plain
OUT=$E2E_TMP/pipe.out ERR=$E2E_TMP/pipe.err
printf 'PIPED_LINE_one\nPIPED_LINE_two\n' | timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" -p --server "$MOCK_URL" \
	--cwd "$REPO" "explain ARG_TASK_9" >"$OUT" 2>"$ERR"
RC=$?
check_rc "piped content + task: exit status 0" 0
check "piped content + task: one message, the task then the piped text" pycheck '
need(len(CHAT) == 1, "chat requests: %d" % len(CHAT))
t = text_of(CHAT[0]["messages"][-1].get("content"))
need("ARG_TASK_9" in t and "PIPED_LINE_one\nPIPED_LINE_two" in t, "last message %r" % t)
need(t.index("ARG_TASK_9") < t.index("PIPED_LINE_one"), "the task does not come first: %r" % t)'
mock_stop

# ---- a socket left open without data: the task goes on after the wait --------
mock_start plain
OUT=$E2E_TMP/open.out ERR=$E2E_TMP/open.err
_t0=$(date +%s)
timeout -k 5 "$HEARTH_TIMEOUT" python3 -c '
import socket, subprocess, sys
a, b = socket.socketpair()
p = subprocess.Popen(sys.argv[3:], stdin=b, stdout=open(sys.argv[1], "wb"), stderr=open(sys.argv[2], "wb"))
b.close()
rc = p.wait()
a.close()
sys.exit(rc)' "$OUT" "$ERR" "$HEARTH_BIN" -p --server "$MOCK_URL" --cwd "$REPO" "task with silent stdin OPEN_3b" 
RC=$?
_t1=$(date +%s)
check_rc "silent open stdin: exit status 0" 0
check "silent open stdin: the task was sent alone, after a note on stderr" pycheck '
need(len(CHAT) == 1, "chat requests: %d" % len(CHAT))
need(text_of(CHAT[0]["messages"][-1].get("content")).endswith("OPEN_3b"), "last message %r" % CHAT[0]["messages"][-1])
need("nothing on stdin" in ERR_TEXT, "stderr %r" % ERR_TEXT)'
check "silent open stdin: the wait is bounded (under 20 s, the run included)" test $((_t1 - _t0)) -lt 20
mock_stop

# ---- a real Node child_process ---------------------------------------------------
if command -v node >/dev/null 2>&1; then
	mock_start plain
	OUT=$E2E_TMP/node.out ERR=$E2E_TMP/node.err
	timeout -k 5 "$HEARTH_TIMEOUT" node -e '
const { spawn } = require("child_process");
const [bin, url, cwd] = process.argv.slice(1);
const c = spawn(bin, ["-p", "--server", url, "--cwd", cwd], { stdio: ["pipe", "pipe", "pipe"] });
let out = "", err = "";
c.stdout.on("data", d => out += d);
c.stderr.on("data", d => err += d);
c.stdin.end("Task from node NODE_5e2\n");
c.on("close", code => { process.stdout.write(out); process.stderr.write(err); process.exit(code); });
' "$HEARTH_BIN" "$MOCK_URL" "$REPO" >"$OUT" 2>"$ERR"
	RC=$?
	check_rc "node child_process: exit status 0" 0
	check "node child_process: the task written to stdin was sent" pycheck '
need(len(CHAT) == 1, "chat requests: %d; stderr %r" % (len(CHAT), ERR_TEXT))
need("NODE_5e2" in text_of(CHAT[0]["messages"][-1].get("content")), "last message %r" % CHAT[0]["messages"][-1])
need(OUT_TEXT.strip(), "no answer on stdout")'
	mock_stop
else
	echo "# node not installed: the child_process check is skipped"
fi

e2e_finish
