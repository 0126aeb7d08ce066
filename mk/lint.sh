#!/bin/sh
# make lint: cheap structural checks (design.md §3, §9).
#   sh mk/lint.sh "<compile command prefix>"     (run from the repository root)
#
# 1. Every header in src/ tools/ ui/ compiles on its own (it includes what
#    it uses).
# 2. Layering: src/ (except src/main.c) and tools/ include nothing from ui/;
#    only ui/term/curses.c includes curses; ui/ includes neither http.h nor
#    proc.h.
# 3. Banned functions (as git's banned.h): sprintf, vsprintf, strcpy,
#    strcat, gets — in src/ tools/ ui/ tests/.
# Every violation is printed as "file:line: what"; the exit status is 1 if
# there was any, 0 otherwise.  Comments are not parsed: a banned call in a
# comment counts too, so write "sprintf" without the parenthesis there.
set -u
cc=${1:-cc -std=c11 -Isrc -I.}
bad=0
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT

violation() {
	echo "lint: $*"
	bad=1
}

# List the files under the given folders matching the name pattern $1.
files() {
	pat=$1
	shift
	for d in "$@"; do
		[ -d "$d" ] && find "$d" -type f -name "$pat"
	done | sort
}

# 1. Headers alone.
nh=0
for h in $(files '*.h' src tools ui); do
	nh=$((nh + 1))
	# shellcheck disable=SC2086 # $cc is a command line on purpose
	if ! printf '#include "%s"\n' "$h" | $cc -fsyntax-only -x c - >"$tmp" 2>&1; then
		violation "$h: does not compile on its own:"
		sed 's/^/    /' "$tmp" | head -n 8
	fi
done

# Print "file:line:text" for includes in files $2... matching ERE $1.
includes() {
	re=$1
	shift
	[ $# -gt 0 ] || return 0
	grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($re)[>\"]" "$@"
}

# ui/ headers are included with their folder ("ui/view/grid.h").
ui_re="ui/[^\">]*"

# 2. Layering.
core=$(files '*.[ch]' src | grep -v '^src/main[.]c$')
tool_files=$(files '*.[ch]' tools)
ui_files=$(files '*.[ch]' ui)
# shellcheck disable=SC2086 # word-splitting of file lists is intended (no spaces)
{
	includes "$ui_re" $core | while IFS= read -r l; do
		echo "lint: $l: src/ must not include ui/ (only src/main.c may)"
	done
	includes "$ui_re" $tool_files | while IFS= read -r l; do
		echo "lint: $l: tools/ must not include ui/"
	done
	# system headers only: <term.h> is ncurses', "ui/term/term.h" is ours
	grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(([^>]*/)?n?curses(w)?[.]h|ncursesw/[^>]*|term[.]h)>' \
		/dev/null $core $tool_files $ui_files |
		grep -v '^ui/term/curses[.]c:' | while IFS= read -r l; do
			echo "lint: $l: only ui/term/curses.c may include curses"
		done
	includes 'io/(http|proc)[.]h' $ui_files | while IFS= read -r l; do
		echo "lint: $l: ui/ must not include http.h or proc.h"
	done
} >"$tmp"
if [ -s "$tmp" ]; then
	cat "$tmp"
	bad=1
fi

# 3. Banned functions.
# shellcheck disable=SC2046
grep -HnE '(^|[^A-Za-z0-9_])(sprintf|vsprintf|strcpy|strcat|gets)[[:space:]]*\(' \
	$(files '*.[ch]' src tools ui tests) /dev/null >"$tmp"
if [ -s "$tmp" ]; then
	sed "s/^\([^:]*:[0-9]*\):[[:space:]]*\(.*\)/lint: \1: banned function (use snprintf, buf_addf or memcpy): \2/" \
		"$tmp"
	bad=1
fi

# 4. Tool knowledge stays with the tool (llm/tool.h): no file in src/ or
# ui/ compares a name with a built-in tool's name (strcmp, strncmp, str_eq,
# perm_tool_matches, or "name" == a tool-name literal), nor keeps a table
# of tool names ("read", "write", ...); ask the tool instead (its flags,
# preview, paths, read_only, digest, describe).  The names are taken from
# the tools/ table entries (.name = "..."), so a new tool is covered.
# src/code/ is exempt from the table rule: its "bash" is a language.
tool_names=$(sed -n 's/^[[:space:]]*[.]name = "\([a-z_]*\)",.*/\1/p' $(files '*.c' tools) /dev/null |
	sort -u | paste -sd'|' -)
if [ -n "$tool_names" ]; then
	# shellcheck disable=SC2046
	grep -HnE "(strn?cmp|str_eq|strcasecmp|perm_tool_matches)[[:space:]]*\\([^;]*\"($tool_names)\"|\"($tool_names)\"[[:space:]]*[!=]=" \
		$(files '*.[ch]' src ui) /dev/null >"$tmp"
	# shellcheck disable=SC2046
	grep -HnE "\"($tool_names)\"[[:space:]]*,[[:space:]]*\"($tool_names)\"" \
		$(files '*.[ch]' src ui | grep -v '^src/code/') /dev/null >>"$tmp"
	if [ -s "$tmp" ]; then
		sed "s/^\([^:]*:[0-9]*\):[[:space:]]*\(.*\)/lint: \1: a tool's name compared or listed outside tools\/ (give the tool a member or flag in llm\/tool.h): \2/" \
			"$tmp"
		bad=1
	fi
else
	violation "mk/lint.sh: no tool names found in tools/*.c (.name = \"...\")"
fi

if [ "$bad" -ne 0 ]; then
	echo "lint: FAILED"
	exit 1
fi
echo "lint: ok ($nh headers compile alone; layering and banned-function rules hold)"
