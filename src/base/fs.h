/*
 * base/fs: file-system helpers shared by the model tools.
 *
 *  - fs_write_atomic / fs_write_beneath: the one place files are replaced
 *    (temp file in the same directory fd, fsync, renameat), so a crash
 *    never leaves half a file; fs_write_beneath confines the write to the
 *    workspace race-free; the temp-file journal (fs_temps_start) removes
 *    what a killed run left.
 *  - fs_walk: a sorted, depth-first tree walk that skips .git and, inside
 *    a git work tree, whatever .gitignore ignores (through libgit2).
 *  - fs_glob_match: fnmatch with "**" segments and {a,b} alternatives.
 *  - fs_is_binary / fs_add_utf8: how tools decide a file is text and
 *    how they pass text on (invalid UTF-8 becomes U+FFFD).
 */
#ifndef HEARTH_BASE_FS_H
#define HEARTH_BASE_FS_H

#include <stddef.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"

/* How many leading bytes fs_is_binary wants to see. */
#define FS_SNIFF 8192

/*
 * write(2) all len bytes to fd, retrying EINTR and short writes.  0, or -1
 * with errno set (EIO when write made no progress); what was written
 * before a failure stays written.
 */
int fs_write_all(int fd, const void *data, size_t len);

/*
 * Replace (or create) `path` with len bytes: write "DIR/.NAME.hearth-PID-XXXXXX"
 * (made with openat in DIR's fd), fsync, chmod to the old file's mode (new
 * files: 0644 minus umask), renameat over NAME in the same fd, fsync the
 * directory.  On failure the temp file is removed and the old file is
 * untouched.  The parent directory must exist.  A symlink at `path` is
 * replaced, not written through.  For hearth's own files (state dir,
 * exports); paths in the workspace go through fs_write_beneath.  0 / -1 + e.
 */
int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e);

/* fs_write_beneath flags. */
#define FS_MKDIRS 1u /* create the missing parent directories (mkdirat on the walked fds) */

/*
 * fs_write_atomic for a tool's path: `abs` (a workspace_resolve result) is
 * written with its parent directory opened beneath `root` (canonical,
 * absolute; see workspace_opendir in base/workspace.h), so the check that
 * it is inside the workspace and the write are one operation: a directory
 * swapped for a symlink that leads out makes it fail with the one-line
 * "... leads outside the workspace ...; use the path it points to" error
 * (e->code EXDEV), and nothing is written anywhere.  abs outside root
 * (allow_outside_workspace) is written as fs_write_atomic would.
 * Errors in e name abs relative to root.  0 / -1 + e.
 */
int fs_write_beneath(const char *root, const char *abs, const void *data, size_t len,
		     unsigned flags, struct err *e);

/*
 * buf_read_file for a tool's path: abs opened beneath root (see
 * workspace_open in base/workspace.h), appended to b, bounded by max.
 * 0 / -1 + e (errno kept: ENOENT, EXDEV for a symlink that leads out, ...).
 */
int fs_read_beneath(const char *root, const char *abs, struct buf *b, size_t max, struct err *e);

/*
 * The temp-file journal, so a run killed mid-write (kill -9) leaves no
 * ".NAME.hearth-PID-XXXXXX" behind for good.  fs_temps_start, once at start
 * before any write: removes the temp files recorded by runs in
 * STATE_DIR/temps whose process is gone (at most 16 journals of up to
 * 1 MiB per start, no tree walk; each removal beneath the root it was
 * made under, only a regular file with that run's temp name), sets
 * *removed (may be NULL) to how many, and opens this run's journal.  From
 * then on every fs_write_* temp file is recorded before it is made and
 * dropped after its rename (no fsync: a kill loses nothing, a power cut
 * may).  Thread-safe.  -1 + e when the journal cannot be made (writes
 * then work unrecorded).  fs_temps_stop closes it and removes the file
 * (kept when a write is under way on another thread).
 */
int fs_temps_start(const char *state_dir, size_t *removed, struct err *e);
void fs_temps_stop(void);

/* mkdir -p for `dir` (mode 0777 minus umask).  0 / -1 + e. */
int fs_mkdirs(const char *dir, struct err *e);
/*
 * Private variants, for what holds conversation content (exports, the
 * state directory): fs_mkdirs_private creates missing directories 0700
 * and takes group and other access away from dir itself when it exists;
 * fs_write_private is fs_write_atomic with the file left 0600 (also when
 * it existed with another mode).  0 / -1 + e.
 */
int fs_mkdirs_private(const char *dir, struct err *e);
int fs_write_private(const char *path, const void *data, size_t len, struct err *e);

/*
 * Visit callback: abs and rel (relative to the walk's root, or abs when
 * outside it) of one entry, with its lstat.  Return nonzero to stop the walk.
 */
typedef int (*fs_visit_fn)(const char *abs, const char *rel, const struct stat *st,
			       void *arg);

struct fs_walk {
	const char *root;      /* workspace root, for rel */
	fs_visit_fn visit;
	void *arg;
	size_t max_entries;    /* visits before giving up (0 = 100000) */
	int truncated;         /* out: stopped because of max_entries */
	size_t ignored;        /* out: entries skipped by .gitignore */
	int types_only;        /* the visitor needs st_mode only: taken from the directory
				* entry when it says (no stat per entry; other fields 0) */
};

/*
 * Walk `start` (absolute).  A file is visited alone; a directory's entries
 * are visited in strcmp order, each directory before its contents, never
 * the start directory itself.  Skips entries named .git; never descends
 * into symlinks.  Inside a git work tree, ignored entries are skipped
 * unless `start` itself is ignored (an explicit request).  0, or -1 + e
 * when start cannot be read; unreadable subdirectories are skipped.
 */
int fs_walk(struct fs_walk *w, const char *start, struct err *e);
/*
 * After a walk: when it stopped at max_entries, append to out, on a line of
 * its own, the note that says so and what to do; nothing otherwise.
 */
void fs_walk_note(const struct fs_walk *w, struct buf *out);

/*
 * Whether `path` (relative, '/'-separated) matches glob `pattern`.  A
 * pattern without '/' is matched against the basename; otherwise against
 * the whole path, where a "**" segment matches zero or more directories.
 * "{a,b}" alternatives are expanded (not nested more than 64 ways).
 */
int fs_glob_match(const char *pattern, const char *path);

/*
 * Whether the first bytes of a file (up to FS_SNIFF) look binary: a NUL
 * byte, or more than 10% invalid UTF-8 and control bytes.  A NUL anywhere
 * in p[0 .. min(n, FS_SNIFF)) always gives 1 (grep looks for NULs only
 * past that window).
 */
int fs_is_binary(const char *p, size_t n);

/* Length of the valid UTF-8 sequence starting at p (1-4), or 0 if invalid. */
size_t fs_utf8_len(const char *p, size_t n);

/* Append n bytes to b, each invalid UTF-8 byte replaced by U+FFFD. */
void fs_add_utf8(struct buf *b, const char *p, size_t n);

#endif
