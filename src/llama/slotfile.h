/*
 * llama/slotfile: llama-server slot save/restore (POST /slots/{id}?action=…),
 * so a resumed session costs a file read instead of a full prefill.
 *
 * The server only offers the actions when started with --slot-save-path;
 * hearth finds out by trying: 501 (not supported), 404 (no such route)
 * or a 400 to a save mark the server as unsupported for the rest of the
 * session and nothing is tried again.  A 400 to a restore is a failed
 * restore (missing file, other model), not a lack of support.  The file
 * is named from the session id ("hearth-<id>.bin", only [A-Za-z0-9_-]
 * kept) and lives in the server's directory, not ours.
 *
 * The session side: llama_slotfile_session names the session (its id may
 * appear only later: the journal creates it lazily) and says whether it
 * was resumed; then the provider calls llama_slotfile_before_request before
 * each request (the first one of a resumed session waits for a restore),
 * llama_slotfile_request_end after each (the slot has changed: a save is due
 * after cfg->slot_save_idle_s quiet seconds), and llama_slotfile_flush at exit.
 *
 * What a saved file holds is written down beside it, in hearth's state
 * directory (llama_slotfile_records: DIR/hearth-<id>.json): the tokens saved
 * and, when the slot was primed (llama/prime.c) and nothing ran on it since,
 * the length and a hash of the prompt text it holds.  Before restoring, that
 * text is checked against the first request (rendered by POST
 * /apply-template): the restore happens only when the saved prompt is a
 * prefix of the request; otherwise it is skipped with a notice saying why.
 * A file with no record, or saved unprimed, is restored unchecked.
 *
 * At most one action is in flight.  Borrows loop, http, cfg and the slot
 * variable (they must outlive it).
 */
#ifndef HEARTH_LLAMA_SLOTFILE_H
#define HEARTH_LLAMA_SLOTFILE_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

struct http;
struct http_req;
struct cfg;

enum llama_slotfile_support { LLAMA_SLOTFILE_UNKNOWN, LLAMA_SLOTFILE_YES, LLAMA_SLOTFILE_NO };

struct llama_slotfile_result {
	int ok;          /* the action succeeded */
	int unsupported; /* the server does not offer slot actions */
	long n_tokens;   /* n_saved / n_restored */
	double ms;       /* timings.save_ms / restore_ms */
	char msg[200];   /* on failure: one line saying what failed */
};

typedef void (*llama_slotfile_fn)(const struct llama_slotfile_result *r, void *arg);

/* What a saved slot file holds (the record beside it). */
struct llama_slotfile_rec {
	long tokens;             /* tokens saved */
	long bytes;              /* length of the prompt text it holds; -1: not known (unprimed) */
	unsigned long long hash; /* FNV-1a 64 of those bytes */
};

typedef const char *(*llama_slotfile_id_fn)(void *arg);
/* A held request may go on; notice is one line for the user, or NULL. */
typedef void (*llama_slotfile_cont_fn)(void *arg, const char *notice);

struct llama_slotfile {
	struct loop *loop;
	struct http *http;
	const struct cfg *cfg;
	const int *slot;      /* the provider's pinned slot (-1: none) */
	enum llama_slotfile_support support;
	llama_slotfile_id_fn session_id;
	void *session_arg;
	int restore_pending;  /* resumed: restore before the first request */
	int dirty;            /* the slot changed since the last save/restore */
	int busy_request;     /* a request is running on the slot */
	long idle_timer;
	long cont_timer;
	llama_slotfile_cont_fn cont;
	void *cont_arg;
	char notice[320];
	int restored;         /* the last restore succeeded */
	long restored_tokens;
	double restored_ms;
	int flushing;
	struct http_req *req;
	int restore;     /* the action in flight is a restore */
	int checking;    /* the request in flight is the prefix check (/apply-template) */
	char *rec_dir;   /* where the records go (NULL: none) */
	char *held_text; /* the prompt text the slot holds (after a prime), or NULL */
	long held_tokens;
	char *first_body; /* the first request's body, for the prefix check */
	int restore_skipped; /* the last restore was skipped: the file did not match */
	llama_slotfile_fn done;
	void *arg;
};

void llama_slotfile_init(struct llama_slotfile *s, struct loop *l, struct http *h, const struct cfg *cfg,
		   const int *slot);
/* Cancel an action in flight and the timers (no callbacks). */
void llama_slotfile_release(struct llama_slotfile *s);
/* Keep the records of saved files in dir (created when needed; NULL: none). */
void llama_slotfile_records(struct llama_slotfile *s, const char *dir);
/* A prime made the slot hold exactly text (tokens long, 0: unknown). */
void llama_slotfile_primed(struct llama_slotfile *s, const char *text, long tokens);
/* Name the session (id_fn may return "" until it exists); resumed: restore first. */
void llama_slotfile_session(struct llama_slotfile *s, llama_slotfile_id_fn id_fn, void *arg, int resumed);
/*
 * A request (its JSON body) is about to go to the slot.  Returns 1 when it
 * must wait: a restore (with its prefix check) was started and
 * cont(arg, notice) will be called from the loop once it ended (restored,
 * skipped or failed); 0 to go on at once.
 */
int llama_slotfile_before_request(struct llama_slotfile *s, const char *body, llama_slotfile_cont_fn cont,
				  void *arg);
/* A prime (llama/prime.c) is about to change the slot: like a request, without a restore. */
void llama_slotfile_before_prime(struct llama_slotfile *s);
/* The request ended (any way): the slot changed; schedule the idle save. */
void llama_slotfile_request_end(struct llama_slotfile *s);
/* Exit: save a changed slot now, running the loop up to timeout_ms for it. */
void llama_slotfile_flush(struct llama_slotfile *s, long timeout_ms);
/* The file name for a session id (appended to out). */
void llama_slotfile_filename(const char *session_id, struct buf *out);
/* The record's path for a session id in dir (appended to out). */
void llama_slotfile_rec_path(const char *dir, const char *session_id, struct buf *out);
/* Read a record: 0, or -1 when there is none or it is unreadable. */
int llama_slotfile_rec_read(const char *path, struct llama_slotfile_rec *rec);
/* Write a record atomically (the directory is created): 0 or -1 + e. */
int llama_slotfile_rec_write(const char *path, const struct llama_slotfile_rec *rec, struct err *e);
/* The record of a slot holding text (n bytes) saved as tokens. */
void llama_slotfile_rec_of(const char *text, size_t n, long tokens, struct llama_slotfile_rec *rec);
/* 1: the text the record describes is a byte prefix of prompt (n bytes); 0: not; -1: not known. */
int llama_slotfile_rec_prefix(const struct llama_slotfile_rec *rec, const char *prompt, size_t n);
/* Interpret an answer (pure): fills out. */
void llama_slotfile_parse(int restore, int status, const char *body, size_t n,
		    struct llama_slotfile_result *out);

#endif
