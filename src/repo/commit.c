/*
 * repo/commit: plan and make a commit of chosen paths (contract in
 * repo/commit.h).  The plan's tree is built in a private in-memory index
 * seeded from HEAD's tree; the user's index is only written after the
 * commit exists, and only for the plan's paths.
 */
#include "repo/commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xmalloc.h"

/* e from libgit2's last error, prefixed by what failed; returns -1. */
static int
gerr(struct err *e, const char *what)
{
	const git_error *ge = git_error_last();

	return err_set(e, "commit: %s: %s", what, ge && ge->message ? ge->message : "libgit2 error");
}

/* HEAD's commit and tree (both NULL when the branch is unborn). */
static int
head_tree(git_repository *git, struct repo_commit_plan *p, git_tree **tree, struct err *e)
{
	git_commit *c = NULL;
	int rc;

	*tree = NULL;
	rc = git_repository_head_unborn(git);
	if (rc < 0)
		return gerr(e, "read HEAD");
	p->unborn = rc == 1;
	if (p->unborn)
		return 0;
	if (git_reference_name_to_id(&p->head, git, "HEAD") < 0 ||
	    git_commit_lookup(&c, git, &p->head) < 0 || git_commit_tree(tree, c) < 0)
		rc = gerr(e, "read HEAD's commit");
	git_commit_free(c);
	return rc < 0 ? -1 : 0;
}

/* Set rel in idx to its disk state (removed when gone); notes what cannot be. */
static int
stage_path(git_repository *git, git_index *idx, const char *rel, struct repo_commit_plan *p,
	   struct err *e)
{
	git_index_entry ent;
	struct buf abs = BUF_INIT;
	struct stat st;
	int rc = 0;

	buf_addf(&abs, "%s%s", git_repository_workdir(git), rel);
	if (lstat(abs.data, &st) < 0) {
		git_index_remove(idx, rel, 0);
	} else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		buf_addf(&p->notes, "%s: left out (not a file)\n", rel);
	} else {
		memset(&ent, 0, sizeof ent);
		ent.path = rel;
		ent.mode = S_ISLNK(st.st_mode) ? GIT_FILEMODE_LINK :
			   (st.st_mode & 0100) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		if (git_blob_create_from_workdir(&ent.id, git, rel) < 0 || git_index_add(idx, &ent) < 0)
			rc = gerr(e, rel);
	}
	buf_release(&abs);
	return rc;
}

/* Append one diff line to the plan's diff, up to the cap. */
static int
diff_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l, void *arg)
{
	struct repo_commit_plan *p = arg;

	(void)d;
	(void)h;
	if (p->diff.len >= REPO_COMMIT_DIFF_MAX)
		return 0;
	if (l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_ADDITION ||
	    l->origin == GIT_DIFF_LINE_DELETION)
		buf_addch(&p->diff, l->origin);
	buf_add(&p->diff, l->content, l->content_len);
	if (p->diff.len >= REPO_COMMIT_DIFF_MAX)
		buf_adds(&p->diff, "\n[diff cut here]\n");
	return 0;
}

/* The plan's files, stat and diff: HEAD's tree → the new tree. */
static int
describe(git_repository *git, git_tree *old, struct repo_commit_plan *p, struct err *e)
{
	git_tree *new = NULL;
	git_diff *diff = NULL;
	size_t i, n, a, r;
	int rc = 0;

	if (git_tree_lookup(&new, git, &p->tree) < 0 ||
	    git_diff_tree_to_tree(&diff, git, old, new, NULL) < 0) {
		git_tree_free(new);
		return gerr(e, "compare with HEAD");
	}
	n = git_diff_num_deltas(diff);
	p->files = xcalloc(n ? n : 1, sizeof *p->files);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct repo_commit_file *f = &p->files[p->nfiles++];
		git_patch *patch = NULL;

		f->path = xstrdup(d->new_file.path);
		f->status = d->status == GIT_DELTA_ADDED ? 'A' : d->status == GIT_DELTA_DELETED ? 'D' : 'M';
		if (git_patch_from_diff(&patch, diff, i) == 0 &&
		    git_patch_line_stats(NULL, &a, &r, patch) == 0) {
			f->added = (int)a;
			f->removed = (int)r;
		}
		git_patch_free(patch);
		buf_addf(&p->stat, " %c %s | +%d -%d\n", f->status, f->path, f->added, f->removed);
	}
	if (git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, diff_line, p) < 0)
		rc = gerr(e, "write the diff");
	git_diff_free(diff);
	git_tree_free(new);
	return rc;
}

/* The directory git runs hooks from (core.hooksPath, else <common dir>/hooks). */
static void
hooks_dir(git_repository *git, struct buf *out)
{
	git_config *cfg = NULL;
	const char *v = NULL;

	if (git_repository_config_snapshot(&cfg, git) == 0 &&
	    git_config_get_string(&v, cfg, "core.hooksPath") == 0 && *v) {
		if (*v != '/')
			buf_adds(out, git_repository_workdir(git));
		buf_addf(out, "%s/", v);
	} else {
		buf_addf(out, "%shooks/", git_repository_commondir(git));
	}
	git_config_free(cfg);
}

/* Note the commit hooks the repository has, which libgit2 will not run. */
static void
note_hooks(git_repository *git, struct repo_commit_plan *p)
{
	static const char *const names[] = { "pre-commit", "prepare-commit-msg", "commit-msg" };
	struct buf dir = BUF_INIT, path = BUF_INIT, found = BUF_INIT;
	size_t i;

	hooks_dir(git, &dir);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s%s", dir.data, names[i]);
		if (access(path.data, X_OK) == 0)
			buf_addf(&found, "%s%s", found.len ? ", " : "", names[i]);
	}
	if (found.len)
		buf_addf(&p->notes, "git hooks not run (hearth commits with libgit2): %s\n", found.data);
	buf_release(&dir);
	buf_release(&path);
	buf_release(&found);
}

/* Plan a commit of paths (see repo/commit.h). */
int
repo_commit_plan(git_repository *git, const char *const *paths, size_t n,
	       struct repo_commit_plan *p, struct err *e)
{
	git_tree *old = NULL;
	git_index *idx = NULL;
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof *p);
	if (git_repository_is_bare(git) || !git_repository_workdir(git))
		return err_set(e, "commit: this repository has no work tree");
	if (git_repository_state(git) != GIT_REPOSITORY_STATE_NONE)
		return err_set(e, "commit: a merge, rebase, cherry-pick or revert is in progress; "
			       "finish it with git first");
	if (head_tree(git, p, &old, e) < 0)
		return -1;
	if (git_index_new(&idx) < 0 || (old && git_index_read_tree(idx, old) < 0))
		rc = gerr(e, "make an index");
	for (i = 0; rc == 0 && i < n; i++)
		rc = stage_path(git, idx, paths[i], p, e);
	if (rc == 0 && git_index_write_tree_to(&p->tree, idx, git) < 0)
		rc = gerr(e, "write the tree");
	if (rc == 0)
		rc = describe(git, old, p, e);
	if (rc == 0 && p->nfiles)
		note_hooks(git, p);
	git_index_free(idx);
	git_tree_free(old);
	return rc;
}

/* A config value, or NULL (cfg is a snapshot). */
static const char *
config_str(git_config *cfg, const char *key)
{
	const char *v = NULL;

	return cfg && git_config_get_string(&v, cfg, key) == 0 && *v ? v : NULL;
}

/* The author or committer: GIT_<WHO>_NAME / _EMAIL, else user.name / user.email. */
static int
signature(git_repository *git, const char *who, git_signature **out, struct err *e)
{
	git_config *cfg = NULL;
	char key[40];
	const char *name, *email;
	int rc = 0;

	git_repository_config_snapshot(&cfg, git);
	snprintf(key, sizeof key, "GIT_%s_NAME", who);
	name = getenv(key) && *getenv(key) ? getenv(key) : config_str(cfg, "user.name");
	snprintf(key, sizeof key, "GIT_%s_EMAIL", who);
	email = getenv(key) && *getenv(key) ? getenv(key) : config_str(cfg, "user.email");
	if (!name || !email)
		rc = err_set(e, "commit: no git identity (user.%s is not set): run git config --global "
			     "user.name \"Your Name\" and git config --global user.email you@example.com",
			     name ? "email" : "name");
	else if (git_signature_now(out, name, email) < 0)
		rc = gerr(e, "git identity");
	git_config_free(cfg);
	return rc;
}

/* HEAD is where the plan found it. */
static int
head_unmoved(git_repository *git, const struct repo_commit_plan *p, struct err *e)
{
	git_oid now;
	int unborn = git_repository_head_unborn(git);

	if (unborn == 1 && p->unborn)
		return 0;
	if (unborn == 0 && !p->unborn && git_reference_name_to_id(&now, git, "HEAD") == 0 &&
	    git_oid_equal(&now, &p->head))
		return 0;
	return err_set(e, "commit: HEAD moved since the commit was prepared; run /commit again");
}

/* The user's index, fresh from disk, when it is not locked and has no conflicts. */
static int
user_index(git_repository *git, git_index **idx, struct err *e)
{
	struct buf lock = BUF_INIT;
	int locked;

	buf_addf(&lock, "%sindex.lock", git_repository_path(git));
	locked = access(lock.data, F_OK) == 0;
	if (locked)
		err_set(e, "commit: the index is locked (%s exists): another git command is "
			"running; wait for it, or remove the file if none is", lock.data);
	buf_release(&lock);
	if (locked)
		return -1;
	if (git_repository_index(idx, git) < 0 || git_index_read(*idx, 1) < 0)
		return gerr(e, "read the index");
	if (git_index_has_conflicts(*idx)) {
		git_index_free(*idx);
		*idx = NULL;
		return err_set(e, "commit: the index has unresolved conflicts; resolve them first");
	}
	return 0;
}

/* Stage path as committed in tree: from disk when it still matches (stat data), else the entry. */
static int
stage_committed(git_index *idx, git_tree *tree, const char *path)
{
	git_tree_entry *te = NULL;
	const git_index_entry *now;
	git_index_entry ent;
	int rc;

	if (git_tree_entry_bypath(&te, tree, path) < 0)
		return git_index_remove_bypath(idx, path);
	rc = git_index_add_bypath(idx, path);
	now = git_index_get_bypath(idx, path, 0);
	if (rc < 0 || !now || !git_oid_equal(&now->id, git_tree_entry_id(te)) ||
	    now->mode != (uint32_t)git_tree_entry_filemode(te)) {
		memset(&ent, 0, sizeof ent);
		ent.path = path;
		ent.mode = git_tree_entry_filemode(te);
		git_oid_cpy(&ent.id, git_tree_entry_id(te));
		rc = git_index_add(idx, &ent);
	}
	git_tree_entry_free(te);
	return rc;
}

/* Stage the plan's paths as committed and write the index. */
static int
update_index(git_repository *git, git_index *idx, const struct repo_commit_plan *p,
	     const git_oid *id, struct err *e)
{
	git_tree *tree = NULL;
	char sid[8];
	size_t i;
	int rc = git_tree_lookup(&tree, git, &p->tree);

	for (i = 0; rc == 0 && i < p->nfiles; i++)
		rc = stage_committed(idx, tree, p->files[i].path);
	if (rc == 0)
		rc = git_index_write(idx);
	git_tree_free(tree);
	if (rc < 0) {
		const git_error *ge = git_error_last();

		git_oid_tostr(sid, sizeof sid, id);
		return err_set(e, "commit: committed %s, but the index was not updated (%s); run "
			       "git reset -q -- <the files> to resync it", sid,
			       ge && ge->message ? ge->message : "libgit2 error");
	}
	return 0;
}

/* Make the commit (see repo/commit.h). */
int
repo_commit_commit(git_repository *git, const struct repo_commit_plan *p, const char *message,
		 git_oid *out, struct err *e)
{
	git_signature *author = NULL, *committer = NULL;
	git_buf msg = { NULL, 0, 0 };
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_index *idx = NULL;
	git_oid id;
	int rc;

	if (!p->nfiles)
		return err_set(e, "commit: nothing to commit");
	rc = signature(git, "AUTHOR", &author, e);
	if (rc == 0)
		rc = signature(git, "COMMITTER", &committer, e);
	if (rc == 0 && (git_message_prettify(&msg, message ? message : "", 0, '#') < 0 || !msg.size))
		rc = err_set(e, "commit: the message is empty; give one");
	if (rc == 0)
		rc = head_unmoved(git, p, e);
	if (rc == 0)
		rc = user_index(git, &idx, e);
	if (rc == 0 && (git_tree_lookup(&tree, git, &p->tree) < 0 ||
			(!p->unborn && git_commit_lookup(&parent, git, &p->head) < 0)))
		rc = gerr(e, "read the plan");
	if (rc == 0 && git_commit_create(&id, git, "HEAD", author, committer, NULL, msg.ptr, tree,
					 p->unborn ? 0 : 1, (const git_commit **)&parent) < 0)
		rc = gerr(e, "write the commit");
	if (rc == 0 && out)
		git_oid_cpy(out, &id);
	if (rc == 0)
		rc = update_index(git, idx, p, &id, e);
	git_index_free(idx);
	git_tree_free(tree);
	git_commit_free(parent);
	git_buf_dispose(&msg);
	git_signature_free(author);
	git_signature_free(committer);
	return rc;
}

/* Free a plan. */
void
repo_commit_plan_free(struct repo_commit_plan *p)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		free(p->files[i].path);
	free(p->files);
	buf_release(&p->diff);
	buf_release(&p->stat);
	buf_release(&p->notes);
	memset(p, 0, sizeof *p);
}

/* Code points in s[0..n). */
static size_t
utf8_chars(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Byte length of the longest prefix of s (a line) that fits the summary limit at a word. */
static size_t
summary_cut(const char *s, size_t n)
{
	size_t i, chars = 0, space = 0;

	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++chars > REPO_COMMIT_SUMMARY_MAX)
			break;
		if (s[i] == ' ')
			space = i;
	}
	if (i >= n)
		return n;
	if (space)
		return space;
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* Whether line (n bytes) starts with a "commit message:" label; sets *skip past it. */
static int
is_label(const char *line, size_t n, size_t *skip)
{
	static const char label[] = "commit message:";
	size_t l = sizeof label - 1;

	if (n < l || strncasecmp(line, label, l) != 0)
		return 0;
	for (*skip = l; *skip < n && line[*skip] == ' '; (*skip)++)
		;
	return 1;
}

/* Drop control bytes other than '\n' and '\t' (a model's draft may hold escapes). */
static void
drop_controls(struct buf *b)
{
	size_t i, j = 0;

	for (i = 0; i < b->len; i++) {
		unsigned char ch = (unsigned char)b->data[i];
		if (ch >= 0x20 && ch != 0x7f)
			b->data[j++] = b->data[i];
		else if (ch == '\n' || ch == '\t')
			b->data[j++] = b->data[i];
	}
	buf_setlen(b, j);
}

/* Tidy a drafted message (see repo/commit.h). */
void
repo_commit_tidy_message(const char *text, struct buf *out)
{
	const char *s = strstr(text, "</think>") ? strstr(text, "</think>") + 8 : text;
	struct buf body = BUF_INIT;
	size_t first = 1, skip, cut;

	buf_reset(out);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s), len = n;

		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
			len--;
		if (len >= 3 && strncmp(s, "```", 3) == 0) {
			/* a fence line: dropped */
		} else if (first && !len) {
			/* leading blank line */
		} else if (first && is_label(s, len, &skip)) {
			if (skip < len) {
				buf_add(out, s + skip, len - skip);
				first = 0;
			}
		} else if (first) {
			buf_add(out, s, len);
			first = 0;
		} else {
			buf_add(&body, s, len);
			buf_addch(&body, '\n');
		}
		s += n + (nl != NULL);
	}
	if (utf8_chars(out->data, out->len) > REPO_COMMIT_SUMMARY_MAX) {
		cut = summary_cut(out->data, out->len);
		skip = cut < out->len && out->data[cut] == ' ' ? cut + 1 : cut;
		buf_insert(&body, 0, "\n", 1);
		buf_insert(&body, 0, out->data + skip, out->len - skip);
		buf_setlen(out, cut);
	}
	buf_rtrim(&body);
	skip = 0;
	while (skip < body.len && body.data[skip] == '\n')
		skip++;
	if (out->len && body.len > skip)
		buf_addf(out, "\n\n%s", body.data + skip);
	buf_release(&body);
	drop_controls(out);
}
