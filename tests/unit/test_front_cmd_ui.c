/*
 * test_cmdui: the pending-command contract — questions, text answers
 * collected line by line (or whole), cancellation, the changed callback
 * and yes/no parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "front/cmd_ui.h"

struct probe {
	struct front_cmd_ui ui;
	int changes, cancels;
	struct buf got;   /* answers, one per line */
	struct buf shown; /* what the front end took */
};

static void
changed(void *arg)
{
	struct probe *p = arg;

	p->changes++;
	front_cmd_ui_take(&p->ui, &p->shown);
}

static void
answer(void *arg, const char *a)
{
	struct probe *p = arg;

	buf_addf(&p->got, "[%s]", a);
	front_cmd_ui_show(&p->ui, 0, "got it");
	front_cmd_ui_done(&p->ui);
}

static void
cancel(void *arg)
{
	struct probe *p = arg;

	p->cancels++;
	front_cmd_ui_show(&p->ui, 0, "cancelled");
	front_cmd_ui_done(&p->ui);
}

static void
setup_probe(struct probe *p, int whole)
{
	memset(p, 0, sizeof *p);
	front_cmd_ui_init(&p->ui);
	p->ui.interactive = 1;
	p->ui.whole_text = whole;
	p->ui.changed = changed;
	p->ui.arg = p;
	buf_init(&p->got, 0);
	buf_init(&p->shown, 0);
}

static void
release_probe(struct probe *p)
{
	front_cmd_ui_release(&p->ui);
	buf_release(&p->got);
	buf_release(&p->shown);
}

/* A one-line question: shown text first, the answer goes to the command. */
static void
test_ask_answer(void **state)
{
	struct probe p;

	(void)state;
	setup_probe(&p, 0);
	front_cmd_ui_show(&p.ui, 0, "two files");
	front_cmd_ui_ask(&p.ui, "undo? [y/N]", answer, cancel, &p);
	assert_int_equal(p.ui.state, FRONT_CMD_UI_ASK);
	assert_string_equal(p.ui.question.data, "undo? [y/N]");
	assert_string_equal(p.shown.data, "two files");
	front_cmd_ui_answer(&p.ui, "y");
	assert_string_equal(p.got.data, "[y]");
	assert_int_equal(p.ui.state, FRONT_CMD_UI_IDLE);
	assert_int_equal(p.changes, 2);
	assert_non_null(strstr(p.shown.data, "got it"));
	front_cmd_ui_answer(&p.ui, "late"); /* idle: ignored */
	assert_string_equal(p.got.data, "[y]");
	release_probe(&p);
}

/* A text question in a line front end collects lines until "."; an editor answers whole. */
static void
test_text_answers(void **state)
{
	struct probe p;

	(void)state;
	setup_probe(&p, 0);
	front_cmd_ui_ask_text(&p.ui, "type it", "draft", answer, cancel, &p);
	assert_string_equal(p.ui.prefill.data, "draft");
	front_cmd_ui_answer(&p.ui, "Summary");
	front_cmd_ui_answer(&p.ui, "");
	front_cmd_ui_answer(&p.ui, "Body.");
	assert_int_equal(p.got.len, 0);
	front_cmd_ui_answer(&p.ui, ".");
	assert_string_equal(p.got.data, "[Summary\n\nBody.\n]");
	release_probe(&p);

	setup_probe(&p, 1);
	front_cmd_ui_ask_text(&p.ui, "edit it", "draft", answer, cancel, &p);
	front_cmd_ui_answer(&p.ui, "Whole\n\ntext");
	assert_string_equal(p.got.data, "[Whole\n\ntext]");
	release_probe(&p);
}

/* Cancel calls the command's cancel once; with none the state still goes idle. */
static void
test_cancel(void **state)
{
	struct probe p;

	(void)state;
	setup_probe(&p, 0);
	front_cmd_ui_busy(&p.ui, cancel, &p);
	assert_int_equal(p.ui.state, FRONT_CMD_UI_BUSY);
	front_cmd_ui_cancel(&p.ui);
	assert_int_equal(p.cancels, 1);
	assert_int_equal(p.ui.state, FRONT_CMD_UI_IDLE);
	assert_non_null(strstr(p.shown.data, "cancelled"));
	front_cmd_ui_cancel(&p.ui); /* idle: nothing */
	assert_int_equal(p.cancels, 1);
	front_cmd_ui_ask(&p.ui, "q", answer, NULL, &p);
	front_cmd_ui_cancel(&p.ui);
	assert_int_equal(p.ui.state, FRONT_CMD_UI_IDLE);
	release_probe(&p);
}

static void
test_yes(void **state)
{
	(void)state;
	assert_int_equal(front_cmd_ui_yes("y"), 1);
	assert_int_equal(front_cmd_ui_yes(" YES"), 1);
	assert_int_equal(front_cmd_ui_yes(""), 0);
	assert_int_equal(front_cmd_ui_yes("n"), 0);
	assert_int_equal(front_cmd_ui_yes("No"), 0);
	assert_int_equal(front_cmd_ui_yes("maybe"), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ask_answer),
		cmocka_unit_test(test_text_answers),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_yes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
