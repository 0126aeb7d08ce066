#!/bin/sh
# End-to-end: approval in print mode and the hooks around tool calls.
# (Runs whose point is that bash asks use --sandbox off: inside the
# sandbox auto-edit runs them; tests/e2e/test_sandbox.sh covers that.)
#   - a bash call that changes files is refused without --yes (the model is
#     told why, stderr says how to allow it) and runs with --yes, with
#     --approval yolo and with an allow rule;
#   - an edit refused in mode ask shows on stderr the change it would have
#     made, computed by the edit tool: every occurrence for replace_all, the
#     hunk where it lands in a CRLF file;
#   - a deny rule refuses even with --yes;
#   - the shipped extensions/hooks/block-git-push.sh blocks `git push` (the
#     model sees the hook's reason) and lets other commands run;
#   - post_tool / turn_end / session_start hooks get their JSON event and
#     environment; a hook that hangs is killed at its timeout (its whole
#     process group) and a hook that floods stdout is cut, neither blocking.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
HOOK=$E2E_ROOT/extensions/hooks/block-git-push.sh

# settings JSON: the project's .hearth/settings.json
settings() {
	mkdir -p "$REPO/.hearth"
	printf '%s\n' "$1" >"$REPO/.hearth/settings.json"
	trust_project "$REPO"
}

# tool_result TEXT: the last tool result sent to the model contains TEXT
tool_result() {
	pycheck '
msgs = CHAT[-1]["messages"] if CHAT else []
tools = [m for m in msgs if m.get("role") == "tool"]
need(tools, "no tool result in the last request")
c = tools[-1].get("content")
c = c if isinstance(c, str) else json.dumps(c)
need(ARGS[0] in c, "tool result %r lacks %r" % (c[:300], ARGS[0]))' "$1"
}

# ---- print mode: ask = refuse unless --yes --------------------------------
mock_start bash_touch
hearth_run refused -p --sandbox off --server "$MOCK_URL" --cwd "$REPO" "make a file"
check_rc "print: a refused call does not fail the run" 0
check "print: the file was not made" test ! -e "$REPO/made.txt"
check "print: stderr says it was refused and how to allow it" \
	sh -c "grep -q 'refused bash' '$ERR' && grep -q -- '--yes' '$ERR' && grep -qF 'bash(touch made.txt:*)' '$ERR'"
check "print: the model is told it needs approval" tool_result "needs the user's approval"
mock_stop

# ---- print mode: the refusal shows the change that would have landed -------
cat >"$E2E_TMP/preview.json" <<'EOS'
{"turns": [
  {"tool_calls": [{"name": "read", "arguments": {"path": "twice.txt"}}]},
  {"tool_calls": [{"name": "edit", "arguments": {"path": "twice.txt", "old_text": "red", "new_text": "blue", "replace_all": true}}]},
  {"tool_calls": [{"name": "read", "arguments": {"path": "dos.txt"}}]},
  {"tool_calls": [{"name": "edit", "arguments": {"path": "dos.txt", "old_text": "three\nfour", "new_text": "THREE\nFOUR"}}]},
  {"text": "Could not edit."}
]}
EOS
printf 'red top\nmid\nred bottom\n' >"$REPO/twice.txt"
printf 'one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n' >"$REPO/dos.txt"
mock_start "$E2E_TMP/preview.json"
hearth_run preview -p --approval ask --server "$MOCK_URL" --cwd "$REPO" "recolor"
check_rc "print preview: a refused edit does not fail the run" 0
check "print preview: the files were not changed" \
	sh -c "grep -q 'red bottom' '$REPO/twice.txt' && grep -q three '$REPO/dos.txt'"
check "print preview: stderr names the refused edit" grep -q 'refused edit twice.txt' "$ERR"
check "print preview: replace_all shows both occurrences changed" \
	sh -c "grep -qx -- '+blue top' '$ERR' && grep -qx -- '+blue bottom' '$ERR'"
check "print preview: the CRLF edit shows the hunk where it lands" \
	sh -c "grep -qx -- '@@ -1,6 +1,6 @@' '$ERR' && grep -qx -- '+FOUR' '$ERR'"
mock_stop
rm -f "$REPO/twice.txt" "$REPO/dos.txt"

mock_start bash_touch
hearth_run yes -p --yes --server "$MOCK_URL" --cwd "$REPO" "make a file"
check_rc "print --yes: exit 0" 0
check "print --yes: the command ran" test -e "$REPO/made.txt"
check "print --yes: the model saw its output" tool_result "made"
rm -f "$REPO/made.txt"
mock_stop

mock_start bash_touch
hearth_run yolo -p --approval yolo --server "$MOCK_URL" --cwd "$REPO" "make a file"
check "print --approval yolo: the command ran" test -e "$REPO/made.txt"
rm -f "$REPO/made.txt"
mock_stop

settings '{"permissions": {"allow": ["bash(touch made.txt)"]}}'
mock_start bash_touch
hearth_run allow -p --sandbox off --server "$MOCK_URL" --cwd "$REPO" "make a file"
check "print: an allow rule lets the command run without --yes" test -e "$REPO/made.txt"
check "print: the permission keys are known settings" sh -c "! grep -q 'unknown setting' '$ERR'"
rm -f "$REPO/made.txt"
mock_stop

# wrong values: one warning each, the defaults stay (the call is refused as usual)
settings '{"approval": "sometimes", "permissions": {"deny": ["bash(git push"], "allow": "x"}, "hooks": {"pre_tool": [{"timeout": 5}]}}'
mock_start bash_touch
hearth_run badsettings -p --sandbox off --server "$MOCK_URL" --cwd "$REPO" "make a file"
check_rc "bad settings: the run goes on" 0
check "bad settings: approval named" grep -q 'setting "approval" must be "ask", "auto-edit" or "yolo"' "$ERR"
check "bad settings: the malformed rule named" grep -qF 'rule "bash(git push": a pattern ends with' "$ERR"
check "bad settings: allow must be an array" grep -qF '"permissions.allow" must be an array' "$ERR"
check "bad settings: a hook without a command" grep -qF 'hooks.pre_tool: each hook needs a "command" string' "$ERR"
check "bad settings: the default mode still asks (refused in print mode)" test ! -e "$REPO/made.txt"
mock_stop

hearth_run badmode -p --approval sometimes --server http://127.0.0.1:9 "x"
check_rc "--approval with an unknown mode is a usage error" 2

# ---- deny rules refuse even with --yes ------------------------------------
settings '{"permissions": {"deny": ["Bash(git push*)"]}}'
mock_start git_push
hearth_run deny -p --yes --server "$MOCK_URL" --cwd "$REPO" "push it"
check_rc "deny: the run still ends normally" 0
check "deny: stderr names the rule" grep -qF 'denied by the rule "Bash(git push*)"' "$ERR"
check "deny: the model is told why" tool_result 'denied by the rule'
mock_stop

# ---- here-documents: the body is text, a comment's "<<" is not one ---------
# with a deny rule for rm: a note whose text says "rm -rf victim" is written
# (by the real shell); "ls # <<EOF" followed by that line is refused (bash
# runs the line: the "<<" is in a comment), and victim/ is still there
settings '{"permissions": {"deny": ["bash(rm:*)"]}}'
mkdir -p "$REPO/victim"
cat >"$E2E_TMP/heredoc.json" <<'EOS'
{"turns": [
  {"tool_calls": [{"name": "bash", "arguments": {"command": "cat > note.txt <<'EOF'\nrm -rf victim\nEOF"}}]},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "ls # <<EOF\nrm -rf victim\nEOF"}}]},
  {"text": "Done."}
]}
EOS
mock_start "$E2E_TMP/heredoc.json"
hearth_run heredoc -p --yes --sandbox off --server "$MOCK_URL" --cwd "$REPO" "note it"
check_rc "heredoc: the run ends normally" 0
check "heredoc: the note with 'rm -rf victim' in its text was written" \
	grep -qx 'rm -rf victim' "$REPO/note.txt"
check "heredoc: 'ls # <<EOF' then rm is refused by the deny rule" \
	grep -qF 'denied by the rule "bash(rm:*)"' "$ERR"
check "heredoc: victim/ is still there" test -d "$REPO/victim"
mock_stop
rm -f "$REPO/note.txt"

# ---- the shipped hook blocks git push --------------------------------------
# a bare remote that would accept the push: the hook is what stops it
git init -q --bare "$E2E_TMP/remote.git"
git -C "$REPO" remote add origin "$E2E_TMP/remote.git"
settings "{\"hooks\": {\"pre_tool\": [{\"command\": \"sh '$HOOK'\", \"matcher\": \"bash\"}]}}"
mock_start git_push
hearth_run hook -p --yes --server "$MOCK_URL" --cwd "$REPO" "push it"
check_rc "hook: the run ends normally" 0
check "hook: nothing reached the remote" sh -c "[ -z \"\$(git -C '$E2E_TMP/remote.git' for-each-ref)\" ]"
check "hook: the model sees the hook's stderr as the reason" tool_result "git push is blocked by extensions/hooks/block-git-push.sh"
check "hook: stderr says a pre_tool hook blocked it" grep -q 'pre_tool hook blocked bash' "$ERR"
mock_stop

mock_start bash_touch
hearth_run hook_other -p --yes --server "$MOCK_URL" --cwd "$REPO" "make a file"
check "hook: other commands run" test -e "$REPO/made.txt"
rm -f "$REPO/made.txt"
mock_stop

# ---- notification hooks: JSON on stdin, environment ------------------------
EV=$E2E_TMP/events
mkdir -p "$EV"
cat >"$E2E_TMP/record.sh" <<EOS
#!/bin/sh
cat >"$EV/\$HEARTH_EVENT.json"
printf '%s|%s|%s\n' "\$HEARTH_EVENT" "\$HEARTH_TOOL" "\$HEARTH_PROJECT_DIR" >>"$EV/env.txt"
EOS
settings "{\"hooks\": {
  \"session_start\": [\"sh '$E2E_TMP/record.sh'\"],
  \"post_tool\": [{\"command\": \"sh '$E2E_TMP/record.sh'\", \"matcher\": \"bash\"}],
  \"turn_end\": [\"sh '$E2E_TMP/record.sh'\"]}}"
mock_start bash_touch
hearth_run events -p -y --server "$MOCK_URL" --cwd "$REPO" "make a file"
check_rc "events: exit 0 (-y is --yes)" 0
check "events: post_tool got the call and its output" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert e["event"] == "post_tool" and e["tool_name"] == "bash", e
assert e["tool_input"]["command"].startswith("touch made.txt"), e
assert "made" in e["tool_output"] and e["is_error"] is False, e
assert e["cwd"] == sys.argv[2] and e["session_id"], e' "$EV/post_tool.json" "$(cd "$REPO" && pwd -P)"
check "events: turn_end says how the turn ended" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert e["event"] == "turn_end" and e["end"] == "ok", e' "$EV/turn_end.json"
check "events: session_start in print mode" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert e["event"] == "session_start" and e["mode"] == "print" and e["resumed"] is False, e' "$EV/session_start.json"
check "events: HEARTH_EVENT, HEARTH_TOOL and HEARTH_PROJECT_DIR are set" \
	grep -qx "post_tool|bash|$(cd "$REPO" && pwd -P)" "$EV/env.txt"
rm -f "$REPO/made.txt"
mock_stop

# ---- a hook that hangs and one that floods: cut, reported, not blocking ----
cat >"$E2E_TMP/hang.sh" <<EOS
#!/bin/sh
sleep 300 &
echo \$! >"$E2E_TMP/hang.child"
wait
EOS
settings "{\"hooks\": {\"pre_tool\": [
  {\"command\": \"sh '$E2E_TMP/hang.sh'\", \"timeout\": 1},
  {\"command\": \"yes flood\"}]}}"
mock_start bash_touch
T0=$(date +%s)
hearth_run hang -p --yes --server "$MOCK_URL" --cwd "$REPO" "make a file"
T1=$(date +%s)
check_rc "hang: exit 0" 0
check "hang: the call still ran" test -e "$REPO/made.txt"
check "hang: reported as timed out" grep -q 'timed out after 1 s and was killed' "$ERR"
check "hang: the flood is reported as cut" grep -q '"yes flood" (pre_tool) wrote more than' "$ERR"
check "hang: the run took seconds, not the sleep" test $((T1 - T0)) -lt 15
# gone, or a zombie waiting for init to reap it
check "hang: the hook's background child was killed with its group" \
	sh -c "_s=\$(ps -o stat= -p \$(cat '$E2E_TMP/hang.child') 2>/dev/null); [ -z \"\$_s\" ] || case \$_s in Z*) true;; *) false;; esac"
rm -f "$REPO/made.txt" "$REPO/.hearth/settings.json"
mock_stop

e2e_finish
