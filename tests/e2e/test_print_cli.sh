#!/bin/sh
# End-to-end: the command line of `hearth -p`: flags, stdin task, usage
# errors (2), no server (3), SIGINT (130), and what each flag puts in the
# request (checked in the mock's request log).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"

# ---- --version, --help ------------------------------------------------------
hearth_run version --version
check_rc "--version: exit status 0" 0
check "--version: prints a version number" grep -Eq '[0-9]+\.[0-9]+' "$OUT"
hearth_run help --help
check_rc "--help: exit status 0" 0
check "--help: lists -p and --output-format" pycheck '
need("-p" in OUT_TEXT and "--output-format" in OUT_TEXT and "--max-steps" in OUT_TEXT,
     "help text: %r" % OUT_TEXT[:300])'

# ---- usage errors: exit 2, one line on stderr, nothing sent -----------------
mock_start plain
usage_error() { # NAME ARGS...
	_un=$1
	shift
	hearth_run "usage_$_un" "$@"
	check_rc "usage error ($_un): exit status 2" 2
	check "usage error ($_un): message on stderr, nothing on stdout" pycheck '
need(ERR_TEXT.strip(), "stderr is empty")
need(not OUT_TEXT.strip(), "stdout: %r" % OUT_TEXT[:200])'
}
usage_error "unknown flag" -p --server "$MOCK_URL" --no-such-flag "task"
usage_error "bad --output-format" -p --server "$MOCK_URL" --output-format xml "task"
usage_error "bad --max-steps" -p --server "$MOCK_URL" --max-steps many "task"
usage_error "no task, empty stdin" -p --server "$MOCK_URL"
check "usage errors: no chat request reached the server" pycheck '
need(not CHAT, "chat requests: %d" % len(CHAT))'
mock_stop

# ---- task from stdin, server from HEARTH_SERVER ----------------------------
mock_start plain
HEARTH_SERVER=$MOCK_URL
export HEARTH_SERVER
(cd "$REPO" && hearth_run_stdin stdin_task "Tell me the answer from stdin." -p && echo "$RC" >"$E2E_TMP/rc")
unset HEARTH_SERVER
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/stdin_task.out ERR=$E2E_TMP/stdin_task.err
check_rc "stdin task + HEARTH_SERVER: exit status 0" 0
check "stdin task: stdout is the answer" same_text "$OUT" "The answer is 42."
check "stdin task: the task read from stdin was sent" pycheck '
need(len(CHAT) == 1, "chat requests: %d" % len(CHAT))
need("Tell me the answer from stdin." in text_of(CHAT[0]["messages"][-1].get("content")),
     "last message %r" % CHAT[0]["messages"][-1])'
mock_stop

# ---- flags that shape the request ------------------------------------------
mock_start plain
hearth_run model -p --server "$MOCK_URL" --cwd "$REPO" --model my-test-model "Answer."
check_rc "--model: exit status 0" 0
check "--model: the request names the model" pycheck '
need(CHAT and CHAT[0].get("model") == "my-test-model", "model %r" % (CHAT[0].get("model") if CHAT else None))'
mock_stop

mock_start plain
hearth_run thinking -p --server "$MOCK_URL" --cwd "$REPO" --thinking on "Answer."
check_rc "--thinking on: exit status 0" 0
check "--thinking on: chat_template_kwargs.enable_thinking true" pycheck '
need(CHAT, "no chat request")
k = CHAT[0].get("chat_template_kwargs") or {}
need(k.get("enable_thinking") is True, "chat_template_kwargs %r" % k)'
mock_stop

mock_start plain
hearth_run no_tools -p --server "$MOCK_URL" --cwd "$REPO" --no-tools "Answer."
check_rc "--no-tools: exit status 0" 0
check "--no-tools: the request has no tools array" pycheck '
need(CHAT, "no chat request")
need(not CHAT[0].get("tools"), "tools sent: %r" % tool_names(CHAT[0]))'
mock_stop

mock_start plain
hearth_run some_tools -p --server "$MOCK_URL" --cwd "$REPO" --tools read,ls "Answer."
check_rc "--tools read,ls: exit status 0" 0
check "--tools read,ls: exactly those tools are sent" pycheck '
need(CHAT, "no chat request")
need(sorted(tool_names(CHAT[0])) == ["ls", "read"], "tools %r" % tool_names(CHAT[0]))'
mock_stop

printf 'You are the TEST_SYSTEM_PROMPT_5d1 agent.\n' >"$E2E_TMP/system.txt"
mock_start plain
hearth_run system_prompt -p --server "$MOCK_URL" --cwd "$REPO" \
	--system-prompt-file "$E2E_TMP/system.txt" "Answer."
check_rc "--system-prompt-file: exit status 0" 0
check "--system-prompt-file: the file is in the system message" pycheck '
need(CHAT, "no chat request")
m = CHAT[0]["messages"][0]
need(m.get("role") == "system" and "TEST_SYSTEM_PROMPT_5d1" in text_of(m.get("content")),
     "first message %r" % {"role": m.get("role"), "content": text_of(m.get("content"))[:200]})'
mock_stop

# AGENTS.md in the repository (CLAUDE.md where there is none) joins the system prompt.
make_repo "$E2E_TMP/repo_ctx"
mkdir -p "$E2E_TMP/repo_ctx/sub"
printf 'Project rule CTX_ROOT_7f2.\n' >"$E2E_TMP/repo_ctx/AGENTS.md"
printf 'Sub rule CTX_SUB_7f2.\n' >"$E2E_TMP/repo_ctx/sub/CLAUDE.md"
mock_start plain
hearth_run context_files -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo_ctx/sub" "Answer."
check_rc "AGENTS.md: exit status 0" 0
check "AGENTS.md and CLAUDE.md from the repository down to the cwd are in the prompt (session part: first user message)" pycheck '
need(CHAT, "no chat request")
sysm = text_of(CHAT[0]["messages"][0].get("content")) + text_of(CHAT[0]["messages"][1].get("content"))
need("CTX_ROOT_7f2" in sysm and "CTX_SUB_7f2" in sysm, "system message: %r" % sysm[-300:])
need(sysm.index("CTX_ROOT_7f2") < sysm.index("CTX_SUB_7f2"), "root first, then the cwd")'
mock_stop

# A task that is a slash command: a prompt template expands into the task; /help prints.
mkdir -p "$E2E_TMP/repo_ctx/.hearth/prompts"
printf 'description: fix a file\nFix $1 now, TPL_9c3.\n' >"$E2E_TMP/repo_ctx/.hearth/prompts/fix.md"
mock_start plain
hearth_run template -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo_ctx" "/fix hello.c"
check_rc "/template: exit status 0" 0
check "/template: the expanded template is the task" pycheck '
need(CHAT, "no chat request")
last = text_of(CHAT[0]["messages"][-1].get("content"))
need("Fix hello.c now, TPL_9c3." in last, "task: %r" % last[:200])'
mock_stop
hearth_run slash_help -p --server "http://127.0.0.1:9" --cwd "$E2E_TMP/repo_ctx" "/help"
check_rc "/help in print mode: exit status 0, no server needed" 0
check "/help lists the templates" pycheck '
need("/fix" in OUT_TEXT and "fix a file" in OUT_TEXT, "stdout: %r" % OUT_TEXT[:300])'
hearth_run slash_unknown -p --server "http://127.0.0.1:9" --cwd "$E2E_TMP/repo_ctx" "/nosuch"
check_rc "/nosuch: usage error, exit status 2" 2

# --cwd: hearth runs elsewhere; the edit lands in the --cwd repository.
make_repo "$E2E_TMP/repo_cwd"
sed 's/printf("hello\\n");/printf("hello, world\\n");/' "$E2E_TMP/repo_cwd/hello.c" >"$E2E_TMP/hello.want"
mock_start edit_flow
(cd "$E2E_TMP" && hearth_run cwd -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo_cwd" \
	"Change the greeting." && echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/cwd.out ERR=$E2E_TMP/cwd.err
check_rc "--cwd: exit status 0" 0
check "--cwd: the file under --cwd was edited" cmp "$E2E_TMP/repo_cwd/hello.c" "$E2E_TMP/hello.want"
mock_stop

# ---- no server: exit 3 -------------------------------------------------------
PORT=$(closed_port)
hearth_run no_server -p --server "http://127.0.0.1:$PORT" --cwd "$REPO" "Anyone there?"
check_rc "no server: exit status 3" 3
check "no server: one line on stderr with \"no llama-server at\" and the address" pycheck '
lines = [l for l in ERR_TEXT.split("\n") if l.strip()]
need(len(lines) == 1, "stderr lines %r" % lines[:5])
need("no llama-server at" in lines[0] and ARGS[0] in lines[0], "message %r" % lines[0])
need(not OUT_TEXT.strip(), "stdout %r" % OUT_TEXT[:200])' "$PORT"

# ---- SIGINT mid-stream: exit 130 --------------------------------------------
# The background job gets SIGINT reset to the default disposition (a
# non-interactive shell starts background jobs with SIGINT ignored).
mock_start slow
python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$HEARTH_BIN" -p --server "$MOCK_URL" --cwd "$REPO" \
	"Wait for the slow server." </dev/null >"$E2E_TMP/sigint.out" 2>"$E2E_TMP/sigint.err" &
HPID=$!
track_pid "$HPID"
OUT=$E2E_TMP/sigint.out ERR=$E2E_TMP/sigint.err
if mock_wait_request /v1/chat/completions 150; then
	sleep 0.3
	kill -INT "$HPID" 2>/dev/null
	if wait_gone "$HPID" 100; then
		wait "$HPID"
		RC=$?
		check_rc "SIGINT mid-stream: exit status 130" 130
	else
		kill -KILL "$HPID" 2>/dev/null
		wait "$HPID" 2>/dev/null
		not_ok "SIGINT mid-stream: exit status 130" "hearth still running 10 s after SIGINT"
	fi
else
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	RC=none
	not_ok "SIGINT mid-stream: exit status 130" "no chat request reached the mock within 15 s"
	diag_file stderr "$ERR"
fi
untrack_pid "$HPID"
check "SIGINT mid-stream: hearth is gone" sh -c "! kill -0 $HPID 2>/dev/null"
check "SIGINT mid-stream: the connection to the server was closed" pycheck '
import time
for _ in range(50):
    served = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip())
              if r.get("event") == "served" and r.get("kind") == "text"]
    if served:
        break
    time.sleep(0.1)
need(served and served[0].get("client_disconnected") is True, "served %r" % served)'
mock_stop

e2e_finish
