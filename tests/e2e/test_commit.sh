#!/bin/sh
# End-to-end: /commit commits exactly the session's files with a message
# the model drafts (the mock's reply), refuses in print mode without --yes,
# leaves a hand-edited file out; the line session asks before /undo and
# /commit (y / n / e).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
echo notes >"$REPO/notes.txt"
(cd "$REPO" && git add notes.txt && git commit -qm notes >/dev/null 2>&1)
GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann@example.com
GIT_COMMITTER_NAME="Ann Author" GIT_COMMITTER_EMAIL=ann@example.com
export E2E_TMP REPO GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
(cd "$REPO" && git rev-parse HEAD) >"$E2E_TMP/head.before"

mock_start edit_flow
hearth_run edit -p --server "$MOCK_URL" --cwd "$REPO" "Change the greeting."
check_rc "edit run: exit status 0" 0
mock_stop
echo "mine" >>"$REPO/notes.txt"

mock_start commit_msg
hearth_run noyes -c -p --server "$MOCK_URL" --cwd "$REPO" /commit
check_rc "print mode without --yes: usage exit status" 2
check "print mode without --yes: says to add --yes, asks no model, commits nothing" pycheck '
need("--yes" in ERR_TEXT, ERR_TEXT)
need(not CHAT, "a chat request was sent")
import subprocess
head = subprocess.run(["git", "-C", os.environ["REPO"], "rev-parse", "HEAD"], capture_output=True, text=True).stdout
need(head == open(os.environ["E2E_TMP"] + "/head.before").read(), "HEAD moved")'

hearth_run yes -c -p --yes --server "$MOCK_URL" --cwd "$REPO" /commit
check_rc "/commit --yes: exit status 0" 0
check "/commit --yes: the message is the model's reply, tidied" pycheck '
import subprocess
msg = subprocess.run(["git", "-C", os.environ["REPO"], "log", "-1", "--format=%B"], capture_output=True, text=True).stdout
need(msg == "Greet the whole world\n\nThe program now prints hello, world.\n\n", "message %r" % msg)
who = subprocess.run(["git", "-C", os.environ["REPO"], "log", "-1", "--format=%an <%ae>"], capture_output=True, text=True).stdout
need(who == "Ann Author <ann@example.com>\n", who)'
check "/commit --yes: only the session's file is committed; the hand edit is left out and listed" pycheck '
import subprocess
files = subprocess.run(["git", "-C", os.environ["REPO"], "show", "--name-only", "--format=", "HEAD"], capture_output=True, text=True).stdout
need(files == "hello.c\n", "committed %r" % files)
st = subprocess.run(["git", "-C", os.environ["REPO"], "status", "--porcelain"], capture_output=True, text=True).stdout
need(st == " M notes.txt\n", "status %r" % st)
need("left out" in OUT_TEXT and "notes.txt" in OUT_TEXT, OUT_TEXT)
need("committed " in OUT_TEXT, OUT_TEXT)'
check "/commit --yes: the draft request carries the session and the staged diff" pycheck '
need(len(CHAT) == 1, "%d chat requests" % len(CHAT))
msgs = CHAT[0]["messages"]
need(msgs[0]["role"] == "system" and len(msgs) > 3, "no session prefix: %d messages" % len(msgs))
last = text_of(msgs[-1].get("content"))
need(msgs[-1]["role"] == "user" and "commit message" in last, last[:200])
need("+\tprintf(\"hello, world\\n\");" in last, last[-400:])'

hearth_run again -c -p --yes --server "$MOCK_URL" --cwd "$REPO" /commit
check_rc "/commit with nothing left: exit status 0" 0
check "/commit with nothing left: says so" grep -q "nothing to commit" "$OUT"
mock_stop

# ---- the line session: /undo asks, /commit drafts, e edits ------------------
REPO2=$E2E_TMP/repo2
make_repo "$REPO2"
export REPO2
mock_start edit_then_commit
printf 'Change the greeting.\n/undo\nn\n/commit\ne\nSay hello to the world\n\nBecause.\n.\n' >"$E2E_TMP/in1"
OUT=$E2E_TMP/line1.out ERR=$E2E_TMP/line1.err
timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO2" \
	<"$E2E_TMP/in1" >"$OUT" 2>"$ERR"
RC=$?
check_rc "line session: exit status 0" 0
check "line /undo: shows what it would restore, asks, n leaves the file alone" pycheck '
need("/undo would restore 1 file" in OUT_TEXT and "hello.c" in OUT_TEXT, OUT_TEXT[-800:])
need("undo? [y/N]" in OUT_TEXT and "undo cancelled" in OUT_TEXT, OUT_TEXT[-800:])'
check "line /commit: the drafted message is shown and asked about" pycheck '
need("Greet the world" in OUT_TEXT and "commit? [y]es / [e]dit / [N]o" in OUT_TEXT, OUT_TEXT[-800:])'
check "line /commit e: the edited message is committed" pycheck '
import subprocess
msg = subprocess.run(["git", "-C", os.environ["REPO2"], "log", "-1", "--format=%B"], capture_output=True, text=True).stdout
need(msg == "Say hello to the world\n\nBecause.\n\n", "message %r" % msg)
need("hello, world" in open(os.environ["REPO2"] + "/hello.c").read(), "the edit was undone")'
mock_stop

mock_start plain
printf '/undo -y\n' >"$E2E_TMP/in2"
OUT=$E2E_TMP/line2.out ERR=$E2E_TMP/line2.err
timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line -c --server "$MOCK_URL" --cwd "$REPO2" \
	<"$E2E_TMP/in2" >"$OUT" 2>"$ERR"
RC=$?
check_rc "line /undo -y: exit status 0" 0
check "line /undo -y: restores without asking" pycheck '
need("undo? [y/N]" not in OUT_TEXT, OUT_TEXT[-500:])
need("hello, world" not in open(os.environ["REPO2"] + "/hello.c").read(), "not undone")'
mock_stop

[ -n "${KEEP:-}" ] && cp -r "$E2E_TMP" /tmp/keep_commit
e2e_finish
