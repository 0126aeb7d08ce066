/*
 * test_gate: the gate between a real agent (with the real tools, in a
 * temporary workspace whose .hearth/settings.json holds the rules and
 * hooks) and a scripted provider whose every step is one tool call or a
 * text answer.  The front end is a recorder that answers questions later
 * from the test, as a person would.  Covers deny rules, questions answered
 * yes / no / always, print mode without and with --yes, aborting while a
 * question waits, the diff shown for an edit, and hooks around calls.
 * The diff asked about is the one that lands: an edit with replace_all and
 * one in a CRLF file are asked about with exactly the diff their result
 * reports after "yes" (the tool's own preview, not a copy of edit), in
 * the question, in the print-mode refusal and in the pre_tool hook's event.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/agent.h"
#include "fakeprov.h"
#include "perm/gate.h"
#include "io/loop.h"
#include "io/sandbox.h"
#include "llm/provider.h"
#include "testutil.h"
#include "llm/tool.h"

struct env {
	struct fakeprov_ws ws;
	struct fakeprov fake;
	struct agent *agent;
	struct perm_gate *gate;
	struct sandbox *sb; /* NULL: none */
	/* the front end */
	int ended, asked, withdrawn, notices, is_diff;
	enum agent_end end;
	struct buf title, detail, always, why, notice;
};

static void
on_end(void *arg, enum agent_end end, const char *message)
{
	struct env *e = arg;

	(void)message;
	e->ended = 1;
	e->end = end;
}

static void
ui_ask(void *arg, const struct perm_gate_question *q)
{
	struct env *e = arg;

	e->asked++;
	buf_reset(&e->title);
	buf_reset(&e->detail);
	buf_reset(&e->always);
	buf_reset(&e->why);
	buf_adds(&e->title, q->title);
	buf_adds(&e->detail, q->detail);
	buf_adds(&e->always, q->always);
	buf_adds(&e->why, q->why);
	e->is_diff = q->is_diff;
}

static void
ui_withdraw(void *arg)
{
	((struct env *)arg)->withdrawn++;
}

static void
ui_notice(void *arg, const char *line)
{
	struct env *e = arg;

	e->notices++;
	buf_addf(&e->notice, "%s\n", line);
}

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);

	fakeprov_ws_init(&e->ws, "alpha\nbeta\n");
	fakeprov_init(&e->fake, e->ws.loop, "llama");
	e->fake.repeat_last = 1;
	buf_init(&e->title, 0);
	buf_init(&e->detail, 0);
	buf_init(&e->always, 0);
	buf_init(&e->why, 0);
	buf_init(&e->notice, 0);
	setenv("XDG_CONFIG_HOME", e->ws.dir, 1); /* no user settings */
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	agent_free(e->agent);
	perm_gate_free(e->gate);
	sandbox_free(e->sb);
	fakeprov_ws_release(&e->ws);
	buf_release(&e->title);
	buf_release(&e->detail);
	buf_release(&e->always);
	buf_release(&e->why);
	buf_release(&e->notice);
	free(e);
	return 0;
}

/* The gate (settings JSON, or NULL) and the agent; ask = a front end that can ask. */
static void
start(struct env *e, const char *settings, int ask)
{
	struct agent_observer ob = { 0 };
	struct agent_opts ao = { 0 };
	struct perm_gate_ui ui = { e, ask ? ui_ask : NULL, ui_withdraw, ui_notice };
	struct buf w = BUF_INIT;
	size_t n;

	if (settings) {
		char path[4200];

		snprintf(path, sizeof path, "%s/.hearth", e->ws.dir);
		mkdir(path, 0700);
		tu_write(path, "settings.json", settings);
	}
	e->gate = perm_gate_new(e->ws.loop, &e->ws.tenv, 1, &w);
	assert_int_equal(w.len, 0);
	buf_release(&w);
	perm_gate_set_ui(e->gate, &ui);
	ao.tools = tool_all(&n);
	ao.ntools = n;
	ao.max_steps = 10;
	ao.gate = perm_gate_agent(e->gate);
	ob.arg = e;
	ob.on_end = on_end;
	e->agent = agent_new(e->ws.loop, &e->fake.prov, &e->ws.tenv, &ao, &ob);
	conv_set_system(agent_conv(e->agent), "system");
}

/* Script: step i is a tool call (tool, args) or, with tool NULL, text. */
static void
script(struct env *e, int i, const char *tool, const char *args, const char *text)
{
	if (tool)
		fakeprov_call(&e->fake, i, "c1", tool, args);
	else
		fakeprov_answer(&e->fake, i, text ? text : "ok");
}

/* Submit a task and pump until asked (want_ask) or the turn ended. */
static void
turn(struct env *e, const char *task, int want_ask)
{
	int asked = e->asked;
	int flag = 0;

	e->ended = 0;
	assert_int_equal(agent_submit(e->agent, task, NULL), 0);
	if (!want_ask) {
		assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
		return;
	}
	while (e->asked == asked && !e->ended && flag < 200) {
		loop_run_once(e->ws.loop, 25, NULL);
		flag++;
	}
	assert_int_equal(e->asked, asked + 1);
	assert_true(perm_gate_asking(e->gate));
}

/* The last tool result text in the conv (and whether it is an error). */
static const char *
last_result(struct env *e, int *is_error)
{
	struct conv *c = agent_conv(e->agent);
	size_t m, b;

	for (m = c->nmsgs; m-- > 0;)
		for (b = 0; b < c->msgs[m].nblocks; b++)
			if (c->msgs[m].blocks[b].kind == CONV_TOOL_RESULT) {
				if (is_error)
					*is_error = c->msgs[m].blocks[b].is_error;
				return c->msgs[m].blocks[b].text;
			}
	return "";
}

static int
exists(struct env *e, const char *name)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/%s", e->ws.dir, name);
	return access(path, F_OK) == 0;
}

/* Pump the loop for about ms milliseconds. */
static void
pump(struct env *e, int ms)
{
	int i;

	for (i = 0; i < ms / 25; i++)
		loop_run_once(e->ws.loop, 25, NULL);
}

/* Whether the notices hold exactly this line. */
static int
has_notice(struct env *e, const char *line)
{
	const char *p = e->notice.data;
	size_t n = strlen(line);

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, line, n) && p[n] == '\n')
			return 1;
	return 0;
}

static void
test_deny(void **state)
{
	struct env *e = *state;
	int err = 0;

	start(e, "{\"permissions\": {\"deny\": [\"bash(touch*)\"]}}", 1);
	perm_gate_set_yes(e->gate, 1);
	script(e, 0, "bash", "{\"command\":\"cd . && touch made\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 0);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_false(exists(e, "made"));
	assert_int_equal(e->asked, 0);
	assert_non_null(strstr(last_result(e, &err), "Not run: denied by the rule \"bash(touch*)\""));
	assert_true(err);
	assert_non_null(strstr(e->notice.data, "refused bash: denied by the rule"));
}

/* /mode: a known approval mode is set and takes effect; an unknown one is refused with the choices. */
static void
test_set_mode(void **state)
{
	struct env *e = *state;
	struct err er = ERR_INIT;

	start(e, NULL, 1);
	assert_int_equal(perm_gate_set_mode(e->gate, "yolo", &er), 0);
	assert_int_equal(perm_gate_perm(e->gate)->mode, PERM_YOLO);
	script(e, 0, "bash", "{\"command\":\"touch made\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 0);
	assert_true(exists(e, "made"));
	assert_int_equal(e->asked, 0);               /* yolo: nothing asked */
	assert_int_equal(perm_gate_set_mode(e->gate, "ask", &er), 0);
	assert_int_equal(perm_gate_perm(e->gate)->mode, PERM_ASK);
	assert_int_equal(perm_gate_set_mode(e->gate, "sometimes", &er), -1);
	assert_string_equal(er.msg, "unknown approval mode \"sometimes\": use ask, auto-edit or yolo");
	assert_int_equal(perm_gate_perm(e->gate)->mode, PERM_ASK);
	err_clear(&er);
}

static void
test_ask_yes_no_always(void **state)
{
	struct env *e = *state;
	int err = 0;

	start(e, NULL, 1);
	script(e, 0, "bash", "{\"command\":\"touch made\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	/* no */
	turn(e, "t1", 1);
	assert_string_equal(e->title.data, "bash: touch made");
	assert_string_equal(e->detail.data, "touch made");
	assert_string_equal(e->why.data, "a bash command not known to be read-only");
	assert_string_equal(e->always.data, "bash(touch made:*)");
	perm_gate_answer(e->gate, PERM_GATE_NO);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	assert_false(exists(e, "made"));
	assert_non_null(strstr(last_result(e, &err), "the user declined"));
	assert_true(err);
	perm_gate_answer(e->gate, PERM_GATE_YES); /* nothing pending: ignored */
	/* yes */
	e->fake.next = 0;
	turn(e, "t2", 1);
	perm_gate_answer(e->gate, PERM_GATE_YES);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	assert_true(exists(e, "made"));
	last_result(e, &err);
	assert_false(err);
	/* always: asked once more, then never for this command */
	e->fake.next = 0;
	turn(e, "t3", 1);
	perm_gate_answer(e->gate, PERM_GATE_ALWAYS);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	e->fake.next = 0;
	turn(e, "t4", 0);
	assert_int_equal(e->asked, 3);
	assert_int_equal(perm_gate_perm(e->gate)->lists[PERM_LIST_SESSION].n, 1);
}

static void
test_print_mode(void **state)
{
	struct env *e = *state;

	start(e, NULL, 0);
	script(e, 0, "bash", "{\"command\":\"touch made\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 0);
	assert_false(exists(e, "made"));
	assert_non_null(strstr(last_result(e, NULL), "needs the user's approval"));
	assert_non_null(strstr(e->notice.data, "print mode cannot ask; rerun with --yes"));
	assert_non_null(strstr(e->notice.data, "\"bash(touch made:*)\""));
	perm_gate_set_yes(e->gate, 1);
	e->fake.next = 0;
	turn(e, "t", 0);
	assert_true(exists(e, "made"));
}

static void
test_abort_while_asking(void **state)
{
	struct env *e = *state;
	struct conv *c;

	start(e, NULL, 1);
	script(e, 0, "bash", "{\"command\":\"touch made\"}", NULL);
	turn(e, "t", 1);
	agent_abort(e->agent);
	assert_true(e->ended);
	assert_int_equal(e->end, AGENT_END_ABORTED);
	assert_int_equal(e->withdrawn, 1);
	assert_false(perm_gate_asking(e->gate));
	perm_gate_answer(e->gate, PERM_GATE_YES); /* too late: ignored */
	loop_run_once(e->ws.loop, 10, NULL);
	assert_false(exists(e, "made"));
	assert_non_null(strstr(last_result(e, NULL), "[not run: the user aborted the turn]"));
	c = agent_conv(e->agent);
	assert_true(c->msgs[c->nmsgs - 1].aborted);
}

static void
test_edit_shows_diff(void **state)
{
	struct env *e = *state;
	char *ev;

	start(e, "{\"approval\": \"ask\"}", 1);
	script(e, 0, "read", "{\"path\":\"f.txt\"}", NULL);
	script(e, 1, "edit", "{\"path\":\"f.txt\",\"old_text\":\"alpha\",\"new_text\":\"ALPHA\"}", NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 1);
	assert_string_equal(e->title.data, "edit f.txt");
	assert_string_equal(e->why.data, "approval mode ask");
	assert_non_null(strstr(e->detail.data, "--- a/f.txt"));
	assert_non_null(strstr(e->detail.data, "\n-alpha\n+ALPHA\n"));
	ev = tu_read(e->ws.dir, "f.txt");
	assert_string_equal(ev, "alpha\nbeta\n");
	free(ev);
	perm_gate_answer(e->gate, PERM_GATE_YES);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	assert_int_equal(e->end, AGENT_END_OK);
}

/* The diff part of the last result (after its first line "edited ...: replaced ..."). */
static const char *
result_diff(struct env *e)
{
	const char *r = last_result(e, NULL), *nl = strchr(r, '\n');

	assert_non_null(strstr(r, "edited "));
	assert_non_null(nl);
	return nl + 1;
}

/* Ask about edit args on file f.txt holding `before`; answer yes; the question's diff is the result's. */
static void
edit_asked_as_landed(struct env *e, const char *before, const char *args, const char *after)
{
	char *got;

	tu_write(e->ws.dir, "f.txt", before);
	start(e, "{\"approval\": \"ask\"}", 1);
	script(e, 0, "read", "{\"path\":\"f.txt\"}", NULL);
	script(e, 1, "edit", args, NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 1);
	assert_string_equal(e->title.data, "edit f.txt");
	assert_true(e->is_diff);
	got = tu_read(e->ws.dir, "f.txt");
	assert_string_equal(got, before); /* nothing written before the answer */
	free(got);
	perm_gate_answer(e->gate, PERM_GATE_YES);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	assert_int_equal(e->end, AGENT_END_OK);
	got = tu_read(e->ws.dir, "f.txt");
	assert_string_equal(got, after);
	free(got);
	assert_string_equal(e->detail.data, result_diff(e));
}

static void
test_edit_replace_all_asks_what_lands(void **state)
{
	struct env *e = *state;

	edit_asked_as_landed(e, "red top\nmid\nred bottom\n",
			     "{\"path\":\"f.txt\",\"old_text\":\"red\",\"new_text\":\"blue\",\"replace_all\":true}",
			     "blue top\nmid\nblue bottom\n");
	assert_non_null(strstr(e->detail.data, "\n-red top\n+blue top\n"));
	assert_non_null(strstr(e->detail.data, "\n-red bottom\n+blue bottom\n"));
}

static void
test_edit_crlf_asks_what_lands(void **state)
{
	struct env *e = *state;

	edit_asked_as_landed(e, "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n",
			     "{\"path\":\"f.txt\",\"old_text\":\"three\\nfour\",\"new_text\":\"THREE\\nFOUR\"}",
			     "one\r\ntwo\r\nTHREE\r\nFOUR\r\nfive\r\nsix\r\n");
	assert_non_null(strstr(e->detail.data, "@@ -1,6 +1,6 @@\n one\n two\n-three\n-four\n+THREE\n+FOUR\n five\n"));
	assert_null(strchr(e->detail.data, '\r'));
}

/* Print mode: the refusal shows the change the call would have made; the pre_tool hook gets it too. */
static void
test_print_mode_shows_the_change(void **state)
{
	struct env *e = *state;
	char *got;

	tu_write(e->ws.dir, "f.txt", "red top\nmid\nred bottom\n");
	start(e, "{\"approval\": \"ask\", \"hooks\": {\"pre_tool\": [\"cat > pre.json\"]}}", 0);
	script(e, 0, "read", "{\"path\":\"f.txt\"}", NULL);
	script(e, 1, "edit", "{\"path\":\"f.txt\",\"old_text\":\"red\",\"new_text\":\"blue\",\"replace_all\":true}", NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 0);
	got = tu_read(e->ws.dir, "f.txt");
	assert_string_equal(got, "red top\nmid\nred bottom\n");
	free(got);
	assert_non_null(strstr(e->notice.data, "refused edit f.txt: it needs approval"));
	assert_non_null(strstr(e->notice.data, "the call would have made this change:\n--- a/f.txt\n"));
	assert_non_null(strstr(e->notice.data, "\n-red top\n+blue top\n"));
	assert_non_null(strstr(e->notice.data, "\n-red bottom\n+blue bottom\n"));
	perm_gate_drain(e->gate);
	got = tu_read(e->ws.dir, "pre.json");
	assert_non_null(strstr(got, "\"tool_input\":{\"path\":\"f.txt\",\"old_text\":\"red\""));
	assert_non_null(strstr(got, "\"tool_preview\":\"--- a/f.txt\\n"));
	assert_non_null(strstr(got, "-red bottom\\n+blue bottom\\n"));
	free(got);
}

static void
test_hooks_around_calls(void **state)
{
	struct env *e = *state;
	char *ev;

	start(e, "{\"approval\": \"yolo\", \"hooks\": {"
		 "\"pre_tool\": [{\"command\": \"grep -q forbidden && { echo 'not that file' >&2; exit 2; }; exit 0\"},"
		 "\"grep -q forbidden || { echo shaky >&2; exit 5; }\"],"
		 "\"post_tool\": [\"cat > post.json\", \"echo broken >&2; exit 3\", \"echo worse >&2; exit 4\"],"
		 "\"turn_end\": [\"cat > end.json\"]}}", 1);
	script(e, 0, "read", "{\"path\":\"forbidden.txt\"}", NULL);
	script(e, 1, "bash", "{\"command\":\"echo hi\"}", NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 0);
	assert_int_equal(e->end, AGENT_END_OK);
	perm_gate_drain(e->gate);
	assert_true(has_notice(e, "a pre_tool hook blocked read: not that file"));
	ev = tu_read(e->ws.dir, "end.json");
	assert_non_null(strstr(ev, "\"end\":\"ok\""));
	free(ev);
	ev = tu_read(e->ws.dir, "post.json");
	assert_non_null(strstr(ev, "\"tool_name\":\"bash\""));
	assert_non_null(strstr(ev, "\"tool_output\":\"hi\\n"));
	/* Issue 20: every event names the work tree */
	{
		struct buf cwd = BUF_INIT;

		buf_addf(&cwd, "\"cwd\":\"%s\"", e->ws.dir);
		assert_non_null(strstr(ev, cwd.data));
		buf_release(&cwd);
	}
	free(ev);
	/* Issue 20: each failing hook is a notice of its own, with its status and first line */
	assert_true(has_notice(e, "hook \"echo broken >&2; exit 3\" (post_tool) exited with status 3: broken"));
	assert_true(has_notice(e, "hook \"echo worse >&2; exit 4\" (post_tool) exited with status 4: worse"));
	/* a pre_tool hook that fails without blocking: its problem is a notice too, and the call runs */
	assert_true(has_notice(e, "hook \"grep -q forbidden || { echo shaky >&2; exit 5; }\" (pre_tool) exited with status 5: shaky"));
	ev = tu_read(e->ws.dir, "post.json");
	assert_non_null(strstr(ev, "\"is_error\":false"));
	free(ev);
	/* the blocked read: the model got the hook's stderr */
	{
		struct conv *c = agent_conv(e->agent);

		assert_string_equal(c->msgs[2].blocks[0].text, "Blocked by a pre_tool hook: not that file");
		assert_true(c->msgs[2].blocks[0].is_error);
	}
}

/*
 * While the pre_tool hooks run, no question is pending: perm_gate_asking
 * is 0 and an answer is ignored (the call does not run); aborting then
 * withdraws no question and kills the hook (it never gets to its touch).
 */
static void
test_abort_while_hook_runs(void **state)
{
	struct env *e = *state;
	int i;

	start(e, "{\"hooks\": {\"pre_tool\": [\"sleep 0.4; touch late\"]}}", 1);
	script(e, 0, "bash", "{\"command\":\"touch made\"}", NULL);
	e->ended = 0;
	assert_int_equal(agent_submit(e->agent, "t", NULL), 0);
	for (i = 0; i < 4; i++)
		loop_run_once(e->ws.loop, 10, NULL);
	assert_false(e->ended);
	assert_int_equal(e->asked, 0);
	assert_false(perm_gate_asking(e->gate));
	perm_gate_answer(e->gate, PERM_GATE_YES); /* no question: ignored */
	pump(e, 100);
	assert_false(exists(e, "made"));
	assert_false(e->ended);
	agent_abort(e->agent);
	assert_true(e->ended);
	assert_int_equal(e->withdrawn, 0);
	pump(e, 1000);
	assert_false(exists(e, "late"));
	assert_false(exists(e, "made"));
	assert_int_equal(e->asked, 0);
}

/*
 * Two questions in a row: the second's title, detail and why are its own
 * (nothing left from the first); once answered, nothing is pending.
 * "Always" on a command of two parts adds both rules to the session list,
 * and the same command then runs unasked.
 */
static void
test_questions_in_a_row(void **state)
{
	struct env *e = *state;

	start(e, NULL, 1);
	script(e, 0, "bash", "{\"command\":\"touch one\"}", NULL);
	script(e, 1, "bash", "{\"command\":\"mkdir -p d && touch d/two\"}", NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 1);
	assert_string_equal(e->title.data, "bash: touch one");
	perm_gate_answer(e->gate, PERM_GATE_YES);
	assert_false(perm_gate_asking(e->gate));
	while (e->asked < 2 && !e->ended)
		loop_run_once(e->ws.loop, 25, NULL);
	assert_int_equal(e->asked, 2);
	assert_true(perm_gate_asking(e->gate));
	assert_string_equal(e->title.data, "bash: mkdir -p d && touch d/two");
	assert_string_equal(e->detail.data, "mkdir -p d && touch d/two");
	assert_string_equal(e->why.data, "a bash command not known to be read-only");
	assert_string_equal(e->always.data, "bash(mkdir -p d)\nbash(touch d/two:*)");
	perm_gate_answer(e->gate, PERM_GATE_ALWAYS);
	assert_false(perm_gate_asking(e->gate));
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	assert_true(exists(e, "d/two"));
	assert_int_equal(perm_gate_perm(e->gate)->lists[PERM_LIST_SESSION].n, 2);
	assert_string_equal(perm_gate_perm(e->gate)->lists[PERM_LIST_SESSION].v[0].text, "bash(mkdir -p d)");
	assert_string_equal(perm_gate_perm(e->gate)->lists[PERM_LIST_SESSION].v[1].text, "bash(touch d/two:*)");
	assert_int_equal(e->notices, 0);
	script(e, 0, "bash", "{\"command\":\"mkdir -p d && touch d/two\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	e->fake.next = 0;
	turn(e, "t2", 0);
	assert_int_equal(e->asked, 2);
}

/*
 * A question whose answer is an empty string is "" (not NULL): an ask rule
 * on a read-only command has no "always" rule to add.
 */
static void
test_question_strings_never_null(void **state)
{
	struct env *e = *state;

	start(e, "{\"permissions\": {\"ask\": [\"bash(ls*)\"]}}", 1);
	script(e, 0, "bash", "{\"command\":\"ls\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 1);
	assert_string_equal(e->why.data, "the rule \"bash(ls*)\" in permissions.ask");
	assert_string_equal(e->always.data, "");
	perm_gate_answer(e->gate, PERM_GATE_NO);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
}

/* No preview (the edit would fail): the detail is why, a newline, then the arguments as JSON. */
static void
test_detail_without_preview(void **state)
{
	struct env *e = *state;

	start(e, "{\"approval\": \"ask\"}", 1);
	script(e, 0, "read", "{\"path\":\"f.txt\"}", NULL);
	script(e, 1, "edit", "{\"path\":\"f.txt\",\"old_text\":\"gamma\",\"new_text\":\"G\"}", NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 1);
	assert_false(e->is_diff);
	assert_non_null(strstr(e->detail.data, "\n{\"path\":\"f.txt\",\"old_text\":\"gamma\",\"new_text\":\"G\"}"));
	assert_true(e->detail.data[0] != '\n');
	{
		const char *nl = strchr(e->detail.data, '\n');

		assert_string_equal(nl + 1, "{\"path\":\"f.txt\",\"old_text\":\"gamma\",\"new_text\":\"G\"}");
		assert_true(nl > e->detail.data);
	}
	perm_gate_answer(e->gate, PERM_GATE_NO);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
}

/* Ask about a bash command of n bytes ("true" and spaces); the question's detail. */
static void
ask_long(struct env *e, size_t n, int i)
{
	struct buf args = BUF_INIT;
	size_t k;

	buf_adds(&args, "{\"command\":\"touch x;");
	for (k = strlen("touch x;"); k < n; k++)
		buf_addch(&args, ' ');
	buf_adds(&args, "\"}");
	script(e, 0, "bash", args.data, NULL);
	script(e, 1, NULL, NULL, "done");
	e->fake.next = 0;
	turn(e, i ? "t2" : "t1", 1);
	perm_gate_answer(e->gate, PERM_GATE_NO);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	buf_release(&args);
}

/* A detail of 64 KiB is shown whole; one byte more is cut to 64 KiB and marked. */
static void
test_detail_cut(void **state)
{
	struct env *e = *state;

	start(e, NULL, 1);
	ask_long(e, 64u << 10, 0);
	assert_int_equal(e->detail.len, 64u << 10);
	assert_memory_equal(e->detail.data, "touch x;  ", 10);
	assert_null(strstr(e->detail.data, "cut]"));
	ask_long(e, (64u << 10) + 1, 1);
	assert_int_equal(e->detail.len, (64u << 10) + strlen("\n[… cut]"));
	assert_string_equal(e->detail.data + (64u << 10), "\n[… cut]");
	assert_int_equal(e->detail.data[(64u << 10) - 1], ' ');
}

/*
 * The sandbox notice: when the sandbox asked for cannot work, the first
 * shell call says so once; other tools never do, nor a shell call when a
 * sandbox works or none was asked for.
 */
static void
test_sandbox_notice_once(void **state)
{
	struct env *e = *state;
	struct sandbox_spec spec = { 0 };
	char line[512];

	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = e->ws.dir;
	spec.no_bwrap = 1;
	spec.no_landlock = 1;
	e->sb = sandbox_new(&spec);
	assert_int_equal(sandbox_kind(e->sb), SANDBOX_NONE);
	assert_true(*sandbox_why_none(e->sb));
	e->ws.tenv.sandbox = e->sb;
	start(e, "{\"approval\": \"yolo\"}", 1);
	script(e, 0, "read", "{\"path\":\"f.txt\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t1", 0);
	assert_int_equal(e->notices, 0); /* not a shell tool */
	script(e, 0, "bash", "{\"command\":\"true\"}", NULL);
	e->fake.next = 0;
	turn(e, "t2", 0);
	assert_int_equal(e->notices, 1);
	snprintf(line, sizeof line, "sandbox: none works here (%s); bash commands that are not read-only ask "
		 "(docs/permissions.md, \"Sandbox\")", sandbox_why_none(e->sb));
	assert_true(has_notice(e, line));
	e->fake.next = 0;
	turn(e, "t3", 0);
	assert_int_equal(e->notices, 1); /* once */
	script(e, 0, "read", "{\"path\":\"f.txt\"}", NULL);
	e->fake.next = 0;
	turn(e, "t4", 0);
	assert_int_equal(e->notices, 1);
}

/* No sandbox asked for (tenv.sandbox NULL): no notice for a shell call. */
static void
test_no_sandbox_no_notice(void **state)
{
	struct env *e = *state;

	start(e, "{\"approval\": \"yolo\"}", 1);
	script(e, 0, "bash", "{\"command\":\"true\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 0);
	assert_int_equal(e->notices, 0);
}

/* Nobody to tell (perm_gate_set_ui NULL after a front end): a refusal is quiet, nothing is called. */
static void
test_no_ui(void **state)
{
	struct env *e = *state;

	start(e, "{\"permissions\": {\"deny\": [\"bash(touch*)\"]}}", 1);
	perm_gate_set_ui(e->gate, NULL);
	script(e, 0, "bash", "{\"command\":\"touch made\"}", NULL);
	script(e, 1, "bash", "{\"command\":\"mkdir made2\"}", NULL);
	script(e, 2, NULL, NULL, "done");
	turn(e, "t", 0);
	assert_false(exists(e, "made"));
	assert_false(exists(e, "made2")); /* asked with nobody to ask: refused */
	assert_non_null(strstr(last_result(e, NULL), "needs the user's approval"));
	assert_int_equal(e->notices, 0);
	assert_int_equal(e->asked, 0);
}

/*
 * perm_gate_free and perm_gate_drain take NULL; free kills a notification
 * hook still running (it never gets to its touch).
 */
static void
test_free_kills_hooks(void **state)
{
	struct env *e = *state;
	int i;

	perm_gate_free(NULL);
	perm_gate_drain(NULL);
	start(e, "{\"approval\": \"yolo\", \"hooks\": {\"post_tool\": [\"sleep 0.4; touch late\"]}}", 1);
	script(e, 0, "bash", "{\"command\":\"true\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 0);
	agent_free(e->agent);
	e->agent = NULL;
	perm_gate_free(e->gate);
	e->gate = NULL;
	for (i = 0; i < 10; i++)
		usleep(100000);
	assert_false(exists(e, "late"));
}

static void
on_timer(struct loop *l, long id, void *arg)
{
	(void)id;
	*(int *)arg = 1;
	loop_stop(l);
}

/* After perm_gate_drain the loop has no before-sleep hook of the gate's: loop_run runs until stopped. */
static void
test_drain_leaves_loop(void **state)
{
	struct env *e = *state;
	int fired = 0;
	char *got;

	start(e, "{\"approval\": \"yolo\", \"hooks\": {\"post_tool\": [\"sleep 0.1; cat > post.json\"]}}", 1);
	script(e, 0, "bash", "{\"command\":\"true\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 0);
	perm_gate_drain(e->gate);
	got = tu_read(e->ws.dir, "post.json");
	assert_non_null(strstr(got, "\"approval\":\"yolo\""));
	assert_non_null(strstr(got, "\"duration_ms\":"));
	free(got);
	loop_timer_add(e->ws.loop, 50, on_timer, &fired);
	assert_int_equal(loop_run(e->ws.loop, NULL), 0);
	assert_true(fired);
}

/*
 * The question shows the preview the pre_tool hooks were given, made once
 * per call: a hook that changes the file does not change what is asked.
 */
static void
test_question_shows_hooks_preview(void **state)
{
	struct env *e = *state;
	char *ev;

	start(e, "{\"approval\": \"ask\", \"hooks\": {\"pre_tool\": [\"cat > pre.json; printf 'tail\\\\n' >> f.txt\"]}}", 1);
	script(e, 0, "edit", "{\"path\":\"f.txt\",\"old_text\":\"alpha\",\"new_text\":\"ALPHA\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 1);
	ev = tu_read(e->ws.dir, "f.txt");
	assert_string_equal(ev, "alpha\nbeta\ntail\n");
	free(ev);
	assert_null(strstr(e->detail.data, "tail"));
	assert_non_null(strstr(e->detail.data, "\n-alpha\n+ALPHA\n beta\n"));
	ev = tu_read(e->ws.dir, "pre.json");
	assert_non_null(strstr(ev, "\"tool_name\":\"edit\""));
	assert_non_null(strstr(ev, "\"approval\":\"ask\""));
	free(ev);
	perm_gate_answer(e->gate, PERM_GATE_NO);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
}

/*
 * A grant of the network never outlives its call: an approved bash call
 * that never starts its command (blank: the tool refuses it before the
 * sandbox) leaves no grant for the read-only command after it.
 */
static void
test_sandbox_grant_not_left_over(void **state)
{
	struct env *e = *state;
	struct sandbox_spec spec = { 0 };
	const char *no = getenv("HEARTH_TEST_NO_BWRAP");
	char own[64];
	ssize_t n;
	int err = 0;

	n = readlink("/proc/self/ns/net", own, sizeof own - 1);
	assert_true(n > 0);
	own[n] = '\0';
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = e->ws.dir;
	e->sb = sandbox_new(&spec);
	if (sandbox_kind(e->sb) != SANDBOX_BWRAP) {
		if (no && !strcmp(no, "1"))
			skip();
		fail_msg("bwrap does not work here (%s); set HEARTH_TEST_NO_BWRAP=1 on a machine that cannot run it",
			 sandbox_why_none(e->sb));
	}
	e->ws.tenv.sandbox = e->sb;
	start(e, "{\"approval\": \"ask\"}", 1);
	perm_gate_set_yes(e->gate, 1);
	script(e, 0, "bash", "{\"command\":\"   \"}", NULL);
	script(e, 1, "bash", "{\"command\":\"readlink /proc/self/ns/net\"}", NULL);
	script(e, 2, NULL, NULL, "done");
	e->ended = 0;
	assert_int_equal(agent_submit(e->agent, "t", NULL), 0);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 20000));
	{
		struct conv *c = agent_conv(e->agent);

		assert_non_null(strstr(c->msgs[2].blocks[0].text, "missing required field \"command\""));
	}
	assert_non_null(strstr(last_result(e, &err), "net:["));
	assert_false(err);
	assert_null(strstr(last_result(e, NULL), own));
}

/*
 * "Always" on a command with a newline inside quotes: one rule (the
 * newline written '?'), added without complaint, and the command then
 * runs unasked (before: two broken halves, two notices, nothing added).
 */
static void
test_always_multiline_command(void **state)
{
	struct env *e = *state;

	start(e, NULL, 1);
	script(e, 0, "bash", "{\"command\":\"printf 'a\\nb' > f2\"}", NULL);
	script(e, 1, NULL, NULL, "done");
	turn(e, "t", 1);
	assert_string_equal(e->always.data, "bash(printf 'a?b' > f2)");
	perm_gate_answer(e->gate, PERM_GATE_ALWAYS);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
	assert_int_equal(e->notices, 0);
	assert_int_equal(perm_gate_perm(e->gate)->lists[PERM_LIST_SESSION].n, 1);
	assert_true(exists(e, "f2"));
	e->fake.next = 0;
	turn(e, "t2", 0);
	assert_int_equal(e->asked, 1);
}

/* Run a task to its end (bwrap on a loaded machine: generous); the result of its call. */
static const char *
sb_turn(struct env *e, const char *cmd)
{
	char args[256];
	int err = 0;

	snprintf(args, sizeof args, "{\"command\":\"%s\"}", cmd);
	script(e, 0, "bash", args, NULL);
	script(e, 1, NULL, NULL, "done");
	e->fake.next = 0;
	e->ended = 0;
	assert_int_equal(agent_submit(e->agent, cmd, NULL), 0);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 20000));
	return last_result(e, &err);
}

/*
 * Issue 20: with a sandbox (bwrap), a bash command gets the network only
 * when an allow rule covers it or the user said yes to it, and only that
 * command: a read-only command and a writing one that the sandbox lets run
 * unasked (auto-edit) run in a network namespace of their own, and so does
 * the command after an approved one.  The namespace a command ran in is
 * what it prints (readlink of /proc/self/ns/net), compared with the test's.
 */
static void
test_sandbox_network_for_approved(void **state)
{
	struct env *e = *state;
	struct sandbox_spec spec = { 0 };
	struct err er = ERR_INIT;
	const char *no = getenv("HEARTH_TEST_NO_BWRAP");
	char own[64];
	ssize_t n;

	n = readlink("/proc/self/ns/net", own, sizeof own - 1);
	assert_true(n > 0);
	own[n] = '\0';
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = e->ws.dir;
	e->sb = sandbox_new(&spec);
	if (sandbox_kind(e->sb) != SANDBOX_BWRAP) {
		if (no && !strcmp(no, "1"))
			skip();
		fail_msg("bwrap does not work here (%s); set HEARTH_TEST_NO_BWRAP=1 on a machine that cannot run it",
			 sandbox_why_none(e->sb));
	}
	e->ws.tenv.sandbox = e->sb;
	start(e, "{\"permissions\": {\"allow\": [\"bash(readlink -f:*)\"]}}", 1);
	/* read-only, unasked: no network */
	assert_non_null(strstr(sb_turn(e, "readlink /proc/self/ns/net"), "net:["));
	assert_null(strstr(last_result(e, NULL), own));
	/* covered by the allow rule: the network */
	assert_non_null(strstr(sb_turn(e, "readlink -f /proc/self/ns/net"), own));
	/* a write the sandbox confines (auto-edit): runs unasked, no network */
	assert_non_null(strstr(sb_turn(e, "touch made && readlink /proc/self/ns/net"), "net:["));
	assert_true(exists(e, "made"));
	assert_null(strstr(last_result(e, NULL), own));
	assert_int_equal(e->asked, 0);
	/* mode ask: asked, yes: the network; the command after it: none again */
	assert_int_equal(perm_gate_set_mode(e->gate, "ask", &er), 0);
	script(e, 0, "bash", "{\"command\":\"touch made2 && readlink /proc/self/ns/net\"}", NULL);
	e->fake.next = 0;
	turn(e, "t4", 1);
	perm_gate_answer(e->gate, PERM_GATE_YES);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 20000));
	assert_true(exists(e, "made2"));
	assert_non_null(strstr(last_result(e, NULL), own));
	assert_int_equal(perm_gate_set_mode(e->gate, "auto-edit", &er), 0);
	assert_non_null(strstr(sb_turn(e, "readlink /proc/self/ns/net"), "net:["));
	assert_null(strstr(last_result(e, NULL), own));
	assert_int_equal(e->asked, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_deny, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ask_yes_no_always, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_while_asking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_shows_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_replace_all_asks_what_lands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_crlf_asks_what_lands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_mode_shows_the_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_around_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sandbox_network_for_approved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_while_hook_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_questions_in_a_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_question_strings_never_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detail_without_preview, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detail_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sandbox_notice_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_sandbox_no_notice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_ui, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_kills_hooks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_leaves_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_question_shows_hooks_preview, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sandbox_grant_not_left_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_always_multiline_command, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
