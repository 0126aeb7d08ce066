/*
 * repo/snap: the store and working-tree snapshots (contract in repo/snap.h).
 *
 * A snapshot in a work tree starts from seed_index: the user's index file
 * read with git_index_open (no lock taken; nothing written back), which
 * keeps the tree-cache extension so unchanged directories need no tree
 * writes.  Entries that cannot be taken as they are get fixed there:
 * submodules removed, conflicts, intent-to-add entries (and, when a
 * content filter could apply, every entry) hashed from disk.  Then
 * apply_status hashes what libgit2's workdir-only status says differs
 * from the index and adds untracked files.  snap_path is the one place a
 * disk file becomes an index entry.
 */
#include "repo/snap.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/str.h"
#include "repo/repo.h"
#include "base/xmalloc.h"

/* Set e from libgit2's last error (see repo/snap.h). */
int
repo_snap_gerr(struct err *e, const char *what)
{
	const git_error *g = git_error_last();

	return err_set(e, "%s: %s", what, g && g->message ? g->message : "libgit2 error");
}

/* Initialise libgit2 once, lazily. */
static void
lib_init(void)
{
	static int done;

	if (!done) {
		git_libgit2_init();
		done = 1;
	}
}

/* Open the private store in state_dir/checkpoints.git. */
static int
open_private(struct repo_snap *s, const char *root, const char *state_dir, struct err *e)
{
	struct buf p = BUF_INIT;
	int rc = 0;

	s->fallback = 1;
	if (!state_dir || !*state_dir)
		return err_set(e, "open checkpoints: %s is not in a git work tree and no state "
			       "directory was given", root);
	if (fs_mkdirs(state_dir, e) < 0)
		return -1;
	buf_addf(&p, "%s/checkpoints.git", state_dir);
	if (git_repository_open_bare(&s->git, p.data) < 0 &&
	    git_repository_init(&s->git, p.data, 1) < 0)
		rc = repo_snap_gerr(e, "open checkpoints: create the private store");
	buf_reset(&p);
	buf_addf(&p, "%s/", root);
	s->workdir = buf_detach(&p, NULL);
	return rc;
}

/* Use the repository around root when it has a work tree. */
static int
open_git(struct repo_snap *s, const char *root)
{
	char *real;

	if (git_repository_open_ext(&s->git, root, 0, NULL) < 0)
		return -1;
	if (!git_repository_is_bare(s->git) && git_repository_workdir(s->git) &&
	    (real = realpath(git_repository_workdir(s->git), NULL)) != NULL) {
		struct buf p = BUF_INIT;
		buf_adds(&p, real);
		if (p.len == 0 || p.data[p.len - 1] != '/')
			buf_addch(&p, '/');
		s->workdir = buf_detach(&p, NULL);
		free(real);
		return 0;
	}
	git_repository_free(s->git);
	s->git = NULL;
	return -1;
}

/* Open the store (see repo/snap.h). */
int
repo_snap_open(struct repo_snap *s, const char *root, const char *state_dir, struct err *e)
{
	lib_init();
	if (open_git(s, root) == 0)
		return 0;
	return open_private(s, root, state_dir, e);
}

/* Free and clear a scope kept in the store. */
static void
scope_drop(struct repo_snap_scope **sc)
{
	if (*sc) {
		repo_snap_scope_free(*sc);
		free(*sc);
		*sc = NULL;
	}
}

/* Free the store. */
void
repo_snap_close(struct repo_snap *s)
{
	git_repository_free(s->git);
	free(s->workdir);
	scope_drop(&s->raw);
	scope_drop(&s->subs);
	memset(s, 0, sizeof *s);
}

/* Add a path to a scope (see repo/snap.h). */
int
repo_snap_scope_add(struct repo_snap_scope *sc, const char *path)
{
	if (repo_snap_scope_has(sc, path))
		return 0;
	sc->paths = xrealloc(sc->paths, (sc->n + 1) * sizeof *sc->paths);
	sc->paths[sc->n++] = xstrdup(path);
	return 1;
}

/* Whether a scope has a path. */
int
repo_snap_scope_has(const struct repo_snap_scope *sc, const char *path)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		if (!strcmp(sc->paths[i], path))
			return 1;
	return 0;
}

/* Free a scope's paths. */
void
repo_snap_scope_free(struct repo_snap_scope *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		free(sc->paths[i]);
	free(sc->paths);
	sc->paths = NULL;
	sc->n = 0;
}

/* Absolute path of a work-tree path. */
void
repo_snap_abs(const struct repo_snap *s, const char *rel, struct buf *out)
{
	buf_reset(out);
	buf_adds(out, s->workdir);
	buf_adds(out, rel);
}

/* Read the state of a path on disk (see repo/snap.h). */
int
repo_snap_disk(const struct repo_snap *s, const char *rel, struct repo_snap_side *side,
	      struct buf *data)
{
	struct buf p = BUF_INIT, tmp = BUF_INIT;
	struct buf *d = data ? data : &tmp;
	struct err e = ERR_INIT;
	struct stat st;
	char link[PATH_MAX];
	ssize_t n;
	int rc = 0;

	memset(side, 0, sizeof *side);
	repo_snap_abs(s, rel, &p);
	if (lstat(p.data, &st) < 0) {
		rc = errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	} else if (S_ISLNK(st.st_mode) && (n = readlink(p.data, link, sizeof link)) >= 0) {
		buf_add(d, link, (size_t)n);
		side->mode = GIT_FILEMODE_LINK;
		side->present = 1;
	} else if (S_ISREG(st.st_mode) && (size_t)st.st_size <= REPO_MAX_FILE &&
		   buf_read_file(d, p.data, REPO_MAX_FILE, &e) == 0) {
		side->mode = st.st_mode & 0111 ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		side->present = 1;
	} else {
		rc = -1; /* a directory, a device, too large or unreadable */
	}
	if (side->present)
		git_odb_hash(&side->id, d->data, d->len, GIT_OBJECT_BLOB);
	buf_release(&p);
	buf_release(&tmp);
	return rc;
}

/* The state of a path in a tree (see repo/snap.h). */
void
repo_snap_tree_side(const struct repo_snap *s, const git_oid *tree_id, const char *path,
		   struct repo_snap_side *side)
{
	git_tree *tree;
	git_tree_entry *te = NULL;

	memset(side, 0, sizeof *side);
	if (git_tree_lookup(&tree, s->git, tree_id) < 0)
		return;
	if (git_tree_entry_bypath(&te, tree, path) == 0 &&
	    git_tree_entry_type(te) == GIT_OBJECT_BLOB) {
		side->present = 1;
		side->id = *git_tree_entry_id(te);
		side->mode = git_tree_entry_filemode(te);
	}
	git_tree_entry_free(te);
	git_tree_free(tree);
}

/* Two file states are the same (content and kind/exec bit). */
int
repo_snap_side_eq(const struct repo_snap_side *a, const struct repo_snap_side *b)
{
	if (!a->present || !b->present)
		return a->present == b->present;
	return a->mode == b->mode && git_oid_equal(&a->id, &b->id);
}

/* Content of a side from the object database. */
int
repo_snap_side_data(const struct repo_snap *s, const struct repo_snap_side *side,
		   struct buf *out)
{
	git_blob *b;

	if (!side->present)
		return 0;
	if (git_blob_lookup(&b, s->git, &side->id) < 0)
		return -1;
	buf_add(out, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
	git_blob_free(b);
	return 0;
}

/* Put path's current disk state into idx (removing it when gone). */
static void
snap_path(struct repo_snap *s, git_index *idx, const char *rel, struct repo_snap_scope *skips,
	  struct buf *notes)
{
	struct buf data = BUF_INIT;
	git_index_entry ent;
	struct repo_snap_side d;

	if (repo_snap_disk(s, rel, &d, &data) < 0) {
		git_index_remove(idx, rel, 0);
		if (skips) {
			buf_reset(&data);
			buf_addf(&data, "/%s", rel);
			repo_snap_scope_add(skips, data.data);
		}
		if (notes)
			buf_addf(notes, "%s: not checkpointed (a directory, a nested repository, "
				 "unreadable, or over %zu MB)\n", rel, REPO_MAX_FILE >> 20);
	} else if (!d.present) {
		git_index_remove(idx, rel, 0);
	} else if (git_blob_create_from_buffer(&d.id, s->git, data.data, data.len) == 0) {
		memset(&ent, 0, sizeof ent);
		ent.path = rel;
		ent.mode = d.mode;
		ent.id = d.id;
		ent.file_size = (uint32_t)data.len;
		git_index_add(idx, &ent);
	} else if (notes) {
		buf_addf(notes, "%s: not checkpointed: %s\n", rel, git_error_last() ?
			 git_error_last()->message : "cannot write the object");
	}
	buf_release(&data);
}

/* Whether some index entry is a .gitattributes file. */
static int
has_attributes(git_index *idx)
{
	size_t i, n = git_index_entrycount(idx);

	for (i = 0; i < n; i++) {
		const char *path = git_index_get_byindex(idx, i)->path;
		const char *slash = strrchr(path, '/');
		if (!strcmp(slash ? slash + 1 : path, ".gitattributes"))
			return 1;
	}
	return 0;
}

/* Whether a content filter may make index blobs differ from disk bytes. */
static int
has_filters(struct repo_snap *s, git_index *uidx)
{
	git_config *cfg = NULL;
	git_buf v = { 0 };
	struct buf p = BUF_INIT;
	int yes = 0;

	if (git_repository_config_snapshot(&cfg, s->git) == 0 &&
	    git_config_get_string_buf(&v, cfg, "core.autocrlf") == 0)
		yes = strcmp(v.ptr, "false") != 0;
	git_buf_dispose(&v);
	git_config_free(cfg);
	buf_addf(&p, "%s/info/attributes", git_repository_commondir(s->git));
	if (!yes && access(p.data, F_OK) == 0)
		yes = 1;
	buf_release(&p);
	return yes || has_attributes(uidx);
}

/* The paths of idx whose entries cannot be taken as they are. */
static void
entries_to_fix(git_index *idx, int filters, struct repo_snap_scope *fix, struct buf *notes)
{
	size_t i, n = git_index_entrycount(idx);

	for (i = 0; i < n; i++) {
		const git_index_entry *ent = git_index_get_byindex(idx, i);
		if (git_index_entry_stage(ent) == 0 && ent->mode != GIT_FILEMODE_COMMIT &&
		    !filters && !(ent->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD))
			continue;
		if (ent->mode == GIT_FILEMODE_COMMIT && notes)
			buf_addf(notes, "%s: submodule, not checkpointed\n", ent->path);
		/* appended without the duplicate check: that would be quadratic */
		fix->paths = xrealloc(fix->paths, (fix->n + 1) * sizeof *fix->paths);
		fix->paths[fix->n++] = xstrdup(ent->path);
	}
}

/* A private in-memory copy of the user's index, fixed up (see the top). */
static int
seed_index(struct repo_snap *s, git_index **idx, struct repo_snap_scope *skips,
	   struct buf *notes, struct err *e)
{
	struct repo_snap_scope fix = { NULL, 0 };
	struct buf p = BUF_INIT;
	size_t i;
	int rc = 0;

	buf_addf(&p, "%sindex", git_repository_path(s->git));
	if (git_index_open(idx, p.data) < 0)
		rc = repo_snap_gerr(e, "checkpoint: read the index");
	buf_release(&p);
	if (rc < 0)
		return -1;
	entries_to_fix(*idx, has_filters(s, *idx), &fix, notes);
	git_index_conflict_cleanup(*idx);
	for (i = 0; i < fix.n; i++) {
		const git_index_entry *ent = git_index_get_bypath(*idx, fix.paths[i], 0);
		if (ent && ent->mode == GIT_FILEMODE_COMMIT)
			git_index_remove(*idx, fix.paths[i], 0);
		else
			snap_path(s, *idx, fix.paths[i], skips, notes);
	}
	repo_snap_scope_free(&fix);
	return 0;
}

/* Status of the working tree against the index, untracked files listed one by one. */
static int
workdir_status(struct repo_snap *s, git_status_list **sl)
{
	git_status_options o;

	git_status_options_init(&o, GIT_STATUS_OPTIONS_VERSION);
	o.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	o.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		  GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	return git_status_list_new(sl, s->git, &o);
}

/* Hash again what status says differs from the index, add untracked files. */
static int
apply_status(struct repo_snap *s, git_index *idx, struct repo_snap_scope *skips,
	     struct buf *notes, struct err *e)
{
	git_status_list *sl;
	size_t i, n;

	if (workdir_status(s, &sl) < 0)
		return repo_snap_gerr(e, "checkpoint: read the working tree status");
	n = git_status_list_entrycount(sl);
	for (i = 0; i < n; i++) {
		const git_status_entry *st = git_status_byindex(sl, i);
		const git_diff_delta *d = st->index_to_workdir;
		if (d && st->status != GIT_STATUS_CURRENT)
			snap_path(s, idx, d->new_file.path ? d->new_file.path : d->old_file.path,
				  skips, notes);
	}
	git_status_list_free(sl);
	return 0;
}

/* The user's index file stamp (size, inode, mtime); -1 when it cannot be read. */
static int
index_stamp(struct repo_snap *s, long long st4[4])
{
	struct buf p = BUF_INIT;
	struct stat st;
	int rc;

	buf_addf(&p, "%sindex", git_repository_path(s->git));
	rc = stat(p.data, &st);
	buf_release(&p);
	if (rc < 0)
		return -1;
	st4[0] = (long long)st.st_size;
	st4[1] = (long long)st.st_ino;
	st4[2] = (long long)st.st_mtim.tv_sec;
	st4[3] = (long long)st.st_mtim.tv_nsec;
	return 0;
}

/* The value of a config key into out ("" when unset). */
static void
config_str(git_repository *git, const char *key, char *out, size_t size)
{
	git_config *cfg = NULL;
	git_buf v = { 0 };

	out[0] = '\0';
	if (git_repository_config_snapshot(&cfg, git) == 0 &&
	    git_config_get_string_buf(&v, cfg, key) == 0)
		snprintf(out, size, "%s", v.ptr);
	git_buf_dispose(&v);
	git_config_free(cfg);
}

/* One attributes line that may convert on checkout: its file's directory and pattern. */
struct attr_rule {
	char *dir;     /* "" or "a/b/": the directory of the .gitattributes */
	char *pattern; /* the line's pattern; NULL: every path under dir */
};

struct attr_rules {
	struct attr_rule *v;
	size_t n;
	int all;       /* a macro or an unreadable file: every path is a candidate */
};

/* Whether the text of one line may set a converting attribute. */
static int
line_converts(const char *p, size_t n)
{
	static const char *const words[] = { "crlf", "ident", "filter", "encoding" };
	size_t i;

	for (i = 0; i < sizeof words / sizeof *words; i++)
		if (str_memmem(p, n, words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* Add the lines of the attributes file at path (in directory dir) that may convert. */
static void
attr_rules_file(struct attr_rules *r, const char *path, const char *dir)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	const char *p, *end, *nl;

	if (access(path, F_OK) != 0)
		return;
	if (buf_read_file(&b, path, (size_t)16 << 20, &e) < 0) {
		r->all = 1;
		return;
	}
	for (p = b.data, end = b.data + b.len; p && p < end; p = nl ? nl + 1 : NULL) {
		size_t len, w;
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (!len || *p == '#' || !line_converts(p, len))
			continue;
		if (len > 6 && !strncmp(p, "[attr]", 6)) {
			r->all = 1; /* a macro: its users do not name the attribute */
			continue;
		}
		for (w = 0; w < len && p[w] != ' ' && p[w] != '\t'; w++)
			;
		r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
		r->v[r->n].dir = xstrdup(dir);
		r->v[r->n].pattern = *p == '"' || memchr(p, '/', w) ? NULL : xstrndup(p, w);
		r->n++;
	}
	buf_release(&b);
}

/* Free the rules. */
static void
attr_rules_free(struct attr_rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].dir);
		free(r->v[i].pattern);
	}
	free(r->v);
}

/*
 * The lines of every attributes source that could make some path's disk
 * bytes differ from its index blob (eol=crlf, ident, a filter driver,
 * working-tree-encoding).  A cheap text test: most repositories'
 * .gitattributes say text, eol=lf, diff and whitespace only, and a path no
 * such line can match needs no attribute lookup (libgit2's costs stats
 * per path: 3-4 s for 30,000 files).
 */
static void
attr_rules(struct repo_snap *s, git_index *idx, struct attr_rules *r)
{
	struct buf p = BUF_INIT, dir = BUF_INIT;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char af[PATH_MAX];
	size_t i, n = git_index_entrycount(idx);

	for (i = 0; i < n; i++) {
		const char *path = git_index_get_byindex(idx, i)->path;
		const char *slash = strrchr(path, '/');
		if (strcmp(slash ? slash + 1 : path, ".gitattributes"))
			continue;
		repo_snap_abs(s, path, &p);
		buf_reset(&dir);
		buf_add(&dir, path, slash ? (size_t)(slash + 1 - path) : 0);
		attr_rules_file(r, p.data, dir.len ? dir.data : "");
	}
	buf_reset(&p);
	buf_addf(&p, "%s/info/attributes", git_repository_commondir(s->git));
	attr_rules_file(r, p.data, "");
	attr_rules_file(r, "/etc/gitattributes", "");
	config_str(s->git, "core.attributesfile", af, sizeof af);
	buf_reset(&p);
	if (af[0] == '~' && af[1] == '/' && home)
		buf_addf(&p, "%s%s", home, af + 1);
	else if (af[0])
		buf_adds(&p, af);
	else if (xdg && *xdg)
		buf_addf(&p, "%s/git/attributes", xdg);
	else if (home)
		buf_addf(&p, "%s/.config/git/attributes", home);
	if (p.len)
		attr_rules_file(r, p.data, "");
	buf_release(&p);
	buf_release(&dir);
}

/* Whether a rule may apply to path (a superset: libgit2 decides). */
static int
attr_rule_may_match(const struct attr_rule *r, const char *path, int fold)
{
	size_t dl = strlen(r->dir);
	const char *slash = strrchr(path, '/');

	if (strncmp(path, r->dir, dl) != 0)
		return 0;
	/* case-folding repositories: no portable fnmatch flag, every path is a candidate */
	return !r->pattern || fold || fnmatch(r->pattern, slash ? slash + 1 : path, 0) == 0;
}

/*
 * Whether the filter driver name is configured: git ignores a filter
 * attribute whose driver has no smudge, clean or process command (git.git
 * marks its .po files filter=gettext-no-location for those who set it up).
 */
static int
filter_configured(git_repository *git, const char *name)
{
	static const char *const keys[] = { "smudge", "clean", "process" };
	char key[512], v[8];
	size_t i;

	for (i = 0; i < sizeof keys / sizeof *keys; i++) {
		snprintf(key, sizeof key, "filter.%s.%s", name, keys[i]);
		config_str(git, key, v, sizeof v);
		if (v[0])
			return 1;
	}
	return 0;
}

/* Whether path's attributes make its checked-out bytes differ from the blob. */
static int
path_converts(git_repository *git, const char *path)
{
	static const char *names[] = { "ident", "filter", "working-tree-encoding", "eol", "text" };
	const char *v[5];

	if (git_attr_get_many(v, git, 0, path, 5, names) < 0)
		return 1;
	if (git_attr_value(v[0]) == GIT_ATTR_VALUE_TRUE ||
	    (git_attr_value(v[1]) == GIT_ATTR_VALUE_STRING && filter_configured(git, v[1])) ||
	    git_attr_value(v[2]) == GIT_ATTR_VALUE_STRING)
		return 1;
	return git_attr_value(v[3]) == GIT_ATTR_VALUE_STRING && !strcmp(v[3], "crlf") &&
	       git_attr_value(v[4]) != GIT_ATTR_VALUE_FALSE;
}

/*
 * The entries of idx whose disk bytes differ from the blob by attributes
 * into raw; -1 when every text file may (core.autocrlf=true, core.eol=crlf:
 * the caller hashes everything).
 */
static int
converting_paths(struct repo_snap *s, git_index *idx, struct repo_snap_scope *raw)
{
	struct attr_rules rules = { NULL, 0, 0 };
	char v[32];
	size_t i, n = git_index_entrycount(idx);
	int fold;

	config_str(s->git, "core.autocrlf", v, sizeof v);
	if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return -1;
	config_str(s->git, "core.eol", v, sizeof v);
	if (!strcasecmp(v, "crlf"))
		return -1;
	config_str(s->git, "core.ignorecase", v, sizeof v);
	fold = !strcasecmp(v, "true");
	attr_rules(s, idx, &rules);
	for (i = 0; (rules.n || rules.all) && i < n; i++) {
		const git_index_entry *ent = git_index_get_byindex(idx, i);
		size_t k;
		for (k = 0; !rules.all && k < rules.n; k++)
			if (attr_rule_may_match(&rules.v[k], ent->path, fold))
				break;
		if ((rules.all || k < rules.n) && path_converts(s->git, ent->path)) {
			raw->paths = xrealloc(raw->paths, (raw->n + 1) * sizeof *raw->paths);
			raw->paths[raw->n++] = xstrdup(ent->path);
		}
	}
	attr_rules_free(&rules);
	return 0;
}

/* Replace *tree by a copy without the paths of sc; 0 / -1. */
static int
drop_paths(struct repo_snap *s, git_oid *tree, const struct repo_snap_scope *sc)
{
	git_tree_update *u;
	git_tree *t = NULL;
	size_t i;
	int rc;

	if (!sc->n)
		return 0;
	if (git_tree_lookup(&t, s->git, tree) < 0)
		return -1;
	u = xcalloc(sc->n, sizeof *u);
	for (i = 0; i < sc->n; i++) {
		u[i].action = GIT_TREE_UPDATE_REMOVE;
		u[i].path = sc->paths[i];
	}
	rc = git_tree_create_updated(tree, s->git, t, sc->n, u) == 0 ? 0 : -1;
	free(u);
	git_tree_free(t);
	return rc;
}

/*
 * Make s->base from the user's index; 0, or 1 when the index way must be
 * used (conflicts, intent-to-add entries; every text file converted).
 * Submodules are left out of base (s->subs).  With content filters, the index blob of an entry that is
 * clean by its stat data is what git would check out: the same bytes as
 * on disk unless the path's attributes convert on checkout, and those few
 * paths (s->raw) are hashed from disk at every snapshot (base keeps their
 * index blobs).  A file written by hand with CRLF under text/eol=lf
 * compares clean to git; the tools hash what they are about to change
 * (repo_note_file), so an agent's edit of such a file is still restored
 * byte for byte.
 */
static int
make_base(struct repo_snap *s, const long long st4[4])
{
	struct repo_snap_scope fix = { NULL, 0 }, raw = { NULL, 0 };
	git_index *idx = NULL;
	size_t i;
	int rc = 1, filters = 0;

	scope_drop(&s->raw);
	scope_drop(&s->subs);
	s->base_ok = 0;
	/*
	 * The repository's own index object, read again only when the file
	 * changed: status and attribute lookups use it too, so a new process
	 * parses the index once (30,000 entries: 40-170 ms each time), not
	 * twice.  Nothing here changes its entries.
	 */
	if (git_repository_index(&idx, s->git) < 0 || git_index_read(idx, 0) < 0)
		goto out;
	entries_to_fix(idx, 0, &fix, NULL);
	for (i = 0; i < fix.n; i++) { /* submodules are left out; anything else: the index way */
		const git_index_entry *ent = git_index_get_bypath(idx, fix.paths[i], 0);
		if (!ent || ent->mode != GIT_FILEMODE_COMMIT ||
		    (ent->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD))
			goto out;
	}
	filters = has_filters(s, idx);
	if (filters && converting_paths(s, idx, &raw) < 0)
		goto out;
	/*
	 * The raw paths stay as the index has them: tree_fast puts their disk
	 * bytes in at every snapshot.  Changing them here would invalidate
	 * the index's tree cache for their directories, and libgit2 then
	 * rebuilds those trees checking that each entry's object exists (one
	 * loose-object read per entry: 1 s for 7,500 blobs).
	 */
	if (git_index_write_tree_to(&s->base, idx, s->git) == 0 &&
	    drop_paths(s, &s->base, &fix) == 0) {
		memcpy(s->base_st, st4, sizeof s->base_st);
		s->base_ok = 1;
		s->filters = filters;
		s->raw = xmalloc(sizeof *s->raw);
		*s->raw = raw;
		raw.paths = NULL;
		raw.n = 0;
		s->subs = xmalloc(sizeof *s->subs);
		*s->subs = fix;
		fix.paths = NULL;
		fix.n = 0;
		rc = 0;
	}
out:
	repo_snap_scope_free(&raw);
	repo_snap_scope_free(&fix);
	git_index_free(idx);
	return rc;
}

/* The paths status says differ from the index on disk (untracked included) into paths. */
static int
status_paths(struct repo_snap *s, struct repo_snap_scope *paths)
{
	git_status_list *sl;
	size_t i, n;

	if (workdir_status(s, &sl) < 0)
		return -1;
	n = git_status_list_entrycount(sl);
	for (i = 0; i < n; i++) {
		const git_status_entry *st = git_status_byindex(sl, i);
		const git_diff_delta *d = st->index_to_workdir;
		if (d && st->status != GIT_STATUS_CURRENT)
			repo_snap_scope_add(paths, d->new_file.path ? d->new_file.path :
					   d->old_file.path);
	}
	git_status_list_free(sl);
	return 0;
}

/* The update that puts rel's disk state into a tree with base (0: none needed). */
static int
disk_update(struct repo_snap *s, git_tree *base, const char *rel, git_tree_update *u,
	    struct repo_snap_scope *skips, struct buf *notes)
{
	struct buf data = BUF_INIT;
	struct repo_snap_side d;
	git_tree_entry *te = NULL;
	int bad = repo_snap_disk(s, rel, &d, &data) < 0, rc = 1;

	memset(u, 0, sizeof *u);
	u->path = rel;
	if (bad && skips) {
		buf_reset(&data);
		buf_addf(&data, "/%s", rel);
		repo_snap_scope_add(skips, data.data);
	}
	if (bad && notes)
		buf_addf(notes, "%s: not checkpointed (a directory, a nested repository, "
			 "unreadable, or over %zu MB)\n", rel, REPO_MAX_FILE >> 20);
	if (bad || !d.present) {
		u->action = GIT_TREE_UPDATE_REMOVE;
		rc = git_tree_entry_bypath(&te, base, rel) == 0; /* only what base has */
		git_tree_entry_free(te);
	} else if (git_blob_create_from_buffer(&d.id, s->git, data.data, data.len) == 0) {
		u->action = GIT_TREE_UPDATE_UPSERT;
		u->id = d.id;
		u->filemode = d.mode;
	} else {
		rc = 0;
		if (notes)
			buf_addf(notes, "%s: not checkpointed: %s\n", rel, git_error_last() ?
				 git_error_last()->message : "cannot write the object");
	}
	buf_release(&data);
	return rc;
}

/* The fast snapshot (see the top): 0, or 1 when the index way must be used. */
static int
tree_fast(struct repo_snap *s, const struct repo_snap_scope *scope,
	  struct repo_snap_scope *skips, git_oid *tree, struct buf *notes)
{
	struct repo_snap_scope paths = { NULL, 0 };
	git_tree_update *u = NULL;
	git_tree *base = NULL;
	long long st4[4];
	size_t i, n = 0;
	int rc = 1;

	if (index_stamp(s, st4) < 0)
		return 1;
	if ((!s->base_ok || memcmp(st4, s->base_st, sizeof st4)) && make_base(s, st4) != 0)
		return 1;
	if (git_tree_lookup(&base, s->git, &s->base) < 0 || status_paths(s, &paths) < 0)
		goto out;
	for (i = 0; scope && i < scope->n; i++)
		if (scope->paths[i][0] != '/')
			repo_snap_scope_add(&paths, scope->paths[i]);
	for (i = 0; s->raw && i < s->raw->n; i++)
		repo_snap_scope_add(&paths, s->raw->paths[i]);
	for (i = 0; notes && s->subs && i < s->subs->n; i++)
		buf_addf(notes, "%s: submodule, not checkpointed\n", s->subs->paths[i]);
	u = xcalloc(paths.n + 1, sizeof *u);
	for (i = 0; i < paths.n; i++)
		n += (size_t)disk_update(s, base, paths.paths[i], &u[n], skips, notes);
	rc = git_tree_create_updated(tree, s->git, base, n, u) == 0 ? 0 : 1;
out:
	free(u);
	repo_snap_scope_free(&paths);
	git_tree_free(base);
	return rc;
}

/* Snapshot the working tree plus a scope into a tree object. */
int
repo_snap_tree(struct repo_snap *s, const struct repo_snap_scope *scope,
	      struct repo_snap_scope *skips, git_oid *tree, struct buf *notes, struct err *e)
{
	git_index *idx = NULL;
	size_t i;
	int rc = 0;

	if (!s->fallback) {
		struct buf fnotes = BUF_INIT;
		struct repo_snap_scope fskips = { NULL, 0 };

		rc = tree_fast(s, scope, skips ? &fskips : NULL, tree, notes ? &fnotes : NULL);
		if (rc == 0) {
			for (i = 0; i < fskips.n; i++)
				repo_snap_scope_add(skips, fskips.paths[i]);
			if (notes)
				buf_add(notes, fnotes.data, fnotes.len);
		}
		repo_snap_scope_free(&fskips);
		buf_release(&fnotes);
		if (rc == 0)
			return 0;
		rc = 0;
	}
	if (s->fallback ? git_index_new(&idx) < 0 &&
			  repo_snap_gerr(e, "checkpoint: make an index")
			: seed_index(s, &idx, skips, notes, e) < 0)
		return -1;
	if (!s->fallback && apply_status(s, idx, skips, notes, e) < 0)
		rc = -1;
	for (i = 0; rc == 0 && scope && i < scope->n; i++)
		if (scope->paths[i][0] != '/')
			snap_path(s, idx, scope->paths[i], skips, notes);
	if (rc == 0 && git_index_write_tree_to(tree, idx, s->git) < 0)
		rc = repo_snap_gerr(e, "checkpoint: write the snapshot tree");
	git_index_free(idx);
	return rc;
}

/* Add one path's disk state to a snapshot tree (see repo/snap.h). */
int
repo_snap_add(struct repo_snap *s, git_oid *tree, const char *rel,
	     struct repo_snap_scope *skips, struct err *e)
{
	git_index *idx;
	git_tree *t = NULL;
	int rc = 0;

	if (git_index_new(&idx) < 0)
		return repo_snap_gerr(e, "checkpoint: make an index");
	if (git_tree_lookup(&t, s->git, tree) < 0 || git_index_read_tree(idx, t) < 0)
		rc = repo_snap_gerr(e, "checkpoint: read the snapshot");
	git_tree_free(t);
	if (rc == 0)
		snap_path(s, idx, rel, skips, NULL);
	if (rc == 0 && git_index_write_tree_to(tree, idx, s->git) < 0)
		rc = repo_snap_gerr(e, "checkpoint: write the snapshot tree");
	git_index_free(idx);
	return rc;
}
