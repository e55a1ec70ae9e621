// SPDX-License-Identifier: GPL-2.0
/*
 * The import sink: records spooled to an unlinked temporary file (memory stays
 * bounded whatever the input size), devices collected as the input names them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/util.h"
#include "traces/import/importer.h"

#define SPOOL_BATCH 1024	/* records buffered before a write: 48 KiB */

struct import_sink {
	FILE *spool;
	struct ts_record buf[SPOOL_BATCH];
	size_t nbuf;
	uint64_t count;
	uint64_t kinds[TS_KIND_MAX + 1];
	struct ts_device *devs;
	size_t ndev, capdev;
};

struct import_sink *import_sink__new(void)
{
	struct import_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->spool = tmpfile();
	if (!s->spool) {
		int e = errno;

		free(s);
		errno = e;
		return NULL;
	}
	return s;
}

void import_sink__free(struct import_sink *s)
{
	if (!s)
		return;
	if (s->spool)
		fclose(s->spool);
	free(s->devs);
	free(s);
}

static int spool_flush(struct import_sink *s)
{
	if (!s->nbuf)
		return 0;
	if (fseeko(s->spool, 0, SEEK_END) ||
	    fwrite(s->buf, sizeof(s->buf[0]), s->nbuf, s->spool) != s->nbuf)
		return errno ? -errno : -EIO;
	s->nbuf = 0;
	return 0;
}

int import_sink__record(struct import_sink *s, const struct ts_record *r)
{
	int ret;

	if (s->nbuf == SPOOL_BATCH && (ret = spool_flush(s)))
		return ret;
	s->buf[s->nbuf++] = *r;
	s->count++;
	if (r->kind <= TS_KIND_MAX)
		s->kinds[r->kind]++;
	return 0;
}

struct ts_device *import_sink__device(struct import_sink *s, uint32_t dev)
{
	struct ts_device *d;

	for (size_t i = 0; i < s->ndev; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	if (grow_array((void **)&s->devs, &s->capdev, s->ndev + 1, sizeof(*s->devs)))
		return NULL;
	d = &s->devs[s->ndev++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	ts_dev_str(dev, d->name, sizeof(d->name));
	return d;
}

void import_sink__drop_device(struct import_sink *s, uint32_t dev)
{
	for (size_t i = 0; i < s->ndev; i++)
		if (s->devs[i].dev == dev) {
			memmove(&s->devs[i], &s->devs[i + 1], (s->ndev - i - 1) * sizeof(*s->devs));
			s->ndev--;
			return;
		}
}

const struct ts_device *import_sink__devices(const struct import_sink *s, size_t *n)
{
	*n = s->ndev;
	return s->devs;
}

uint64_t import_sink__count(const struct import_sink *s)
{
	return s->count;
}

uint64_t import_sink__kind_count(const struct import_sink *s, unsigned kind)
{
	return kind <= TS_KIND_MAX ? s->kinds[kind] : 0;
}

ssize_t import_sink__read(struct import_sink *s, uint64_t first, struct ts_record *buf, size_t max)
{
	size_t n;
	int ret;

	if ((ret = spool_flush(s)))
		return ret;
	if (first >= s->count)
		return 0;
	if (max > s->count - first)
		max = (size_t)(s->count - first);
	if (fseeko(s->spool, (off_t)(first * sizeof(*buf)), SEEK_SET))
		return -errno;
	n = fread(buf, sizeof(*buf), max, s->spool);
	if (n != max)
		return ferror(s->spool) ? -EIO : -ENODATA;
	return (ssize_t)n;
}

/* A batch at a time through buf (empty after spool_flush()), written back where it was read. */
int import_sink__rewrite(struct import_sink *s, void (*fn)(void *arg, struct ts_record *r), void *arg)
{
	ssize_t n;
	int ret;

	if ((ret = spool_flush(s)))
		return ret;
	for (uint64_t pos = 0; (n = import_sink__read(s, pos, s->buf, SPOOL_BATCH)) > 0; pos += (uint64_t)n) {
		for (ssize_t i = 0; i < n; i++)
			fn(arg, &s->buf[i]);
		if (fseeko(s->spool, (off_t)(pos * sizeof(s->buf[0])), SEEK_SET) ||
		    fwrite(s->buf, sizeof(s->buf[0]), (size_t)n, s->spool) != (size_t)n)
			return errno ? -errno : -EIO;
	}
	return n < 0 ? (int)n : 0;
}
