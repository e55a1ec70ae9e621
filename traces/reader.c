// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reader: binary (either byte order) or JSON Lines, chosen by the
 * first bytes. Binary input is read() 256 KiB at a time, page-aligned in the
 * file and in memory (TS_READ_BYTES), into one buffer that is reused to the
 * end (so it stays in L2 and its pages stay mapped), checked, summed and
 * tested against the device table in one pass (scan()),
 * swapped in place only for a big-endian file, and handed out in place by the
 * batch API. Why read() and not a mapping: BENCHMARKS.md "Reading" (a page mapped
 * for the first time costs from 0.2 to 2 us depending on the host and on
 * how the page cache was filled; read() into a warm buffer costs neither).
 * Layout: traces/FORMAT.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

#define JSONL_BATCH 1024u

struct trace_reader {
	char *path;
	int fd;
	bool wait;		/* fd is not a regular file: read() may wait (read_full) */
	json_t *header;
	struct ts_device *devs;
	size_t ndev;
	struct ts_devmap *devmap;	/* records against their device (bounds.c) */
	struct ts_span span;		/* the last device seen and where its records lie (scan, first_outside) */
	struct trace_status st;
	char err[512];
	int pending;		/* <0: error to return once the ready records are gone; 1: end */
	bool turns;		/* devices take turns: scan() checks the next chunk without the span */
	/* binary */
	unsigned char *mem;	/* malloc'd: base and a page of slack */
	unsigned char *base;	/* page-aligned, TS_READ_ALIGN + TS_READ_BYTES: a byte of the file sits in it at its offset mod a page */
	unsigned char *buf;	/* within base: the bytes read, from file offset buf_off; records at multiples of 48 */
	size_t fill;		/* valid bytes in buf */
	size_t pos;		/* next record to hand out */
	size_t ready;		/* records before this byte are checked and in host order (scan: a chunk at a time) */
	uint64_t buf_off;	/* file offset of buf[0] */
	bool eof;
	struct ts_sum sum;
	/* JSON Lines */
	FILE *f;
	char *line;
	size_t linecap;
	uint64_t lineno;
	struct ts_record *jrecs;
};

static uint32_t get32(const unsigned char *p, bool be)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be != TS_HOST_BIG_ENDIAN ? __builtin_bswap32(v) : v;
}

/* "PATH: ..." into r->err; returns code. */
#define fail(r, code, ...) ts_path_errf((r)->err, sizeof((r)->err), code, (r)->path, __VA_ARGS__)

/*
 * Reads up to len bytes, looping over short reads; returns bytes read or -errno
 * (-EINTR once SIGINT/SIGTERM set the stop flag: a pipe that waits ends its
 * wait). A signal that lands between the flag's check and the read would leave
 * read() blocked with the flag set: where read() can wait (wait: a pipe, a
 * device, a socket), poll() wakes every 200 ms to look again. A regular file
 * never makes read() wait, so it is read without the poll (a syscall per
 * buffer; 1.4% of the reader's perf samples).
 */
static ssize_t read_full(int fd, void *buf, size_t len, bool wait)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (trimsim_stop)
			return -EINTR;
		if (wait && poll(&pfd, 1, 200) == 0)
			continue;
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR && !trimsim_stop)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int set_header(struct trace_reader *r, json_t *h, const char *where)
{
	char why[400];
	int ret;

	r->header = h;
	ret = ts_header_parse(h, &r->devs, &r->ndev, &r->devmap, why, sizeof(why));
	if (ret)
		return fail(r, ret, "%s: %s", where, why);
	return 0;
}

/* ---- binary ---- */

/*
 * What a file that is not a trimsim trace looks like it is, from its first bytes, and what to do
 * with it, for the bad-magic error; NULL: nothing known. The magics: blktrace's struct
 * blk_io_trace (include/uapi/linux/blktrace_api.h, BLK_IO_TRACE_MAGIC, either byte order),
 * trace-cmd's trace.dat (trace-cmd/lib/trace-cmd/trace-output.c), our DTrace script's first
 * line (tracer/freebsd/trimsim.d) and fio's iolog (fio/iolog.c).
 */
static const char *foreign(const unsigned char *b, size_t got)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} known[] = {
		{ "\x17\x08\x44tracing", 10, "a trace-cmd trace.dat: trimsim import --from trace-cmd" },
		{ "trimsim-dtrace ", 15, "FreeBSD DTrace output: trimsim import --from dtrace" },
		{ "fio version ", 12, "a fio iolog, which trimsim writes (export --to fio) but does not read" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (got >= known[i].len && !memcmp(b, known[i].magic, known[i].len))
			return known[i].what;
	if (got >= 4 && ((get32(b, false) & ~0xffu) == 0x65617400u || (get32(b, true) & ~0xffu) == 0x65617400u))
		return "blktrace output: trimsim import --from blktrace";
	return NULL;
}

static int open_binary(struct trace_reader *r, const unsigned char *fixed, size_t got)
{
	uint32_t magic_le = get32(fixed, false), magic_be = get32(fixed, true);
	uint32_t hlen, rsize, jlen;
	unsigned char *hdr = NULL;
	char esc[200];
	json_error_t jerr;
	struct stat sb;
	bool reg;
	json_t *h;
	ssize_t n;
	int ret;

	if (got < 4 || ((magic_le & ~0xffu) != TS_MAGIC_BASE && (magic_be & ~0xffu) != TS_MAGIC_BASE)) {
		const char *what = foreign(fixed, got);

		return fail(r, -EBADMSG, "byte 0: bad magic (not a trimsim trace%s%s)", what ? "; it looks like " : "",
			    what ? what : "");
	}
	r->st.big_endian = (magic_le & ~0xffu) != TS_MAGIC_BASE;
	r->st.version = (r->st.big_endian ? magic_be : magic_le) & 0xffu;
	if (r->st.version < TS_VERSION_MIN || r->st.version > TS_VERSION)
		return fail(r, -EPROTONOSUPPORT, "byte 0: unsupported format version %u (this trimsim reads %u..%u)",
			    r->st.version, TS_VERSION_MIN, TS_VERSION);
	if (got < TS_FIXED_HDR)
		return fail(r, -EBADMSG, "byte %zu: header cut short (%zu of %u bytes)", got, got, TS_FIXED_HDR);
	hlen = get32(fixed + 4, r->st.big_endian);
	rsize = get32(fixed + 8, r->st.big_endian);
	jlen = get32(fixed + 12, r->st.big_endian);
	reg = fstat(r->fd, &sb) == 0 && S_ISREG(sb.st_mode);
	if (reg && (uint64_t)hlen > (uint64_t)sb.st_size)
		return fail(r, -EBADMSG, "byte 4: header length %u runs past the end of the file (%lld bytes)",
			    hlen, (long long)sb.st_size);
	if (hlen < TS_FIXED_HDR || hlen > TS_MAX_HEADER || hlen % 8)
		return fail(r, -EBADMSG, "byte 4: bad header length %u (multiple of 8, %u..%u)", hlen,
			    TS_FIXED_HDR, TS_MAX_HEADER);
	if (rsize != TS_RECORD_SIZE)
		return fail(r, -EBADMSG, "byte 8: record size %u, expected %u", rsize, TS_RECORD_SIZE);
	if (jlen > hlen - TS_FIXED_HDR)
		return fail(r, -EBADMSG, "byte 12: JSON length %u does not fit the header length %u", jlen, hlen);
	hdr = malloc(hlen);
	if (!hdr)
		return fail(r, -ENOMEM, "out of memory");
	memcpy(hdr, fixed, TS_FIXED_HDR);
	n = read_full(r->fd, hdr + TS_FIXED_HDR, hlen - TS_FIXED_HDR, r->wait);
	if (n < 0) {
		ret = fail(r, (int)n, "byte %u: %s", TS_FIXED_HDR, strerror((int)-n));
		goto out;
	}
	if ((size_t)n < hlen - TS_FIXED_HDR) {
		ret = fail(r, -EBADMSG, "byte 4: header length %u runs past the end of the file (%zu bytes)",
			   hlen, TS_FIXED_HDR + (size_t)n);
		goto out;
	}
	h = json_loadb((const char *)hdr + TS_FIXED_HDR, jlen, JSON_REJECT_DUPLICATES, &jerr);
	if (!h) {
		ret = fail(r, -EBADMSG, "byte %d: header JSON: %s", TS_FIXED_HDR + jerr.position,
			   ts_escape(jerr.text, esc, sizeof(esc)));
		goto out;
	}
	ret = set_header(r, h, "byte 16");
	if (ret)
		goto out;
	ts_sum_start(&r->sum, r->st.version, hdr, hlen);
	r->buf_off = hlen;
	/*
	 * Not aligned_alloc(TS_READ_ALIGN, ...): glibc then maps a fresh buffer for every reader
	 * (65 page faults, ~1.2 ms a reader on this project's VM); a plain malloc of this size is
	 * taken from the heap again after the first reader is closed, its pages still mapped.
	 */
	r->mem = malloc(2 * TS_READ_ALIGN + TS_READ_BYTES);
	if (!r->mem) {
		ret = fail(r, -ENOMEM, "out of memory");
	} else {
		r->base = (unsigned char *)(((uintptr_t)r->mem + TS_READ_ALIGN - 1) & ~(uintptr_t)(TS_READ_ALIGN - 1));
		r->buf = r->base + TS_READ_ALIGN + hlen % TS_READ_ALIGN;
	}
out:
	free(hdr);
	return ret;
}

static int check_footer(struct trace_reader *r, size_t at)
{
	struct ts_footer ft;
	uint64_t off = r->buf_off + at, sum;
	bool swap = r->st.big_endian != TS_HOST_BIG_ENDIAN;
	char extra;

	memcpy(&ft, r->buf + at, sizeof(ft));
	if (swap) {
		ft.records = __builtin_bswap64(ft.records);
		ft.lost = __builtin_bswap64(ft.lost);
		ft.checksum = __builtin_bswap64(ft.checksum);
		ft.end_ns = __builtin_bswap64(ft.end_ns);
		ft.magic = __builtin_bswap64(ft.magic);
	}
	if (ft.magic != TS_FOOTER_MAGIC)
		return fail(r, -EBADMSG, "byte %" PRIu64 ": footer has a bad magic", off);
	if (at + TS_RECORD_SIZE < r->fill || (!r->eof && read_full(r->fd, &extra, 1, r->wait) != 0))
		return fail(r, -EBADMSG, "byte %" PRIu64 ": data after the footer", off + TS_RECORD_SIZE);
	r->st.footer = true;
	r->st.lost = ft.lost;
	r->st.end_ns = ft.end_ns;
	if (ft.records != r->st.records + (at - r->pos) / TS_RECORD_SIZE)
		return fail(r, -EBADMSG, "byte %" PRIu64 ": footer counts %" PRIu64 " records, file holds %" PRIu64,
			    off, ft.records, r->st.records + (at - r->pos) / TS_RECORD_SIZE);
	sum = ts_sum_final(&r->sum);
	r->st.checksum_ok = sum == ft.checksum;
	if (!r->st.checksum_ok)
		return fail(r, -EBADMSG, "byte %" PRIu64 ": checksum mismatch (footer %016" PRIx64
			    ", computed %016" PRIx64 ")", off + 16, ft.checksum, sum);
	return 1;
}

/* Byte offset of the first record in buf[from..end) that is not a valid host-order record (end if none). */
static size_t first_bad(const unsigned char *buf, size_t from, size_t end)
{
	size_t i = from;

	/* Eight records per branch; the loop below finds which one failed. */
	for (; i + 8 * TS_RECORD_SIZE <= end; i += 8 * TS_RECORD_SIZE) {
		bool ok = true;

		for (unsigned k = 0; k < 8; k++)
			ok &= ts_record_ok((const struct ts_record *)(buf + i + k * TS_RECORD_SIZE));
		if (!ok)
			break;
	}
	for (; i < end; i += TS_RECORD_SIZE)
		if (!ts_record_ok((const struct ts_record *)(buf + i)))
			return i;
	return end;
}

static void set_span(struct trace_reader *r, uint32_t dev)
{
	r->span.dev = dev;
	ts_devmap__span(r->devmap, dev, &r->span.lo, &r->span.hi);
}

/*
 * Byte offset of the first record in buf[from..end) outside its device
 * (bounds.c), end if none. Records of one device come in runs: the span of
 * the last device seen is kept, and eight records at a time are tested
 * against it without a branch (same device, extent inside); a group with
 * anything else (another device, a flush at sector 0 of a partition, a META
 * record) goes one record at a time, asking bounds.c for those outside the
 * span, which then becomes that record's device's.
 */
static size_t first_outside(struct trace_reader *r, size_t from, size_t end, char *why, size_t len)
{
	size_t i = from;

	while (i < end) {
		const uint32_t dev = r->span.dev;
		const uint64_t lo = r->span.lo, hi = r->span.hi;
		size_t stop;

		for (; i + 8 * TS_RECORD_SIZE <= end; i += 8 * TS_RECORD_SIZE) {
			uint64_t out = 0;

			for (unsigned k = 0; k < 8; k++) {
				const struct ts_record *rec = (const struct ts_record *)(r->buf + i + k * TS_RECORD_SIZE);

				out |= (rec->dev ^ dev) | (rec->offset < lo) | (rec->offset + rec->length > hi);
			}
			if (out)
				break;
		}
		stop = i + 8 * TS_RECORD_SIZE < end ? i + 8 * TS_RECORD_SIZE : end;
		for (; i < stop; i += TS_RECORD_SIZE) {
			const struct ts_record *rec = (const struct ts_record *)(r->buf + i);

			if (ts_span_ok(rec, &r->span))
				continue;
			if (ts_devmap__check(r->devmap, rec, why, len))
				return i;
			set_span(r, rec->dev);
		}
	}
	return end;
}

/*
 * Checks, sums and converts the next whole records in buf[ready..fill),
 * advancing ready past those that pass; sets pending on footer/error. A file
 * in host byte order in format version 2 whose device table has extents is
 * taken in one pass to the buffer's end (ts_sum2_records_span): each record
 * checked, summed and tested against the span of the last device seen. A
 * record outside it goes to bounds.c, which refuses it or makes its device's
 * span the new one, and the records so far are handed out; the next scan()
 * goes on from there. Where the devices take turns (the pass stopped within
 * SCAN_RUN records), the next SCAN_CHUNK records (12 KiB) are checked and
 * summed without the span (ts_sum_records) and then tested by first_outside
 * while they are in L1, as format version 1 always is (a trace whose devices
 * alternate costs what it did before the fused pass). Without extents to
 * test, the pass runs to the buffer's end. Handing out a whole buffer's
 * records at once, not 256 at a time, took 6-7% less cpu over the reader
 * (BENCHMARKS.md "Reading"). A big-endian file is swapped in place and
 * checked a buffer at a time.
 */
#define SCAN_CHUNK 256u
#define SCAN_RUN 64u
static void fail_outside(struct trace_reader *r, size_t at, const char *why)
{
	r->ready = at;
	r->pending = fail(r, -ERANGE, "byte %" PRIu64 ": record %" PRIu64 ": %s", r->buf_off + at,
			  r->st.records + (at - r->pos) / TS_RECORD_SIZE, why);
}

static void scan(struct trace_reader *r)
{
	size_t end = r->fill - (r->fill - r->ready) % TS_RECORD_SIZE, at = r->ready, stop, got, out;
	bool bounds = ts_devmap__bounds(r->devmap);
	char why[300] = "";
	int ret;

	if (r->st.big_endian == TS_HOST_BIG_ENDIAN) {
		stop = end;
		if (bounds && r->sum.version == 2 && !r->turns) {
			const struct ts_record *rec;

			got = ts_sum2_records_span(&r->sum, r->buf + at, (stop - at) / TS_RECORD_SIZE, &r->span);
			at += got * TS_RECORD_SIZE;
			rec = (const struct ts_record *)(r->buf + at);
			if (at < stop && ts_record_ok(rec)) {	/* else: the end, the footer or a bad record */
				if (ts_devmap__check(r->devmap, rec, why, sizeof(why)))
					return fail_outside(r, at, why);
				set_span(r, rec->dev);
				at += ts_sum2_records_span(&r->sum, r->buf + at, 1, NULL) * TS_RECORD_SIZE;
				r->turns = got < SCAN_RUN;
				stop = at;	/* the next scan() goes on from here */
			}
		} else {
			if (bounds)
				stop = at + ((end - at) / TS_RECORD_SIZE < SCAN_CHUNK ? end - at : SCAN_CHUNK * TS_RECORD_SIZE);
			got = ts_sum_records(&r->sum, r->buf + at, (stop - at) / TS_RECORD_SIZE) * TS_RECORD_SIZE;
			if (bounds && (out = first_outside(r, at, at + got, why, sizeof(why))) < at + got)
				return fail_outside(r, out, why);
			at += got;
			r->turns = false;
		}
	} else {
		for (stop = end; at < end; at += TS_RECORD_SIZE)
			if (r->buf[at + 44] == TS_KIND_FOOTER)
				break;
		ts_sum_update(&r->sum, r->buf + r->ready, at - r->ready);
		for (size_t i = r->ready; i < at; i += TS_RECORD_SIZE)
			ts_record_to_host((struct ts_record *)(r->buf + i), r->st.big_endian);
		end = at;
		at = first_bad(r->buf, r->ready, end);
		if (bounds && (out = first_outside(r, r->ready, at, why, sizeof(why))) < at)
			return fail_outside(r, out, why);
	}
	r->ready = at;
	if (at == stop)
		return;
	/* at holds the footer, or a record that fails its check */
	if (r->buf[at + 44] == TS_KIND_FOOTER) {
		r->pending = check_footer(r, at);
		return;
	}
	ret = ts_record_check((const struct ts_record *)(r->buf + at), why, sizeof(why));
	r->pending = fail(r, ret ? ret : -EBADMSG, "byte %" PRIu64 ": record %" PRIu64 ": %s",
			  r->buf_off + at, r->st.records + (at - r->pos) / TS_RECORD_SIZE, why);
}

static int finish_eof(struct trace_reader *r)
{
	size_t part = r->fill - r->ready;
	uint64_t off = r->buf_off + r->ready;

	r->st.truncated = true;
	if (part)
		fail(r, 0, "byte %" PRIu64 ": truncated record (%zu of %u bytes); %" PRIu64
		     " whole records recovered", off, part, TS_RECORD_SIZE, r->st.records);
	else
		fail(r, 0, "byte %" PRIu64 ": no footer, trace cut short; %" PRIu64 " whole records recovered",
		     off, r->st.records);
	return r->pending = 1;
}

/*
 * Reads the bytes after buf[fill) (file offset at) to the page boundary
 * TS_READ_BYTES on, to base at at's offset in a page (TS_READ_ALIGN); the
 * kept bytes (fewer than a record: refill runs when no whole record is left)
 * go just before them.
 */
static int refill(struct trace_reader *r)
{
	size_t keep = r->fill - r->ready;
	uint64_t at = r->buf_off + r->fill;
	unsigned char *to = r->base + TS_READ_ALIGN + at % TS_READ_ALIGN;
	size_t want = TS_READ_BYTES - at % TS_READ_ALIGN;
	ssize_t n;

	memmove(to - keep, r->buf + r->ready, keep);
	r->buf = to - keep;
	r->buf_off = at - keep;
	r->fill = keep;
	r->pos = r->ready = 0;
	n = read_full(r->fd, to, want, r->wait);
	if (n < 0)
		return r->pending = fail(r, (int)n, "byte %" PRIu64 ": %s", at, strerror((int)-n));
	r->fill += (size_t)n;
	r->eof = (size_t)n < want;
	return 0;
}

static ssize_t batch_binary(struct trace_reader *r, const struct ts_record **recs, size_t max)
{
	for (;;) {
		size_t avail = (r->ready - r->pos) / TS_RECORD_SIZE;

		if (avail) {
			size_t n = avail < max ? avail : max;

			*recs = (const struct ts_record *)(r->buf + r->pos);
			r->pos += n * TS_RECORD_SIZE;
			r->st.records += n;
			return (ssize_t)n;
		}
		if (r->pending)
			return r->pending < 0 ? r->pending : 0;
		if (r->fill - r->ready >= TS_RECORD_SIZE)
			scan(r);
		else if (r->eof)
			return finish_eof(r), 0;
		else
			refill(r);
	}
}

/* ---- JSON Lines ---- */

/*
 * A pipe's JSON Lines: the bytes read to tell the form first, then the rest of the
 * pipe (a file is read again from byte 0 instead).
 */
struct pipe_in {
	unsigned char pre[TS_FIXED_HDR];
	size_t n, at;
	int fd;
};

static ssize_t pipe_in_read(void *cookie, char *buf, size_t len)
{
	struct pipe_in *p = cookie;
	size_t k = p->n - p->at < len ? p->n - p->at : len;

	if (k) {
		memcpy(buf, p->pre + p->at, k);
		p->at += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t n = read(p->fd, buf, len);

		if (n >= 0 || errno != EINTR || trimsim_stop)
			return n;
	}
}

static int pipe_in_close(void *cookie)
{
	struct pipe_in *p = cookie;
	int rc = close(p->fd);

	free(p);
	return rc;
}

static FILE *jsonl_stream(struct trace_reader *r, const unsigned char *pre, size_t n)
{
	struct pipe_in *p;
	FILE *f;

	if (lseek(r->fd, 0, SEEK_SET) >= 0)
		return fdopen(r->fd, "r");
	if (errno != ESPIPE || !(p = malloc(sizeof(*p))))
		return NULL;
	*p = (struct pipe_in){ .n = n, .fd = r->fd };
	memcpy(p->pre, pre, n);
	f = fopencookie(p, "r", (cookie_io_functions_t){ .read = pipe_in_read, .close = pipe_in_close });
	if (!f)
		free(p);
	return f;
}

static int open_jsonl(struct trace_reader *r, const unsigned char *pre, size_t npre)
{
	char esc[200];
	json_error_t jerr;
	json_t *o, *h, *v;
	ssize_t n;

	r->f = jsonl_stream(r, pre, npre);
	if (!r->f)
		return fail(r, -errno, "%s", strerror(errno));
	r->fd = -1;
	setvbuf(r->f, NULL, _IOFBF, 256 << 10);
	r->jrecs = malloc(JSONL_BATCH * sizeof(*r->jrecs));
	if (!r->jrecs)
		return fail(r, -ENOMEM, "out of memory");
	n = getline(&r->line, &r->linecap, r->f);
	r->lineno = 1;
	if (n <= 0)
		return fail(r, -EBADMSG, "line 1: missing header line");
	o = json_loadb(r->line, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	if (!o)
		return fail(r, -EBADMSG, "line 1: invalid JSON: %s", ts_escape(jerr.text, esc, sizeof(esc)));
	v = json_object_get(o, "trimsim");
	h = json_object_get(o, "header");
	if (!json_is_integer(v) || !json_is_object(h)) {
		json_decref(o);
		return fail(r, -EBADMSG, "line 1: not a trimsim JSON Lines header ({\"trimsim\":1,\"header\":{...}})");
	}
	if (json_integer_value(v) != TS_JSONL_VERSION) {
		int ver = (int)json_integer_value(v);

		json_decref(o);
		return fail(r, -EPROTONOSUPPORT, "line 1: unsupported format version %d (this trimsim reads %d)",
			    ver, TS_JSONL_VERSION);
	}
	json_incref(h);
	json_decref(o);
	r->st.jsonl = true;
	return set_header(r, h, "line 1");
}

static int jsonl_footer(struct trace_reader *r, const char *line, size_t len, uint64_t held)
{
	char esc[200];
	json_error_t jerr;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr), *ft = json_object_get(o, "footer");
	const char *keys[] = { "records", "lost", "end_ns" };
	uint64_t vals[3] = { 0 };
	int ret = 1;

	if (!o)
		return fail(r, -EBADMSG, "line %" PRIu64 ": invalid JSON: %s", r->lineno,
			    ts_escape(jerr.text, esc, sizeof(esc)));
	for (int i = 0; i < 3 && ret > 0; i++) {
		json_t *v = json_object_get(ft, keys[i]);

		if (!v && i == 2)
			break;
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			ret = fail(r, -EBADMSG, "line %" PRIu64 ": footer field \"%s\": %s", r->lineno, keys[i],
				   v ? "expected a non-negative integer" : "missing");
		else
			vals[i] = (uint64_t)json_integer_value(v);
	}
	json_decref(o);
	if (ret < 0)
		return ret;
	if (vals[0] != held)
		return fail(r, -EBADMSG, "line %" PRIu64 ": footer counts %" PRIu64 " records, file holds %" PRIu64,
			    r->lineno, vals[0], held);
	r->st.footer = true;
	r->st.lost = vals[1];
	r->st.end_ns = vals[2];
	r->st.checksum_ok = true;
	if (getline(&r->line, &r->linecap, r->f) > 0)
		return fail(r, -EBADMSG, "line %" PRIu64 ": data after the footer", r->lineno + 1);
	return 1;
}

static ssize_t batch_jsonl(struct trace_reader *r, const struct ts_record **recs, size_t max)
{
	size_t n = 0;
	char why[300];

	if (max > JSONL_BATCH)
		max = JSONL_BATCH;
	while (n < max && !r->pending) {
		ssize_t len = getline(&r->line, &r->linecap, r->f);
		int ret;

		if (len <= 0) {
			r->st.truncated = true;
			fail(r, 0, "line %" PRIu64 ": no footer, trace cut short; %" PRIu64 " records recovered",
			     r->lineno + 1, r->st.records + n);
			r->pending = 1;
			break;
		}
		r->lineno++;
		if (len > 0 && r->line[len - 1] != '\n' && feof(r->f)) {
			r->st.truncated = true;
			fail(r, 0, "line %" PRIu64 ": truncated line; %" PRIu64 " records recovered", r->lineno,
			     r->st.records + n);
			r->pending = 1;
			break;
		}
		if (!strncmp(r->line, "{\"footer\"", 9)) {
			r->pending = jsonl_footer(r, r->line, (size_t)len, r->st.records + n);
			break;
		}
		ret = ts_jsonl_parse_record(r->line, (size_t)len, &r->jrecs[n], why, sizeof(why));
		if (!ret)
			ret = ts_devmap__check(r->devmap, &r->jrecs[n], why, sizeof(why));
		if (ret) {
			r->pending = fail(r, ret, "line %" PRIu64 ": %s", r->lineno, why);
			break;
		}
		n++;
	}
	if (n) {
		r->st.records += n;
		*recs = r->jrecs;
		return (ssize_t)n;
	}
	return r->pending < 0 ? r->pending : 0;
}

/* ---- spooled inputs ---- */

/*
 * The inputs trace_reader__spool() copied: filled before any reader opens and
 * before a command forks its workers, read-only after (so no lock). A copy is
 * an unlinked file: it goes away with the last process holding its fd.
 */
#define MAX_SPOOLS 64
static struct spool { const char *path; int fd; } spools[MAX_SPOOLS];
static size_t nspools;

static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "stdin";
}

static int spool_fd(const char *path)
{
	for (size_t i = 0; i < nspools; i++)
		if (!strcmp(spools[i].path, path))
			return spools[i].fd;
	return -1;
}

static int spool_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	/* a filesystem without O_TMPFILE: a named file, unlinked at once */
	if (snprintf(tmpl, sizeof(tmpl), "%s/.trimsim-spool.XXXXXX", dir) >= (int)sizeof(tmpl)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

int trace_reader__spool(const char *path, char *err, size_t errlen)
{
	int in = -1, out = -1, ret = 0;
	const char *name = display_name(path);
	struct stat sb;
	char *buf = NULL;

	if (spool_fd(path) >= 0)
		return 0;
	if (strcmp(path, "-") && !stat(path, &sb) && S_ISREG(sb.st_mode))
		return 0;	/* a file: every pass opens it anew */
	if (nspools == MAX_SPOOLS)
		return ts_errf(err, errlen, -E2BIG, "%s: more than %d inputs to copy", name, MAX_SPOOLS);
	in = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (in < 0)
		return ts_errf(err, errlen, -errno, "%s: %s", name, strerror(errno));
	if ((out = spool_tmpfile()) < 0) {
		ret = ts_errf(err, errlen, -errno, "%s: temporary copy in %s: %s", name,
			      getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		goto out;
	}
	if (!(buf = malloc(TS_BUF_ALLOC))) {
		ret = ts_errf(err, errlen, -ENOMEM, "%s: out of memory", name);
		goto out;
	}
	for (uint64_t total = 0;;) {
		ssize_t n = read_full(in, buf, TS_BUF_ALLOC, true);

		if (n < 0) {
			ret = trimsim_stop ? ts_errf(err, errlen, -EINTR, "interrupted") :
					     ts_errf(err, errlen, (int)n, "%s: byte %" PRIu64 ": %s", name, total,
						     strerror((int)-n));
			goto out;
		}
		if (!n)
			break;
		if (write(out, buf, (size_t)n) != n) {	/* a regular file: a short write is a full disk */
			ret = ts_errf(err, errlen, errno ? -errno : -ENOSPC, "%s: temporary copy: %s", name,
				      strerror(errno ? errno : ENOSPC));
			goto out;
		}
		total += (uint64_t)n;
	}
	spools[nspools++] = (struct spool){ .path = path, .fd = out };
	out = -1;
out:
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/* ---- public ---- */

int trace_reader__open_fd(const char *path)
{
	int spooled = spool_fd(path);
	char copy[32];

	if (spooled < 0)
		return strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	/* a copy opens anew through /proc: its own offset, so workers read it side by side */
	snprintf(copy, sizeof(copy), "/proc/self/fd/%d", spooled);
	return open(copy, O_RDONLY | O_CLOEXEC);
}

struct trace_reader *trace_reader__open(const char *path, char *err, size_t errlen)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	unsigned char fixed[TS_FIXED_HDR];
	struct stat sb;
	ssize_t got;
	int ret = -ENOMEM;

	if (r)
		r->fd = -1;
	if (!r || !(r->path = strdup(display_name(path)))) {
		ts_errf(err, errlen, 0, "%s: out of memory", display_name(path));
		goto out;
	}
	r->fd = trace_reader__open_fd(path);
	if (r->fd < 0) {
		ret = fail(r, -errno, "%s", strerror(errno));
		goto out;
	}
	/* Read front to back: the kernel's readahead window, doubled from the first read (a hint; a pipe says ESPIPE). */
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	r->wait = fstat(r->fd, &sb) || !S_ISREG(sb.st_mode);
	got = read_full(r->fd, fixed, sizeof(fixed), r->wait);
	if (got < 0)
		ret = fail(r, (int)got, "byte 0: %s", strerror((int)-got));
	else if (got == 0)
		ret = fail(r, -EBADMSG, "byte 0: empty file");
	else if (fixed[0] == '{')
		ret = open_jsonl(r, fixed, (size_t)got);
	else
		ret = open_binary(r, fixed, (size_t)got);
out:
	if (ret && r) {
		ts_errf(err, errlen, 0, "%s", r->err);
		trace_reader__close(r);
		errno = -ret;
		return NULL;
	}
	return r;
}

ssize_t trace_reader__batch(struct trace_reader *r, const struct ts_record **recs, size_t max)
{
	if (!max)
		return 0;
	if (trimsim_stop)	/* SIGINT/SIGTERM: every loop over a trace ends within one batch */
		return fail(r, -EINTR, "interrupted");
	return r->st.jsonl ? batch_jsonl(r, recs, max) : batch_binary(r, recs, max);
}

int trace_reader__next(struct trace_reader *r, struct ts_record *rec)
{
	const struct ts_record *p;
	ssize_t n = trace_reader__batch(r, &p, 1);

	if (n <= 0)
		return (int)n;
	*rec = *p;
	return 1;
}

const json_t *trace_reader__header(const struct trace_reader *r) { return r->header; }
const struct trace_status *trace_reader__status(const struct trace_reader *r) { return &r->st; }
const char *trace_reader__error(const struct trace_reader *r) { return r->err; }
const char *trace_reader__path(const struct trace_reader *r) { return r->path; }

const struct ts_device *trace_reader__devices(const struct trace_reader *r, size_t *n)
{
	*n = r->ndev;
	return r->devs;
}

const struct ts_device *trace_reader__replay_device(const struct trace_reader *r)
{
	for (size_t i = 0; i < r->ndev; i++)
		if (r->ndev == 1 || r->devs[i].fs[0])
			return &r->devs[i];
	return NULL;
}

void trace_reader__close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	if (r->fd >= 0)
		close(r->fd);
	json_decref(r->header);
	ts_devmap__free(r->devmap);
	free(r->devs);
	free(r->mem);
	free(r->line);
	free(r->jrecs);
	free(r->path);
	free(r);
}
