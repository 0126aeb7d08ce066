/*
 * ui/app/complete_path: @path completion in the editor (see ui/app/complete_path.h).
 *
 * Works only by inserting at the cursor (editor_insert): completion never
 * removes what was typed, so it needs nothing of the editor's internals
 * beyond its text and cursor.  The candidates are front_attach_complete's lines;
 * their longest common prefix is computed byte-wise and cut back to a
 * UTF-8 character boundary.
 */
#include "ui/app/complete_path.h"

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

/* Tab after an @word. */
enum editor_result
app_complete_path_tab(struct editor *ed, struct buf *notice)
{
	struct buf prefix = BUF_INIT, list = BUF_INIT;
	size_t s = ed->cur, n, common;
	enum editor_result r = EDITOR_DONE;

	if (!ed->complete_root)
		return EDITOR_IGNORED;
	while (s > 0 && !strchr(" \t\n(", ed->text.data[s - 1]))
		s--;
	if (s == ed->cur || ed->text.data[s] != '@')
		return EDITOR_IGNORED;
	buf_add(&prefix, ed->text.data + s + 1, ed->cur - s - 1);
	n = front_attach_complete(ed->complete_root, prefix.data ? prefix.data : "", &list);
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
