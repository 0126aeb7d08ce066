/*
 * ui/app/complete_cmd: /command completion in the editor (see ui/app/complete_cmd.h).
 *
 * The candidates are front_cmd_complete's lines (names without the '/');
 * their longest common prefix is computed byte-wise.  The whole text is
 * replaced (editor_set) only when the completion reaches at least as far
 * as what was typed.
 */
#include "ui/app/complete_cmd.h"

#include <string.h>

/* Tab: complete "/prefix" from the registry (several: their common prefix, and a list). */
enum editor_result
app_complete_cmd_tab(struct editor *ed, const struct front_cmd *cmds, struct buf *notice)
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
