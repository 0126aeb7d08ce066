/*
 * fuzz_session: libFuzzer harness for the session reader (session/read.c,
 * line.c, session.c, journal.c, list.c, export.c).  The input is a
 * session file.  It is loaded (session_load), resumed into a conversation
 * the way `hearth -r FILE` does (session_journal_resume), listed from a
 * sessions directory under a private XDG_STATE_HOME (session_list_list),
 * and exported as Markdown and as HTML.  Checks: a failure says why;
 * every loaded message has an entry id and a known role; a listing's
 * first prompt is one line of at most 80 bytes plus an ellipsis; the
 * HTML export is valid UTF-8; everything frees cleanly.
 *
 * dict: "{\"id\":\""
 * dict: "\"parent\":"
 * dict: "\"type\":\"message\""
 * dict: "\"type\":\"meta\""
 * dict: "\"type\":\"notice\""
 * dict: "\"message\":{\"role\":\"assistant\",\"blocks\":["
 * dict: "{\"kind\":\"tool_call\",\"id\":\"c1\",\"name\":\"read\",\"args\":"
 * dict: "{\"kind\":\"tool_result\",\"id\":\"c1\",\"text\":"
 * dict: "{\"kind\":\"reasoning\",\"text\":\"\",\"signature\":"
 * dict: "{\"kind\":\"image\""
 * dict: "\"is_error\":true"
 * dict: "\"aborted\":true"
 * dict: "\"forked_from\":"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "llm/conv.h"
#include "session/export.h"
#include "session/journal.h"
#include "session/list.h"
#include "session/session.h"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WS "/fuzz/ws"

static char state_dir[64];
static struct buf listed = BUF_INIT;  /* the one session file of WS's sessions directory */
static struct buf exported = BUF_INIT; /* where the HTML export goes */

/* Remove the private state directory. */
static void
cleanup(void)
{
	char cmd[128];

	if (state_dir[0] && snprintf(cmd, sizeof cmd, "rm -rf '%s'", state_dir) < (int)sizeof cmd)
		(void)system(cmd);
}

/* A private XDG_STATE_HOME with WS's sessions directory in it. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct buf dir = BUF_INIT, cmd = BUF_INIT;
	struct err e = ERR_INIT;

	(void)argc;
	(void)argv;
	snprintf(state_dir, sizeof state_dir, "%s/hearth-fuzz-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(state_dir) || setenv("XDG_STATE_HOME", state_dir, 1) < 0)
		abort();
	atexit(cleanup);
	if (session_dir(WS, &dir, &e) < 0)
		abort();
	buf_addf(&cmd, "mkdir -p '%s'", dir.data);
	if (system(cmd.data) != 0)
		abort();
	buf_addf(&listed, "%s/20260101-000000-000-0000aaaa.jsonl", dir.data);
	buf_addf(&exported, "%s/export.html", state_dir);
	buf_release(&dir);
	buf_release(&cmd);
	return 0;
}

/* Write data to path (replacing it). */
static void
put_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
}

static void
check_conv(const struct conv *c)
{
	size_t i;

	for (i = 0; i < c->nmsgs; i++)
		FUZZ_CHECK(c->msgs[i].role == CONV_USER || c->msgs[i].role == CONV_ASSISTANT);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_loaded l;
	struct session_journal j;
	struct session_list_info *v = NULL;
	struct buf warnings = BUF_INIT, md = BUF_INIT, html = BUF_INIT;
	struct conv conv;
	struct err e = ERR_INIT;
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path);
	size_t n = 0, i;

	/* Load and export. */
	if (session_load(path, &l, &warnings, &e) < 0) {
		FUZZ_CHECK(e.msg[0]);
	} else {
		check_conv(&l.conv);
		for (i = 0; i < l.conv.nmsgs; i++)
			FUZZ_CHECK(l.ids[i] && l.ids[i][0]);
		session_export_md(&l, "fuzz", &md);
		FUZZ_CHECK(md.len > 0);
	}
	session_loaded_release(&l);
	buf_release(&md);
	err_clear(&e);

	/* Resume it (appends a '\n' to a torn last line, in memory). */
	conv_init(&conv);
	session_journal_init(&j, WS, "http://127.0.0.1:8080");
	if (session_journal_resume(&j, path, &conv, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	else
		check_conv(&conv);
	session_journal_release(&j);
	conv_release(&conv);
	close(fd);
	err_clear(&e);

	/* List it and export it as HTML. */
	put_file(listed.data, data, size);
	if (session_list_list(WS, &v, &n, &e) < 0) {
		FUZZ_CHECK(e.msg[0]);
	} else {
		FUZZ_CHECK(n <= 1);
		for (i = 0; i < n; i++) {
			FUZZ_CHECK(v[i].first_prompt && !strchr(v[i].first_prompt, '\n'));
			FUZZ_CHECK(strlen(v[i].first_prompt) <= 80 + 3);
		}
		session_list_free(v, n);
	}
	err_clear(&e);
	if (session_export_file(listed.data, exported.data, NULL, &e) < 0) {
		FUZZ_CHECK(e.msg[0]);
	} else {
		FUZZ_CHECK(buf_read_file(&html, exported.data, 64u << 20, &e) == 0);
		FUZZ_CHECK(fuzz_utf8_valid(html.data, html.len));
	}
	buf_release(&html);
	buf_release(&warnings);
	return 0;
}
