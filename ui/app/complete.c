/*
 * ui/app/complete: Tab completion in the editor (see ui/app/complete.h).
 *
 * @path works only by inserting at the cursor (editor_insert): it never
 * removes what was typed, so it needs nothing of the editor's internals
 * beyond its text and cursor.  The candidates are front_attach_complete's lines;
 * their longest common prefix is computed byte-wise and cut back to a
 * UTF-8 character boundary.  /command candidates are front_cmd_complete's
 * lines (names without the '/'); the whole text is replaced (editor_set)
 * only when the completion reaches at least as far as what was typed.
 */
#include "ui/app/complete.h"

#include <string.h>

#include "front/attach.h"

/* Length of the common prefix of the lines of list. */
static size_t
common_prefix(const char *list)
{
	size_t common = strcspn(list, "\n"), len;
	const char *p;

	for (p = list; *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		while (common && (common > len || memcmp(p, list, common)))
			common--;
	}
	while (common && ((unsigned char)list[common] & 0xC0) == 0x80)
		common--;
	return common;
}

/* The candidate list as a notice line. */
static void
list_notice(const char *list, size_t n, struct buf *notice)
{
	const char *p = list;
	size_t i, len;

	for (i = 0; *p && i < APP_COMPLETE_PATH_LIST; i++, p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		buf_addf(notice, "%s@%.*s", i ? "  " : "", (int)len, p);
	}
	if (n > APP_COMPLETE_PATH_LIST)
		buf_addf(notice, "  … %zu more", n - APP_COMPLETE_PATH_LIST);
}

/* Tab after an @word (EDITOR_IGNORED: the cursor is not after one). */
static enum editor_result
complete_path(struct editor *ed, const char *root, struct buf *notice)
{
	struct buf prefix = BUF_INIT, list = BUF_INIT;
	size_t s = ed->cur, n, common;
	enum editor_result r = EDITOR_DONE;

	if (!root)
		return EDITOR_IGNORED;
	while (s > 0 && !strchr(" \t\n(", ed->text.data[s - 1]))
		s--;
	if (s == ed->cur || ed->text.data[s] != '@')
		return EDITOR_IGNORED;
	buf_add(&prefix, ed->text.data + s + 1, ed->cur - s - 1);
	n = front_attach_complete(root, prefix.data ? prefix.data : "", &list);
	if (n) {
		common = common_prefix(list.data);
		if (common > prefix.len)
			editor_insert(ed, list.data + prefix.len, common - prefix.len);
		if (n == 1 && list.data[common - 1] != '/')
			editor_insert(ed, " ", 1);
		if (n > 1 && notice) {
			list_notice(list.data, n, notice);
			r = EDITOR_NOTICE;
		}
	}
	buf_release(&prefix);
	buf_release(&list);
	return r;
}

/* Tab: complete "/prefix" from the registry (several: their common prefix, and a list). */
static enum editor_result
complete_cmd(struct editor *ed, const struct front_cmd *cmds, struct buf *notice)
{
	struct buf list = BUF_INIT, line = BUF_INIT;
	size_t common, n = 0, len;
	const char *p;

	if (!cmds || !ed->text.len || ed->text.data[0] != '/' || ed->cur != ed->text.len ||
	    strpbrk(ed->text.data, " \t\n"))
		return EDITOR_DONE;
	front_cmd_complete(cmds, ed->text.data + 1, &list);
	common = strcspn(list.data, "\n");
	for (p = list.data; *p; p += len + (p[len] == '\n'), n++) {
		len = strcspn(p, "\n");
		while (common && (common > len || memcmp(p, list.data, common)))
			common--;
		buf_addf(&line, "%s/%.*s", n ? "  " : "", (int)len, p);
	}
	if (n > 1 && notice)
		buf_add(notice, line.data, line.len);
	buf_setlen(&line, 0);
	buf_addf(&line, "/%.*s%s", (int)common, list.data, n == 1 ? " " : "");
	if (n && common >= ed->text.len)
		editor_set(ed, line.data);
	buf_release(&list);
	buf_release(&line);
	return n > 1 && notice ? EDITOR_NOTICE : EDITOR_DONE;
}

/* Tab: @path first, then /command. */
enum editor_result
app_complete_tab(struct editor *ed, const char *root, const struct front_cmd *cmds, struct buf *notice)
{
	enum editor_result r = complete_path(ed, root, notice);

	return r != EDITOR_IGNORED ? r : complete_cmd(ed, cmds, notice);
}
