/* base/keep: one object per thread, kept between uses (see base/keep.h). */
#include "base/keep.h"

static pthread_mutex_t keep_mu = PTHREAD_MUTEX_INITIALIZER;

/* The key of k, made on first use: 1, or 0 when it cannot be made. */
static int
keep_key(struct keep *k)
{
	int made = atomic_load(&k->made);

	if (made)
		return made > 0;
	pthread_mutex_lock(&keep_mu);
	if (!atomic_load(&k->made))
		atomic_store(&k->made, pthread_key_create(&k->key, k->drop) == 0 ? 1 : -1);
	made = atomic_load(&k->made);
	pthread_mutex_unlock(&keep_mu);
	return made > 0;
}

/* See base/keep.h. */
void *
keep_take(struct keep *k)
{
	void *obj;

	if (!keep_key(k) || (obj = pthread_getspecific(k->key)) == NULL)
		return NULL;
	pthread_setspecific(k->key, NULL);
	return obj;
}

/* See base/keep.h. */
void
keep_give(struct keep *k, void *obj)
{
	if (!keep_key(k) || pthread_getspecific(k->key) != NULL ||
	    pthread_setspecific(k->key, obj) != 0)
		k->drop(obj);
}
