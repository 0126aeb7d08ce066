/*
 * test_route_tiers: the `servers` setting (route/tiers.c): valid entries,
 * each invalid one left out with a line that says what to fix, the start
 * tier and the next rung up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "route/tiers.h"

static void
parse(struct route_tiers *t, const char *json, struct buf *w)
{
	cJSON *root = cJSON_Parse(json);

	assert_non_null(root);
	route_tiers_parse(t, root, w);
	cJSON_Delete(root);
}

static void
test_valid(void **state)
{
	struct route_tiers t;
	struct buf w = BUF_INIT, names = BUF_INIT;
	const struct route_tier *s;

	(void)state;
	parse(&t, "[{\"name\":\"big\",\"url\":\"http://h:2/v1\",\"role\":\"workhorse\",\"model\":\"m\","
		  "\"thinking\":true,\"api_key_env\":\"BIG_KEY\"},"
		  "{\"name\":\"small\",\"url\":\"http://h:1\"}]", &w);
	assert_int_equal(w.len, 0);
	assert_int_equal(t.n, 2);
	s = route_tiers_start(&t);
	assert_string_equal(s->name, "small"); /* the interactive tier, not the first */
	assert_int_equal(s->role, ROUTE_TIER_INTERACTIVE);
	assert_int_equal(s->thinking, -1);
	assert_null(s->model);
	assert_string_equal(route_tiers_next(&t, s)->name, "big");
	assert_null(route_tiers_next(&t, route_tiers_next(&t, s))); /* above the workhorse: Claude */
	s = route_tiers_find(&t, "big", 3);
	assert_non_null(s);
	assert_int_equal(s->thinking, 1);
	assert_string_equal(s->api_key_env, "BIG_KEY");
	assert_null(route_tiers_find(&t, "bi", 2));
	route_tiers_names(&t, &names);
	assert_string_equal(names.data, "big, small");
	route_tiers_release(&t);
	buf_release(&w);
	buf_release(&names);
}

static void
test_invalid(void **state)
{
	struct route_tiers t;
	struct buf w = BUF_INIT;

	(void)state;
	parse(&t, "[{\"url\":\"http://h:1\"}, {\"name\":\"a\",\"url\":\"ftp://h\"},"
		  "{\"name\":\"b\",\"url\":\"http://h\",\"role\":\"boss\"},"
		  "{\"name\":\"claude\",\"url\":\"http://h\"}, {\"name\":\"ok\",\"url\":\"http://h\"},"
		  "{\"name\":\"ok\",\"url\":\"http://other\"}, 7]", &w);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.v[0].url, "http://h");
	assert_non_null(strstr(w.data, "servers[0] needs a \"name\" and a \"url\""));
	assert_non_null(strstr(w.data, "servers[1] (a) url \"ftp://h\" must start with http://"));
	assert_non_null(strstr(w.data, "servers[2] (b) role \"boss\": use \"interactive\" or \"workhorse\""));
	assert_non_null(strstr(w.data, "servers[3] name \"claude\" is taken"));
	assert_non_null(strstr(w.data, "servers[5] name \"ok\" is used twice"));
	assert_non_null(strstr(w.data, "servers[6] needs"));
	route_tiers_release(&t);
	buf_reset(&w);
	parse(&t, "{\"name\":\"x\"}", &w);
	assert_int_equal(t.n, 0);
	assert_non_null(strstr(w.data, "\"servers\" must be a list"));
	route_tiers_release(&t);
	buf_release(&w);
	route_tiers_parse(&t, NULL, NULL);
	assert_int_equal(t.n, 0);
	assert_null(route_tiers_start(&t));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
