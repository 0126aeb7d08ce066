#include <stdlib.h>
#include <string.h>

#include "csv.h"

void
csv_table_free(struct csv_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		csv_row_free(&t->rows[i]);
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

int
csv_parse(const char *text, struct csv_table *t)
{
	size_t i = 0, start = 0, len = strlen(text);
	int quoted = 0;

	t->rows = NULL;
	t->n = 0;
	for (i = 0; i <= len; i++) {
		size_t end = i;
		struct csv_row *v;

		if (i < len && text[i] == '"')
			quoted = !quoted;
		if (i < len && (text[i] != '\n' || quoted))
			continue;
		if (end > start) {
			if (!(v = realloc(t->rows, (t->n + 1) * sizeof *v)))
				abort();
			t->rows = v;
			if (csv_parse_line(text + start, end - start, &t->rows[t->n]) < 0) {
				csv_table_free(t);
				return -1;
			}
			t->n++;
		}
		start = i + 1;
	}
	return 0;
}
