#!/bin/sh
# End-to-end: --delete-session ID (issue 14: slot files are deleted with
# their session).  The session file goes, with the slot files kept for it:
# the one hearth's own server saved (STATE/slots), the one in the user's
# slot_save_dir (an external server's directory) and the record of what it
# holds (STATE/slotfiles); another session's files stay, a project's
# slot_save_dir is not trusted, and bad input is one line with an exit code.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
SLOTS=$E2E_TMP/slots
PROJSLOTS=$E2E_TMP/projslots
mkdir -p "$SLOTS" "$PROJSLOTS" "$XDG_CONFIG_HOME/hearth"
printf '{"slot_save_path": "%s", "turns": [{"text": "Done."}]}\n' "$SLOTS" >"$E2E_TMP/save.json"
printf '{"slot_save_dir": "%s"}\n' "$SLOTS" >"$XDG_CONFIG_HOME/hearth/settings.json"

mock_start "$E2E_TMP/save.json"
hearth_run one -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "First session DEL_ONE."
check_rc "first session: exit status 0" 0
SID1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT")
hearth_run two -p --server "$MOCK_URL" --cwd "$REPO" --output-format json "Second session DEL_TWO."
check_rc "second session: exit status 0" 0
SID2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT")
mock_stop
ST=$XDG_STATE_HOME/hearth
# what --serve's own server would have saved for both
mkdir -p "$ST/slots"
for s in "$SID1" "$SID2"; do
	printf x >"$ST/slots/hearth-$s.bin"
	printf x >"$PROJSLOTS/hearth-$s.bin"
done
mkdir -p "$REPO/.hearth"
printf '{"slot_save_dir": "%s"}\n' "$PROJSLOTS" >"$REPO/.hearth/settings.json"
check "before: both sessions have a slot file and a record" sh -c '
for s in "$1" "$2"; do
	test -f "$3/hearth-$s.bin" && test -f "$4/slots/hearth-$s.bin" && test -f "$4/slotfiles/hearth-$s.json" || exit 1
done' _ "$SID1" "$SID2" "$SLOTS" "$ST"

hearth_run del --cwd "$REPO" --delete-session "$SID1"
check_rc "delete: exit status 0" 0
check "delete: the session is gone from the list" sh -c '! "$HEARTH_BIN" --cwd "$1" -r -p 2>&1 </dev/null | grep -q "$2"' _ "$REPO" "$SID1"
check "delete: its slot files and record are gone" sh -c '
! test -e "$3/hearth-$1.bin" && ! test -e "$4/slots/hearth-$1.bin" && ! test -e "$4/slotfiles/hearth-$1.json"' \
	_ "$SID1" "$SID2" "$SLOTS" "$ST"
check "delete: the other session and its files stay" sh -c '
test -f "$3/hearth-$2.bin" && test -f "$4/slots/hearth-$2.bin" && test -f "$4/slotfiles/hearth-$2.json" &&
"$HEARTH_BIN" --cwd "$5" -r -p 2>&1 </dev/null | grep -q "$2"' _ "$SID1" "$SID2" "$SLOTS" "$ST" "$REPO"
check "delete: a project's slot_save_dir is not trusted" test -f "$PROJSLOTS/hearth-$SID1.bin"
check "delete: stdout names what went" sh -c 'grep -q "deleted session $1" "$2" && grep -q "$3/hearth-$1.bin" "$2"' _ "$SID1" "$OUT" "$SLOTS"

hearth_run again --cwd "$REPO" --delete-session "$SID1"
check_rc "delete again: exit status 1" 1
check "delete again: one line says no such session" sh -c 'test "$(wc -l <"$1")" -eq 1 && grep -q "hearth: " "$1"' _ "$ERR"
hearth_run path --cwd "$REPO" --delete-session "$ST/x.jsonl"
check_rc "a path: exit status 2" 2
check "a path: one line says what to pass" grep -q "takes a session id" "$ERR"
hearth_run noarg --cwd "$REPO" --delete-session
check_rc "no id: exit status 2" 2

e2e_finish
