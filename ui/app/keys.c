/*
 * ui/app/keys: key dispatch (see ui/app/keys.h).  Screen keys are consumed before
 * the editor sees them; End both follows the stream and reaches the editor.
 */
#include "ui/app/keys.h"

#include "ui/app/cmd.h"
#include "ui/app/complete.h"
#include "ui/app/turn.h"
#include "perm/gate.h"
#include "ui/view/transcript.h"

/* The Ctrl-C hint expired. */
static void
app_keys_hint_done(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)id;
	a->hint_timer = 0;
	a->dirty = 1;
}

/* Ctrl-C: the second within 2 s quits; the first shows a hint. */
void
app_keys_ctrl_c(struct app *a)
{
	uint64_t now = loop_now_ms(a->d->loop);

	if (a->ctrlc_ms && now - a->ctrlc_ms < APP_CTRLC_MS) {
		app_state_quit(a);
		return;
	}
	a->ctrlc_ms = now;
	if (a->hint_timer)
		loop_timer_del(a->d->loop, a->hint_timer);
	a->hint_timer = loop_timer_add(a->d->loop, APP_CTRLC_MS, app_keys_hint_done, a);
}

/* Keys the screen handles before the editor; 1 when consumed. */
static int
app_keys_screen(struct app *a, const struct keys_event *ev)
{
	struct grid_rect r = a->lay.transcript;
	long page = r.h > 2 ? r.h - 2 : 1;

	if (ev->kind == KEYS_CHAR && (ev->mods & KEYS_MOD_CTRL)) {
		switch (ev->cp) {
		case 'c': app_keys_ctrl_c(a); return 1;
		case 'd':
			if (editor_empty(&a->ed))
				app_state_quit(a);
			return 1;
		case 'o': transcript_toggle_here(&a->tv, r.w, r.h); return 1;
		case 'p':
			if (transcript_focus_start(&a->tv, r.w, r.h) == 0)
				a->st.focus_mode = 1;
			return 1;
		case 'g': app_cmd_edit_prompt(a); return 1;
		case 't': app_cmd_tool_diff(a); return 1;
		case 'f': transcript_search_start(&a->search, &a->tv, a->lay.transcript); return 1;
		case 'l': grid_touch(a->grid); return 1;
		default: return 0;
		}
	}
	if (ev->kind == KEYS_CHAR && !ev->mods && ev->cp == '/' && !a->tv.follow &&
	    editor_empty(&a->ed)) { /* reading back: `/` searches (a command otherwise) */
		transcript_search_start(&a->search, &a->tv, r);
		return 1;
	}
	switch (ev->kind) {
	case KEYS_ESC:
		if (a->cmds.ui.state != FRONT_CMD_UI_IDLE) {
			front_cmd_ui_cancel(&a->cmds.ui);
			return 1;
		}
		if (a->queued.len) { /* before the abort, whose on_end would send it */
			buf_setlen(&a->queued, 0);
			transcript_drop_queued(&a->tv);
			app_state_notice(a, THEME_DIM, "queued message dropped");
		}
		if (a->busy)
			agent_abort(a->turn.agent);
		return 1;
	case KEYS_PGUP: transcript_scroll(&a->tv, -page, r.w, r.h); return 1;
	case KEYS_PGDN: transcript_scroll(&a->tv, page, r.w, r.h); return 1;
	case KEYS_WHEEL_UP: transcript_scroll(&a->tv, -3, r.w, r.h); return 1;
	case KEYS_WHEEL_DOWN: transcript_scroll(&a->tv, 3, r.w, r.h); return 1;
	case KEYS_MOUSE: return 1; /* a click: nothing of ours (the input never sees it) */
	case KEYS_END: transcript_follow(&a->tv); return 0;
	default: return 0;
	}
}

/*
 * Focus mode (Ctrl-P): ↑ k Ctrl-P / ↓ j Ctrl-N move between tool calls and
 * reasoning, Enter Space o Ctrl-O open or close the one in focus, a all,
 * Esc q leave, End leave and follow; 1 when consumed.  Another key leaves
 * and goes on (to the input, or the scroll keys).
 */
static int
app_keys_focus(struct app *a, const struct keys_event *ev)
{
	struct grid_rect r = a->lay.transcript;
	uint32_t c = ev->kind == KEYS_CHAR && !(ev->mods & KEYS_MOD_ALT) ? ev->cp : 0;
	int ctrl = ev->kind == KEYS_CHAR && (ev->mods & KEYS_MOD_CTRL);

	if (!a->st.focus_mode)
		return 0;
	if (ev->kind == KEYS_UP || (!ctrl && c == 'k') || (ctrl && c == 'p'))
		transcript_focus_move(&a->tv, -1, r.w, r.h);
	else if (ev->kind == KEYS_DOWN || (!ctrl && c == 'j') || (ctrl && c == 'n'))
		transcript_focus_move(&a->tv, 1, r.w, r.h);
	else if (ev->kind == KEYS_ENTER || (!ctrl && (c == ' ' || c == 'o')) || (ctrl && c == 'o'))
		transcript_toggle_here(&a->tv, r.w, r.h);
	else if (!ctrl && c == 'a') {
		transcript_toggle_all(&a->tv);
		transcript_focus_move(&a->tv, 0, r.w, r.h);
	}
	else if (ev->kind == KEYS_ESC || (!ctrl && c == 'q'))
		a->st.focus_mode = 0;
	else if (ev->kind == KEYS_PGUP || ev->kind == KEYS_PGDN || ev->kind == KEYS_WHEEL_UP ||
	    ev->kind == KEYS_WHEEL_DOWN)
		return 0;
	else {
		a->st.focus_mode = 0;
		transcript_focus_end(&a->tv);
		return 0;
	}
	if (!a->st.focus_mode)
		transcript_focus_end(&a->tv);
	return 1;
}

/* One key event. */
static void
app_keys_key(struct app *a, const struct keys_event *ev)
{
	struct buf note = BUF_INIT, text = BUF_INIT;
	enum editor_result r;
	int ans;

	a->dirty = 1;
	if (a->dv.open) { /* the viewer takes every key but Ctrl-C */
		if (ev->kind == KEYS_CHAR && (ev->mods & KEYS_MOD_CTRL) && ev->cp == 'c')
			app_keys_ctrl_c(a);
		else if (ev->kind == KEYS_CHAR && !ev->mods && ev->cp == 'e')
			app_cmd_open_diff_place(a);
		else
			diff_view_key(&a->dv, ev, a->grid->w, a->grid->h);
		return;
	}
	if ((ans = approve_key(&a->ap, ev)) != APPROVE_PASS) {
		if (ans >= 0)
			perm_gate_answer(a->d->gate, ans == APPROVE_YES ? PERM_GATE_YES :
			    ans == APPROVE_ALWAYS ? PERM_GATE_ALWAYS : PERM_GATE_NO);
		return;
	}
	if (a->search.active && transcript_search_key(&a->search, &a->tv, ev, a->lay.transcript))
		return;
	if (a->pop.n && ev->kind == KEYS_ESC) { /* the popup closes first */
		app_complete_close(&a->pop);
		return;
	}
	if (app_complete_key(&a->pop, ev, &a->ed))
		return;
	if (app_keys_focus(a, ev))
		return;
	if (app_keys_screen(a, ev))
		return;
	if (ev->kind == KEYS_TAB && !(ev->mods & KEYS_MOD_SHIFT))
		r = app_complete_tab(&a->ed, a->d->env->root, &a->cmds.reg, &note);
	else
		r = editor_key(&a->ed, ev);
	if (r == EDITOR_NOTICE && ev->kind == KEYS_TAB && a->ed.text.len && a->ed.text.data[0] != '/')
		app_complete_show(&a->pop, note.data, 0); /* the matches above the input */
	else if (ev->kind == KEYS_CHAR || ev->kind == KEYS_BACKSPACE || ev->kind == KEYS_TAB)
		app_complete_update(&a->pop, &a->ed, &a->cmds.reg);
	else
		app_complete_close(&a->pop);
	if (r == EDITOR_NOTICE && ev->kind == KEYS_TAB)
		r = EDITOR_DONE;
	switch (r) {
	case EDITOR_SUBMIT:
		editor_take(&a->ed, &text);
		app_turn_submit(a, text.data);
		break;
	case EDITOR_NOTICE:
		app_state_notice(a, THEME_DIM, note.data);
		break;
	default:
		break;
	}
	buf_release(&note);
	buf_release(&text);
}

/* Drain decoded events. */
static void
app_keys_drain(struct app *a)
{
	struct keys_event ev;

	while (a->state != AS_QUIT && keys_next(&a->keys, &ev))
		app_keys_key(a, &ev);
}

/* The Esc timer fired: the held ESC was a key on its own. */
static void
app_keys_esc_fire(struct loop *l, long id, void *arg)
{
	struct app *a = arg;
	struct keys_event ev;

	(void)l;
	(void)id;
	a->esc_timer = 0;
	if (keys_flush(&a->keys, &ev))
		app_keys_key(a, &ev);
	app_keys_drain(a);
}

/* The terminal is readable. */
void
app_keys_on_input(struct loop *l, int fd, int events, void *arg)
{
	struct app *a = arg;
	struct err e = ERR_INIT;

	(void)fd;
	(void)events;
	if (term_read_keys(a->term, &a->keys, &e) < 0) {
		app_state_quit(a);
		return;
	}
	if (a->esc_timer) {
		loop_timer_del(l, a->esc_timer);
		a->esc_timer = 0;
	}
	app_keys_drain(a);
	if (a->state != AS_QUIT && keys_waiting(&a->keys))
		a->esc_timer = loop_timer_add(l, APP_ESC_MS, app_keys_esc_fire, a);
}
