/*
 * repo/info: branch, upstream and dirty-file summary through libgit2.
 *
 * One pass: open (searching upward from root), HEAD, upstream, status.
 * Each step that fails leaves its fields empty rather than failing the
 * whole summary: a prompt with less git detail is better than none.  The
 * status list is walked twice to keep changed paths ahead of untracked
 * ones in gi->paths.  Rendering escapes control bytes in paths, so a file
 * name with a newline cannot break the prompt or the status line.
 */
#include "repo/info.h"

#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "base/xmalloc.h"

/* Initialise libgit2 once, on first use. */
static void
lib_init(void)
{
	static int done;

	if (!done) {
		git_libgit2_init();
		done = 1;
	}
}

/* The branch HEAD points at, from the symbolic ref (works when unborn). */
static char *
head_branch(git_repository *repo)
{
	git_reference *ref = NULL;
	const char *t;
	char *name = NULL;

	if (git_reference_lookup(&ref, repo, "HEAD") < 0)
		return NULL;
	t = git_reference_symbolic_target(ref);
	if (t && !strncmp(t, "refs/heads/", 11))
		name = xstrdup(t + 11);
	git_reference_free(ref);
	return name;
}

/*
 * The upstream's display name ("origin/main") and ref name from the
 * branch's config (branch.B.remote, branch.B.merge) with the default
 * refspec.  Not git_branch_upstream: libgit2 1.5 leaks PCRE match data in
 * the remote lookup behind it.  0 when there is an upstream.
 */
static int
upstream_of(git_repository *repo, const char *branch, struct buf *name, struct buf *ref)
{
	git_config *cfg = NULL;
	git_buf remote = GIT_BUF_INIT, merge = GIT_BUF_INIT;
	struct buf key = BUF_INIT;
	int rc = -1;

	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return -1;
	buf_addf(&key, "branch.%s.remote", branch);
	if (git_config_get_string_buf(&remote, cfg, key.data) < 0)
		goto out;
	buf_reset(&key);
	buf_addf(&key, "branch.%s.merge", branch);
	if (git_config_get_string_buf(&merge, cfg, key.data) < 0 ||
	    strncmp(merge.ptr, "refs/heads/", 11))
		goto out;
	if (!strcmp(remote.ptr, ".")) {
		buf_adds(name, merge.ptr + 11);
		buf_adds(ref, merge.ptr);
	} else {
		buf_addf(name, "%s/%s", remote.ptr, merge.ptr + 11);
		buf_addf(ref, "refs/remotes/%s", name->data);
	}
	rc = 0;
out:
	git_buf_dispose(&remote);
	git_buf_dispose(&merge);
	buf_release(&key);
	git_config_free(cfg);
	return rc;
}

/* Upstream name and ahead/behind counts of the current branch. */
static void
read_upstream(git_repository *repo, git_reference *head, struct repo_info *gi)
{
	struct buf name = BUF_INIT, ref = BUF_INIT;
	const git_oid *a = git_reference_target(head);
	git_oid b;

	if (gi->branch && upstream_of(repo, gi->branch, &name, &ref) == 0) {
		gi->upstream = buf_detach(&name, NULL);
		if (!a || git_reference_name_to_id(&b, repo, ref.data) < 0 ||
		    git_graph_ahead_behind(&gi->ahead, &gi->behind, repo, a, &b) < 0)
			gi->ahead = gi->behind = 0;
	}
	buf_release(&name);
	buf_release(&ref);
}

/* State, branch, short sha and upstream from HEAD. */
static int
read_head(git_repository *repo, struct repo_info *gi, struct err *e)
{
	git_reference *head = NULL;
	const git_oid *oid;
	int rc;

	gi->branch = head_branch(repo);
	if (git_repository_head_unborn(repo) == 1) {
		gi->state = REPO_INFO_UNBORN;
		return 0;
	}
	rc = git_repository_head(&head, repo);
	if (rc < 0) {
		const git_error *ge = git_error_last();
		return err_set(e, "git: cannot read HEAD: %s", ge ? ge->message : "unknown error");
	}
	oid = git_reference_target(head);
	if (oid)
		git_oid_tostr(gi->head, 8, oid);
	if (git_repository_head_detached(repo) == 1) {
		gi->state = REPO_INFO_DETACHED;
		free(gi->branch);
		gi->branch = NULL;
	} else {
		gi->state = REPO_INFO_BRANCH;
		read_upstream(repo, head, gi);
	}
	git_reference_free(head);
	return 0;
}

/* One-letter class of a status entry; 0 to skip it. */
static char
classify(unsigned s)
{
	if (s & GIT_STATUS_CONFLICTED)
		return 'U';
	if (s & GIT_STATUS_INDEX_NEW)
		return 'A';
	if (s & (GIT_STATUS_INDEX_DELETED | GIT_STATUS_WT_DELETED))
		return 'D';
	if (s & (GIT_STATUS_INDEX_RENAMED | GIT_STATUS_WT_RENAMED))
		return 'R';
	if (s & (GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_WT_MODIFIED |
		 GIT_STATUS_INDEX_TYPECHANGE | GIT_STATUS_WT_TYPECHANGE))
		return 'M';
	if (s & GIT_STATUS_WT_NEW)
		return '?';
	return 0;
}

/* Count one entry of class c. */
static void
count(struct repo_info *gi, char c)
{
	switch (c) {
	case 'U': gi->conflicted++; break;
	case 'A': gi->added++; break;
	case 'D': gi->deleted++; break;
	case 'R': gi->renamed++; break;
	case 'M': gi->modified++; break;
	default: gi->untracked++; break;
	}
}

/* The path of an entry, whichever side has it. */
static const char *
entry_path(const git_status_entry *s)
{
	const git_diff_delta *d = s->head_to_index ? s->head_to_index : s->index_to_workdir;

	if (!d)
		return NULL;
	return d->new_file.path ? d->new_file.path : d->old_file.path;
}

/* Count every entry; keep paths, changed ones (pass 0) before untracked (pass 1). */
static void
summarise(git_status_list *list, struct repo_info *gi)
{
	size_t i, n = git_status_list_entrycount(list);
	const git_status_entry *s;
	const char *p;
	int pass;
	char c;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			s = git_status_byindex(list, i);
			c = s ? classify(s->status) : 0;
			if (!c || (c == '?') != pass)
				continue;
			count(gi, c);
			p = entry_path(s);
			if (p && gi->npaths < REPO_INFO_MAX_PATHS) {
				gi->paths[gi->npaths].code = c;
				gi->paths[gi->npaths++].path = xstrdup(p);
			}
		}
}

/* Status of index and work tree, read only, untracked directories not recursed. */
static void
read_status(git_repository *repo, struct repo_info *gi)
{
	git_status_options o;
	git_status_list *list = NULL;

	git_status_options_init(&o, GIT_STATUS_OPTIONS_VERSION);
	o.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	o.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &o) < 0)
		return;
	summarise(list, gi);
	git_status_list_free(list);
	gi->status_ok = 1;
}

/* Fill gi for the repository around root (see repo/info.h). */
int
repo_info_read(const char *root, struct repo_info *gi, struct err *e)
{
	git_repository *repo = NULL;
	int rc;

	lib_init();
	rc = git_repository_open_ext(&repo, root, 0, NULL);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0) {
		const git_error *ge = git_error_last();
		return err_set(e, "git: cannot open the repository at %s: %s", root,
			       ge ? ge->message : "unknown error");
	}
	gi->worktree = git_repository_is_worktree(repo) == 1;
	rc = read_head(repo, gi, e);
	if (git_repository_is_bare(repo))
		gi->state = REPO_INFO_BARE;
	else if (rc == 0)
		read_status(repo, gi);
	git_repository_free(repo);
	return rc;
}

/* Free the strings; back to REPO_INFO_INIT. */
void
repo_info_release(struct repo_info *gi)
{
	struct repo_info empty = REPO_INFO_INIT;
	size_t i;

	free(gi->branch);
	free(gi->upstream);
	for (i = 0; i < gi->npaths; i++)
		free(gi->paths[i].path);
	*gi = empty;
}

/* Append s with control bytes shown as '?'. */
static void
add_safe(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addch(out, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

/* "on branch main, 2 ahead of origin/main" and the like. */
static void
prompt_head(const struct repo_info *gi, struct buf *out)
{
	if (gi->state == REPO_INFO_DETACHED) {
		buf_addf(out, "HEAD detached at %s", gi->head);
		return;
	}
	if (gi->state == REPO_INFO_BARE)
		buf_adds(out, "bare repository (no work tree)");
	if (!gi->branch)
		return;
	buf_adds(out, gi->state == REPO_INFO_BARE ? ", HEAD on branch " : "on branch ");
	add_safe(out, gi->branch);
	if (gi->state == REPO_INFO_UNBORN)
		buf_adds(out, ", no commits yet");
	if (!gi->upstream)
		return;
	if (!gi->ahead && !gi->behind)
		buf_adds(out, ", up to date with ");
	else if (gi->ahead && gi->behind)
		buf_addf(out, ", %zu ahead and %zu behind ", gi->ahead, gi->behind);
	else if (gi->ahead)
		buf_addf(out, ", %zu ahead of ", gi->ahead);
	else
		buf_addf(out, ", %zu behind ", gi->behind);
	add_safe(out, gi->upstream);
}

/* The kept paths of one group (untracked or not), comma-separated. */
static void
prompt_paths(const struct repo_info *gi, struct buf *out, int untracked, size_t total)
{
	size_t i, shown = 0;

	for (i = 0; i < gi->npaths; i++) {
		if ((gi->paths[i].code == '?') != untracked)
			continue;
		buf_adds(out, shown++ ? ", " : " (");
		if (!untracked)
			buf_addf(out, "%c ", gi->paths[i].code);
		add_safe(out, gi->paths[i].path);
	}
	if (shown && shown < total)
		buf_adds(out, ", ...");
	if (shown)
		buf_addch(out, ')');
}

/* Files changed, not counting untracked ones. */
static size_t
changed(const struct repo_info *gi)
{
	return gi->modified + gi->added + gi->deleted + gi->renamed + gi->conflicted;
}

/* The prompt paragraph (see repo/info.h). */
void
repo_info_prompt(const struct repo_info *gi, struct buf *out)
{
	size_t c = changed(gi);

	if (gi->state == REPO_INFO_NONE)
		return;
	buf_adds(out, "Git: ");
	prompt_head(gi, out);
	if (gi->worktree)
		buf_adds(out, " (a linked worktree)");
	if (gi->status_ok && !c && !gi->untracked)
		buf_adds(out, "; working tree clean");
	if (gi->status_ok && c) {
		buf_addf(out, "; %zu file%s changed", c, c == 1 ? "" : "s");
		prompt_paths(gi, out, 0, c);
	}
	if (gi->status_ok && gi->untracked) {
		buf_addf(out, "%s%zu untracked", c ? ", " : "; ", gi->untracked);
		prompt_paths(gi, out, 1, gi->untracked);
	}
	buf_adds(out, ".\n");
}

/* The status-line form (see repo/info.h). */
void
repo_info_status(const struct repo_info *gi, struct buf *out)
{
	size_t c = changed(gi);

	if (gi->state == REPO_INFO_NONE)
		return;
	if (gi->state == REPO_INFO_BARE)
		buf_adds(out, "bare");
	else if (gi->state == REPO_INFO_DETACHED)
		buf_addf(out, "@%s", gi->head);
	else if (gi->branch)
		add_safe(out, gi->branch);
	if (gi->state == REPO_INFO_UNBORN)
		buf_adds(out, " \xE2\x88\x85"); /* ∅ */
	if (gi->ahead)
		buf_addf(out, " \xE2\x86\x91%zu", gi->ahead); /* ↑ */
	if (gi->behind)
		buf_addf(out, " \xE2\x86\x93%zu", gi->behind); /* ↓ */
	if (c)
		buf_addf(out, " \xE2\x9C\x9A%zu", c); /* ✚ */
	if (gi->untracked)
		buf_addf(out, " ?%zu", gi->untracked);
}
