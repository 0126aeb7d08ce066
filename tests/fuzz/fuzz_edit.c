/*
 * fuzz_edit: libFuzzer harness for the edit applier (tools/edit.c, the
 * `edit` tool run for real in a private workspace).  Input: one flag
 * byte (bit 0 replace_all, bits 1-2 the file's extension: .txt .c .py
 * .md, so the syntax check runs on some), then the file's content,
 * old_text and new_text separated by NUL bytes.  The tool's preview runs
 * first, then the tool itself.  Checks: it finishes once; a failure says
 * why; on success the file holds new_text (in its LF or CRLF form), a
 * single replacement changes the length by exactly |new|-|old| (in one of
 * the two forms), a UTF-8 BOM is kept, and a refused edit leaves the file as it
 * was.
 *
 * dict: "\x0d\x0a"
 * dict: "\xef\xbb\xbf"
 * dict: "\x00"
 * dict: "\x09"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "llm/tool.h"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void
cleanup(void)
{
	char cmd[128];

	if (root[0] && snprintf(cmd, sizeof cmd, "rm -rf '%s'", root) < (int)sizeof cmd)
		(void)system(cmd);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *real;

	(void)argc;
	(void)argv;
	snprintf(root, sizeof root, "%s/hearth-fuzz-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	real = realpath(root, NULL); /* the tool wants the canonical root */
	if (!real || snprintf(root, sizeof root, "%s", real) >= (int)sizeof root)
		abort();
	free(real);
	return 0;
}

/* tool_done_fn: count completions. */
static void
on_done(struct tool_job *job, void *arg)
{
	int *n = arg;

	(void)job;
	FUZZ_CHECK(++*n == 1);
}

/*
 * The two forms the tool may look for: lf = s with CRLF → LF (how the
 * model's text is taken), crlf = lf with every LF → CRLF (for a CRLF file;
 * a CR before an LF in lf is text of its own, so "\r\r\n" comes back).
 */
static void
forms(const char *s, struct buf *lf, struct buf *crlf)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!(s[i] == '\r' && s[i + 1] == '\n'))
			buf_addch(lf, s[i]);
	for (i = 0; i < lf->len; i++) {
		if (lf->data[i] == '\n')
			buf_addch(crlf, '\r');
		buf_addch(crlf, lf->data[i]);
	}
}

/* Whether hay holds needle. */
static int
has(const struct buf *hay, const char *needle, size_t n)
{
	size_t i;

	if (!n)
		return 1;
	for (i = 0; i + n <= hay->len; i++)
		if (!memcmp(hay->data + i, needle, n))
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ext[] = { "txt", "c", "py", "md" };
	struct tool_env env;
	struct tool_job job;
	struct buf path = BUF_INIT, after = BUF_INIT, preview = BUF_INIT;
	struct buf ol = BUF_INIT, oc = BUF_INIT, nl = BUF_INIT, nc = BUF_INIT;
	const struct tool *t = tool_find("edit");
	const char *s = (const char *)data + 1, *end = (const char *)data + size, *z1, *z2;
	struct err e = ERR_INIT;
	char *old_text, *new_text, name[16];
	cJSON *args;
	FILE *f;
	int flags, done = 0;
	size_t flen;

	FUZZ_CHECK(t != NULL);
	if (size < 3 || !(z1 = memchr(s, 0, (size_t)(end - s))))
		return 0;
	z2 = memchr(z1 + 1, 0, (size_t)(end - z1 - 1));
	flags = data[0];
	flen = (size_t)(z1 - s);
	old_text = strndup(z1 + 1, z2 ? (size_t)(z2 - z1 - 1) : (size_t)(end - z1 - 1));
	new_text = strndup(z2 ? z2 + 1 : "", z2 ? (size_t)(end - z2 - 1) : 0);
	if (!old_text || !new_text)
		abort();

	snprintf(name, sizeof name, "f.%s", ext[(flags >> 1) & 3]);
	buf_addf(&path, "%s/%s", root, name);
	if (!(f = fopen(path.data, "wb")) || fwrite(s, 1, flen, f) != flen || fclose(f) != 0)
		abort();

	json_init();
	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "path", name);
	cJSON_AddStringToObject(args, "old_text", old_text);
	cJSON_AddStringToObject(args, "new_text", new_text);
	cJSON_AddBoolToObject(args, "replace_all", flags & 1);
	memset(&env, 0, sizeof env);
	env.root = root;
	env.syntax_reject = (flags >> 3) & 1;

	(void)tool_preview(t, args, &env, &preview);
	tool_job_init(&job, t, &env, on_done, &done);
	t->start(&job, args);
	FUZZ_CHECK(done == 1);
	FUZZ_CHECK(job.out.len > 0);
	FUZZ_CHECK(buf_read_file(&after, path.data, 64u << 20, &e) == 0);
	if (job.is_error) {
		FUZZ_CHECK(after.len == flen && !memcmp(after.data, s, flen));
	} else {
		forms(old_text, &ol, &oc);
		forms(new_text, &nl, &nc);
		FUZZ_CHECK(has(&after, nl.data, nl.len) || has(&after, nc.data, nc.len));
		if (!(flags & 1))
			FUZZ_CHECK(after.len + ol.len == flen + nl.len || after.len + oc.len == flen + nc.len);
		if (flen >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
			FUZZ_CHECK(after.len >= 3 && !memcmp(after.data, "\xef\xbb\xbf", 3));
	}
	tool_job_release(&job);
	cJSON_Delete(args);
	free(old_text);
	free(new_text);
	buf_release(&path);
	buf_release(&after);
	buf_release(&preview);
	buf_release(&ol);
	buf_release(&oc);
	buf_release(&nl);
	buf_release(&nc);
	return 0;
}
