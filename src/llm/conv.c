/* llm/conv: provider-neutral transcript storage (see llm/conv.h). */
#include "llm/conv.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

/* Empty transcript. */
void
conv_init(struct conv *c)
{
	memset(c, 0, sizeof *c);
}

/* Free one block's strings. */
static void
conv_block_release(struct conv_block *b)
{
	free(b->text);
	free(b->id);
	free(b->name);
	free(b->provider);
	free(b->signature);
}

/* Free one message. */
static void
conv_msg_release(struct conv_msg *m)
{
	size_t i;

	for (i = 0; i < m->nblocks; i++)
		conv_block_release(&m->blocks[i]);
	free(m->blocks);
}

/* Free everything; c is left empty. */
void
conv_release(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->nmsgs; i++)
		conv_msg_release(&c->msgs[i]);
	free(c->msgs);
	free(c->system);
	conv_init(c);
}

/* Set the system prompt. */
void
conv_set_system(struct conv *c, const char *system)
{
	free(c->system);
	c->system = xstrdup(system);
}

/* Grow and append an empty message. */
static atomic_ulong conv_gen_next = 1; /* the next message generation (0 is "not known") */

/* A new message generation (see llm/conv.h). */
void
conv_msg_touch(struct conv_msg *m)
{
	m->gen = atomic_fetch_add(&conv_gen_next, 1);
}

struct conv_msg *
conv_add_msg(struct conv *c, enum conv_role role)
{
	struct conv_msg *m;

	if (c->nmsgs == c->amsgs) {
		c->amsgs = c->amsgs ? c->amsgs * 2 : 16;
		c->msgs = xrealloc(c->msgs, c->amsgs * sizeof *c->msgs);
	}
	m = &c->msgs[c->nmsgs++];
	memset(m, 0, sizeof *m);
	m->role = role;
	conv_msg_touch(m);
	return m;
}

/* The newest message. */
struct conv_msg *
conv_last(struct conv *c)
{
	return c->nmsgs ? &c->msgs[c->nmsgs - 1] : NULL;
}

/* Append a block with copied strings. */
struct conv_block *
conv_add_block(struct conv_msg *m, enum conv_kind kind, const char *text, const char *id,
	       const char *name)
{
	struct conv_block *b;

	if (m->nblocks == m->ablocks) {
		m->ablocks = m->ablocks ? m->ablocks * 2 : 4;
		m->blocks = xrealloc(m->blocks, m->ablocks * sizeof *m->blocks);
	}
	b = &m->blocks[m->nblocks++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->text = xstrdup(text ? text : "");
	b->id = xstrdup(id);
	b->name = xstrdup(name);
	conv_msg_touch(m);
	return b;
}

/* A user turn of plain text. */
void
conv_add_user_text(struct conv *c, const char *text)
{
	conv_add_block(conv_add_msg(c, CONV_USER), CONV_TEXT, text, NULL, NULL);
}

/* Remove the newest message. */
void
conv_pop(struct conv *c)
{
	if (c->nmsgs)
		conv_msg_release(&c->msgs[--c->nmsgs]);
}

/* Join the visible text of a message. */
void
conv_msg_text(const struct conv_msg *m, struct buf *out)
{
	size_t i;

	for (i = 0; i < m->nblocks; i++)
		if (m->blocks[i].kind == CONV_TEXT)
			buf_adds(out, m->blocks[i].text);
}

/* A user message with text starts a turn; tool results alone do not. */
int
conv_msg_is_query(const struct conv_msg *m)
{
	size_t i;

	for (i = 0; m->role == CONV_USER && i < m->nblocks; i++)
		if (m->blocks[i].kind == CONV_TEXT)
			return 1;
	return 0;
}

/* Steal src's messages (resuming a session into a fresh transcript). */
void
conv_move_msgs(struct conv *dst, struct conv *src)
{
	size_t i;

	for (i = 0; i < src->nmsgs; i++) {
		struct conv_msg *m = conv_add_msg(dst, src->msgs[i].role);

		*m = src->msgs[i];
	}
	free(src->msgs);
	src->msgs = NULL;
	src->nmsgs = src->amsgs = 0;
}
