#!/bin/sh
# End-to-end: sessions.  Every run is saved; -c continues the latest session
# of the directory with its whole history (a byte-exact prefix, so the
# server's cache still fits); -r ID resumes a given one; --export writes
# Markdown or one self-contained HTML page; a run killed with SIGKILL
# mid-answer leaves a session that resumes.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
SESSIONS=$XDG_STATE_HOME/hearth/sessions
export SESSIONS E2E_TMP

# ---- a run is saved, -c continues it -------------------------------------
mock_start plain
hearth_run first -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "First task SESS_A1."
check_rc "first run: exit status 0" 0
check "first run: one session file, mode 0600, in a 0700 directory" pycheck '
import glob, stat
files = glob.glob(os.environ["SESSIONS"] + "/*/*.jsonl")
need(len(files) == 1, "session files: %r" % files)
need(stat.S_IMODE(os.stat(files[0]).st_mode) == 0o600, "file mode %o" % os.stat(files[0]).st_mode)
need(stat.S_IMODE(os.stat(os.path.dirname(files[0])).st_mode) == 0o700, "dir mode")
sid = json.loads(OUT_TEXT)["session_id"]
need(os.path.basename(files[0]) == sid + ".jsonl", "json session_id %r vs file %r" % (sid, files[0]))'
hearth_run second -p -c --server "$MOCK_URL" --cwd "$REPO" "Second task SESS_B2."
check_rc "-c: exit status 0" 0
check "-c: the second run sends the first run's messages first, byte for byte" pycheck '
need(len(CHAT) == 2, "chat requests: %d" % len(CHAT))
a, b = CHAT[0]["messages"], CHAT[1]["messages"]
need(b[:len(a)] == a, "the first request is not a prefix of the second")
need(any("SESS_A1" in text_of(m.get("content")) for m in b), "first task missing")
need("SESS_B2" in text_of(b[-1].get("content")), "second task is not last")
need([m["role"] for m in b[len(a):]] == ["assistant", "user"], "roles %r" % [m["role"] for m in b])'
check "-c: still one session file" pycheck '
import glob
need(len(glob.glob(os.environ["SESSIONS"] + "/*/*.jsonl")) == 1, "files")'
mock_stop

# ---- --export ----------------------------------------------------------------
SID=$(basename "$(ls "$SESSIONS"/*/*.jsonl)" .jsonl)
hearth_run export_html --cwd "$REPO" --export "$SID" "$E2E_TMP/s.html"
check_rc "--export html: exit status 0" 0
check "--export html: one self-contained page with both tasks" pycheck '
h = open(os.environ["E2E_TMP"] + "/s.html", encoding="utf-8").read()
need(h.lstrip().lower().startswith("<!doctype html"), "not html")
need("SESS_A1" in h and "SESS_B2" in h, "tasks missing")
need("<script" not in h.lower() and "src=" not in h.lower(), "external or active content")'
hearth_run export_md --cwd "$REPO" --export "${SID%????}" "$E2E_TMP/s.md"
check_rc "--export by id prefix, markdown: exit status 0" 0
check "--export markdown has the answer" grep -q "The answer is 42." "$E2E_TMP/s.md"
hearth_run export_bad --cwd "$REPO" --export nosuchsession "$E2E_TMP/x.md"
check_rc "--export of an unknown session: exit status 1" 1

# ---- -r ID ---------------------------------------------------------------------
mock_start plain
hearth_run third -p -r "$SID" --server "$MOCK_URL" --cwd "$REPO" "Third task SESS_C3."
check_rc "-r ID: exit status 0" 0
check "-r ID: history of that session sent" pycheck '
need(CHAT and any("SESS_B2" in text_of(m.get("content")) for m in CHAT[0]["messages"]), "history missing")'
mock_stop
hearth_run resume_none -p -c --server "http://127.0.0.1:9" --cwd "$E2E_TMP" "x"
check_rc "-c where there is no session: exit status 1" 1

# ---- SIGKILL mid-answer, then resume ----------------------------------------
make_repo "$E2E_TMP/repo_kill"
mock_start slow
"$HEARTH_BIN" -p --server "$MOCK_URL" --cwd "$E2E_TMP/repo_kill" "Killed task SESS_K9." \
	</dev/null >"$E2E_TMP/kill.out" 2>"$E2E_TMP/kill.err" &
KPID=$!
track_pid "$KPID"
if mock_wait_request /v1/chat/completions 150; then
	kill -9 "$KPID" 2>/dev/null
	wait "$KPID" 2>/dev/null
	KRC=$?
	# the checks that matter are the resume's below; this one says the kill hit a live run
	check "SIGKILL: hearth was still answering when killed (status 137)" test "$KRC" -eq 137
else
	not_ok "SIGKILL: the chat request arrives before the kill" "the chat request never arrived"
fi
mock_stop
mock_start plain
hearth_run after_kill -p -c --server "$MOCK_URL" --cwd "$E2E_TMP/repo_kill" "Go on."
check_rc "resume after SIGKILL: exit status 0" 0
check "resume after SIGKILL: the killed run's task is in the history" pycheck '
need(CHAT and any("SESS_K9" in text_of(m.get("content")) for m in CHAT[0]["messages"]), "task missing")'
mock_stop

e2e_finish
