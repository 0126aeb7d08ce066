/*
 * ui/app/demo: `hearth --demo`, a recorded session replayed in the full
 * screen, for a first look and for screenshots: no server, no key, no
 * workspace touched.
 *
 * It drives the real views (transcript, server panel with its slots and
 * the prefill bar with its ETA, status line, layout) and the real terminal
 * backend with a scripted, in-process source: a timeline of the events a
 * session produces (llm events, tool calls with their results and diffs,
 * /slots answers, notices such as an undo and an escalation to Claude with
 * its reason), played by a loop timer.  Nothing runs: the agent, the
 * tools and the network are not started, so it works anywhere a terminal
 * does.  q or Ctrl-C leaves; PgUp/PgDn/arrows scroll; space pauses.
 */
#ifndef HEARTH_UI_APP_DEMO_H
#define HEARTH_UI_APP_DEMO_H

/* Replay the demo; the exit code (0, or 1 when the terminal cannot be taken: message on stderr). */
int app_demo_run(const char *theme);

#endif
