#!/bin/sh
# make lint: cheap structural checks (design.md §3, §9).
#   sh mk/lint.sh "<compile command prefix>"     (run from the repository root)
#
# 1. Every header in src/ tools/ ui/ compiles on its own (it includes what
#    it uses).
# 2. Layering by path (the rank table and rules are in section 2 below):
#    includes written with their folder, a folder includes its rank or
#    below, *-int.h only inside its folder, src/ never includes ui/ (but
#    src/main.c), ui/term sees base/, ui/view sees base/ llm/ agent/agent.h
#    code/code.h, curses only in ui/term, no folder-level include cycle.
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

# 2. Layering, by path.  Every rule is one awk test over the list of
# includes "file:line:header" (quoted includes of src/ tools/ ui/ files).
#
# The rank table: a folder may include its own rank or lower ones.  This
# is the one place the order is written down (docs/architecture.md).
#   src/: a folder is src/<name>/; tools/ is a folder at its place below.
#   ui/:  ui/term < ui/view < ui/app; ui/ may include src/ (ui/view and
#         ui/term only what rule 2d and 2e allow); src/ never includes ui/
#         except src/main.c, which sees everything.
src_ranks="base io llm code repo repomap session prompt tools llama anthropic agent perm route mcp front"
ui_ranks="ui/term ui/view ui/app"

# Every quoted include of the tree as "file:line:header".
grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
	$(files '*.[ch]' src tools ui) /dev/null |
	sed -E 's/^([^:]*:[0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2/' >"$tmp"

# shellcheck disable=SC2016 # awk program, not shell
awk -F: -v src_ranks="$src_ranks" -v ui_ranks="$ui_ranks" '
# The folder of a path written from the repository root (src/base/buf.c)
# or from -Isrc (base/buf.h): "base", "tools", "ui/view", "main".
function folder(p, n, a) {
	sub(/^src\//, "", p)
	n = split(p, a, "/")
	if (a[1] == "ui")
		return n >= 3 ? "ui/" a[2] : "ui"
	return n >= 2 ? a[1] : "main"
}
function bad(what) {
	printf "lint: %s:%s: %s\n", $1, $2, what
	nbad++
}
BEGIN {
	n = split(src_ranks, a, " ")
	for (i = 1; i <= n; i++)
		rank[a[i]] = i
	n = split(ui_ranks, a, " ")
	for (i = 1; i <= n; i++)
		uirank[a[i]] = i
}
{
	file = $1; hdr = $3
	from = folder(file)

	# 2a. Includes are written with their folder: "base/buf.h", not "buf.h".
	if (hdr !~ /\//) {
		bad("include \"" hdr "\" without its folder (write \"<folder>/" hdr "\")")
		next
	}
	to = folder(hdr)
	if (!(to in rank) && !(to in uirank)) {
		bad("include \"" hdr "\" names no folder of src/, tools/ or ui/")
		next
	}

	# 2b. A folder-private header (*-int.h) only from inside its folder.
	if (hdr ~ /-int\.h$/ && from != to)
		bad("\"" hdr "\" is private to " to "/ (only its own files include it)")

	# 2c. src/ and tools/ never include ui/ (src/main.c sees both).
	if ((from in rank) && (to in uirank))
		bad("src/ and tools/ must not include ui/ (only src/main.c may): \"" hdr "\"")

	# 2d. Ranks: a folder includes its own rank or lower.
	if ((from in rank) && (to in rank) && rank[to] > rank[from])
		bad(from " must not include " to " (ranks above it): \"" hdr "\"")
	if ((from in uirank) && (to in uirank) && uirank[to] > uirank[from])
		bad(from " must not include " to " (ranks above it): \"" hdr "\"")

	# 2e. ui/term is the terminal: it builds on src/base only.
	if (from == "ui/term" && (to in rank) && to != "base")
		bad("ui/term includes only src/base (and ui/term): \"" hdr "\"")

	# 2f. ui/view draws state it is handed: from src/ it sees the small
	# libraries base/ and llm/, the agent public header agent/agent.h, and
	# code/code.h.  Why code/: code/ is a pure library of rank 4 (text in,
	# syntax spans out; no I/O, no loop, only base/ below it), and the
	# views highlight code fences and diffs the moment they draw them;
	# handing them a highlighter through a callback would be an
	# indirection with exactly one implementation and nothing to decouple.
	if (from == "ui/view" && (to in rank) && to != "base" && to != "llm" &&
	    hdr != "agent/agent.h" && hdr != "code/code.h")
		bad("ui/view sees only base/, llm/, agent/agent.h and code/code.h of src/: \"" hdr "\"")

	# 2g. ui/ does no network or process I/O of its own.
	if (from ~ /^ui\// && (hdr == "io/http.h" || hdr == "io/proc.h"))
		bad("ui/ must not include \"" hdr "\"")

	if (from != to && !((from SUBSEP to) in edge)) {
		edge[from, to] = $1 ":" $2
		reach[from, to] = 1
		node[from]; node[to]
	}
}
END {
	# 2h. No folder-level include cycle (whatever the ranks say): the
	# transitive closure of folder -> folder, then every edge a -> b with b
	# reaching a back.
	for (k in node)
		for (i in node)
			if ((i, k) in reach)
				for (j in node)
					if ((k, j) in reach)
						reach[i, j] = 1
	for (e in edge) {
		split(e, ab, SUBSEP)
		if ((ab[2], ab[1]) in reach) {
			printf "lint: %s: folder cycle: %s -> %s -> ... -> %s\n", edge[e], ab[1], ab[2], ab[1]
			nbad++
		}
	}
	exit nbad > 0
}' "$tmp" >"$tmp.out" || bad=1
cat "$tmp.out"
rm -f "$tmp.out"

# 2i. Curses only in ui/term (system headers: <term.h> is ncurses, "ui/term/term.h" ours).
# shellcheck disable=SC2046
grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(([^>]*/)?n?curses(w)?[.]h|ncursesw/[^>]*|term[.]h)>' \
	$(files '*.[ch]' src tools ui) /dev/null | grep -v '^ui/term/' >"$tmp"
if [ -s "$tmp" ]; then
	sed 's/^\([^:]*:[0-9]*\):.*/lint: \1: curses is included only in ui\/term\//' "$tmp"
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
