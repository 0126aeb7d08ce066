/*
 * ui/app/picker: the full-screen `-r` session picker — this directory's
 * sessions newest first, each with its first prompt, size and age;
 * typing filters (every word must appear in the prompt or the id, case
 * folded), Up/Down/PgUp/PgDn/Home/End move, Enter resumes the selected
 * one, Esc (or Ctrl-C) cancels.  Delete asks to delete the selected
 * session with its slot files (front_sessions_delete_id); y deletes it,
 * any other key keeps it.
 *
 * The state (struct app_picker) and its view (app_picker_draw) are pure: tests
 * drive them with key events and read the grid.  app_picker_run puts them on
 * a terminal (ui/term/term.h) with its own small loop; app_picker_main is what main
 * calls for `hearth -r` on a terminal.
 *
 * Ownership: the picker borrows the rows (session_list_info) for its life.
 */
#ifndef HEARTH_UI_APP_PICKER_H
#define HEARTH_UI_APP_PICKER_H

#include <stddef.h>
#include <time.h>

#include "base/buf.h"
#include "base/err.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "session/list.h"

struct term;
struct front_cli;

struct app_picker {
	const struct session_list_info *v;
	size_t n;
	const char *root;   /* shown in the title */
	struct buf query;
	size_t *shown;      /* indexes into v matching the query, in order */
	size_t nshown;
	size_t sel;         /* index into shown */
	size_t top;         /* first shown row on screen */
	unsigned char *gone; /* per row of v: deleted (not shown any more) */
	int confirm;        /* Delete was pressed: y deletes the selected session */
	char note[240];     /* what the last deletion did (shown in the hint row), or "" */
};

enum app_picker_result { APP_PICKER_NONE, APP_PICKER_CHOSEN, APP_PICKER_CANCEL, APP_PICKER_DELETE };

void app_picker_init(struct app_picker *p, const struct session_list_info *v, size_t n, const char *root);
void app_picker_release(struct app_picker *p);
/* Apply one key (APP_PICKER_DELETE: the user confirmed deleting the selected row). */
enum app_picker_result app_picker_key(struct app_picker *p, const struct keys_event *ev);
/* The selected row was deleted: it is no longer shown; note says so. */
void app_picker_deleted(struct app_picker *p, const char *note);
/* The selected row, or NULL when nothing matches. */
const struct session_list_info *app_picker_selected(const struct app_picker *p);
/* Draw the whole picker into g (ages relative to now); *cx, *cy: where the cursor goes. */
void app_picker_draw(struct app_picker *p, struct grid *g, time_t now, int *cx, int *cy);

/*
 * Run the picker on terminal t until Enter or Esc: 1 with the chosen id
 * in chosen, 0 when cancelled, -1 + e when the terminal went away.
 */
int app_picker_run(struct term *t, const struct session_list_info *v, size_t n, const char *root,
	       char *chosen, size_t size, struct err *e);

/*
 * `hearth -r` on a terminal: list the sessions of o's directory and run
 * the picker full screen.  -1 to go on (o->resume_id = chosen), else an
 * exit code (1: no sessions or an error, 130: cancelled).
 */
int app_picker_main(struct front_cli *o, char *chosen, size_t size);

#endif
