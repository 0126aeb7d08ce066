/*
 * test_front_turn: the turn controller (front/turn.h) against the fake
 * provider — route → attach → submit in that order, a refused @path is
 * said in one line and the turn goes on without it, a turn the agent
 * refuses stops with its one-line message, routing to Claude (the Claude
 * provider, @claude removed, private files redacted) vs local, the
 * server_down rule keeping a turn back, the agent's observer events
 * reaching the view, and the router recording a turn before the view
 * hears its end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent.h"
#include "base/cfg.h"
#include "fakeprov.h"
#include "front/turn.h"
#include "io/http.h"
#include "io/loop.h"
#include "llm/conv.h"
#include "route/escalate.h"
#include "testutil.h"

/* What the view saw, in order: one letter per callback in `order`. */
struct view {
	struct buf order;  /* R route, U user, A attach, E error, S provider start, T text, ( ) tool, M message, N notice, X end */
	struct buf route, attach, error, user, text;
	int says_attach, says_error, tools_done, ended, resumed;
	enum agent_end end;
	int routes_at_end; /* outcome lines in routes.jsonl when the view heard the end */
	const char *state_dir;
};

struct env {
	struct fakeprov_ws ws;
	struct fakeprov fake;
	struct cfg cfg;
	struct http *http;
	struct route_escalate esc;
	struct front_session s;
	struct front_turn t;
	struct view v;
	const struct tool *const *tools;
	size_t ntools;
};

static void
add_order(struct view *v, char c)
{
	buf_addch(&v->order, c);
}

static void
v_say(void *arg, enum front_turn_say kind, const char *text)
{
	struct view *v = arg;

	switch (kind) {
	case FRONT_TURN_SAY_ROUTE:
		add_order(v, 'R');
		buf_adds(&v->route, text);
		break;
	case FRONT_TURN_SAY_ATTACH:
		add_order(v, 'A');
		v->says_attach++;
		buf_adds(&v->attach, text);
		break;
	case FRONT_TURN_SAY_ERROR:
		add_order(v, 'E');
		v->says_error++;
		buf_adds(&v->error, text);
		break;
	}
}

static void
v_user(void *arg, const char *text)
{
	struct view *v = arg;

	add_order(v, 'U');
	buf_adds(&v->user, text);
}

static void
v_event(void *arg, const struct llm_event *ev)
{
	struct view *v = arg;

	if (ev->kind == LLM_TEXT) {
		add_order(v, 'T');
		buf_add(&v->text, ev->text.p, ev->text.len);
	}
}

static void
v_message(void *arg, const struct conv_msg *m)
{
	(void)m;
	add_order(arg, 'M');
}

static void
v_tool_start(void *arg, const struct agent_call *c)
{
	(void)c;
	add_order(arg, '(');
}

static void
v_tool_done(void *arg, const struct agent_call *c)
{
	struct view *v = arg;

	(void)c;
	add_order(v, ')');
	v->tools_done++;
}

static void
v_notice(void *arg, const char *line)
{
	(void)line;
	add_order(arg, 'N');
}

/* Lines in routes.jsonl (the router's outcomes log). */
static int
route_lines(const char *dir)
{
	char *s = tu_read(dir, "routes.jsonl");
	int n = 0;

	for (const char *p = s; p && *p; p++)
		n += *p == '\n';
	free(s);
	return n;
}

static void
v_end(void *arg, enum agent_end end, const char *message)
{
	struct view *v = arg;

	(void)message;
	add_order(v, 'X');
	v->ended = 1;
	v->end = end;
	v->routes_at_end = route_lines(v->state_dir);
}

static void
v_resumed(void *arg, const struct conv *msgs, const char *line)
{
	struct view *v = arg;

	v->resumed = (int)msgs->nmsgs;
	assert_non_null(strstr(line, "resumed session"));
}

/* The fake provider starts a request: the submit happened. */
static void
fake_started(void *arg, const struct provider_req *req)
{
	(void)req;
	add_order(arg, 'S');
}

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);
	struct err er = ERR_INIT;

	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("ANTHROPIC_BASE_URL");
	fakeprov_ws_init(&e->ws, "alpha\nbeta\n");
	fakeprov_init(&e->fake, e->ws.loop, "llama");
	e->fake.on_start = fake_started;
	e->fake.on_start_arg = &e->v;
	tu_write(e->ws.dir, ".env", "SECRET_TOKEN=hush-5e1f\n");
	cfg_defaults(&e->cfg);
	e->http = http_new(e->ws.loop, &er);
	assert_non_null(e->http);
	e->tools = tool_all(&e->ntools);
	e->v.state_dir = e->ws.dir;
	e->s.loop = e->ws.loop;
	e->s.local = &e->fake.prov;
	e->s.cfg = &e->cfg;
	e->s.env = &e->ws.tenv;
	e->s.tools = e->tools;
	e->s.ntools = e->ntools;
	e->s.system = "system";
	*state = e;
	return 0;
}

/* The router, with or without an API key (its Claude endpoint refuses connections). */
static void
with_router(struct env *e, int key)
{
	struct buf w = BUF_INIT;

	if (key) {
		setenv("ANTHROPIC_API_KEY", "sk-test", 1);
		setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9", 1);
	}
	route_escalate_init(&e->esc, e->ws.loop, e->http, e->ws.dir, e->ws.dir, &w);
	buf_release(&w);
	e->s.esc = &e->esc;
}

/* The controller with the recording view. */
static void
start(struct env *e)
{
	struct front_turn_view v = { 0 };

	v.arg = &e->v;
	v.on_event = v_event;
	v.on_message = v_message;
	v.on_tool_start = v_tool_start;
	v.on_tool_done = v_tool_done;
	v.on_notice = v_notice;
	v.on_end = v_end;
	v.say = v_say;
	v.on_user = v_user;
	v.on_resumed = v_resumed;
	front_turn_init(&e->t, &e->s, NULL, &v);
}

static int
teardown(void **state)
{
	struct env *e = *state;

	front_turn_release(&e->t);
	if (e->s.esc)
		route_escalate_release(&e->esc);
	http_free(e->http);
	cfg_release(&e->cfg);
	buf_release(&e->v.order);
	buf_release(&e->v.route);
	buf_release(&e->v.attach);
	buf_release(&e->v.error);
	buf_release(&e->v.user);
	buf_release(&e->v.text);
	fakeprov_ws_release(&e->ws);
	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("ANTHROPIC_BASE_URL");
	free(e);
	return 0;
}

/* The text of the last user message the agent holds. */
static const char *
last_user(struct env *e)
{
	const struct conv *c = agent_conv(e->t.agent);

	for (size_t i = c->nmsgs; i > 0; i--)
		if (c->msgs[i - 1].role == CONV_USER && c->msgs[i - 1].nblocks)
			return c->msgs[i - 1].blocks[0].text;
	fail_msg("no user message");
	return NULL;
}

/* route (its line), then the user's message, then the attachment line, then the request. */
static void
test_route_attach_submit_in_order(void **state)
{
	struct env *e = *state;

	with_router(e, 0); /* @claude without a key: a line saying why it stays local */
	fakeprov_answer(&e->fake, 0, "ok");
	start(e);
	assert_int_equal(front_turn_send(&e->t, "@claude explain @f.txt", 0), FRONT_TURN_STARTED);
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
	assert_true(e->v.route.len > 0);
	assert_string_equal(e->v.user.data, "explain @f.txt"); /* routed before it was shown */
	assert_non_null(strstr(e->v.attach.data, "attached f.txt"));
	assert_int_equal(strncmp(e->v.order.data, "RUAS", 4), 0);
	/* the request carries the attachment, and not the routing prefix */
	assert_non_null(strstr(last_user(e), "<file path=\"f.txt\">"));
	assert_non_null(strstr(last_user(e), "alpha"));
	assert_null(strstr(last_user(e), "@claude"));
	assert_ptr_equal(agent_provider(e->t.agent), &e->fake.prov);
}

/* A refused @path: one line, and the turn goes on without the file. */
static void
test_attach_refusal_is_one_line(void **state)
{
	struct env *e = *state;

	fakeprov_answer(&e->fake, 0, "ok");
	start(e);
	assert_int_equal(front_turn_send(&e->t, "look at @missing/x.c", 0), FRONT_TURN_STARTED);
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
	assert_int_equal(e->v.says_attach, 1);
	assert_non_null(strstr(e->v.attach.data, "missing/x.c: no such file"));
	assert_null(strchr(e->v.attach.data, '\n'));
	assert_int_equal(e->v.says_error, 0);
	assert_int_equal(e->fake.starts, 1);
	assert_string_equal(last_user(e), "look at @missing/x.c");
}

/* The agent refuses the turn (one is running): its one line, nothing sent. */
static void
test_refused_submit_stops_the_turn(void **state)
{
	struct env *e = *state;

	start(e); /* the fake never answers: the first turn keeps running */
	assert_int_equal(front_turn_send(&e->t, "first", 0), FRONT_TURN_STARTED);
	loop_run_once(e->ws.loop, 0, NULL);
	assert_int_equal(e->fake.starts, 1);
	assert_int_equal(front_turn_send(&e->t, "second @f.txt", 0), FRONT_TURN_FAILED);
	assert_int_equal(e->v.says_error, 1);
	assert_true(e->v.error.len > 0);
	assert_null(strchr(e->v.error.data, '\n'));
	loop_run_once(e->ws.loop, 0, NULL);
	assert_int_equal(e->fake.starts, 1);
	assert_int_equal(e->v.ended, 0);
	agent_abort(e->t.agent);
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
}

/* @claude with a key: the Claude provider, the prefix removed, private files redacted. */
static void
test_routes_to_claude(void **state)
{
	struct env *e = *state;

	with_router(e, 1);
	start(e);
	assert_int_equal(front_turn_send(&e->t, "@claude check @.env", 0), FRONT_TURN_STARTED);
	assert_ptr_not_equal(agent_provider(e->t.agent), &e->fake.prov);
	assert_string_equal(agent_provider(e->t.agent)->name, "anthropic");
	assert_non_null(strstr(e->v.route.data, "claude"));
	assert_string_equal(e->v.user.data, "check @.env");
	assert_null(strstr(last_user(e), "hush-5e1f"));
	assert_int_equal(e->fake.starts, 0);
	agent_abort(e->t.agent);
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
}

/* No prefix, no rule: the local provider, and a private file is sent as it is. */
static void
test_routes_local(void **state)
{
	struct env *e = *state;

	with_router(e, 1);
	fakeprov_answer(&e->fake, 0, "ok");
	start(e);
	assert_int_equal(front_turn_send(&e->t, "check @.env", 0), FRONT_TURN_STARTED);
	assert_ptr_equal(agent_provider(e->t.agent), &e->fake.prov);
	assert_int_equal(e->v.route.len, 0);
	assert_non_null(strstr(last_user(e), "hush-5e1f"));
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
	assert_int_equal(e->fake.starts, 1);
}

/* Server down and no key: the server_down rule keeps the turn back, nothing is sent. */
static void
test_server_down_waits(void **state)
{
	struct env *e = *state;

	with_router(e, 0);
	start(e);
	assert_int_equal(front_turn_send(&e->t, "fix it", 1), FRONT_TURN_WAIT);
	loop_run_once(e->ws.loop, 0, NULL);
	assert_int_equal(e->fake.starts, 0);
	assert_int_equal(e->v.user.len, 0);
	assert_int_equal(agent_conv(e->t.agent)->nmsgs, 0);
}

/* The agent's observer events reach the view; the router records the turn before its end. */
static void
test_observer_events_reach_the_view(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s1[] = { EV_TEXT("It says "), EV_TEXT("alpha."), EV_DONE("stop") };

	with_router(e, 0);
	fakeprov_call(&e->fake, 0, "id1", "read", "{\"path\":\"f.txt\"}");
	FAKEPROV_STEP(&e->fake, 1, s1);
	start(e);
	assert_int_equal(front_turn_send(&e->t, "read f.txt", 0), FRONT_TURN_STARTED);
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
	assert_int_equal(e->v.end, AGENT_END_OK);
	assert_int_equal(e->v.tools_done, 1);
	assert_string_equal(e->v.text.data, "It says alpha.");
	assert_non_null(strchr(e->v.order.data, '('));
	assert_non_null(strchr(e->v.order.data, 'M'));
	assert_int_equal(e->v.order.data[e->v.order.len - 1], 'X');
	assert_int_equal(e->v.routes_at_end, 1);
}

/* front_turn_submit (print mode, routed already) is not recorded by the controller. */
static void
test_submit_alone_is_not_recorded(void **state)
{
	struct env *e = *state;

	with_router(e, 0);
	fakeprov_answer(&e->fake, 0, "ok");
	start(e);
	assert_int_equal(front_turn_submit(&e->t, "hello"), FRONT_TURN_STARTED);
	assert_true(tu_run_until(e->ws.loop, &e->v.ended, 5000));
	assert_int_equal(e->v.routes_at_end, 0);
	assert_int_equal(strncmp(e->v.order.data, "US", 2), 0);
}

/* A resumed session's messages are shown to the view, then moved into the agent. */
static void
test_resumed_messages_move_in(void **state)
{
	struct env *e = *state;
	struct conv resumed;

	conv_init(&resumed);
	conv_add_block(conv_add_msg(&resumed, CONV_USER), CONV_TEXT, "earlier", NULL, NULL);
	conv_add_block(conv_add_msg(&resumed, CONV_ASSISTANT), CONV_TEXT, "answer", NULL, NULL);
	e->s.resumed = &resumed;
	start(e);
	assert_int_equal(e->v.resumed, 2);
	assert_int_equal(resumed.nmsgs, 0);
	assert_int_equal(agent_conv(e->t.agent)->nmsgs, 2);
	assert_string_equal(agent_conv(e->t.agent)->system, "system");
	conv_release(&resumed);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_route_attach_submit_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_refusal_is_one_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_submit_stops_the_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routes_to_claude, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routes_local, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_down_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observer_events_reach_the_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_alone_is_not_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resumed_messages_move_in, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
