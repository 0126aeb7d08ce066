#!/bin/sh
# block-git-push: a hearth pre_tool hook that refuses `git push` in bash calls.
#
# hearth runs it with the event as JSON on stdin, e.g.
#   {"event":"pre_tool","tool_name":"bash","tool_input":{"command":"git push origin main"},...}
# Exit 2 blocks the call, and what this script writes on stderr is the
# reason the model is told; exit 0 lets the call run.
#
# It looks at the command text only (no JSON parser needed): any `git`
# command word followed later by a `push` word, also behind options such
# as `git -C dir push`, `cd x && git push` or `sudo git push`.  A command
# that merely mentions the words in a string (echo "git push") is blocked
# too: false alarms are cheap, a push is not.
set -u

event=$(cat) || exit 0
case ${HEARTH_TOOL:-} in
bash) ;;
*) exit 0 ;;
esac
# the command string, JSON escapes left as they are (\" \\ \n)
cmd=$(printf '%s' "$event" | tr '\n' ' ' |
	sed -n 's/.*"command"[[:space:]]*:[[:space:]]*"\(\([^"\\]\|\\.\)*\)".*/\1/p')
[ -n "$cmd" ] || exit 0
if printf '%s\n' "$cmd" | grep -Eq '(^|[^[:alnum:]_./-])git([[:space:]]+[^;&|]*)?[[:space:]]push([[:space:]]|$|[;&|)])'; then
	echo "git push is blocked by extensions/hooks/block-git-push.sh: pushing is for the user to do. Commit locally if asked and tell the user the branch is ready to push." >&2
	exit 2
fi
exit 0
