# tests/e2e/lib.sh: helpers for the end-to-end tests of `hearth -p` (POSIX sh).
#
# Source it from a test script:   . "$(dirname "$0")/lib.sh"
#
# State (globals):
#   E2E_TMP          temp root for this script, removed by the EXIT trap
#   HEARTH_BIN       binary under test (default: <repo>/hearth); FIXTURES likewise
#   MOCK_PID MOCK_PORT MOCK_URL MOCK_LOG   the mock started last (mock_start)
#   OUT ERR RC       stdout file, stderr file, exit status of the last hearth_run
#   E2E_PIDS         every process we started in the background; the trap
#                    kills exactly these (by pid) and nothing else
# Output convention: one "ok - name" / "not ok - name" line per check, with
# "# " diagnostic lines after a failure; e2e_finish exits 1 if any failed.
# Every wait is bounded: hearth runs under timeout(1) (HEARTH_TIMEOUT s,
# default 20), the mock stops by itself (MOCK_MAX_SECONDS, default 120),
# and polling loops count down.
# shellcheck shell=sh disable=SC2034

set -u

# E2E_ROOT (the repository) may be preset; by default it is two levels above the script.
if [ -z "${E2E_ROOT:-}" ]; then
	E2E_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fi
MOCK_PY=$E2E_ROOT/tests/net/mock_llama.py
SCENARIOS=$E2E_ROOT/tests/net/scenarios
: "${HEARTH_BIN:=$E2E_ROOT/hearth}"
if [ -z "${FIXTURES:-}" ]; then
	for d in "$E2E_ROOT/../shared/fixtures/llama-server" "$E2E_ROOT/tests/net/fixtures"; do
		if [ -d "$d" ]; then FIXTURES=$(cd "$d" && pwd); break; fi
	done
fi
: "${FIXTURES:=}"
: "${HEARTH_TIMEOUT:=20}"
: "${MOCK_MAX_SECONDS:=120}"
export HEARTH_BIN FIXTURES

E2E_PASS=0
E2E_FAIL=0
E2E_SKIP=0
E2E_PIDS=""
E2E_NMOCK=0
MOCK_PID="" MOCK_PORT="" MOCK_URL="" MOCK_LOG=""
OUT="" ERR="" RC=0

E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hearth-e2e.XXXXXX") || exit 1

# Kill what we started (by pid) and remove the temp tree.
e2e_cleanup() {
	for _p in $E2E_PIDS; do
		kill -TERM "$_p" 2>/dev/null
	done
	for _p in $E2E_PIDS; do
		_n=20
		while [ "$_n" -gt 0 ] && kill -0 "$_p" 2>/dev/null; do
			sleep 0.1
			_n=$((_n - 1))
		done
		kill -KILL "$_p" 2>/dev/null
	done
	[ -n "${T:-}" ] && cleanup_tmux
	rm -rf "$E2E_TMP"
}

# tmux_setup NAME: a private tmux server ($T) that the EXIT trap kills.
tmux_setup() {
	T="tmux -L $1-$$"
	T_SOCK="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$1-$$"
}

# Kill the private tmux server and its panes, and wait until it is gone: a
# new session started while the old server is still exiting connects to
# it and fails ("server exited unexpectedly").
cleanup_tmux() {
	$T kill-server 2>/dev/null
	_c=0
	while [ $_c -lt 30 ] && [ -S "$T_SOCK" ] && $T list-sessions >/dev/null 2>&1; do
		sleep 0.1
		_c=$((_c + 1))
	done
	rm -f "$T_SOCK"
}

# tmux_wait LABEL NAME PATTERN [TENTHS]: wait until pane s shows PATTERN (grep -E).
tmux_wait() {
	_i=0
	while [ $_i -lt "${4:-50}" ]; do
		$T capture-pane -p -t s >"$E2E_TMP/pane.$2" 2>/dev/null
		if grep -Eq "$3" "$E2E_TMP/pane.$2"; then
			ok "$1: $2"
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	not_ok "$1: $2" "pane does not show /$3/:"
	sed 's/^/#   /' "$E2E_TMP/pane.$2"
	return 1
}
trap 'e2e_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# A clean, private environment: no user config, no proxies, no cloud keys.
mkdir -p "$E2E_TMP/home" "$E2E_TMP/xdg/config" "$E2E_TMP/xdg/state" "$E2E_TMP/xdg/data" \
	"$E2E_TMP/xdg/cache"
printf '[user]\n\tname = hearth-test\n\temail = hearth-test@example.invalid\n' \
	>"$E2E_TMP/home/.gitconfig"
HOME=$E2E_TMP/home
XDG_CONFIG_HOME=$E2E_TMP/xdg/config
XDG_STATE_HOME=$E2E_TMP/xdg/state
XDG_DATA_HOME=$E2E_TMP/xdg/data
XDG_CACHE_HOME=$E2E_TMP/xdg/cache
GIT_CONFIG_NOSYSTEM=1
TERM=xterm-256color
NO_PROXY=127.0.0.1,localhost
no_proxy=127.0.0.1,localhost
export HOME XDG_CONFIG_HOME XDG_STATE_HOME XDG_DATA_HOME XDG_CACHE_HOME GIT_CONFIG_NOSYSTEM \
	TERM NO_PROXY no_proxy
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN HEARTH_SERVER http_proxy https_proxy \
	HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy 2>/dev/null || true

# ---- reporting ---------------------------------------------------------

# Report a pass.
ok() {
	E2E_PASS=$((E2E_PASS + 1))
	printf 'ok - %s\n' "$1"
}

# Report a check that did not run here (TAP: "ok - NAME # SKIP REASON");
# tests/run.sh counts it as skipped, never as passed.
skip() { # $1 name, $2 why it did not run
	E2E_SKIP=$((E2E_SKIP + 1))
	printf 'ok - %s # SKIP %s\n' "$1" "$2"
}

# Report a failure; further arguments become "# " diagnostic lines.
not_ok() {
	E2E_FAIL=$((E2E_FAIL + 1))
	printf 'not ok - %s\n' "$1"
	shift
	for _l in "$@"; do
		printf '# %s\n' "$_l"
	done
}

# Print a file as "# " lines (at most 15), for diagnostics.
diag_file() { # $1 label, $2 file
	[ -s "$2" ] || { printf '# %s: (empty)\n' "$1"; return 0; }
	printf '# %s:\n' "$1"
	head -n 15 "$2" | cut -c1-300 | sed 's/^/#   /'
}

# Diagnostics for the last hearth_run.
diag_run() {
	printf '# exit status %s%s\n' "$RC" "$( [ "$RC" = 124 ] || [ "$RC" = 137 ] && echo ' (timed out)')"
	diag_file stdout "$OUT"
	diag_file stderr "$ERR"
}

# check NAME CMD [ARGS...]: run CMD; ok when it exits 0, else not ok with its output.
check() {
	_name=$1
	shift
	if "$@" >"$E2E_TMP/check.out" 2>&1; then
		ok "$_name"
	else
		not_ok "$_name"
		head -n 20 "$E2E_TMP/check.out" | cut -c1-300 | sed 's/^/# /'
	fi
}

# check_rc NAME WANT: ok when the last hearth_run exited WANT, else diagnostics.
check_rc() {
	if [ "$RC" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1" "want exit status $2"
		diag_run
	fi
}

# Print the totals and exit 0 when nothing failed.
e2e_finish() {
	printf '# %d passed, %d failed, %d skipped\n' "$E2E_PASS" "$E2E_FAIL" "$E2E_SKIP"
	[ "$E2E_FAIL" -eq 0 ]
	exit $?
}

# Stop early (with a not ok) when the binary is missing.
need_hearth() {
	if [ ! -x "$HEARTH_BIN" ]; then
		not_ok "hearth binary present" "HEARTH_BIN=$HEARTH_BIN is not executable"
		e2e_finish
	fi
	if [ ! -f "$MOCK_PY" ] || [ -z "$FIXTURES" ]; then
		not_ok "mock and fixtures present" "MOCK_PY=$MOCK_PY FIXTURES=$FIXTURES"
		e2e_finish
	fi
}

# ---- processes ---------------------------------------------------------

# Remember a background pid so the trap can kill it.
track_pid() {
	E2E_PIDS="$E2E_PIDS $1"
}

# Forget a pid that has exited.
untrack_pid() {
	_keep=""
	for _p in $E2E_PIDS; do
		[ "$_p" = "$1" ] || _keep="$_keep $_p"
	done
	E2E_PIDS=$_keep
}

# wait_gone PID TENTHS: 0 once PID has exited (within TENTHS tenths of a second).
wait_gone() {
	_n=$2
	while kill -0 "$1" 2>/dev/null; do
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
		_n=$((_n - 1))
	done
	return 0
}

# A TCP port on 127.0.0.1 that nothing listens on (bound, then closed).
closed_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# ---- the mock llama-server ---------------------------------------------

# mock_start SCENARIO [MOCK ARGS...]: SCENARIO is a name in tests/net/scenarios
# or a path.  Waits (10 s at most) for the PORT line.  Sets MOCK_*.
# The mock gets none of the script's extra descriptors: a FIFO's write end
# held open by it (exec 7>FIFO before a mock starts) would keep hearth from
# ever seeing the end of its input.
mock_start() {
	_s=$1
	shift
	case $_s in
	*/*) ;;
	*) _s=$SCENARIOS/$_s.json ;;
	esac
	E2E_NMOCK=$((E2E_NMOCK + 1))
	_d=$E2E_TMP/mock$E2E_NMOCK
	mkdir -p "$_d"
	MOCK_LOG=$_d/requests.jsonl
	: >"$_d/stdout"
	: >"$MOCK_LOG"
	python3 "$MOCK_PY" --scenario "$_s" --fixtures "$FIXTURES" --log "$MOCK_LOG" \
		--max-seconds "$MOCK_MAX_SECONDS" "$@" >"$_d/stdout" 2>"$_d/stderr" </dev/null \
		3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	MOCK_PID=$!
	track_pid "$MOCK_PID"
	_n=100
	MOCK_PORT=""
	while [ "$_n" -gt 0 ]; do
		MOCK_PORT=$(sed -n '1s/^PORT \([0-9][0-9]*\)$/\1/p' "$_d/stdout")
		[ -n "$MOCK_PORT" ] && break
		kill -0 "$MOCK_PID" 2>/dev/null || break
		sleep 0.1
		_n=$((_n - 1))
	done
	if [ -z "$MOCK_PORT" ]; then
		printf '# mock did not start (%s)\n' "$_s"
		diag_file "mock stderr" "$_d/stderr"
		MOCK_URL=http://127.0.0.1:9
		return 1
	fi
	MOCK_URL=http://127.0.0.1:$MOCK_PORT
	return 0
}

# Stop the last mock (SIGTERM, then SIGKILL after 3 s).
mock_stop() {
	[ -n "$MOCK_PID" ] || return 0
	kill -TERM "$MOCK_PID" 2>/dev/null
	wait_gone "$MOCK_PID" 30 || kill -KILL "$MOCK_PID" 2>/dev/null
	wait "$MOCK_PID" 2>/dev/null
	untrack_pid "$MOCK_PID"
	MOCK_PID=""
}

# mock_wait_request PATH TENTHS: 0 once the mock has logged a request for PATH.
mock_wait_request() {
	_n=$2
	while ! grep -q "\"event\": \"request\".*\"path\": \"$1\"" "$MOCK_LOG" 2>/dev/null; do
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
		_n=$((_n - 1))
	done
	return 0
}

# ---- running hearth ----------------------------------------------------

# hearth_run NAME [ARGS...]: run $HEARTH_BIN ARGS with stdin from /dev/null,
# bounded by HEARTH_TIMEOUT; sets OUT, ERR, RC.
hearth_run() {
	OUT=$E2E_TMP/$1.out
	ERR=$E2E_TMP/$1.err
	shift
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" "$@" </dev/null >"$OUT" 2>"$ERR"
	RC=$?
}

# trust_project DIR: trust DIR's hooks, MCP servers and wider settings as they are now
# (`hearth trust`; a later change to them needs it again).
trust_project() {
	"$HEARTH_BIN" --cwd "$1" trust >/dev/null
}

# hearth_run_stdin NAME INPUT [ARGS...]: the same with INPUT (plus a newline) on stdin.
hearth_run_stdin() {
	OUT=$E2E_TMP/$1.out
	ERR=$E2E_TMP/$1.err
	_in=$2
	shift 2
	printf '%s\n' "$_in" | timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# make_repo DIR: a git repository with one committed file, hello.c.
make_repo() {
	mkdir -p "$1" || return 1
	cat >"$1/hello.c" <<'EOF'
#include <stdio.h>

/* HEARTH_MARKER_7f3a: a line only this file contains */
int
main(void)
{
	printf("hello\n");
	return 0;
}
EOF
	(cd "$1" && git init -q && git add hello.c && git commit -qm init) >/dev/null 2>&1
}

# ---- assertions --------------------------------------------------------

# same_text FILE TEXT: FILE holds exactly TEXT and one newline.
same_text() {
	printf '%s\n' "$2" >"$E2E_TMP/want.txt"
	if cmp -s "$1" "$E2E_TMP/want.txt"; then
		return 0
	fi
	echo "want: $2"
	echo "got:  $(head -c 300 "$1")"
	return 1
}

# one_line FILE: exactly one non-empty line (error messages are one line).
one_line() {
	_n=$(grep -c . "$1")
	[ "$_n" -eq 1 ] && return 0
	echo "want 1 line, got $_n:"
	head -n 5 "$1"
	return 1
}

# contains FILE STRING: FILE contains STRING (fixed string).
contains() {
	grep -qF -- "$2" "$1" && return 0
	echo "no \"$2\" in: $(head -c 300 "$1")"
	return 1
}

# no_term_escapes FILE: FILE is not empty and has no ESC and no C1 control
# (U+0080..U+009F, or a lone byte 0x80..0x9f outside UTF-8) anywhere.
no_term_escapes() {
	python3 - "$1" <<'EOF'
import sys
raw = open(sys.argv[1], "rb").read()
if not raw:
    print("stdout is empty")
    sys.exit(1)
text = raw.decode("utf-8", "surrogateescape")
bad = [(i, hex(ord(c))) for i, c in enumerate(text)
       if c == "\x1b" or 0x80 <= ord(c) <= 0x9f or 0xdc80 <= ord(c) <= 0xdc9f]
if bad:
    print("terminal control characters at (char index, code):", bad[:10])
    sys.exit(1)
EOF
}

# pycheck CODE [ARGS...]: run python CODE with the last run's files and the
# mock's log loaded (see the prelude); it fails by need(...) or an exception.
#   LOG: every record; REQ: request records; SERVED: seq -> served record
#   CHAT: bodies of chat requests; CHATREQ: their request records
#   CHAT_SERVED: the served record of each chat request (in order)
#   OUT_TEXT, ERR_TEXT: hearth's stdout/stderr; out_json(): stdout as one
#   JSON value; out_lines(): stdout as JSON lines; ARGS: extra arguments
#   text_of(content), tool_names(body), tools_by_name(body), need(cond, msg)
pycheck() {
	_code=$1
	shift
	python3 -c "$E2E_PRELUDE
$_code" "$MOCK_LOG" "$OUT" "$ERR" "$@"
}

E2E_PRELUDE='import json, os, re, sys
def _load(p):
    try:
        with open(p, encoding="utf-8") as f:
            return [json.loads(l) for l in f if l.strip()]
    except OSError:
        return []
def _read(p):
    try:
        with open(p, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except (OSError, TypeError):
        return ""
import time
for _ in range(40):  # served lines follow the last byte of an answer: wait (2 s at most)
    LOG = _load(sys.argv[1]) if sys.argv[1] else []
    if sum(r.get("event") == "request" for r in LOG) <= sum(r.get("event") == "served" for r in LOG):
        break
    time.sleep(0.05)
REQ = [r for r in LOG if r.get("event") == "request"]
SERVED = {r["seq"]: r for r in LOG if r.get("event") == "served"}
CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
CHATREQ = [r for r in REQ if r["path"] in CHAT_PATHS]
CHAT = [r["body"] for r in CHATREQ]
CHAT_SERVED = [SERVED.get(r["seq"], {}) for r in CHATREQ]
OUT_TEXT = _read(sys.argv[2])
ERR_TEXT = _read(sys.argv[3])
ARGS = sys.argv[4:]
def need(cond, msg):
    if not cond:
        print(msg)
        sys.exit(1)
def out_json():
    try:
        return json.loads(OUT_TEXT)
    except ValueError as e:
        need(False, "stdout is not one JSON value (%s): %r" % (e, OUT_TEXT[:300]))
def out_lines():
    res = []
    for i, l in enumerate(OUT_TEXT.split("\n")):
        if not l.strip():
            continue
        try:
            res.append(json.loads(l))
        except ValueError as e:
            need(False, "stdout line %d is not JSON (%s): %r" % (i + 1, e, l[:300]))
    return res
def text_of(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in c)
    return "" if c is None else json.dumps(c)
def tool_names(body):
    return [t.get("function", {}).get("name") for t in (body.get("tools") or [])]
'
