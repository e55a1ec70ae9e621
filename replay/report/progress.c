// SPDX-License-Identifier: GPL-2.0
/* The progress line of a sweep on a terminal (progress.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/util.h"
#include "replay/report/progress.h"

struct progress {
	FILE *f;
	const char *cmd;
	uint64_t t0, drawn;	/* start; the last redraw (0: never) */
	size_t cells, cells_total;
	size_t part, parts;	/* parts done, of parts (0: the sweep has no parts) */
	char label[160];
};

struct progress *progress__new(FILE *f, const char *cmd, bool quiet)
{
	struct progress *p;

	errno = 0;
	if (quiet || !f || !isatty(fileno(f)))
		return NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->f = f;
	p->cmd = cmd;
	p->t0 = ts_now_ns();
	return p;
}

void progress__header(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p)
		return;
	fprintf(p->f, "trimsim %s: ", p->cmd);
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
	fputc('\n', p->f);
	fflush(p->f);
}

/* "1:05", "1:02:03" */
static void dur(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + 500000000ull) / 1000000000ull;

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llu:%02llu", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
}

/* The time left: from the cells when their total is known, else from the parts done; 0 if unknown. */
static bool eta(const struct progress *p, uint64_t el, uint64_t *left)
{
	if (p->cells_total && p->cells) {
		*left = (uint64_t)((double)el / (double)p->cells * (double)(p->cells_total - p->cells));
		return p->cells <= p->cells_total;
	}
	if (p->parts && p->part) {
		*left = (uint64_t)((double)el / (double)p->part * (double)(p->parts - p->part));
		return p->part <= p->parts;
	}
	return false;
}

void progress__line(const struct progress *p, char *buf, size_t len)
{
	uint64_t el = ts_now_ns() - p->t0, left;
	char e[24], l[24] = "?";
	size_t at = 0;

	dur(el, e, sizeof(e));
	if (eta(p, el, &left))
		dur(left, l, sizeof(l));
	if (p->parts)
		at += (size_t)snprintf(buf + at, len - at, "%s %zu/%zu (%s), %zu cells", "search",
				       p->part + (p->part < p->parts), p->parts, p->label, p->cells);
	else
		at += (size_t)snprintf(buf + at, len - at, "%zu/%zu cells", p->cells, p->cells_total);
	if (at < len)
		snprintf(buf + at, len - at, ", %s elapsed, ETA %s", e, l);
}

static void draw(struct progress *p, bool force)
{
	uint64_t now = ts_now_ns();
	char line[256];

	if (!force && p->drawn && now - p->drawn < PROGRESS_REDRAW_NS)
		return;
	p->drawn = now;
	progress__line(p, line, sizeof(line));
	/* \r, then erase to the end: a shorter line leaves nothing of the longer one before it */
	fprintf(p->f, "\r  %s\033[K", line);
	fflush(p->f);
}

void progress__cells_total(struct progress *p, size_t total)
{
	if (!p)
		return;
	p->cells_total = total;
	draw(p, true);
}

void progress__cell(struct progress *p)
{
	if (!p)
		return;
	p->cells++;
	draw(p, p->cells_total && p->cells == p->cells_total);
}

void progress__part(struct progress *p, size_t done, size_t total, const char *label)
{
	if (!p)
		return;
	p->part = done;
	p->parts = total;
	ts_escape(label, p->label, sizeof(p->label));	/* a path is the user's: no terminal codes from it */
	draw(p, true);
}

void progress__clear(struct progress *p)
{
	if (!p)
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->drawn = 0;
}

void progress__destroy(struct progress *p)
{
	if (!p)
		return;
	if (p->parts)
		p->part = p->parts;
	draw(p, true);
	fputc('\n', p->f);
	fflush(p->f);
	free(p);
}
