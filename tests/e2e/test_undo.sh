#!/bin/sh
# End-to-end: every change the agent makes is checkpointed and undoable.
# An edit run, then `hearth -c -p /diff`, `/undo` (file bytes and
# `git status --porcelain` back to before, the user's index untouched, no
# new objects on the user's branches), `/redo`, a hand edit that /undo
# leaves alone, and json output listing the files changed.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
(cd "$REPO" && git add -A && git commit -qm base >/dev/null 2>&1)
cp "$REPO/hello.c" "$E2E_TMP/hello.before"
(cd "$REPO" && GIT_OPTIONAL_LOCKS=0 git status --porcelain) >"$E2E_TMP/status.before"
cp "$REPO/.git/index" "$E2E_TMP/index.before"
(cd "$REPO" && git rev-parse HEAD) >"$E2E_TMP/head.before"
# git status must not refresh the index: the test compares its bytes
GIT_OPTIONAL_LOCKS=0
export E2E_TMP REPO GIT_OPTIONAL_LOCKS

mock_start edit_flow
hearth_run edit -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "Change the greeting."
check_rc "edit run: exit status 0" 0
check "edit run: json lists the file changed with line counts" pycheck '
f = json.loads(OUT_TEXT)["files_changed"]
need(f == [{"path": "hello.c", "status": "M", "added": 1, "removed": 1}], "files_changed %r" % f)'
check "edit run: the prompt carries the git summary (branch, changes; session part: first user message)" pycheck '
sysm = text_of(CHAT[0]["messages"][0].get("content")) + text_of(CHAT[0]["messages"][1].get("content"))
need("Git: on branch" in sysm, "system message: %r" % sysm[-400:])'
check "edit run: the checkpoint is under a private ref, not on the user's branches" pycheck '
import subprocess
refs = subprocess.run(["git", "-C", os.environ["REPO"], "for-each-ref", "--format=%(refname)"],
                      capture_output=True, text=True).stdout.split()
need(any(r.startswith("refs/hearth/checkpoints/") for r in refs), "refs %r" % refs)
head = subprocess.run(["git", "-C", os.environ["REPO"], "rev-parse", "HEAD"], capture_output=True, text=True).stdout
need(head == open(os.environ["E2E_TMP"] + "/head.before").read(), "HEAD moved")
need(open(os.environ["REPO"] + "/.git/index", "rb").read() == open(os.environ["E2E_TMP"] + "/index.before", "rb").read(),
     "the user index changed")'
mock_stop

hearth_run diff -c -p --cwd "$REPO" /diff
check_rc "/diff: exit status 0" 0
check "/diff: the session's change as a unified diff" pycheck '
need("-\tprintf(\"hello\\n\");" in OUT_TEXT and "+\tprintf(\"hello, world\\n\");" in OUT_TEXT, OUT_TEXT[:300])'

hearth_run undo -c -p --cwd "$REPO" /undo
check_rc "/undo: exit status 0" 0
check "/undo: file bytes and git status are back to before" pycheck '
import subprocess
need(open(os.environ["REPO"] + "/hello.c", "rb").read() == open(os.environ["E2E_TMP"] + "/hello.before", "rb").read(), "bytes differ")
st = subprocess.run(["git", "-C", os.environ["REPO"], "status", "--porcelain"], capture_output=True, text=True).stdout
need(st == open(os.environ["E2E_TMP"] + "/status.before").read(), "status %r" % st)
need(open(os.environ["REPO"] + "/.git/index", "rb").read() == open(os.environ["E2E_TMP"] + "/index.before", "rb").read(), "the user index changed")'

hearth_run redo -c -p --cwd "$REPO" /redo
check_rc "/redo: exit status 0" 0
check "/redo: the agent's edit is back" grep -q 'hello, world' "$REPO/hello.c"

# a hand edit after the agent's: /undo reports it and leaves it alone
printf '/* mine */\n' >>"$REPO/hello.c"
hearth_run undo_hand -c -p --cwd "$REPO" /undo
check_rc "/undo over a hand edit: exit status 0" 0
check "/undo over a hand edit: the user's change survives and is reported" pycheck '
need("/* mine */" in open(os.environ["REPO"] + "/hello.c").read(), "hand edit lost")
need("by hand" in OUT_TEXT or "left alone" in OUT_TEXT, "not reported: %r" % OUT_TEXT[-300:])'

# ---- issue 20: a shell command that only starts by looking still changes ----
# "ls && rm -rf src" and "env rm -rf src" are not read-only: the turn's
# checkpoint is taken before them, so /undo brings src back.
for cmd in 'ls && rm -rf src' 'env rm -rf src'; do
	R=$E2E_TMP/rm_$(printf '%s' "$cmd" | tr -c 'a-z' '_')
	make_repo "$R"
	mkdir -p "$R/src"
	printf 'int keep_me;\n' >"$R/src/keep.c"
	(cd "$R" && git add -A && git commit -qm src >/dev/null 2>&1)
	printf '{"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": "%s"}}]}, {"text": "Removed."}]}\n' \
		"$cmd" >"$E2E_TMP/rm.json"
	mock_start "$E2E_TMP/rm.json"
	hearth_run rm_src -p --yes --server "$MOCK_URL" --cwd "$R" "clean up"
	check "$cmd: the command ran (src is gone)" test ! -e "$R/src/keep.c"
	mock_stop
	hearth_run rm_undo -c -p --cwd "$R" /undo
	check_rc "$cmd: /undo exit status 0" 0
	check "$cmd: /undo brings src back" grep -qx 'int keep_me;' "$R/src/keep.c"
done

# ---- issue 20: /undo covers gitignored files and workspaces outside git -------
cat >"$E2E_TMP/ign.json" <<'EOS'
{"turns": [
  {"tool_calls": [{"name": "read", "arguments": {"path": "notes.log"}}]},
  {"tool_calls": [{"name": "edit", "arguments": {"path": "notes.log", "old_text": "first draft", "new_text": "rewritten"}}]},
  {"text": "Edited."}
]}
EOS
R=$E2E_TMP/ignored
make_repo "$R"
printf '*.log\n' >"$R/.gitignore"
(cd "$R" && git add .gitignore && git commit -qm ignore >/dev/null 2>&1)
printf 'first draft\n' >"$R/notes.log"
mock_start "$E2E_TMP/ign.json"
hearth_run ign -p --yes --server "$MOCK_URL" --cwd "$R" "edit the notes"
check "gitignored: the edit landed" grep -qx rewritten "$R/notes.log"
mock_stop
hearth_run ign_undo -c -p --cwd "$R" /undo
check "gitignored: /undo brings the file's bytes back" grep -qx 'first draft' "$R/notes.log"

R=$E2E_TMP/nogit
mkdir -p "$R"
printf 'first draft\n' >"$R/notes.log"
mock_start "$E2E_TMP/ign.json"
hearth_run nogit -p --yes --server "$MOCK_URL" --cwd "$R" "edit the notes"
check "outside git: the edit landed" grep -qx rewritten "$R/notes.log"
mock_stop
hearth_run nogit_undo -c -p --cwd "$R" /undo
check "outside git: /undo brings the file's bytes back" grep -qx 'first draft' "$R/notes.log"
# its checkpoints live in the state directory (they once went to /checkpoints,
# the state directory being read before it was set)
check "outside git: the checkpoints are under \$XDG_STATE_HOME/hearth" \
	sh -c 'ls -d "$XDG_STATE_HOME"/hearth/checkpoints/*/checkpoints.git >/dev/null'

e2e_finish
