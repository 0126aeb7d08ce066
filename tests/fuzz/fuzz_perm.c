/*
 * fuzz_perm: libFuzzer harness for what judges a shell command line the
 * model wrote: perm_segments (perm/perm.c: the simple commands the rules
 * see, with quotes, $'...', comments and here-documents) and the
 * read-only classifier (tools/bash_readonly.c).  The input is the command
 * line.  Checks: the segments are as many as counted, each non-empty and
 * NUL-terminated inside the buffer; a command judged read-only has at least
 * one segment.
 *
 * dict: "<<"
 * dict: "<<-"
 * dict: "<<<"
 * dict: "'EOF'"
 * dict: "\x0aEOF\x0a"
 * dict: "$'"
 * dict: "$("
 * dict: "$(("
 * dict: "$["
 * dict: " # "
 * dict: "\\\x0a"
 * dict: "&&"
 * dict: "||"
 * dict: "2>&1"
 * dict: ">/dev/null"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "perm/perm.h"
#include "tools/bash_readonly.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cmd = malloc(size + 1);
	struct buf out = BUF_INIT;
	size_t n, i;
	const char *s;

	if (!cmd)
		return 0;
	memcpy(cmd, data, size);
	cmd[size] = '\0'; /* a command line is a C string: cut at the first NUL */
	n = perm_segments(cmd, &out);
	for (i = 0, s = out.data; i < n; i++) {
		size_t len;

		if (!s || s >= out.data + out.len)
			abort(); /* fewer segments than counted */
		len = strlen(s);
		if (len == 0 || s + len >= out.data + out.len + 1)
			abort(); /* an empty segment, or one running past the buffer */
		s += len + 1;
	}
	if (n && s != out.data + out.len)
		abort(); /* bytes after the last counted segment */
	(void)tool_bash_readonly_is_read_only(cmd); /* memory-safe on any line */
	buf_release(&out);
	free(cmd);
	return 0;
}
