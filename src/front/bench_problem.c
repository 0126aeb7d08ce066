/* front/bench_problem: problems, trees and the counts (see front/bench_problem.h). */
#include "front/bench_problem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/xmalloc.h"

#define BENCH_JSON "bench.json"

/* A copy of s, or of "" for NULL. */
static char *
bp_dup(const char *s)
{
	return xstrdup(s ? s : "");
}

int
front_bench_problem_load(struct front_bench_problem *p, const char *dir, struct err *e)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	struct err je = ERR_INIT;
	cJSON *j = NULL;
	const char *s, *fmt;
	const char *slash;
	int rc = -1;

	memset(p, 0, sizeof *p);
	buf_addf(&path, "%s/%s", dir, BENCH_JSON);
	if (buf_read_file(&text, path.data, 1u << 16, e) < 0)
		goto out;
	if (!(j = json_parse(text.data, text.len, &je)) || !cJSON_IsObject(j)) {
		err_set(e, "%s: %s (fix the file: see docs/bench.md)", path.data,
			j ? "not a JSON object" : je.msg);
		goto out;
	}
	if (!(s = json_str(j, "test")) || !*s) {
		err_set(e, "%s: no \"test\" command (add one, e.g. \"make test\")", path.data);
		goto out;
	}
	fmt = json_str(j, "format");
	if (!fmt || !strcmp(fmt, "unittest"))
		p->format = FRONT_BENCH_UNITTEST;
	else if (!strcmp(fmt, "tap"))
		p->format = FRONT_BENCH_TAP;
	else {
		err_set(e, "%s: \"format\" is \"%s\"; it takes \"unittest\" or \"tap\"", path.data, fmt);
		goto out;
	}
	if (json_long(j, "tests", &p->tests) < 0 || p->tests <= 0) {
		err_set(e, "%s: \"tests\" must be the number of tests (a positive number)", path.data);
		goto out;
	}
	if (json_long(j, "level", &p->level) < 0)
		p->level = 0;
	if (json_long(j, "timeout", &p->timeout_s) < 0 || p->timeout_s <= 0)
		p->timeout_s = 120;
	buf_reset(&path);
	buf_addf(&path, "%s/PROBLEM.md", dir);
	if (access(path.data, R_OK) < 0) {
		err_errno(e, "%s (every problem needs its task there)", path.data);
		goto out;
	}
	p->test = xstrdup(s);
	p->language = bp_dup(json_str(j, "language"));
	p->summary = bp_dup(json_str(j, "summary"));
	p->dir = xstrdup(dir);
	slash = strrchr(dir, '/');
	p->name = xstrdup(slash && slash[1] ? slash + 1 : dir);
	rc = 0;
out:
	cJSON_Delete(j);
	buf_release(&path);
	buf_release(&text);
	if (rc < 0)
		front_bench_problem_release(p);
	return rc;
}

void
front_bench_problem_release(struct front_bench_problem *p)
{
	free(p->name);
	free(p->dir);
	free(p->test);
	free(p->language);
	free(p->summary);
	memset(p, 0, sizeof *p);
}

void
front_bench_problems_free(struct front_bench_problem *p, long n)
{
	long i;

	for (i = 0; i < n; i++)
		front_bench_problem_release(&p[i]);
	free(p);
}

/* Sort by level, then name. */
static int
bp_cmp(const void *a, const void *b)
{
	const struct front_bench_problem *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether name is one of the comma-separated list. */
static int
bp_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

long
front_bench_problems_load(const char *root, const char *only, struct front_bench_problem **out, struct err *e)
{
	struct front_bench_problem *v = NULL;
	long n = 0, cap = 0;
	struct dirent *d;
	DIR *dir;
	struct buf sub = BUF_INIT;

	*out = NULL;
	if (!(dir = opendir(root))) {
		err_errno(e, "problems directory %s (give one with --problems DIR)", root);
		return -1;
	}
	while ((d = readdir(dir))) {
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		buf_reset(&sub);
		buf_addf(&sub, "%s/%s/%s", root, d->d_name, BENCH_JSON);
		if (stat(sub.data, &st) < 0)
			continue;
		if (only && !bp_listed(only, d->d_name))
			continue;
		buf_setlen(&sub, sub.len - strlen(BENCH_JSON) - 1);
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		if (front_bench_problem_load(&v[n], sub.data, e) < 0) {
			closedir(dir);
			buf_release(&sub);
			front_bench_problems_free(v, n);
			return -1;
		}
		n++;
	}
	closedir(dir);
	buf_release(&sub);
	if (only) {
		const char *p = only;

		while (*p) {
			size_t k = strcspn(p, ",");
			long i;
			int found = 0;

			for (i = 0; i < n; i++)
				if (strlen(v[i].name) == k && !strncmp(v[i].name, p, k))
					found = 1;
			if (k && !found) {
				err_set(e, "no problem named \"%.*s\" in %s (hearth bench --list shows them)", (int)k, p,
					root);
				front_bench_problems_free(v, n);
				return -1;
			}
			p += k + (p[k] == ',');
		}
	}
	if (n == 0) {
		err_set(e, "no problems in %s (a problem is a directory with a bench.json)", root);
		free(v);
		return -1;
	}
	qsort(v, (size_t)n, sizeof *v, bp_cmp);
	*out = v;
	return n;
}

/* The sorted entry names of dir (not . and ..); NULL + e when unreadable. */
static char **
bp_entries(const char *dir, size_t *count, struct err *e)
{
	struct dirent **list;
	char **names;
	int n, i;

	if ((n = scandir(dir, &list, NULL, alphasort)) < 0) {
		err_errno(e, "reading %s", dir);
		return NULL;
	}
	names = xmalloc(((size_t)n + 1) * sizeof *names);
	*count = 0;
	for (i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, ".."))
			names[(*count)++] = xstrdup(list[i]->d_name);
		free(list[i]);
	}
	free(list);
	names[*count] = NULL;
	return names;
}

static void
bp_entries_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Copy one regular file with its permission bits. */
static int
bp_copy_file(const char *src, const char *dst, mode_t mode, struct err *e)
{
	struct buf b = BUF_INIT;
	int fd, rc = -1;

	if (buf_read_file(&b, src, 64u << 20, e) < 0)
		return -1;
	if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 07777)) < 0) {
		err_errno(e, "creating %s", dst);
	} else {
		if (fs_write_all(fd, b.data, b.len) < 0)
			err_errno(e, "writing %s", dst);
		else
			rc = 0;
		close(fd);
	}
	buf_release(&b);
	return rc;
}

static int
bp_copy(const char *src, const char *dst, int top, struct err *e)
{
	size_t n, i;
	char **names = bp_entries(src, &n, e);
	struct buf s = BUF_INIT, d = BUF_INIT;
	int rc = 0;

	if (!names)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		struct stat st;

		if (top && (!strcmp(names[i], FRONT_BENCH_REFERENCE) || !strcmp(names[i], BENCH_JSON)))
			continue;
		buf_reset(&s);
		buf_reset(&d);
		buf_addf(&s, "%s/%s", src, names[i]);
		buf_addf(&d, "%s/%s", dst, names[i]);
		if (lstat(s.data, &st) < 0) {
			rc = err_errno(e, "reading %s", s.data);
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(d.data, (st.st_mode & 07777) | 0700) < 0)
				rc = err_errno(e, "creating %s", d.data);
			else
				rc = bp_copy(s.data, d.data, 0, e);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t k = readlink(s.data, target, sizeof target - 1);

			if (k < 0)
				rc = err_errno(e, "reading the link %s", s.data);
			else {
				target[k] = 0;
				if (symlink(target, d.data) < 0)
					rc = err_errno(e, "creating the link %s", d.data);
			}
		} else if (S_ISREG(st.st_mode)) {
			rc = bp_copy_file(s.data, d.data, st.st_mode, e);
		}
	}
	bp_entries_free(names, n);
	buf_release(&s);
	buf_release(&d);
	return rc;
}

int
front_bench_copy(const char *src, const char *dst, struct err *e)
{
	return bp_copy(src, dst, 1, e);
}

int
front_bench_rmtree(const char *path, struct err *e)
{
	struct stat st;
	size_t n, i;
	char **names;
	struct buf s = BUF_INIT;
	int rc = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : err_errno(e, "removing %s", path);
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? err_errno(e, "removing %s", path) : 0;
	chmod(path, 0700); /* a tree the agent made read-only can still be emptied */
	if (!(names = bp_entries(path, &n, e)))
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		buf_reset(&s);
		buf_addf(&s, "%s/%s", path, names[i]);
		rc = front_bench_rmtree(s.data, e);
	}
	bp_entries_free(names, n);
	buf_release(&s);
	if (rc == 0 && rmdir(path) < 0)
		rc = err_errno(e, "removing %s", path);
	return rc;
}

static int
bp_snapshot(const char *path, const char *rel, struct buf *out, size_t max, struct err *e)
{
	size_t n, i;
	char **names = bp_entries(path, &n, e);
	struct buf s = BUF_INIT, r = BUF_INIT;
	int rc = 0;

	if (!names)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		struct stat st;

		buf_reset(&s);
		buf_reset(&r);
		buf_addf(&s, "%s/%s", path, names[i]);
		buf_addf(&r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		if (lstat(s.data, &st) < 0) {
			rc = err_errno(e, "reading %s", s.data);
			break;
		}
		buf_addf(out, "%s%c%o%c", r.data, 0, (unsigned)st.st_mode, 0);
		if (S_ISDIR(st.st_mode)) {
			buf_adds(out, "dir\n");
			rc = bp_snapshot(s.data, r.data, out, max, e);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t k = readlink(s.data, target, sizeof target);

			if (k < 0)
				rc = err_errno(e, "reading the link %s", s.data);
			else
				buf_add(out, target, (size_t)k);
			buf_addch(out, '\n');
		} else if (S_ISREG(st.st_mode)) {
			struct buf f = BUF_INIT;

			if (buf_read_file(&f, s.data, max, e) < 0) {
				rc = -1;
			} else {
				buf_addf(out, "%zu%c", f.len, 0);
				buf_add(out, f.data, f.len);
				buf_addch(out, '\n');
			}
			buf_release(&f);
		}
		if (rc == 0 && out->len > max)
			rc = err_set(e, "%s holds more than %zu bytes", path, max);
	}
	bp_entries_free(names, n);
	buf_release(&s);
	buf_release(&r);
	return rc;
}

int
front_bench_snapshot(const char *path, struct buf *out, size_t max, struct err *e)
{
	struct stat st;

	buf_reset(out);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : err_errno(e, "reading %s", path);
	if (!S_ISDIR(st.st_mode)) {
		buf_adds(out, "not a directory\n");
		return 0;
	}
	return bp_snapshot(path, "", out, max, e);
}

/* The number after key in the text (the last occurrence wins), or -1. */
static long
bp_number_after(const char *out, size_t n, const char *key, int last)
{
	size_t k = strlen(key), i;
	long v = -1;

	for (i = 0; i + k <= n; i++) {
		if (memcmp(out + i, key, k) == 0 && i + k < n && out[i + k] >= '0' && out[i + k] <= '9') {
			long x = 0;
			size_t j = i + k;

			while (j < n && out[j] >= '0' && out[j] <= '9' && x < 100000000)
				x = x * 10 + (out[j++] - '0');
			v = x;
			if (!last)
				return v;
		}
	}
	return v;
}

int
front_bench_parse_counts(enum front_bench_format f, const char *out, size_t n, long *passed, long *total)
{
	*passed = *total = 0;
	if (f == FRONT_BENCH_UNITTEST) {
		long ran = bp_number_after(out, n, "\nRan ", 1), bad = 0, x;
		static const char *const keys[] = { "failures=", "errors=", "unexpected successes=" };
		size_t i;

		if (ran < 0 && n >= 4 && !memcmp(out, "Ran ", 4))
			ran = bp_number_after(out, n, "Ran ", 0);
		if (ran < 0)
			return 0;
		for (i = 0; i < sizeof keys / sizeof *keys; i++)
			if ((x = bp_number_after(out, n, keys[i], 1)) > 0)
				bad += x;
		*total = ran;
		*passed = ran - bad > 0 ? ran - bad : 0;
		return 1;
	} else {
		size_t i = 0;
		int found = 0;

		while (i < n) {
			const char *line = out + i;
			const char *nl = memchr(line, '\n', n - i);
			size_t len = nl ? (size_t)(nl - line) : n - i;

			if (len >= 3 && !memcmp(line, "ok ", 3)) {
				(*passed)++;
				(*total)++;
				found = 1;
			} else if (len >= 7 && !memcmp(line, "not ok ", 7)) {
				(*total)++;
				found = 1;
			}
			i += len + 1;
		}
		return found;
	}
}

/* The value of a Prometheus sample line "name value" (the name whole, not a prefix). */
int
front_bench_metric(const char *text, size_t n, const char *name, double *out)
{
	size_t k = strlen(name), i = 0;

	while (i < n) {
		const char *line = text + i;
		const char *nl = memchr(line, '\n', n - i);
		size_t len = nl ? (size_t)(nl - line) : n - i;

		if (len > k && !memcmp(line, name, k) && (line[k] == ' ' || line[k] == '\t')) {
			char tmp[64], *end;
			size_t m = len - k < sizeof tmp - 1 ? len - k : sizeof tmp - 1;
			double v;

			memcpy(tmp, line + k, m);
			tmp[m] = 0;
			v = strtod(tmp, &end);
			if (end != tmp) {
				*out = v;
				return 0;
			}
		}
		i += len + 1;
	}
	return -1;
}

int
front_bench_parse_metrics(const char *text, size_t n, double *prompt, double *predicted)
{
	if (front_bench_metric(text, n, "llamacpp:prompt_tokens_total", prompt) < 0 ||
	    front_bench_metric(text, n, "llamacpp:tokens_predicted_total", predicted) < 0)
		return -1;
	return 0;
}

int
front_bench_parse_hearth(const char *out, size_t n, struct front_bench_hearth *h)
{
	size_t end = n;

	h->steps = h->escalations = -1;
	h->cost_usd = -1;
	while (end > 0) {
		size_t start = end;
		cJSON *j;
		const char *type;

		while (start > 0 && out[start - 1] != '\n')
			start--;
		if (end > start && out[start] == '{' && (j = json_parse(out + start, end - start, NULL))) {
			if ((type = json_str(j, "type")) && !strcmp(type, "result")) {
				const cJSON *routing = json_obj(j, "routing");
				const cJSON *dec = routing ? json_arr(routing, "decisions") : NULL, *d;
				const cJSON *route = json_obj(j, "route");
				const char *target;

				if (json_long(j, "num_turns", &h->steps) < 0)
					h->steps = -1;
				h->escalations = 0;
				if (dec) {
					cJSON_ArrayForEach(d, dec) {
						int blocked = 0;

						json_bool(d, "blocked", &blocked);
						if ((target = json_str(d, "target")) && !strcmp(target, "claude") && !blocked)
							h->escalations++;
					}
				} else if (route && (target = json_str(route, "target")) && !strcmp(target, "claude")) {
					h->escalations = 1;
				}
				h->cost_usd = 0;
				if (routing)
					json_double(routing, "cost_usd", &h->cost_usd);
				cJSON_Delete(j);
				return 1;
			}
			cJSON_Delete(j);
		}
		end = start > 0 ? start - 1 : 0;
	}
	return 0;
}
