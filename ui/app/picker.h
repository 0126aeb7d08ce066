/*
 * picker: the full-screen `-r` session picker — this directory's
 * sessions newest first, each with its first prompt, size and age;
 * typing filters (every word must appear in the prompt or the id, case
 * folded), Up/Down/PgUp/PgDn/Home/End move, Enter resumes the selected
 * one, Esc (or Ctrl-C) cancels.
 *
 * The state (struct picker) and its view (picker_draw) are pure: tests
 * drive them with key events and read the grid.  picker_run puts them on
 * a terminal (term.h) with its own small loop; picker_main is what main
 * calls for `hearth -r` on a terminal.
 *
 * Ownership: the picker borrows the rows (sesslist_info) for its life.
 */
#ifndef HEARTH_PICKER_H
#define HEARTH_PICKER_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "grid.h"
#include "keys.h"
#include "sesslist.h"

struct term;
struct cli;

struct picker {
	const struct sesslist_info *v;
	size_t n;
	const char *root;   /* shown in the title */
	struct buf query;
	size_t *shown;      /* indexes into v matching the query, in order */
	size_t nshown;
	size_t sel;         /* index into shown */
	size_t top;         /* first shown row on screen */
};

enum picker_result { PICKER_NONE, PICKER_CHOSEN, PICKER_CANCEL };

void picker_init(struct picker *p, const struct sesslist_info *v, size_t n, const char *root);
void picker_release(struct picker *p);
/* Apply one key. */
enum picker_result picker_key(struct picker *p, const struct keys_event *ev);
/* The selected row, or NULL when nothing matches. */
const struct sesslist_info *picker_selected(const struct picker *p);
/* Draw the whole picker into g (ages relative to now); *cx, *cy: where the cursor goes. */
void picker_draw(struct picker *p, struct grid *g, time_t now, int *cx, int *cy);
/* "just now", "5m ago", "3h ago", "2d ago", "6w ago" (appended to out). */
void picker_age(struct buf *out, time_t then, time_t now);

/*
 * Run the picker on terminal t until Enter or Esc: 1 with the chosen id
 * in chosen, 0 when cancelled, -1 + e when the terminal went away.
 */
int picker_run(struct term *t, const struct sesslist_info *v, size_t n, const char *root,
	       char *chosen, size_t size, struct err *e);

/*
 * `hearth -r` on a terminal: list the sessions of o's directory and run
 * the picker full screen.  -1 to go on (o->resume_id = chosen), else an
 * exit code (1: no sessions or an error, 130: cancelled).
 */
int picker_main(struct cli *o, char *chosen, size_t size);

#endif
