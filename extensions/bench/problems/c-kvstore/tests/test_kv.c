#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "kv.h"
#include "map.h"
#include "tap.h"

static void
expect(struct map *m, const char *line, const char *want)
{
	char *got = kv_exec(m, line);

	if (strcmp(got, want) != 0) {
		fprintf(stderr, "# %s -> \"%s\", want \"%s\"\n", line, got, want);
		exit(1);
	}
	free(got);
}

static void t_map_set_get(void) { struct map m; map_init(&m); map_set(&m, "a", "1"); CHECK(strcmp(map_get(&m, "a"), "1") == 0); CHECK(map_get(&m, "b") == NULL); map_free(&m); }
static void t_map_replace(void) { struct map m; map_init(&m); map_set(&m, "a", "1"); map_set(&m, "a", "2"); CHECK(strcmp(map_get(&m, "a"), "2") == 0); CHECK(m.len == 1); map_free(&m); }
static void t_map_grow(void) {
	struct map m; char k[16], v[16]; int i;
	map_init(&m);
	for (i = 0; i < 500; i++) { snprintf(k, sizeof k, "key%d", i); snprintf(v, sizeof v, "%d", i); map_set(&m, k, v); }
	CHECK(m.len == 500);
	for (i = 0; i < 500; i++) { const char *got; snprintf(k, sizeof k, "key%d", i); snprintf(v, sizeof v, "%d", i); got = map_get(&m, k); CHECK(got && strcmp(got, v) == 0); }
	map_free(&m);
}
static void t_map_del(void) { struct map m; map_init(&m); map_set(&m, "a", "1"); CHECK(map_del(&m, "a") == 1); CHECK(map_del(&m, "a") == 0); CHECK(map_get(&m, "a") == NULL); CHECK(m.len == 0); map_free(&m); }
static void t_map_del_keeps_chain(void) {
	struct map m; char k[16]; int i;
	map_init(&m);
	for (i = 0; i < 300; i++) { snprintf(k, sizeof k, "k%d", i); map_set(&m, k, k); }
	for (i = 0; i < 300; i += 2) { snprintf(k, sizeof k, "k%d", i); CHECK(map_del(&m, k) == 1); }
	for (i = 0; i < 300; i++) { snprintf(k, sizeof k, "k%d", i); CHECK((map_get(&m, k) != NULL) == (i % 2 == 1)); }
	CHECK(m.len == 150);
	map_free(&m);
}
static void t_map_reinsert(void) {
	struct map m; char k[16]; int i, round;
	map_init(&m);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 50; i++) { snprintf(k, sizeof k, "r%d", i); map_set(&m, k, "x"); }
		for (i = 0; i < 50; i++) { snprintf(k, sizeof k, "r%d", i); CHECK(map_del(&m, k) == 1); }
	}
	CHECK(m.len == 0);
	map_free(&m);
}
static void t_split_words(void) { struct cmd c; CHECK(cmd_split("  SET  a   b ", &c) == 0); CHECK(c.n == 3); CHECK(strcmp(c.words[2], "b") == 0); cmd_free(&c); }
static void t_split_quoted(void) { struct cmd c; CHECK(cmd_split("SET k \"two words\"", &c) == 0); CHECK(c.n == 3); CHECK(strcmp(c.words[2], "two words") == 0); cmd_free(&c); }
static void t_split_escapes(void) { struct cmd c; CHECK(cmd_split("SET k \"a \\\"q\\\" \\\\ b\"", &c) == 0); CHECK(c.n == 3); CHECK(strcmp(c.words[2], "a \"q\" \\ b") == 0); cmd_free(&c); }
static void t_split_empty_quoted(void) { struct cmd c; CHECK(cmd_split("SET k \"\"", &c) == 0); CHECK(c.n == 3); CHECK(strcmp(c.words[2], "") == 0); cmd_free(&c); }
static void t_split_unterminated(void) { struct cmd c; CHECK(cmd_split("SET k \"abc", &c) == -1); }
static void t_split_too_many(void) { struct cmd c; CHECK(cmd_split("a b c d e f g h i", &c) == -1); }
static void t_kv_set_get(void) { struct map m; map_init(&m); expect(&m, "SET a 1", "OK"); expect(&m, "GET a", "1"); expect(&m, "GET b", "(nil)"); map_free(&m); }
static void t_kv_case(void) { struct map m; map_init(&m); expect(&m, "set A x", "OK"); expect(&m, "get A", "x"); expect(&m, "GET a", "(nil)"); map_free(&m); }
static void t_kv_del_count(void) { struct map m; map_init(&m); expect(&m, "SET a 1", "OK"); expect(&m, "SET b 2", "OK"); expect(&m, "DEL a", "1"); expect(&m, "DEL a", "0"); expect(&m, "COUNT", "1"); map_free(&m); }
static void t_kv_quoted_value(void) { struct map m; map_init(&m); expect(&m, "SET greeting \"hello \\\"you\\\"\"", "OK"); expect(&m, "GET greeting", "hello \"you\""); map_free(&m); }
static void t_kv_incr(void) { struct map m; map_init(&m); expect(&m, "INCR n", "1"); expect(&m, "INCR n", "2"); expect(&m, "SET n -5", "OK"); expect(&m, "INCR n", "-4"); map_free(&m); }
static void t_kv_incr_not_int(void) { struct map m; map_init(&m); expect(&m, "SET n abc", "OK"); expect(&m, "INCR n", "ERR not an integer"); expect(&m, "GET n", "abc"); map_free(&m); }
static void t_kv_incr_trailing(void) { struct map m; map_init(&m); expect(&m, "SET n 12x", "OK"); expect(&m, "INCR n", "ERR not an integer"); map_free(&m); }
static void t_kv_errors(void) { struct map m; map_init(&m); expect(&m, "PING", "ERR unknown command"); expect(&m, "GET", "ERR wrong arguments"); expect(&m, "SET a \"b", "ERR syntax"); expect(&m, "", "ERR unknown command"); map_free(&m); }
static void t_kv_many(void) {
	struct map m; char line[64], want[16]; int i;
	map_init(&m);
	for (i = 0; i < 200; i++) { snprintf(line, sizeof line, "SET k%d %d", i, i * 3); expect(&m, line, "OK"); }
	for (i = 0; i < 200; i += 3) { snprintf(line, sizeof line, "DEL k%d", i); expect(&m, line, "1"); }
	for (i = 0; i < 200; i++) { snprintf(line, sizeof line, "GET k%d", i); snprintf(want, sizeof want, "%d", i * 3); expect(&m, line, i % 3 ? want : "(nil)"); }
	expect(&m, "COUNT", "133");
	map_free(&m);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		{ "map_set_get", t_map_set_get }, { "map_replace", t_map_replace }, { "map_grow", t_map_grow },
		{ "map_del", t_map_del }, { "map_del_keeps_chain", t_map_del_keeps_chain },
		{ "map_reinsert", t_map_reinsert }, { "split_words", t_split_words },
		{ "split_quoted", t_split_quoted }, { "split_escapes", t_split_escapes },
		{ "split_empty_quoted", t_split_empty_quoted }, { "split_unterminated", t_split_unterminated },
		{ "split_too_many", t_split_too_many }, { "kv_set_get", t_kv_set_get }, { "kv_case", t_kv_case },
		{ "kv_del_count", t_kv_del_count }, { "kv_quoted_value", t_kv_quoted_value },
		{ "kv_incr", t_kv_incr }, { "kv_incr_not_int", t_kv_incr_not_int },
		{ "kv_incr_trailing", t_kv_incr_trailing }, { "kv_errors", t_kv_errors }, { "kv_many", t_kv_many },
	};
	return tap_run(cases, (int)(sizeof cases / sizeof *cases));
}
