#include <string.h>

#include "csv.h"
#include "tap.h"

static struct csv_row
line(const char *s)
{
	struct csv_row r;

	CHECK(csv_parse_line(s, strlen(s), &r) == 0);
	return r;
}

#define FIELD(r, i, s) CHECK((r).n > (i) && strcmp((r).fields[i], (s)) == 0)

static void t_simple(void) { struct csv_row r = line("a,b,c"); CHECK(r.n == 3); FIELD(r, 0, "a"); FIELD(r, 2, "c"); csv_row_free(&r); }
static void t_empty_line(void) { struct csv_row r = line(""); CHECK(r.n == 1); FIELD(r, 0, ""); csv_row_free(&r); }
static void t_trailing_empty(void) { struct csv_row r = line("a,b,"); CHECK(r.n == 3); FIELD(r, 2, ""); csv_row_free(&r); }
static void t_leading_empty(void) { struct csv_row r = line(",x"); CHECK(r.n == 2); FIELD(r, 0, ""); FIELD(r, 1, "x"); csv_row_free(&r); }
static void t_quoted_comma(void) { struct csv_row r = line("\"a,b\",c"); CHECK(r.n == 2); FIELD(r, 0, "a,b"); csv_row_free(&r); }
static void t_escaped_quote(void) { struct csv_row r = line("\"say \"\"hi\"\"\",x"); CHECK(r.n == 2); FIELD(r, 0, "say \"hi\""); FIELD(r, 1, "x"); csv_row_free(&r); }
static void t_only_quotes(void) { struct csv_row r = line("\"\",\"\"\"\""); CHECK(r.n == 2); FIELD(r, 0, ""); FIELD(r, 1, "\""); csv_row_free(&r); }
static void t_unterminated(void) { struct csv_row r; CHECK(csv_parse_line("\"abc", 4, &r) == -1); }
static void t_after_quote(void) { struct csv_row r; CHECK(csv_parse_line("\"a\"b,c", 6, &r) == -1); }
static void t_table_rows(void) { struct csv_table t; CHECK(csv_parse("a,b\nc,d\n", &t) == 0); CHECK(t.n == 2); FIELD(t.rows[1], 1, "d"); csv_table_free(&t); }
static void t_table_crlf(void) { struct csv_table t; CHECK(csv_parse("a,b\r\nc,d\r\n", &t) == 0); CHECK(t.n == 2); FIELD(t.rows[0], 1, "b"); FIELD(t.rows[1], 1, "d"); csv_table_free(&t); }
static void t_table_quoted_newline(void) { struct csv_table t; CHECK(csv_parse("\"x\ny\",z\nq\n", &t) == 0); CHECK(t.n == 2); FIELD(t.rows[0], 0, "x\ny"); csv_table_free(&t); }
static void t_table_crlf_quoted(void) { struct csv_table t; CHECK(csv_parse("a,\"b\"\r\n", &t) == 0); CHECK(t.n == 1); FIELD(t.rows[0], 1, "b"); csv_table_free(&t); }
static void t_table_skip_blank(void) { struct csv_table t; CHECK(csv_parse("a\n\nb", &t) == 0); CHECK(t.n == 2); FIELD(t.rows[1], 0, "b"); csv_table_free(&t); }
static void t_table_bad(void) { struct csv_table t; CHECK(csv_parse("a\n\"b\n", &t) == -1); }
static void t_format_plain(void) { struct csv_row r = line("a,b"); char *s = csv_format_row(&r); CHECK(strcmp(s, "a,b") == 0); free(s); csv_row_free(&r); }
static void t_format_quote(void) { char *f[] = { "a\"b", "c,d" }; struct csv_row r = { f, 2 }; char *s = csv_format_row(&r); CHECK(strcmp(s, "\"a\"\"b\",\"c,d\"") == 0); free(s); }
static void t_format_newline(void) { char *f[] = { "x\ny", "z" }; struct csv_row r = { f, 2 }; char *s = csv_format_row(&r); CHECK(strcmp(s, "\"x\ny\",z") == 0); free(s); }
static void t_roundtrip(void) {
	char *f[] = { "plain", "", "com,ma", "quo\"te", "new\nline" };
	struct csv_row r = { f, 5 }, back;
	struct csv_table t;
	char *s = csv_format_row(&r);
	size_t i;

	CHECK(csv_parse(s, &t) == 0);
	CHECK(t.n == 1);
	back = t.rows[0];
	CHECK(back.n == 5);
	for (i = 0; i < 5; i++)
		FIELD(back, i, f[i]);
	csv_table_free(&t);
	free(s);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		{ "simple", t_simple }, { "empty_line", t_empty_line }, { "trailing_empty", t_trailing_empty },
		{ "leading_empty", t_leading_empty }, { "quoted_comma", t_quoted_comma },
		{ "escaped_quote", t_escaped_quote }, { "only_quotes", t_only_quotes },
		{ "unterminated", t_unterminated }, { "after_quote", t_after_quote },
		{ "table_rows", t_table_rows }, { "table_crlf", t_table_crlf },
		{ "table_quoted_newline", t_table_quoted_newline }, { "table_crlf_quoted", t_table_crlf_quoted },
		{ "table_skip_blank", t_table_skip_blank }, { "table_bad", t_table_bad },
		{ "format_plain", t_format_plain }, { "format_quote", t_format_quote },
		{ "format_newline", t_format_newline }, { "roundtrip", t_roundtrip },
	};
	return tap_run(cases, (int)(sizeof cases / sizeof *cases));
}
