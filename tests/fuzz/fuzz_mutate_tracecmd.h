/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structure-aware mutation of a trace-cmd trace.dat (fuzz_mutate.h has the shared
 * parts). The file is taken apart as trace-cmd writes it (trace-cmd 3.1.6,
 * Documentation/trace-cmd/trace-cmd.dat.v6.5.txt and .v7.5.txt; lib/trace-cmd/trace-output.c):
 *
 *   v6: initial header, "header_page"/"header_event" and their sizes, the ftrace
 *       and event format files (counts, sizes, texts), kallsyms, printk formats,
 *       saved cmdlines, the cpu count, "options  " (id, size, data; BUFFER holds
 *       an instance's offset), "flyrecord": per cpu the offset and size of its
 *       pages, the trace clock.
 *   v7: the same pieces inside sections (id, flags, string id, size), found
 *       through the options sections (HEADER_INFO .. CMDLINES, BUFFER with its
 *       per-cpu offsets and sizes, DONE with the next options section). A
 *       compressed section is opaque: only its header is mutated.
 *
 * The buffer pages are split as the ring buffer lays them out (kernel/trace/
 * ring_buffer.c: a page header of timestamp and commit, then events with a u32
 * header of type_len:5 and time_delta:27), and each event's fields are found
 * by its common_type in the format texts of the same file. One mutation changes
 * one thing: a page header's timestamp or commit; an event's type_len, time
 * delta or length word; one event field (dev, sector, nr_sector, bytes, error,
 * common_type, common_pid, ...) set to an edge value, rwbs to another request
 * string; an event dropped or doubled inside its page (commit kept right); a
 * count, size or offset of the metadata; a number in a format text (a field's
 * offset or size, an event id) rewritten, the file re-laid out around it: the
 * sizes that hold it and every offset past it follow, and the buffer pages
 * keep their page alignment. One mutation in eight is libFuzzer's own.
 */
#ifndef TRIMSIM_FUZZ_MUTATE_TRACECMD_H
#define TRIMSIM_FUZZ_MUTATE_TRACECMD_H

#include "tests/fuzz/fuzz_mutate.h"

#define FM_TC_SLOTS 512
#define FM_TC_BOXES 256
#define FM_TC_TEXTS 128
#define FM_TC_PAGES 128
#define FM_TC_RECS 1024
#define FM_TC_EVS 64
#define FM_TC_FIELDS 16

enum fm_tc_kind { FM_TC_NUM, FM_TC_OFFSET };

struct fm_tc_field {
	char name[24];
	uint32_t off, size;
};

struct fm_tc {
	const uint8_t *d;
	size_t n;
	unsigned page, lsize;			/* trace page size, the kernel's long size */
	struct { size_t at; uint8_t w, kind; } slot[FM_TC_SLOTS];	/* metadata numbers */
	struct { size_t at, lo, hi; uint8_t w; } box[FM_TC_BOXES];	/* a size and the bytes it counts */
	struct { size_t at, len; } text[FM_TC_TEXTS];			/* format files */
	size_t pg[FM_TC_PAGES];						/* buffer pages */
	struct { size_t at, dat, len; } rec[FM_TC_RECS];		/* events with data */
	struct { uint32_t id; struct fm_tc_field f[FM_TC_FIELDS]; size_t nf; } ev[FM_TC_EVS];
	size_t nslot, nbox, ntext, npg, nrec, nev;
	size_t data0, meta_end;			/* the first buffer page; the end of what precedes it */
};

static inline bool fm_tc_has(const struct fm_tc *t, size_t at, size_t w)
{
	return at <= t->n && w <= t->n - at;
}

static inline uint64_t fm_tc_get(const uint8_t *d, size_t at, size_t w)
{
	uint64_t v = 0;

	memcpy(&v, d + at, w);	/* little-endian files on a little-endian host */
	return v;
}

static inline void fm_tc_put(uint8_t *d, size_t at, size_t w, uint64_t v)
{
	memcpy(d + at, &v, w);
}

/* Reads a w-byte number at *at as a slot of kind; false when the file ends first. */
static inline bool fm_tc_num(struct fm_tc *t, size_t *at, size_t w, int kind, uint64_t *v)
{
	if (!fm_tc_has(t, *at, w))
		return false;
	*v = fm_tc_get(t->d, *at, w);
	if (t->nslot < FM_TC_SLOTS)
		t->slot[t->nslot++] = (typeof(t->slot[0])){ *at, (uint8_t)w, (uint8_t)kind };
	*at += w;
	if (*at > t->meta_end && (!t->data0 || *at <= t->data0))
		t->meta_end = *at;
	return true;
}

/* A w-byte size at *at counting the bytes after it: recorded as a box; *at moves past them. */
static inline bool fm_tc_sized(struct fm_tc *t, size_t *at, size_t w, size_t *lo, size_t *len)
{
	uint64_t v;
	size_t s = *at;

	if (!fm_tc_num(t, at, w, FM_TC_NUM, &v) || v > t->n - *at)
		return false;
	if (t->nbox < FM_TC_BOXES)
		t->box[t->nbox++] = (typeof(t->box[0])){ s, *at, *at + v, (uint8_t)w };
	*lo = *at;
	*len = v;
	*at += v;
	if (*at > t->meta_end && (!t->data0 || *at <= t->data0))
		t->meta_end = *at;
	return true;
}

static inline bool fm_tc_str(struct fm_tc *t, size_t *at)
{
	const uint8_t *z = *at < t->n ? memchr(t->d + *at, 0, t->n - *at) : NULL;

	if (!z)
		return false;
	*at = (size_t)(z - t->d) + 1;
	return true;
}

/* The ID and the fields of one format text ("ID: 1234", "field:unsigned int nr_sector;\toffset:24;\tsize:4;"). */
static inline void fm_tc_format(struct fm_tc *t, size_t lo, size_t len)
{
	char *s = strndup((const char *)t->d + lo, len), *p, *q;

	if (t->ntext < FM_TC_TEXTS)
		t->text[t->ntext++] = (typeof(t->text[0])){ lo, len };
	if (!s || !(p = strstr(s, "\nID: ")) || t->nev >= FM_TC_EVS) {
		free(s);
		return;
	}
	t->ev[t->nev].id = (uint32_t)strtoul(p + 5, NULL, 10);
	t->ev[t->nev].nf = 0;
	for (p = strstr(s, "field:"); p && t->ev[t->nev].nf < FM_TC_FIELDS; p = strstr(p + 6, "field:")) {
		struct fm_tc_field *f = &t->ev[t->nev].f[t->ev[t->nev].nf];
		char *semi = strchr(p, ';'), *name;

		if (!semi || !(q = strstr(semi, "offset:")) || !strstr(q, "size:"))
			break;
		for (name = semi; name > p && name[-1] != ' ' && name[-1] != ':'; name--)
			;
		snprintf(f->name, sizeof(f->name), "%.*s", (int)strcspn(name, "[;"), name);	/* "rwbs[8]" */
		f->off = (uint32_t)strtoul(q + 7, NULL, 10);
		f->size = (uint32_t)strtoul(strstr(q, "size:") + 5, NULL, 10);
		if (f->size && f->size <= 64 && f->off < 4096)
			t->ev[t->nev].nf++;
	}
	t->nev++;
	free(s);
}

/* header_page, header_event: a name, a u64 size, the text. */
static inline bool fm_tc_header_info(struct fm_tc *t, size_t *at)
{
	size_t lo, len;

	for (int i = 0; i < 2; i++)
		if (!fm_tc_str(t, at) || !fm_tc_sized(t, at, 8, &lo, &len))
			return false;
	return true;
}

/* A u32 count of format files, each a u64 size and the text; with sys, a u32 count of systems first. */
static inline bool fm_tc_formats(struct fm_tc *t, size_t *at, bool sys)
{
	uint64_t nsys = 1, nev;
	size_t lo, len;

	if (sys && !fm_tc_num(t, at, 4, FM_TC_NUM, &nsys))
		return false;
	for (uint64_t s = 0; s < nsys && s < 64; s++) {
		if ((sys && !fm_tc_str(t, at)) || !fm_tc_num(t, at, 4, FM_TC_NUM, &nev))
			return false;
		for (uint64_t e = 0; e < nev && e < 256; e++) {
			if (!fm_tc_sized(t, at, 8, &lo, &len))
				return false;
			fm_tc_format(t, lo, len);
		}
	}
	return true;
}

/* The pages of one cpu's data: page headers and the events in them. */
static inline void fm_tc_pages(struct fm_tc *t, uint64_t off, uint64_t size)
{
	if (off > t->n || size > t->n - off || !t->page)
		return;
	if (!t->data0 || off < t->data0)
		t->data0 = (size_t)off;
	for (uint64_t p = off; p + t->page <= off + size && t->npg < FM_TC_PAGES; p += t->page) {
		size_t end = (size_t)p + t->page, at = (size_t)p + 8 + t->lsize;
		uint64_t commit = fm_tc_get(t->d, (size_t)p + 8, t->lsize) & 0xfffff;

		t->pg[t->npg++] = (size_t)p;
		if (at + commit < end)
			end = at + (size_t)commit;
		while (at + 8 <= end && t->nrec < FM_TC_RECS) {
			uint32_t h = (uint32_t)fm_tc_get(t->d, at, 4), tl = h & 31;
			size_t dat, len;

			if (tl == 0) {
				len = (size_t)fm_tc_get(t->d, at + 4, 4);
				dat = at + 8;
				len = len >= 4 ? len - 4 : 0;
			} else if (tl <= 28) {
				dat = at + 4;
				len = tl * 4;
			} else if (tl == 29) {
				break;	/* padding: the rest of the page */
			} else {
				at += 8;	/* time extend, absolute time stamp */
				continue;
			}
			if (len > end - dat)
				break;
			t->rec[t->nrec++] = (typeof(t->rec[0])){ at, dat, len };
			at = dat + ((len + 3) & ~(size_t)3);
		}
	}
}

/* v6 "flyrecord\0" (or an instance's): per cpu a u64 offset and size, then the clock text. */
static inline void fm_tc_fly6(struct fm_tc *t, size_t at, uint64_t cpus)
{
	uint64_t off, size;
	size_t lo, len;

	if (!fm_tc_has(t, at, 10) || memcmp(t->d + at, "flyrecord", 10))
		return;
	at += 10;
	for (uint64_t c = 0; c < cpus && c < 64; c++) {
		if (!fm_tc_num(t, &at, 8, FM_TC_OFFSET, &off) || !fm_tc_num(t, &at, 8, FM_TC_NUM, &size))
			return;
		fm_tc_pages(t, off, size);
	}
	fm_tc_sized(t, &at, 8, &lo, &len);
}

static inline void fm_tc_parse6(struct fm_tc *t, size_t at)
{
	uint64_t cpus, id, v;
	size_t lo, len, inst[8], ninst = 0;

	if (!fm_tc_header_info(t, &at) || !fm_tc_formats(t, &at, false) || !fm_tc_formats(t, &at, true) ||
	    !fm_tc_sized(t, &at, 4, &lo, &len) || !fm_tc_sized(t, &at, 4, &lo, &len) ||
	    !fm_tc_sized(t, &at, 8, &lo, &len) || !fm_tc_num(t, &at, 4, FM_TC_NUM, &cpus) ||
	    !fm_tc_has(t, at, 10) || memcmp(t->d + at, "options  ", 10))
		return;
	at += 10;
	while (fm_tc_num(t, &at, 2, FM_TC_NUM, &id) && id) {
		size_t a;

		if (!fm_tc_sized(t, &at, 4, &lo, &len))
			return;
		a = lo;
		if (id == 3 && len >= 8 && fm_tc_num(t, &a, 8, FM_TC_OFFSET, &v) && ninst < 8)
			inst[ninst++] = (size_t)v;	/* BUFFER: an instance's flyrecord */
	}
	fm_tc_fly6(t, at, cpus);
	for (size_t i = 0; i < ninst; i++)
		fm_tc_fly6(t, inst[i], cpus);
}

/* A v7 section header at at; its data in [*lo, *lo + *len). False when compressed or cut. */
static inline bool fm_tc_section(struct fm_tc *t, size_t at, size_t *lo, size_t *len)
{
	uint64_t id, flags, str;

	return fm_tc_num(t, &at, 2, FM_TC_NUM, &id) && fm_tc_num(t, &at, 2, FM_TC_NUM, &flags) &&
	       fm_tc_num(t, &at, 4, FM_TC_NUM, &str) && fm_tc_sized(t, &at, 8, lo, len) && !(flags & 1);
}

static inline void fm_tc_parse7(struct fm_tc *t, size_t at)
{
	uint64_t next, id, v, cpus, cid, off, size;
	size_t lo, len, a;

	for (int i = 0; i < 2; i++)	/* compression name, version */
		if (!fm_tc_str(t, &at))
			return;
	if (!fm_tc_num(t, &at, 8, FM_TC_OFFSET, &next))
		return;
	for (int sec = 0; next && sec < 8; sec++) {
		size_t end;

		if (next > t->n || !fm_tc_section(t, (size_t)next, &lo, &len))
			return;
		next = 0;
		for (at = lo, end = lo + len; at < end && fm_tc_num(t, &at, 2, FM_TC_NUM, &id);) {
			if (!fm_tc_sized(t, &at, 4, &lo, &len))
				return;
			a = lo;
			if (id == 0) {
				fm_tc_num(t, &a, 8, FM_TC_OFFSET, &next);
				break;
			}
			if (id >= 16 && id <= 21 && fm_tc_num(t, &a, 8, FM_TC_OFFSET, &v) && v < t->n &&
			    fm_tc_section(t, (size_t)v, &lo, &len)) {
				a = lo;
				if (id == 16)
					fm_tc_header_info(t, &a);
				else if (id == 17 || id == 18)
					fm_tc_formats(t, &a, id == 18);
				else
					fm_tc_sized(t, &a, id == 21 ? 8 : 4, &lo, &len);
			} else if (id == 3 && fm_tc_num(t, &a, 8, FM_TC_OFFSET, &v) && fm_tc_str(t, &a) &&
				   fm_tc_str(t, &a) && fm_tc_num(t, &a, 4, FM_TC_NUM, &size) &&
				   fm_tc_num(t, &a, 4, FM_TC_NUM, &cpus) && v < t->n &&
				   fm_tc_section(t, (size_t)v, &lo, &len)) {
				for (uint64_t c = 0; c < cpus && c < 64; c++) {
					if (!fm_tc_num(t, &a, 4, FM_TC_NUM, &cid) ||
					    !fm_tc_num(t, &a, 8, FM_TC_OFFSET, &off) ||
					    !fm_tc_num(t, &a, 8, FM_TC_NUM, &size))
						break;
					fm_tc_pages(t, off, size);
				}
			} else if (id == 8 || id == 14) {	/* CPUCOUNT, TSC2NSEC */
				fm_tc_num(t, &a, 4, FM_TC_NUM, &v);
			}
		}
	}
}

/* 0 if d starts like a trace.dat this mutator understands (little endian). */
static inline int fm_tc_parse(const uint8_t *d, size_t n, struct fm_tc *t)
{
	size_t at = 10;
	int ver;

	memset(t, 0, sizeof(*t));
	t->d = d;
	t->n = n;
	if (n < 32 || memcmp(d, "\027\010Dtracing", 10))
		return -1;
	ver = atoi((const char *)d + 10);
	if (!fm_tc_str(t, &at) || !fm_tc_has(t, at, 6) || d[at] != 0)
		return -1;
	t->lsize = d[at + 1] == 4 ? 4 : 8;
	at += 2;
	t->page = (unsigned)fm_tc_get(d, at, 4);
	if (t->page < 64 || t->page > (1u << 20))
		t->page = 0;
	at += 4;
	/* the page size first: pages are found only once it is known; the meta_end pass needs data0 */
	for (int pass = 0; pass < 2; pass++) {
		size_t d0 = t->data0;

		t->nslot = t->nbox = t->ntext = t->npg = t->nrec = t->nev = 0;
		t->meta_end = 0;
		t->data0 = d0;
		if (ver >= 7)
			fm_tc_parse7(t, at);
		else
			fm_tc_parse6(t, at);
	}
	return 0;
}

/*
 * Replaces d[at, at + old) with add[0, len): every size whose bytes hold at and
 * every offset past at follow. With realign, the padding before the first
 * buffer page is shortened or lengthened so the pages stay page aligned (the
 * ring buffer pages are mmap()ed by libtracecmd at their offsets). Returns the
 * new size, 0 if it would not fit max.
 */
static inline size_t fm_tc_splice(struct fm_tc *t, uint8_t *d, size_t at, size_t old, const void *add, size_t len,
				  size_t max, bool realign)
{
	size_t n = t->n;
	long long delta = (long long)len - (long long)old;

	if (n - old + len > max || at + old > n)
		return 0;
	memmove(d + at + len, d + at + old, n - at - old);
	memcpy(d + at, add, len);
	t->n = n = n - old + len;
	for (size_t i = 0; i < t->nbox; i++) {
		if (t->box[i].at > at)
			t->box[i].at += (size_t)delta;
		if (t->box[i].lo <= at && at < t->box[i].hi) {
			t->box[i].hi += (size_t)delta;
			fm_tc_put(d, t->box[i].at, t->box[i].w,
				  fm_tc_get(d, t->box[i].at, t->box[i].w) + (uint64_t)delta);
		} else if (t->box[i].lo > at) {
			t->box[i].lo += (size_t)delta;
			t->box[i].hi += (size_t)delta;
		}
	}
	for (size_t i = 0; i < t->nslot; i++) {
		uint64_t v;

		if (t->slot[i].at > at)
			t->slot[i].at += (size_t)delta;
		if (t->slot[i].kind != FM_TC_OFFSET || t->slot[i].at + 8 > n)
			continue;
		v = fm_tc_get(d, t->slot[i].at, 8);
		if (v > at)
			fm_tc_put(d, t->slot[i].at, 8, v + (uint64_t)delta);
	}
	if (!realign || !delta || !t->data0 || at >= t->data0 || !t->page)
		return n;
	t->data0 += (size_t)delta;
	t->meta_end += (size_t)delta;
	{
		size_t pad = t->data0 - t->meta_end, fix = (size_t)(delta % (long long)t->page + t->page) % t->page;
		static const uint8_t zero[1 << 16];

		if (!fix)
			return n;
		if (fix <= pad)	/* take the bytes out of the padding */
			return fm_tc_splice(t, d, t->meta_end, fix, "", 0, max, false);
		if (t->page - fix > sizeof(zero))
			return n;
		return fm_tc_splice(t, d, t->meta_end, 0, zero, t->page - fix, max, false);
	}
}

static const char *const fm_tc_rwbs[] = {
	"D", "DS", "W", "WS", "R", "RA", "F", "FWS", "N", "NS", "E", "WFS", "DSM", "", "RRRRRRRR", "\xff\xfe", "D\x1b[2J",
};

/* One field of one event: an edge value, another request string, another event's type. */
static inline void fm_tc_field(struct fm_rng *r, const struct fm_tc *t, uint8_t *d)
{
	size_t k = fm_below(r, t->nrec), e;
	uint32_t type;

	if (t->rec[k].len < 2)
		return;
	type = (uint32_t)fm_tc_get(d, t->rec[k].dat, 2);
	for (e = 0; e < t->nev && t->ev[e].id != type; e++)
		;
	if (e == t->nev || !t->ev[e].nf || fm_below(r, 16) == 0) {	/* another event's type */
		fm_tc_put(d, t->rec[k].dat, 2, t->nev && fm_below(r, 2) ? t->ev[fm_below(r, t->nev)].id
									 : fm_value(r, type, 0));
		return;
	}
	{
		const struct fm_tc_field *f = &t->ev[e].f[fm_below(r, t->ev[e].nf)];
		size_t at = t->rec[k].dat + f->off;

		if (f->off + f->size > t->rec[k].len)
			return;
		if (!strcmp(f->name, "rwbs") || (f->size > 8 && !fm_below(r, 2))) {
			const char *s = fm_tc_rwbs[fm_below(r, FM_NELEM(fm_tc_rwbs))];

			memset(d + at, 0, f->size);
			memcpy(d + at, s, strlen(s) < f->size ? strlen(s) : f->size);
		} else if (f->size <= 8) {
			fm_tc_put(d, at, f->size, fm_value(r, fm_tc_get(d, at, f->size), 0));
		} else {
			d[at + fm_below(r, f->size)] = (uint8_t)fm_next(r);
		}
	}
}

/* An event dropped from its page, or doubled in it when the page has room; the page's commit follows. */
static inline void fm_tc_event_count(struct fm_rng *r, const struct fm_tc *t, uint8_t *d)
{
	size_t k = fm_below(r, t->nrec), at = t->rec[k].at, len, pg = 0, hdr = 8 + t->lsize, used;
	uint64_t commit;

	len = t->rec[k].dat + ((t->rec[k].len + 3) & ~(size_t)3) - at;
	for (size_t i = 0; i < t->npg; i++)
		if (t->pg[i] <= at && at < t->pg[i] + t->page)
			pg = t->pg[i];
	if (!pg)
		return;
	commit = fm_tc_get(d, pg + 8, t->lsize);
	used = (size_t)(commit & 0xfffff);
	if (hdr + used > t->page || at + len > pg + hdr + used)
		return;
	if (fm_below(r, 2)) {	/* drop */
		memmove(d + at, d + at + len, pg + hdr + used - at - len);
		memset(d + pg + hdr + used - len, 0, len);
		fm_tc_put(d, pg + 8, t->lsize, commit - len);
	} else if (hdr + used + len <= t->page) {	/* double */
		memmove(d + at + len, d + at, pg + hdr + used - at);
		fm_tc_put(d, pg + 8, t->lsize, commit + len);
	}
}

/* A number in a format text ("offset:", "size:", "signed:", "ID:") rewritten; the file laid out again. */
static inline size_t fm_tc_text_number(struct fm_rng *r, struct fm_tc *t, uint8_t *d, size_t max)
{
	static const char *const keys[] = { "offset:", "size:", "signed:", "ID: " };
	size_t k = fm_below(r, t->ntext), lo = t->text[k].at, len = t->text[k].len, at, end;
	const char *key = keys[fm_below(r, FM_NELEM(keys))];
	char num[32];
	size_t hits = 0, pick;
	uint64_t v;

	for (at = lo; at + strlen(key) < lo + len; at++)
		hits += !memcmp(d + at, key, strlen(key));
	if (!hits)
		return 0;
	pick = fm_below(r, hits);
	for (at = lo; at + strlen(key) < lo + len; at++)
		if (!memcmp(d + at, key, strlen(key)) && !pick--)
			break;
	at += strlen(key);
	for (end = at; end < lo + len && (d[end] == '-' || (d[end] >= '0' && d[end] <= '9')); end++)
		;
	v = strtoull((const char *)d + at, NULL, 10);	/* a digit or a non-digit ends it */
	v = fm_below(r, 4) ? fm_value(r, v, 0) : (uint64_t)-(int64_t)fm_below(r, 9);
	snprintf(num, sizeof(num), fm_below(r, 8) ? "%llu" : "%lld", (unsigned long long)v);
	return fm_tc_splice(t, d, at, end - at, num, strlen(num), max, true);
}

static inline size_t fm_tracecmd_mutate(uint8_t *data, size_t size, size_t max, unsigned seed)
{
	struct fm_rng r;
	struct fm_tc *t = malloc(sizeof(*t));
	size_t out = size;

	fm_seed(&r, seed);
	if (!t || fm_below(&r, 8) == 0 || fm_tc_parse(data, size, t) || (!t->nslot && !t->npg)) {
		free(t);
		return LLVMFuzzerMutate(data, size, max);
	}
	switch (fm_below(&r, 10)) {
	case 0: case 1: case 2:	/* an event field */
		if (t->nrec)
			fm_tc_field(&r, t, data);
		break;
	case 3:	/* an event header: type_len, time delta, the length word */
		if (t->nrec) {
			size_t at = t->rec[fm_below(&r, t->nrec)].at;
			uint32_t h = (uint32_t)fm_tc_get(data, at, 4);

			switch (fm_below(&r, 3)) {
			case 0: h = (h & ~31u) | (uint32_t)fm_below(&r, 32); break;
			case 1: h = (h & 31u) | (uint32_t)fm_value(&r, h >> 5, 0) << 5; break;
			default:
				if ((h & 31) == 0)
					fm_tc_put(data, at + 4, 4, fm_value(&r, fm_tc_get(data, at + 4, 4), 0));
				else
					h ^= 1u << fm_below(&r, 5);
				break;
			}
			fm_tc_put(data, at, 4, h);
		}
		break;
	case 4:	/* a page header: timestamp, commit (size and missed-events flags) */
		if (t->npg) {
			size_t pg = t->pg[fm_below(&r, t->npg)];

			if (fm_below(&r, 2))
				fm_tc_put(data, pg, 8, fm_value(&r, fm_tc_get(data, pg, 8), 0));
			else
				fm_tc_put(data, pg + 8, t->lsize, fm_below(&r, 2)
					  ? fm_value(&r, fm_tc_get(data, pg + 8, t->lsize), t->page)
					  : fm_tc_get(data, pg + 8, t->lsize) | 1ull << (30 + fm_below(&r, 2)));
		}
		break;
	case 5:	/* an event dropped or doubled */
		if (t->nrec)
			fm_tc_event_count(&r, t, data);
		break;
	case 6: case 7: {	/* a count, size, offset or option id of the metadata */
		size_t i = fm_below(&r, t->nslot);

		if (t->nslot)
			fm_tc_put(data, t->slot[i].at, t->slot[i].w,
				  fm_value(&r, fm_tc_get(data, t->slot[i].at, t->slot[i].w), size));
		break;
	}
	default:	/* a number in a format text */
		if (t->ntext)
			out = fm_tc_text_number(&r, t, data, max);
		break;
	}
	free(t);
	return out ? out : LLVMFuzzerMutate(data, size, max);
}

#endif
