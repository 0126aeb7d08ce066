/*
 * test_perm: approval modes and rules — glob matching, splitting a shell
 * command into simple commands, the decision for each mode, precedence
 * (deny > ask > allow > mode), rules from settings JSON with warnings for
 * bad entries, and the session rules an "always" answer adds.  Paths are
 * checked against a real temporary workspace (realpath is involved).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/json.h"
#include "perm/perm.h"
#include "llm/tool.h"

static char root[4096];

/* A temporary workspace with a src/ folder. */
static int
setup(void **state)
{
	char tmpl[] = "/tmp/hearth-perm.XXXXXX", sub[4200];

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, root))
		return -1;
	snprintf(sub, sizeof sub, "%s/src", root);
	return mkdir(sub, 0700);
}

static int
teardown(void **state)
{
	char cmd[4200];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd);
}

/* Decide for tool `name` with JSON args. */
static enum perm_verdict
decide(const struct perm *p, const char *name, const char *args_json, struct buf *why)
{
	cJSON *args = json_parse(args_json, strlen(args_json), NULL);
	enum perm_verdict v;

	assert_non_null(args);
	assert_non_null(tool_find(name));
	buf_reset(why);
	v = perm_check(p, tool_find(name), args, root, why);
	cJSON_Delete(args);
	return v;
}

/* Decide for a bash command. */
static enum perm_verdict
bash(const struct perm *p, const char *command, struct buf *why)
{
	cJSON *o = cJSON_CreateObject();
	char *s;
	enum perm_verdict v;

	cJSON_AddStringToObject(o, "command", command);
	s = json_print(o);
	v = decide(p, "bash", s, why);
	free(s);
	cJSON_Delete(o);
	return v;
}

static void
add(struct perm *p, enum perm_list l, const char *rule)
{
	struct err e = ERR_INIT;

	assert_int_equal(perm_add_rule(p, l, rule, &e), 0);
}

static void
test_glob(void **state)
{
	(void)state;
	assert_true(perm_glob("git push*", "git push"));
	assert_true(perm_glob("git push*", "git push --force origin"));
	assert_false(perm_glob("git push*", "git status"));
	assert_false(perm_glob("git push*", "echo git push"));
	assert_true(perm_glob("rm -rf /*", "rm -rf /"));
	assert_true(perm_glob("rm -rf /*", "rm -rf /home"));
	assert_false(perm_glob("rm -rf /*", "rm -rf build"));
	assert_true(perm_glob("*.c", "src/a.c"));
	assert_true(perm_glob("src/*", "src/deep/x.h"));
	assert_true(perm_glob("a?c", "abc"));
	assert_false(perm_glob("a?c", "ac"));
	assert_true(perm_glob("*", ""));
	assert_false(perm_glob("", "x"));
	assert_true(perm_glob("*a*b*c*", "xxaxxbxxcxx"));
	assert_false(perm_glob("*a*b*c", "xxaxxbxxcxx"));
	/* a backslash makes the next character literal; a lone one at the end is itself */
	assert_true(perm_glob("rm \\*.o", "rm *.o"));
	assert_false(perm_glob("rm \\*.o", "rm -rf ~ x.o"));
	assert_false(perm_glob("rm \\*.o", "rm a.o"));
	assert_true(perm_glob("a\\?", "a?"));
	assert_false(perm_glob("a\\?", "ab"));
	assert_true(perm_glob("a\\\\b", "a\\b"));
	assert_false(perm_glob("a\\\\b", "a\\\\b"));
	assert_true(perm_glob("a\\", "a\\"));
	assert_true(perm_glob("*\\*", "x*"));
	assert_false(perm_glob("*\\*", "xy"));
}

/*
 * The command word as bash runs it, whatever its quoting, and redirections
 * written before it: deny rules by command name are not escaped by either
 * (each checked with bash -c: these lines run rm).
 */
static void segs(const char *cmd, const char *want);

static void
test_quoted_command_word(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT;
	static const char *const lines[] = {
		"'rm' -rf src", "\\rm -rf src", "r''m -rf src", "\"rm\" -rf src", "$'rm' -rf src",
		"$'\\x72m' -rf src", "$'\\162m' -rf src", "$\"rm\" -rf src", "\"sudo\" rm -rf src",
		"'timeout' 5 rm -rf src", ">out rm -rf src", "> out rm -rf src", "2>/dev/null rm -rf src",
		"FOO=1 >x 'rm' -rf src", "<<<x rm -rf src", "&>log rm -rf src",
		"rm>x -rf src", "rm&>x -rf src", "'rm'<x -rf src", "$'rm\\c@zz' -rf src", "r$'m\\0zz' -rf src",
	};
	size_t i;

	(void)state;
	perm_init(&p);
	p.mode = PERM_YOLO;
	add(&p, PERM_LIST_DENY, "bash(rm:*)");
	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (bash(&p, lines[i], &why) != PERM_DENY)
			fail_msg("not denied: %s", lines[i]);
	}
	assert_int_equal(bash(&p, "echo rm -rf src", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "'rmx' -rf src", &why), PERM_ALLOW);
	segs("'rm' -rf 'src'", "rm -rf 'src'");
	segs(">out 2>&1 rm -rf src", "rm >out 2>&1 -rf src");
	segs("> out rm x", "rm > out x");
	segs("> notes", "> notes");
	segs("ls; > src/main.c", "ls | > src/main.c");
	segs("\"\"", "\"\"");
	/* Issue 20: bash ends a word at an unquoted < or > (rm>x is rm >x); digits
	 * right before it, alone, are its file descriptor; a quoted > is text.
	 * The command word and what precedes it are split so; later words stay. */
	segs("rm>x -rf src", "rm >x -rf src");
	segs("rm&>x", "rm &>x");
	segs("2>x>y rm", "rm 2>x >y");
	segs("a>>b", "a >>b");
	segs("cat<<EOF", "cat <<EOF");
	segs("x<>f", "x <>f");
	segs("rm2>x", "rm2 >x");                /* bash runs rm2 */
	segs("'>'x", ">x");
	segs("\\>x", ">x");
	segs("echo a>x", "echo a>x");
	segs("#a>b\nls", "#a>b | ls");           /* a comment is text */
	perm_release(&p);
	buf_release(&why);
}

/*
 * Issue 20: the command word's quote removal byte by byte, as bash does it
 * (each expectation checked with bash -c 'printf %s ...').  A word is a slice
 * of the line: what follows it must not be read into it.
 */
static void
test_command_word_escapes(void **state)
{
	(void)state;
	/* a backslash at the very end stays (bash runs x\) */
	segs("x\\", "x\\");
	segs("\"ab\\", "ab\\");                 /* unterminated: kept as written */
	segs("$'ab\\", "ab\\");
	/* '...' takes no escapes; "..." removes \ only before " \ $ ` */
	segs("'r\\x6d' x", "r\\x6d x");
	segs("\"a\\\"b\" x", "a\"b x");
	segs("\"a\\b\" x", "a\\b x");
	segs("\"r\"'m' x", "rm x");
	/* $'\xHH': one or two hex digits, either case; none: \x kept */
	segs("$'r\\x6d' x", "rm x");
	segs("$'r\\x6D' x", "rm x");
	segs("$'\\x7'", "\a");
	segs("$'\\x7", "\a");
	segs("$'\\x414' x", "A4 x");
	segs("$'\\xg4' x", "\\xg4 x");
	segs("$'\\x' x", "\\x x");
	/* octal: one to three digits 0-7 */
	segs("$'\\101' x", "A x");
	segs("$'\\1011' x", "A1 x");
	segs("$'\\107' x", "G x");
	segs("$'\\77' x", "? x");
	segs("$'\\060' x", "0 x");
	/* \cX: control-X, bash's TOCTRL (each checked with bash -c 'printf %s ... | od -c') */
	segs("$'rm\\c@zz' -rf src", "rm -rf src"); /* \c@ is NUL: the $'' part ends there */
	segs("$'a\\cAb' x", "a\001b x");
	segs("$'a\\cab' x", "a\001b x");
	segs("$'a\\c?b' x", "a\177b x");
	segs("$'a\\c\\\\b' x", "a\034b x");
	segs("$'r\\c\\'m' x", "r\034'm x");
	segs("$'a\\c' x", "a\\c x");            /* at the end: kept */
	segs("$'\\cA\\\\x' y", "\001\\x y");    /* \\ after \cA is its own escape */
	segs("$'\\c\\x' y", "\034x y");         /* \c\ then x: x is text */
	segs("$'a\\cA", "a\001");               /* unterminated: decoded to its end */
	segs("$'a\\c", "a\\c");                /* \c ending it: kept, nothing read past it */
	/* a decoded NUL ends its $'...' part, not the word (bash: $'ab\0cd'ef is abef) */
	segs("$'rm\\0zz'y x", "rmy x");
	segs("$'\\x00ls'rm -rf src", "rm -rf src");
	segs("r$'\\000q'm x", "rm x");
	segs("$'\\u0000'rm x", "rm x");
	segs("$'\\U00000000x'$'rm' x", "rm x");
	segs("$'\\0' x", "$'\\0' x"); /* empty: kept as written, as '' is */
	segs("$'\\8' x", "\\8 x");
	/* \uHHHH and \UHHHHHHHH: code points, written as UTF-8 */
	segs("$'\\u0072m' x", "rm x");
	segs("$'\\U0000006d' x", "m x");
	segs("$'\\u00e9' x", "\xc3\xa9 x");
	segs("$'\\u20ac' x", "\xe2\x82\xac x");
	segs("$'\\U0001F600' x", "\xf0\x9f\x98\x80 x");
	segs("$'\\u' x", "\\u x");
	segs("$'\\ug4' x", "\\ug4 x");
	segs("$'\\u7'", "\a");
	segs("$'\\u7", "\a");
	segs("$'\\u00411' x", "A1 x");           /* at most 4 digits */
	segs("$'\\U000000411' x", "A1 x");       /* at most 8 */
	/* each UTF-8 length at its edges (bash in a UTF-8 locale) */
	segs("$'\\u7f' x", "\x7f x");
	segs("$'\\u80' x", "\xc2\x80 x");
	segs("$'\\u7ff' x", "\xdf\xbf x");
	segs("$'\\u800' x", "\xe0\xa0\x80 x");
	segs("$'\\uffff' x", "\xef\xbf\xbf x");
	segs("$'\\U10000' x", "\xf0\x90\x80\x80 x");
	segs("$'\\U10ffff' x", "\xf4\x8f\xbf\xbf x");
	/* the named escapes; \', \", \\, \? are the character; others keep the \ */
	segs("$'a\\'b' x", "a'b x");
	segs("$'\\a\\b\\e\\E\\f\\n\\r\\t\\v' x", "\a\b\033\033\f\n\r\t\v x");
	segs("$'\\\\\\\"\\?' x", "\\\"? x");
	segs("$'a\\!b' x", "a\\!b x");
	segs("$'l\\s' x", "l\\s x");
}

/* The segments of cmd joined with " | " for comparison. */
static void
segs(const char *cmd, const char *want)
{
	struct buf out = BUF_INIT, joined = BUF_INIT;
	size_t n = perm_segments(cmd, &out), i;
	const char *s = out.data;

	for (i = 0; i < n; i++, s += strlen(s) + 1) {
		if (i)
			buf_adds(&joined, " | ");
		buf_adds(&joined, s);
	}
	assert_string_equal(joined.data ? joined.data : "", want);
	buf_release(&out);
	buf_release(&joined);
}

static void
test_segments(void **state)
{
	(void)state;
	segs("git push", "git push");
	segs("  git   push\torigin  ", "git push origin");
	segs("make && git push || true; ls | wc -l &", "make | git push | true | ls | wc -l");
	segs("cd x\ngit push", "cd x | git push");
	segs("FOO=1 BAR=2 git push", "git push");
	segs("sudo -E env X=1 timeout 10 nice git push", "git push");
	segs("echo $(git push) `rm -rf /`", "echo $ | git push | rm -rf /");
	segs("git commit -m 'a; b && c'", "git commit -m 'a; b && c'");
	segs("echo $'a\\'; b' ; ls", "echo $'a\\'; b' | ls");
	segs("echo $'\\'\nnot a command\n'; ls", "echo $'\\'\nnot a command\n' | ls");
	segs("echo $'\\' ; x'\nrm -rf src", "echo $'\\' ; x' | rm -rf src");
	segs("echo \"x $(git push)\"", "echo \"x $ | git push | \"");
	segs("make 2>&1 | tail -n 5", "make 2>&1 | tail -n 5");
	segs("make &>/dev/null", "make &>/dev/null");
	segs("(cd a && make)", "cd a | make");
	segs("", "");
	segs(";;;", "");
	/* only NAME=value with NAME a shell name is an assignment (bash runs "9=9") */
	segs("9=9 ls", "9=9 ls");
	segs("9_=1 ls", "9_=1 ls");
	segs("A.B=1 ls", "A.B=1 ls");
	segs("_X=1 MY_VAR=2 ls", "ls");
	/* after the command word, assignments and wrapper names are arguments */
	segs("make CC=gcc env all", "make CC=gcc env all");
	segs("command rm -rf x", "rm -rf x"); /* only timeout takes an argument */
	/* Issue 20: words as bash reads them.  A ' after a letter opens '...', where a
	 * backslash is text (FOO is a\); a $'...' with a blank in it is one word */
	segs("FOO=a'\\' rm -rf src", "rm -rf src");
	segs("X=$'a b' rm -rf src", "rm -rf src");
	/* a $'... in a comment ends with the line, a backslash there too */
	segs("ls # $'x\nrm -rf src", "ls # $'x | rm -rf src");
	segs("ls # $'\\\nrm -rf src", "ls # $'\\ | rm -rf src");
	/* a backslash puts a quote or a blank into the word, in "..." a quote too:
	 * these assignments end where bash ends them, before rm */
	segs("FOO=\\'x rm -rf src", "rm -rf src");
	segs("FOO=\"a\\\" b\" rm -rf src", "rm -rf src");
	segs("FOO=\"a\\\\\" rm -rf src", "rm -rf src");
	segs("FOO=a\\ ls rm -rf src", "rm -rf src");
	segs("timeout \\'1 rm -rf src", "rm -rf src");
	/* a line continuation (backslash, newline) is removed, in "..." too, not
	 * in '...' or $'...': "git pu\<newline>sh" is git push */
	segs("git pu\\\nsh", "git push");
	segs("su\\\ndo rm -rf src", "rm -rf src");
	segs("ls \\\n -la", "ls -la");
	segs("echo \"a\\\nb\"", "echo \"ab\"");
	segs("echo 'a\\\nb' $'c\\\nd'", "echo 'a\\\nb' $'c\\\nd'");
	segs("echo \\\\\nls", "echo \\\\ | ls"); /* an escaped backslash, then a newline */
	/* where each quote ends decides which continuations go */
	segs("echo \"it's\" $'x' 'a\\\nb' \"c\\\nd\"", "echo \"it's\" $'x' 'a\\\nb' \"cd\"");
	segs("echo $'a\\'b' \"c\\\nd\"", "echo $'a\\'b' \"cd\"");
	segs("echo a'x\\' \"c\\\nd\"", "echo a'x\\' \"cd\""); /* a'...' is no $'...' */
	/* a backslash last in a comment, outside quotes or in an open "...": the
	 * command on the next line is whole */
	segs("ls # a\\\nrm -rf src", "ls # a\\ | rm -rf src");
	segs("ls # \"a\\\nrm -rf src", "ls # \"a\\ | rm -rf src");
}

/*
 * Here-document bodies are text, not commands, where hearth can follow
 * them; where it cannot (or the body runs substitutions) its lines are
 * commands, so a line hidden there is still judged.
 */
static void
test_heredoc_segments(void **state)
{
	(void)state;
	segs("cat > f <<'EOF'\nrm -rf src\nEOF\nls", "cat > f <<'EOF' | ls");
	segs("cat <<EOF\nhello $HOME ${X:-y}\nEOF", "cat <<EOF");
	segs("cat <<-EOF\n\trm -rf src\n\tEOF\nls", "cat <<-EOF | ls");
	segs("cat << 'EOF'\nrm -rf src\nEOF\nls", "cat << 'EOF' | ls");
	/* after a closed subshell the operator is followed; a quoted body's $( is text;
	 * a here-string then a here-document on one line */
	segs("(ls) && cat <<'EOF'\nrm x\nEOF\nls", "ls | cat <<'EOF' | ls");
	segs("cat <<'EOF'\n$(rm x)\nEOF\nls", "cat <<'EOF' | ls");
	segs("cat <<<x <<'EOF'\nrm x\nEOF", "cat <<<x <<'EOF'");
	/* one "<" is no here-document; a "...;..." string and a "(" in one stay whole;
	 * a here-string's quote counts; a ")" with nothing open (a case label) */
	segs("cat < in\nrm x", "cat < in | rm x");
	segs("echo \"a; b\"", "echo \"a; b\"");
	segs("echo \"g(x\"", "echo \"g(x\"");
	segs("cat <<<'a;b'", "cat <<<'a;b'");
	segs("a) cat <<'E'\nrm x\nE", "a | cat <<'E'");
	/* a backslash or "&" at the very end or start of the text */
	segs("ls \\", "ls \\");
	{ /* and nothing after the text's NUL is read (issue 20) */
		static const char cmd[] = "ls \\\0; rm -rf src";

		segs(cmd, "ls \\");
	}
	segs("& ls", "ls");
	segs("cat <<E\\", "cat <<E\\");
	{ /* a delimiter of 63 bytes is followed, one of 64 is not (its lines are commands) */
		char cmd[300], want[300], w[65];

		memset(w, 'D', 64), w[64] = '\0';
		snprintf(cmd, sizeof cmd, "cat <<%s\nrm x\n%s", w, w);
		snprintf(want, sizeof want, "cat <<%s | rm x | %s", w, w);
		segs(cmd, want);
		w[63] = '\0';
		snprintf(cmd, sizeof cmd, "cat <<%s\nrm x\n%s", w, w);
		snprintf(want, sizeof want, "cat <<%s", w);
		segs(cmd, want);
	}
	segs("cat <<EOF | grep x && wc\nrm -rf src\nEOF\nls", "cat <<EOF | grep x | wc | ls");
	segs("cat <<A <<'B'\nrm a\nA\nrm b\nB\nls", "cat <<A <<'B' | ls");
	segs("cat <<'EOF'\nrm -rf src", "cat <<'EOF'"); /* bash reads to the end */
	segs("cat <<\\EOF\nrm $(x)\nEOF\nls", "cat <<\\EOF | ls"); /* quoted: not expanded */
	segs("cat <<'E O'\nrm x\nE O\nls", "cat <<'E O' | ls");
	/* a body that runs something: its lines are commands */
	segs("cat <<EOF\n$(rm -rf src)\nEOF", "cat <<EOF | $ | rm -rf src | EOF");
	segs("cat <<EOF\n`rm -rf src`\nEOF", "cat <<EOF | rm -rf src | EOF");
	/* inside "...", a backslash escapes only $ ` \" \\ : the delimiter is E\OF */
	segs("cat <<\"E\\OF\"\nx\nE\\OF\nrm -rf src", "cat <<\"E\\OF\" | rm -rf src");
	/* not followed: arithmetic, a here-string, a subshell, a $ delimiter, a joined line */
	segs("echo $((1<<2))\nrm -rf src", "echo $ | 1<<2 | rm -rf src");
	segs("cat <<<EOF\nrm -rf src\nEOF", "cat <<<EOF | rm -rf src | EOF");
	segs("cat <<<x; cat <<'EOF'\nrm -rf src\nEOF", "cat <<<x | cat <<'EOF'");
	/* a "<<" in a comment is text: the lines after it are commands */
	segs("ls # <<EOF\nrm -rf src\nEOF", "ls # <<EOF | rm -rf src | EOF");
	segs("#<<EOF\nrm -rf src", "#<<EOF | rm -rf src");
	segs("echo a#<<EOF\nrm -rf src\nEOF\nls", "echo a#<<EOF | ls"); /* a# is a word */
	/* a quote in a comment opens nothing: the next line is a command */
	segs("ls # it's\nrm -rf src\n'", "ls # it's | rm -rf src | '");
	segs("ls # a; b | c\nmake", "ls # a; b | c | make");
	segs("echo $[1<<2]\nrm -rf src", "echo $[1<<2] | rm -rf src"); /* old arithmetic */
	/* in $'...' a \' does not end the string: bash sees no "<<" here, and the
	 * next line is a command (a quote opened there hid it) */
	segs("echo $'\\' <<EOF'\nrm -rf src\nEOF", "echo $'\\' <<EOF' | rm -rf src | EOF");
	segs("(cat <<EOF\nrm -rf src\nEOF\n)", "cat <<EOF | rm -rf src | EOF");
	segs("cat <<$X\nrm -rf src\n$X", "cat <<$X | rm -rf src | $X");
	/* bash joins "EO\" and "F" into EOF: the body ends at EOF, hearth does not follow it */
	segs("cat <<EO\\\nF\nx\nEOF\nrm -rf src", "cat <<EOF | x | EOF | rm -rf src");
	segs("cat <<'E\nF'\nx\nrm -rf src", "cat <<'E\nF' | x | rm -rf src");
	segs("cat <<E`x`\nrm -rf src\nE`x`", "cat <<E | x | rm -rf src | E | x");
	segs("cat <<EOF\nx \\\nEOF\nrm -rf src\nEOF", "cat <<EOF | x EOF | rm -rf src | EOF");
	segs("cat <<EOF <<A <<B <<C <<D\nEOF\nA\nB\nC\nrm -rf src\nD",
	     "cat <<EOF <<A <<B <<C <<D | EOF | A | B | C | rm -rf src | D");
	/* Issue 20: after a body that is not followed, a "<<" in its lines opens no
	 * body that would hide the commands after it (bash runs rm here) */
	segs("cat <<EOF\n$(x) <<'A'\nEOF\nrm -rf src\nA", "cat <<EOF | $ | x | <<'A' | EOF | rm -rf src | A");
	/* a line's here-documents are followed once: a line after their bodies opens none */
	segs("cat <<'A'\nx\nA\nls\nrm -rf src\nA", "cat <<'A' | ls | rm -rf src | A");
	/* inside '...' a backslash is text: the delimiter is E\$F, the body ends there */
	segs("cat <<'E\\$F'\nrm x\nE\\$F\nls", "cat <<'E\\$F' | ls");
	/* "<<" with no word (bash: a syntax error) is not followed */
	segs("cat <<\nrm -rf src\n\nls", "cat << | rm -rf src | ls");
}

static void
test_modes(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT;
	char out_path[4400];

	(void)state;
	perm_init(&p);
	snprintf(out_path, sizeof out_path, "{\"path\":\"/tmp/x-%d.txt\",\"content\":\"x\"}", (int)getpid());
	assert_int_equal(p.mode, PERM_AUTO_EDIT);
	/* auto-edit */
	assert_int_equal(decide(&p, "read", "{\"path\":\"/etc/passwd\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "write", "{\"path\":\"src/a.c\",\"content\":\"x\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/a.c\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "write", out_path, &why), PERM_QUESTION);
	assert_string_equal(why.data, "a change outside the workspace");
	assert_int_equal(decide(&p, "write", "{\"path\":\"../escape.txt\",\"content\":\"x\"}", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "ls -la src | wc -l", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "git status && git diff", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test", &why), PERM_QUESTION);
	assert_string_equal(why.data, "a bash command not known to be read-only");
	assert_int_equal(bash(&p, "ls > out.txt", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "env rm -rf src", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "echo $(rm -rf src)", &why), PERM_QUESTION);
	/* issue 13: each simple command is judged as written, wrappers,
	 * assignments and substitutions included */
	assert_int_equal(bash(&p, "ls; env", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "ls && FOO=1", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "GIT_EXTERNAL_DIFF=./x git diff", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "env LD_PRELOAD=./x.so ls", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "rg $(cat opts) foo", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "ls `cat opts`", &why), PERM_QUESTION);
	/* each line judged whole (not a byte short) and a blank part is no command */
	assert_int_equal(bash(&p, "ls\nls", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "ls ; \nls", &why), PERM_ALLOW);
	/* ask: edits inside ask too; reads and read-only bash still run */
	p.mode = PERM_ASK;
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/a.c\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why), PERM_QUESTION);
	assert_string_equal(why.data, "approval mode ask");
	assert_int_equal(decide(&p, "grep", "{\"pattern\":\"x\"}", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "git log -5", &why), PERM_ALLOW);
	/* yolo: nothing asks */
	p.mode = PERM_YOLO;
	assert_int_equal(bash(&p, "make test", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "write", out_path, &why), PERM_ALLOW);
	perm_release(&p);
	buf_release(&why);
}

static void
test_precedence(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT;

	(void)state;
	perm_init(&p);
	add(&p, PERM_LIST_DENY, "Bash(git push*)");
	add(&p, PERM_LIST_DENY, "bash(rm -rf /*)");
	add(&p, PERM_LIST_DENY, "read(*.env)");
	add(&p, PERM_LIST_ALLOW, "bash(make test*)");
	add(&p, PERM_LIST_ALLOW, "bash(npm run:*)");
	add(&p, PERM_LIST_ALLOW, "bash(git push --dry-run*)");
	add(&p, PERM_LIST_ASK, "edit(src/secret/*)");
	add(&p, PERM_LIST_DENY, "bash(nohup)");
	/* a line of wrappers alone is judged as written */
	assert_int_equal(bash(&p, "nohup", &why), PERM_DENY);
	/* deny wins over allow and over yolo; any simple command counts */
	assert_int_equal(bash(&p, "git push origin main", &why), PERM_DENY);
	assert_string_equal(why.data, "denied by the rule \"Bash(git push*)\" in permissions.deny");
	assert_int_equal(bash(&p, "make test && git push", &why), PERM_DENY);
	assert_int_equal(bash(&p, "cd sub; FOO=1 sudo git   push -f", &why), PERM_DENY);
	assert_int_equal(bash(&p, "FOO=\\' git push", &why), PERM_DENY); /* FOO is ' (issue 20) */
	assert_int_equal(bash(&p, "git pu\\\nsh", &why), PERM_DENY);
	assert_int_equal(bash(&p, "echo \"$(git push)\"", &why), PERM_DENY);
	assert_int_equal(bash(&p, "git push --dry-run", &why), PERM_DENY);
	assert_int_equal(bash(&p, "rm -rf /", &why), PERM_DENY);
	assert_int_equal(bash(&p, "rm -rf build", &why), PERM_QUESTION);
	assert_int_equal(decide(&p, "read", "{\"path\":\"config/.env\"}", &why), PERM_DENY);
	p.mode = PERM_YOLO;
	assert_int_equal(bash(&p, "git push", &why), PERM_DENY);
	/* an explicit ask rule asks even in yolo */
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/secret/k\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why), PERM_QUESTION);
	assert_string_equal(why.data, "the rule \"edit(src/secret/*)\" in permissions.ask");
	p.mode = PERM_AUTO_EDIT;
	/* allow: every simple command must be covered (rule or read-only) */
	assert_int_equal(bash(&p, "make test", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test 2>&1 | tail -n 20", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test && make install", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "make test > /etc/motd", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "make test >/dev/null", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test 2>&1", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test >a1", &why), PERM_QUESTION);   /* a file named a1 */
	assert_int_equal(bash(&p, "make test >&x", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "make test && git status", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "ls\nmake test", &why), PERM_ALLOW); /* "ls" judged whole, not "l" */
	assert_int_equal(bash(&p, "make test && FOO=1 git diff", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "make test; env", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "make test $(cat opts)", &why), PERM_QUESTION);
	/* ":*" is "this, or this and more words" */
	assert_int_equal(bash(&p, "npm run", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "npm run build", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "npm runx", &why), PERM_QUESTION);
	/* Issue 20: a deny rule matches a command that also redirects */
	assert_int_equal(bash(&p, "git push origin >log", &why), PERM_DENY);
	/* ">>/dev/null" and "/dev/null" followed by more write no file; "/dev/nullx" does */
	assert_int_equal(bash(&p, "make test >>/dev/null", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test >/dev/null 2>&1", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test >/dev/null && ls", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make test >/dev/nullx", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "make test >/dev/null\"x\"", &why), PERM_QUESTION);
	/* ":*" alone is an empty prefix: it matches no command, not every one */
	add(&p, PERM_LIST_DENY, "bash(:*)");
	assert_int_equal(bash(&p, "ls", &why), PERM_ALLOW);
	perm_release(&p);
	buf_release(&why);
}

static void
test_rules_bad(void **state)
{
	struct perm p;
	struct err e = ERR_INIT;
	char *home;

	(void)state;
	perm_init(&p);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "bash(git push", &e), -1);
	assert_non_null(strstr(e.msg, "ends with ')'"));
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "(x)", &e), -1);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "", &e), -1);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "bash()", &e), -1);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "ba sh(x)", &e), -1);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "$bash(x)", &e), -1); /* the first byte too */
	assert_int_equal(p.lists[PERM_LIST_DENY].n, 0);
	/* "~/" alone is the home directory; ":*" alone is an empty prefix: neither
	 * the ":" builtin (": > f" truncates f) nor anything else */
	home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", "/home/perm-test", 1);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_ALLOW, "read(~/)", &e), 0);
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	assert_string_equal(p.lists[PERM_LIST_ALLOW].v[0].pattern, "/home/perm-test/");
	assert_int_equal(perm_add_rule(&p, PERM_LIST_ALLOW, "bash(:*)", &e), 0);
	assert_string_equal(p.lists[PERM_LIST_ALLOW].v[1].pattern, "");
	assert_string_equal(p.lists[PERM_LIST_ALLOW].v[1].alt, " *");
	assert_int_equal(perm_mode_parse("yolo", &p.mode), 0);
	assert_int_equal(p.mode, PERM_YOLO);
	assert_int_equal(perm_mode_parse("YOLO", &p.mode), -1);
	assert_int_equal(perm_mode_parse(NULL, &p.mode), -1);
	perm_release(&p);
}

static void
test_load_json(void **state)
{
	static const char text[] =
		"{\"allow\": [\"bash(make*)\", 3, \"bad(\"], \"deny\": [\"write\"],"
		" \"ask\": \"edit\", \"other\": [], \"typo\": 5}";
	cJSON *o = json_parse(text, strlen(text), NULL);
	struct perm p;
	struct buf w = BUF_INIT, why = BUF_INIT;

	(void)state;
	perm_init(&p);
	perm_load_json(&p, o, "s.json", &w);
	assert_int_equal(p.lists[PERM_LIST_ALLOW].n, 1);
	assert_int_equal(p.lists[PERM_LIST_DENY].n, 1);
	assert_int_equal(p.lists[PERM_LIST_ASK].n, 0);
	assert_non_null(strstr(w.data, "s.json: permissions.allow: a rule must be a string"));
	assert_non_null(strstr(w.data, "permissions.allow: rule \"bad(\""));
	assert_non_null(strstr(w.data, "\"permissions.ask\" must be an array"));
	assert_non_null(strstr(w.data, "unknown key \"permissions.other\""));
	assert_non_null(strstr(w.data, "unknown key \"permissions.typo\""));
	assert_null(strstr(w.data, "\"permissions.typo\" must be an array"));
	assert_int_equal(p.lists[PERM_LIST_SESSION].n, 0); /* nothing landed past the three lists */
	assert_int_equal(decide(&p, "write", "{\"path\":\"a\",\"content\":\"\"}", &why), PERM_DENY);
	buf_reset(&w);
	cJSON_Delete(o);
	o = json_parse("[]", 2, NULL);
	perm_load_json(&p, o, "t.json", &w);
	assert_non_null(strstr(w.data, "t.json: \"permissions\" must be an object"));
	cJSON_Delete(o);
	perm_release(&p);
	buf_release(&w);
	buf_release(&why);
}

/* The rules "always" would add. */
static void
always(const struct perm *p, const char *name, const char *args_json, const char *want)
{
	cJSON *args = json_parse(args_json, strlen(args_json), NULL);
	struct buf out = BUF_INIT;

	perm_always_rules(p, tool_find(name), args, root, &out);
	assert_string_equal(out.data ? out.data : "", want);
	buf_release(&out);
	cJSON_Delete(args);
}

static void
test_always(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT, want = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	perm_init(&p);
	always(&p, "bash", "{\"command\":\"make test\"}", "bash(make test:*)");
	always(&p, "bash", "{\"command\":\"git commit -m 'x'\"}", "bash(git commit -m 'x')");
	always(&p, "bash", "{\"command\":\"rm -rf build\"}", "bash(rm -rf build)");
	always(&p, "bash", "{\"command\":\"cd build && make && ls\"}", "bash(cd build:*)\nbash(make)");
	/* a here-document's lines are no commands to allow (issue 20) */
	always(&p, "bash", "{\"command\":\"cat > notes <<'EOF'\\nrm -rf src\\nEOF\"}",
	       "bash(cat > notes <<'EOF')");
	buf_addf(&want, "edit(%s/*)", root);
	always(&p, "edit", "{\"path\":\"src/a.c\"}", want.data);
	always(&p, "write", "{\"path\":\"/tmp/perm-test-dir/x.txt\"}", "write(/tmp/perm-test-dir/*)");
	/* an added session rule allows the same call next time, and only that */
	assert_int_equal(perm_add_rule(&p, PERM_LIST_SESSION, "bash(make test:*)", &e), 0);
	assert_int_equal(bash(&p, "make test -j2", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "make install", &why), PERM_QUESTION);
	always(&p, "bash", "{\"command\":\"make test && make install\"}", "bash(make install:*)");
	/* an exact rule's * ? and \\ are literal: "always" for rm *.o is not rm -rf ~ x.o */
	always(&p, "bash", "{\"command\":\"rm *.o\"}", "bash(rm \\*.o)");
	always(&p, "bash", "{\"command\":\"touch a\\\\ b?\"}", "bash(touch a\\\\ b\\?)");
	assert_int_equal(perm_add_rule(&p, PERM_LIST_SESSION, "bash(rm \\*.o)", &e), 0);
	assert_int_equal(bash(&p, "rm *.o", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "rm -rf ~ x.o", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, "rm a.o", &why), PERM_QUESTION);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_SESSION, "bash(touch a\\\\ b\\?)", &e), 0);
	assert_int_equal(bash(&p, "touch a\\ b?", &why), PERM_ALLOW);
	assert_int_equal(bash(&p, "touch a\\ bc", &why), PERM_QUESTION);
	perm_release(&p);
	buf_release(&why);
	buf_release(&want);
}

/* A tool that only needs approval (as MCP tools are flagged), with no path. */
static const struct tool mcp_echo = {
	.name = "mcp__demo__echo", .description = "echo", .schema_json = "{\"type\":\"object\"}",
	.flags = TOOL_NEEDS_APPROVAL,
};

static enum perm_verdict
mcp(const struct perm *p, struct buf *why)
{
	cJSON *args = cJSON_CreateObject();
	enum perm_verdict v;

	buf_reset(why);
	v = perm_check(p, &mcp_echo, args, root, why);
	cJSON_Delete(args);
	return v;
}

static void
test_tool_names_and_flags(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT, out = BUF_INIT;
	cJSON *args = cJSON_CreateObject();

	(void)state;
	perm_init(&p);
	/* the llm/tool.h contract: TOOL_NEEDS_APPROVAL alone asks in mode ask only */
	assert_int_equal(mcp(&p, &why), PERM_ALLOW);
	p.mode = PERM_ASK;
	assert_int_equal(mcp(&p, &why), PERM_QUESTION);
	assert_string_equal(why.data, "approval mode ask");
	perm_always_rules(&p, &mcp_echo, args, root, &out);
	assert_string_equal(out.data, "mcp__demo__echo");
	p.mode = PERM_AUTO_EDIT;
	/* an MCP tool that may change things: runs in auto-edit, asks in mode ask */
	{
		struct tool m = mcp_echo;

		m.flags = TOOL_MUTATES | TOOL_NEEDS_APPROVAL;
		buf_reset(&why);
		assert_int_equal(perm_check(&p, &m, args, root, &why), PERM_ALLOW);
		p.mode = PERM_ASK;
		assert_int_equal(perm_check(&p, &m, args, root, &why), PERM_QUESTION);
		p.mode = PERM_AUTO_EDIT;
	}
	/* "mcp__server" covers its tools; a name glob; a prefix that is not a server does not */
	add(&p, PERM_LIST_ASK, "mcp__dem");
	assert_int_equal(mcp(&p, &why), PERM_ALLOW);
	add(&p, PERM_LIST_ASK, "MCP__demo");
	assert_int_equal(mcp(&p, &why), PERM_QUESTION);
	add(&p, PERM_LIST_DENY, "mcp__*__echo");
	assert_int_equal(mcp(&p, &why), PERM_DENY);
	/* a pattern never matches a tool without a subject */
	perm_release(&p);
	perm_init(&p);
	add(&p, PERM_LIST_DENY, "mcp__demo__echo(x*)");
	assert_int_equal(mcp(&p, &why), PERM_ALLOW);
	perm_release(&p);
	cJSON_Delete(args);
	buf_release(&why);
	buf_release(&out);
}

/* Issue 20: rules written with an absolute or a ~/ path match the files they
 * name inside the workspace, as relative ones do; a trailing backslash in a
 * rule is an ordinary (if useless) pattern, and a tool name of 160+
 * characters is kept whole. */
static void
test_path_rules(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT, rule = BUF_INIT;
	char *home_saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct err e = ERR_INIT;
	const char *slash;
	char longname[200];

	(void)state;
	/* HOME is the workspace's parent, so ~/<ws>/src/... names the workspace */
	slash = strrchr(root, '/');
	assert_non_null(slash);
	buf_add(&rule, root, (size_t)(slash - root));
	setenv("HOME", rule.data, 1);
	perm_init(&p);
	p.mode = PERM_YOLO;
	buf_reset(&rule);
	buf_addf(&rule, "edit(%s/src/*.key)", root);
	add(&p, PERM_LIST_DENY, rule.data);
	buf_reset(&rule);
	buf_addf(&rule, "write(~/%s/src/*.pem)", slash + 1);
	add(&p, PERM_LIST_DENY, rule.data);
	buf_reset(&rule);
	buf_addf(&rule, "read(~/%s/notes/*)", slash + 1);
	add(&p, PERM_LIST_ASK, rule.data);
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/a.key\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_DENY);
	assert_non_null(strstr(why.data, "permissions.deny"));
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/a.c\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_ALLOW);
	assert_int_equal(decide(&p, "write", "{\"path\":\"src/b.pem\",\"content\":\"x\"}", &why), PERM_DENY);
	assert_int_equal(decide(&p, "write", "{\"path\":\"src/b.pemx\",\"content\":\"x\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "read", "{\"path\":\"notes/todo\"}", &why), PERM_QUESTION);
	assert_int_equal(decide(&p, "read", "{\"path\":\"src/todo\"}", &why), PERM_ALLOW);
	/* a trailing backslash: accepted, matches nothing it should not, no overrun */
	add(&p, PERM_LIST_DENY, "bash(ls \\)");
	add(&p, PERM_LIST_DENY, "read(\\)");
	assert_int_equal(bash(&p, "ls", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "read", "{\"path\":\"src/todo\"}", &why), PERM_ALLOW);
	/* a tool name of 170 characters: kept whole, compared whole */
	memset(longname, 'a', 170);
	memcpy(longname + 170, "(x)", 4);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, longname, &e), 0);
	assert_int_equal(strlen(p.lists[PERM_LIST_DENY].v[p.lists[PERM_LIST_DENY].n - 1].tool), 170);
	{	/* and a tool of that name (an MCP server's) is denied by it, not
		 * missed because the name was cut at 159 bytes */
		struct tool t = *tool_find("read");
		cJSON *args = cJSON_CreateObject();

		longname[170] = '\0';
		add(&p, PERM_LIST_DENY, longname);          /* the whole tool */
		longname[0] = 'A';  /* rules compare names without case */
		t.name = longname;
		assert_int_equal(perm_check(&p, &t, args, root, &why), PERM_DENY);
		longname[169] = 'b';
		assert_int_equal(perm_check(&p, &t, args, root, &why), PERM_ALLOW);
		cJSON_Delete(args);
	}
	perm_release(&p);
	if (home_saved)
		setenv("HOME", home_saved, 1);
	else
		unsetenv("HOME");
	free(home_saved);
	buf_release(&why);
	buf_release(&rule);
}

/* cJSON's allocator when memory has run out. */
static void *
oom_malloc(size_t n)
{
	(void)n;
	return NULL;
}

/*
 * Issue 20: what allow and session rules cover.  A path tool's call in mode
 * ask (a rule in either list alone); a line with a substitution when a rule
 * covers every part (and "always" then adds nothing); never a line with no
 * command in it; and a command whose read-only-ness cannot be asked (cJSON
 * out of memory) is not taken for read-only.
 */
static void
test_allow_rules(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT;
	cJSON_Hooks oom = { oom_malloc, free };
	cJSON *args;

	(void)state;
	perm_init(&p);
	p.mode = PERM_ASK;
	add(&p, PERM_LIST_ALLOW, "edit(src/*)");
	add(&p, PERM_LIST_SESSION, "write(notes/*)");
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/a.c\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_ALLOW);
	assert_int_equal(decide(&p, "edit", "{\"path\":\"b.c\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_QUESTION);
	assert_int_equal(decide(&p, "write", "{\"path\":\"notes/x\",\"content\":\"x\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "write", "{\"path\":\"src/a.c\",\"content\":\"x\"}", &why), PERM_QUESTION);
	args = json_parse("{\"path\":\"src/a.c\"}", 18, NULL);
	assert_non_null(args);
	assert_true(perm_allowed_by_rule(&p, tool_find("edit"), args, root));
	assert_false(perm_allowed_by_rule(&p, tool_find("write"), args, root));
	cJSON_Delete(args);
	/* a substitution: every part covered */
	add(&p, PERM_LIST_ALLOW, "bash(echo *)");
	add(&p, PERM_LIST_SESSION, "bash(date*)");
	assert_int_equal(bash(&p, "echo $(date)", &why), PERM_ALLOW);
	always(&p, "bash", "{\"command\":\"echo $(date)\"}", "");
	always(&p, "bash", "{\"command\":\"echo $(date; id)\"}", "bash(id)");
	/* no command: nothing for a rule to cover, and nothing read-only */
	assert_int_equal(bash(&p, "", &why), PERM_QUESTION);
	assert_int_equal(bash(&p, ";", &why), PERM_QUESTION);
	/* out of memory: "ls" is not known to be read-only, it asks */
	p.mode = PERM_AUTO_EDIT;
	args = cJSON_CreateObject();
	assert_non_null(cJSON_AddStringToObject(args, "command", "ls"));
	assert_int_equal(perm_check(&p, tool_find("bash"), args, root, &why), PERM_ALLOW);
	cJSON_InitHooks(&oom);
	buf_reset(&why);
	assert_int_equal(perm_check(&p, tool_find("bash"), args, root, &why), PERM_QUESTION);
	cJSON_InitHooks(NULL);
	assert_string_equal(why.data, "a bash command not known to be read-only");
	cJSON_Delete(args);
	perm_release(&p);
	buf_release(&why);
}

/*
 * Issue 20: a path that cannot be resolved (here a symlink loop) is a change
 * outside the workspace, rules see it as written, and "always" names it (a
 * name without '/' exactly, not by the folder "/", every path); a relative path that
 * leaves the workspace is judged by its absolute form.
 */
static void
test_unresolved_paths(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT, rule = BUF_INIT, lnk = BUF_INIT;
	const char *slash = strrchr(root, '/');

	(void)state;
	buf_addf(&lnk, "%s/loop", root);
	assert_int_equal(symlink("loop", lnk.data), 0);
	perm_init(&p);
	assert_int_equal(decide(&p, "write", "{\"path\":\"loop/x.txt\",\"content\":\"x\"}", &why), PERM_QUESTION);
	assert_string_equal(why.data, "a change outside the workspace");
	always(&p, "write", "{\"path\":\"loop/x.txt\"}", "write(loop/*)");
	always(&p, "write", "{\"path\":\"loop\"}", "write(loop)");
	add(&p, PERM_LIST_DENY, "write(loop/*)");
	assert_int_equal(decide(&p, "write", "{\"path\":\"loop/x.txt\",\"content\":\"x\"}", &why), PERM_DENY);
	assert_non_null(slash);
	buf_addf(&rule, "write(%.*s/hearth-perm-out*)", (int)(slash - root), root);
	add(&p, PERM_LIST_DENY, rule.data);
	assert_int_equal(decide(&p, "write", "{\"path\":\"../hearth-perm-out.txt\",\"content\":\"x\"}", &why),
			 PERM_DENY);
	perm_release(&p);
	buf_release(&why);
	buf_release(&rule);
	buf_release(&lnk);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_quoted_command_word),
		cmocka_unit_test(test_command_word_escapes),
		cmocka_unit_test_setup_teardown(test_path_rules, setup, teardown),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_heredoc_segments),
		cmocka_unit_test_setup_teardown(test_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
		cmocka_unit_test(test_rules_bad),
		cmocka_unit_test_setup_teardown(test_load_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_always, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tool_names_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allow_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unresolved_paths, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
