#include <stdlib.h>
#include <string.h>

#include "csv.h"

static void
push(struct csv_row *row, char *f)
{
	char **v = realloc(row->fields, (row->n + 1) * sizeof *v);

	if (!v)
		abort();
	row->fields = v;
	row->fields[row->n++] = f;
}

void
csv_row_free(struct csv_row *row)
{
	size_t i;

	for (i = 0; i < row->n; i++)
		free(row->fields[i]);
	free(row->fields);
	row->fields = NULL;
	row->n = 0;
}

int
csv_parse_line(const char *s, size_t len, struct csv_row *row)
{
	size_t i = 0;

	row->fields = NULL;
	row->n = 0;
	for (;;) {
		size_t start = i;
		char *f;

		if (i < len && s[i] == '"') {
			i++;
			while (i < len) {
				if (s[i] != '"')
					i++;
				else if (i + 1 < len && s[i + 1] == '"')
					i += 2;
				else
					break;
			}
			if (i >= len) {
				csv_row_free(row);
				return -1; /* no closing quote */
			}
			i++;
			if (i < len && s[i] != ',') {
				csv_row_free(row);
				return -1; /* text after the closing quote */
			}
			f = field_unquote(s + start, i - start);
		} else {
			while (i < len && s[i] != ',')
				i++;
			f = field_copy(s + start, i - start);
		}
		push(row, f);
		if (i >= len)
			break;
		i++; /* the comma */
		if (i >= len)
			break;
	}
	return 0;
}

char *
csv_format_row(const struct csv_row *row)
{
	size_t i, len = 0, cap = 64;
	char *out = malloc(cap);

	if (!out)
		abort();
	out[0] = 0;
	for (i = 0; i < row->n; i++) {
		char *q = field_quote(row->fields[i]);
		size_t k = strlen(q);

		while (len + k + 2 > cap) {
			cap *= 2;
			if (!(out = realloc(out, cap)))
				abort();
		}
		if (i)
			out[len++] = ',';
		memcpy(out + len, q, k + 1);
		len += k;
		free(q);
	}
	return out;
}
