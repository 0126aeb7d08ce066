/*
 * front/sessions: the session commands of the command line that need no server:
 * `--export SESSION FILE` and the `-r` picker (without an id).
 */
#ifndef HEARTH_FRONT_SESSIONS_H
#define HEARTH_FRONT_SESSIONS_H

#include <stddef.h>

#include "front/cli.h"

struct session_list_info;

/*
 * Change to o->cwd and list its sessions newest first into *v (free with
 * session_list_free) with root (PATH_MAX bytes) set; -1 after printing why
 * (none saved, unreadable) on stderr.
 */
int front_sessions_sessions(struct front_cli *o, char *root, struct session_list_info **v, size_t *n);

/*
 * --delete-session ID: delete this directory's session ID (an id or a
 * unique prefix, not a path) and what was kept for it: the slot files
 * hearth's own server saved (STATE/slots/hearth-<id>.bin), the one in the
 * user's slot_save_dir (an external server's directory; the user's own
 * settings only, not a project's), and the record of what they hold
 * (STATE/slotfiles).  Says on stdout what went; the exit code.
 */
int front_sessions_delete(struct front_cli *o);
/*
 * The same for session arg (id or unique prefix) of root: gone gets the
 * session's id, then a "\n  PATH" per file deleted.  0; -1 + e (nothing
 * matched, or a file could not be deleted: gone says what did go);
 * -2 + e when arg is a path.
 */
int front_sessions_delete_id(const char *root, const char *arg, struct buf *gone, struct err *e);

/* --export: write the session as Markdown (HTML for *.html); the exit code. */
int front_sessions_export(struct front_cli *o);
/*
 * -r without an id: list this directory's sessions newest first on
 * stderr; on a terminal read the number of the one to resume into
 * `chosen` (o->resume_id then points at it) and return -1; otherwise
 * return an exit code.
 */
int front_sessions_pick(struct front_cli *o, char *chosen, size_t chosen_size);

#endif
