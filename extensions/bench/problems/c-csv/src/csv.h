/*
 * csv: RFC 4180 comma-separated values.  A field is either plain (no quote,
 * no comma) or quoted: "..." where a doubled quote "" stands for one quote
 * and commas, CR and LF are literal.  Records end at LF or CRLF outside
 * quotes.  Strings returned are malloc'd; free rows and tables with their
 * _free function.
 */
#ifndef CSV_H
#define CSV_H
#include <stddef.h>

struct csv_row {
	char **fields;
	size_t n;
};

struct csv_table {
	struct csv_row *rows;
	size_t n;
};

/* One record (no line end) into row: "a,b," has three fields, the last empty.  0, or -1 when malformed. */
int csv_parse_line(const char *line, size_t len, struct csv_row *row);
void csv_row_free(struct csv_row *row);

/* A whole document; empty lines are skipped.  0, or -1 when a record is malformed. */
int csv_parse(const char *text, struct csv_table *t);
void csv_table_free(struct csv_table *t);

/* A row written back as one record (no line end), quoting the fields that need it. */
char *csv_format_row(const struct csv_row *row);

/* field.c */
char *field_copy(const char *s, size_t n);
/* The text of a quoted field s[0..n) (quotes included): the quotes removed, "" turned into ". */
char *field_unquote(const char *s, size_t n);
/* Whether a field's text must be quoted when written: it holds a comma, a quote, CR or LF. */
int field_needs_quotes(const char *s);
/* The field as written: itself, or quoted with its quotes doubled. */
char *field_quote(const char *s);
#endif
