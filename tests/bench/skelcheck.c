/*
 * skelcheck: for each file given, compare the definitions-only parse
 * (code_skeleton) with a whole parse.  Prints per file the holes found, the
 * bytes left out and whether the trees agree outside the holes; exits 1
 * when any file disagrees.  A check for new prescan rules on real code:
 *   build/bench/skelcheck $(git ls-files '*.c' '*.go' '*.py')
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tree_sitter/api.h>

#include "base/buf.h"
#include "code/code.h"
#include "code/skeleton.h"
#include "../unit/helpers/skeldump.h"

/* Milliseconds of the monotonic clock. */
static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	int i, bad = 0;
	double tfull = 0, tskel = 0;

	for (i = 1; i < argc; i++) {
		const struct code_lang *lang = code_lang_for_path(argv[i]);
		struct buf text = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
		struct code_skeleton_holes h = { NULL, 0, 0 };
		struct code_tree *full = NULL, *skel = NULL;
		struct err e = ERR_INIT;
		size_t gone = 0;
		int python, found;
		size_t nfound;
		double t0, t1, t2;

		if (!lang || buf_read_file(&text, argv[i], CODE_MAX_BYTES, &e) < 0) {
			buf_release(&text);
			continue;
		}
		lang = code_lang_for_file(argv[i], text.data, text.len);
		python = !strcmp(lang->name, "python");
		found = code_skeleton_find(lang->name, text.data, text.len, &h);
		t0 = now_ms();
		if (code_parse(lang, text.data, text.len, &full, &e) < 0) {
			buf_release(&text);
			code_skeleton_holes_release(&h);
			continue;
		}
		t1 = now_ms();
		code_skeleton_parse(lang, CODE_BODIES_MAP, text.data, text.len, &skel, &gone, &e);
		t2 = now_ms();
		tfull += t1 - t0, tskel += t2 - t1;
		nfound = h.n;
		if (!gone)
			code_skeleton_holes_release(&h);
		skeldump(ts_tree_root_node(code_tree_ts(full)), &h, python, &a);
		skeldump(ts_tree_root_node(code_tree_ts(skel)), &h, python, &b);
		printf("%-6s%s %s %s holes %zu, %zu of %zu bytes left out, %.2f -> %.2f ms%s\n",
		       strcmp(a.data, b.data) ? "DIFFER" : "same",
		       ts_node_has_error(ts_tree_root_node(code_tree_ts(full))) ? "(whole has errors)" : "",
		       lang->name, argv[i], h.n, gone,
		       text.len, t1 - t0, t2 - t1, found < 0 ? " (prescan gave up)" :
		       !gone && nfound ? " (holes did not fit)" : "");
		bad |= strcmp(a.data, b.data) != 0 &&
		       !ts_node_has_error(ts_tree_root_node(code_tree_ts(full)));
		if (getenv("SKELCHECK_DUMP") && strcmp(a.data, b.data)) {
			size_t k = 0;
			while (a.data[k] == b.data[k])
				k++;
			while (k > 0 && a.data[k - 1] != '(')
				k--;
			printf("  whole: %.300s\n  defs:  %.300s\n", a.data + k - (k > 200 ? 200 : k),
			       b.data + k - (k > 200 ? 200 : k));
		}
		code_release(full), code_release(skel);
		code_skeleton_holes_release(&h);
		buf_release(&text), buf_release(&a), buf_release(&b);
	}
	printf("whole parses %.1f ms, definitions-only %.1f ms\n", tfull, tskel);
	return bad;
}
