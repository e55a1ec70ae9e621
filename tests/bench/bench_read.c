// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reading, every way of getting the bytes, side by side (make bench,
 * section 1; BENCHMARKS.md "Reading"):
 *
 *   bench_read TRACE [ROUNDS [DIR]] [--cold] [--v1 TRACE_V1]
 *
 * The limit is a plain read() loop over the file that touches one 8-byte
 * field of every record and neither checks nor sums, laid out as it runs
 * fastest here: 256 KiB reads from byte 0, so each ends on a page boundary of
 * the file, into a page-aligned buffer (the kernel copies whole pages to
 * page-aligned addresses: 4-5% less cpu than 262,128-byte reads into a buffer
 * 64 bytes past a page, which it was until 2026-12-01 and which "old limit"
 * still runs; 128 KiB lost 4%, 384 KiB tied, 512 KiB and 1 MiB lost, a 2 MiB
 * huge page buffer gained nothing: BENCHMARKS.md "Reading"). Every other variant but
 * two does what the reader must: checks each record and sums it into the
 * trace checksum in one pass while the bytes are in cache (ts_sum_records,
 * with the checksum of the file's format version), then touches the same
 * field; its checksum must equal the footer's, or the bench fails. TRACE is
 * what writers write now (format version 2); TRACE_V1, if given, the same
 * records with the version 1 checksum (trimsim convert --format-version 1),
 * read by "read v1" and "reader v1".
 *   read        read() as the reader does (TS_READ_BYTES from page boundaries of
 *               the file, into a buffer where each byte sits at its file
 *               offset modulo a page; the cut record's bytes moved before the next)
 *   pread       pread() into the same buffer
 *   io_uring    IORING_OP_READ into the two halves of a 64-byte-aligned buffer
 *               of TS_BUF_BYTES: one read
 *               in flight while the other half is checked
 *   read, check read() and the record checks without the checksum: what the
 *               checksum costs is the difference from "read"
 *   map+pop     a mapping read by a moving window, MADV_POPULATE_READ per
 *               window and MADV_DONTNEED behind it every 1 MiB (the reader
 *               before issue 21)
 *   map         the same without populate: pages faulted as they are checked
 *   map hot     the whole file mapped, populated and touched before the clock
 *               starts: no page is mapped or first touched while timed, so
 *               this is the most any mapped reader can do on this host (the
 *               regime where faults cost nothing)
 *   plain map   no checks, a plain loop over 64 MiB MAP_POPULATE windows: the
 *               figure that tells the host's regime (printed before issue 21)
 *   reader      trace_reader__batch, what trimsim uses
 *   read v1, reader v1   "read" and "reader" on TRACE_V1
 * Every fd gets posix_fadvise(SEQUENTIAL), as the reader's does; readahead is
 * the kernel's. That only matters when the pages are not cached: --cold
 * drops this file's pages (fdatasync, POSIX_FADV_DONTNEED) before each run
 * and leaves "map hot" out.
 *
 * A round runs every variant once, in an order rotated each round, so a
 * change of load hits all alike. cpu time is getrusage(RUSAGE_SELF) user +
 * system (io_uring's kernel workers are threads of this process and count),
 * wall time CLOCK_MONOTONIC. Each variant is compared with the limit run in
 * the same round ("x read", the median over rounds of those paired ratios:
 * steadier on a shared machine than a ratio of medians). Prints a table and
 * one line for bench.sh:
 *   summary: records=N rounds=R read_cpu_eps=X reader_cpu_eps=Y reader_cpu_ratio=A reader_wall_ratio=B
 *            maphot_cpu_ratio=C mappop_cpu_ratio=D plainmap_cpu_ratio=E check_cpu_ratio=F
 *            read_cpu_ratio=G reader_v1_cpu_ratio=H read_v1_cpu_ratio=I (the last two 0 without TRACE_V1)
 *            oldlimit_cpu_ratio=J reader_oldlimit_cpu_ratio=K (the old limit, and the reader against it)
 * With DIR, DIR/<variant>.ratio holds each round's paired cpu ratio (for ministat).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

#define MAX_ROUNDS 64
#define URING_HALF (TS_BUF_BYTES / 2 / TS_RECORD_SIZE * TS_RECORD_SIZE)
#define PLAIN_MAP_WIN (64u << 20)
#define PAGE_DOWN(x) ((x) & ~(uint64_t)4095)

struct bench {
	const char *path;
	bool cold;
	struct bench *v1;		/* TRACE_V1, or NULL */
	uint64_t size, hlen, nrec;	/* nrec: records between header and footer */
	struct ts_sum hsum;		/* the header, summed as the reader sums it (by the file's version) */
	uint64_t footer_sum;
	unsigned char *buf;		/* TS_BUF_ALLOC bytes, 64-byte aligned: the old limit, io_uring, the mapping */
	unsigned char *page;		/* TS_READ_ALIGN + TS_READ_BYTES bytes, page-aligned: the limit, read(), pread() */
	const unsigned char *hot;	/* "map hot": the whole file, populated and touched */
};

/* What one run saw: records, the checksum it computed (if it sums) and the footer's, a sink for the loads. */
struct run {
	uint64_t recs, sum, want, sink;
};

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

static int open_seq(const struct bench *b)
{
	int fd = open(b->path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return fd;
}

/*
 * The consumer's work: one field of every record (what every variant and the plain loops do), summed in a
 * register and stored once, as v_reader's loop does (a store a record made the limit's loop the slower).
 */
static void touch(const unsigned char *p, size_t nrec, struct run *r)
{
	uint64_t sink = 0;

	for (size_t k = 0; k < nrec; k++) {
		uint64_t w;

		memcpy(&w, p + k * TS_RECORD_SIZE + 16, sizeof(w));
		sink += w;
	}
	r->sink += sink;
}

/* Checks and sums records in memory, then touches them; returns how many passed (fewer at the footer). */
static size_t take(struct ts_sum *s, const unsigned char *p, size_t nrec, struct run *r)
{
	size_t n = ts_sum_records(s, p, nrec);

	touch(p, n, r);
	r->recs += n;
	return n;
}

/* ---- the limit ---- */

static int plain_read(struct bench *b, struct run *r, unsigned char *buf, size_t len)
{
	int fd = open_seq(b);
	ssize_t got;

	if (fd < 0)
		return -errno;
	while ((got = read(fd, buf, len)) > 0)
		touch(buf, (size_t)got / TS_RECORD_SIZE, r);
	close(fd);
	r->recs = b->nrec;
	return got < 0 ? -errno : 0;
}

static int v_plain_read(struct bench *b, struct run *r) { return plain_read(b, r, b->page, TS_READ_BYTES); }
static int v_old_limit(struct bench *b, struct run *r) { return plain_read(b, r, b->buf, TS_BUF_BYTES); }

/* ---- read() and pread() into one buffer; "check" leaves the checksum out ---- */

enum how { READ, PREAD, READ_CHECK };

static int v_read_common(struct bench *b, struct run *r, enum how how)
{
	struct ts_sum s = b->hsum;
	uint64_t off = b->hlen;		/* the file offset of the next read */
	const unsigned char *cut = NULL;	/* the bytes of a record the last read cut */
	size_t keep = 0;
	int fd = open_seq(b), ret = 0;

	if (fd < 0)
		return -errno;
	if (how != PREAD && lseek(fd, (off_t)off, SEEK_SET) < 0)
		ret = -errno;
	while (!ret) {
		unsigned char *to = b->page + TS_READ_ALIGN + off % TS_READ_ALIGN, *p = to - keep;
		size_t want = TS_READ_BYTES - off % TS_READ_ALIGN, nrec, n = 0;
		ssize_t got;

		memmove(p, cut, keep);
		got = how == PREAD ? pread(fd, to, want, (off_t)off) : read(fd, to, want);
		if (got < 0) {
			ret = -errno;
			break;
		}
		off += (uint64_t)got;
		nrec = (keep + (size_t)got) / TS_RECORD_SIZE;
		if (how == READ_CHECK) {
			while (n < nrec && ts_record_ok((const struct ts_record *)(p + n * TS_RECORD_SIZE)))
				n++;
			touch(p, n, r);
			r->recs += n;
		} else {
			n = take(&s, p, nrec, r);
		}
		if (n < nrec || (size_t)got < want)
			break;
		keep = keep + (size_t)got - nrec * TS_RECORD_SIZE;
		cut = p + nrec * TS_RECORD_SIZE;
	}
	close(fd);
	r->sum = how == READ_CHECK ? b->footer_sum : ts_sum_final(&s);
	r->want = b->footer_sum;
	return ret;
}

static int v_read(struct bench *b, struct run *r) { return v_read_common(b, r, READ); }
static int v_read_v1(struct bench *b, struct run *r) { return v_read_common(b->v1, r, READ); }
static int v_pread(struct bench *b, struct run *r) { return v_read_common(b, r, PREAD); }
static int v_read_check(struct bench *b, struct run *r) { return v_read_common(b, r, READ_CHECK); }

/* ---- io_uring: the buffer's two halves, one read in flight while the other is checked ---- */

static void uring_read(struct io_uring *ring, int fd, unsigned char *half, uint64_t off, unsigned i)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_read(sqe, fd, half, URING_HALF, off);
	sqe->user_data = i;
}

static int v_uring(struct bench *b, struct run *r)
{
	unsigned char *half[2] = { b->buf, b->buf + URING_HALF };
	int32_t res[2] = { INT32_MIN, INT32_MIN };	/* INT32_MIN: the half's read has not completed */
	struct ts_sum s = b->hsum;
	struct io_uring ring;
	uint64_t next = b->hlen;
	int fd = open_seq(b), ret;

	if (fd < 0)
		return -errno;
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret) {
		close(fd);
		return ret;
	}
	uring_read(&ring, fd, half[0], next, 0);
	next += URING_HALF;
	/* Chunk k of the file lands in half k % 2; the next one is asked for before chunk k is checked. */
	for (unsigned k = 0; !ret; k ^= 1) {
		struct io_uring_cqe *cqe;
		size_t nrec;
		int32_t got;

		if (next < b->size) {
			uring_read(&ring, fd, half[k ^ 1], next, k ^ 1);
			next += URING_HALF;
		}
		ret = io_uring_submit(&ring) < 0 ? -EIO : 0;
		while (!ret && res[k] == INT32_MIN) {
			ret = io_uring_wait_cqe(&ring, &cqe);
			if (!ret) {
				res[cqe->user_data] = cqe->res;
				io_uring_cqe_seen(&ring, cqe);
			}
		}
		got = res[k];
		res[k] = INT32_MIN;
		if (ret || got < 0) {
			ret = ret ? ret : got;
			break;
		}
		nrec = (size_t)got / TS_RECORD_SIZE;
		if (take(&s, half[k], nrec, r) < nrec || got < (int32_t)URING_HALF)
			break;
	}
	io_uring_queue_exit(&ring);	/* cancels and reaps what is still in flight */
	close(fd);
	r->sum = ts_sum_final(&s);
	r->want = b->footer_sum;
	return ret;
}

/* ---- the mapping, read by a moving window ---- */

static int v_map_common(struct bench *b, struct run *r, bool populate)
{
	struct ts_sum s = b->hsum;
	uint64_t off = b->hlen, dropped = 0;
	unsigned char *m;
	int fd = open_seq(b), ret = 0;

	if (fd < 0)
		return -errno;
	m = mmap(NULL, b->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	madvise(m, b->size, MADV_SEQUENTIAL);
	while (off < b->size) {
		uint64_t left = b->size - off, pg = PAGE_DOWN(off);
		size_t len = left < TS_BUF_BYTES ? (size_t)left : TS_BUF_BYTES, nrec = len / TS_RECORD_SIZE;

		if (pg - dropped >= (1u << 20)) {
			madvise(m + dropped, pg - dropped, MADV_DONTNEED);
			dropped = pg;
		}
		if (populate && madvise(m + pg, off + len - pg, MADV_POPULATE_READ)) {
			ret = -errno;
			break;
		}
		if (take(&s, m + off, nrec, r) < nrec)
			break;
		off += len;
	}
	munmap(m, b->size);
	r->sum = ts_sum_final(&s);
	r->want = b->footer_sum;
	return ret;
}

static int v_map_pop(struct bench *b, struct run *r) { return v_map_common(b, r, true); }
static int v_map(struct bench *b, struct run *r) { return v_map_common(b, r, false); }

static int v_map_hot(struct bench *b, struct run *r)
{
	struct ts_sum s = b->hsum;

	take(&s, b->hot + b->hlen, (size_t)b->nrec + 1, r);
	r->sum = ts_sum_final(&s);
	r->want = b->footer_sum;
	return 0;
}

static int v_plain_map(struct bench *b, struct run *r)
{
	int fd = open_seq(b);

	if (fd < 0)
		return -errno;
	for (uint64_t at = 0; at < b->size; at += PLAIN_MAP_WIN) {
		size_t len = b->size - at < PLAIN_MAP_WIN ? (size_t)(b->size - at) : PLAIN_MAP_WIN;
		unsigned char *m = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, (off_t)at);

		if (m == MAP_FAILED) {
			close(fd);
			return -errno;
		}
		madvise(m, len, MADV_SEQUENTIAL);
		touch(m, len / TS_RECORD_SIZE, r);
		munmap(m, len);
	}
	close(fd);
	r->recs = b->nrec;
	return 0;
}

/* ---- the reader ---- */

static int v_reader(struct bench *b, struct run *r)
{
	char err[512];
	struct trace_reader *rd = trace_reader__open(b->path, err, sizeof(err));
	const struct ts_record *recs;
	ssize_t n;
	int ret = 0;

	if (!rd) {
		fprintf(stderr, "bench_read: %s\n", err);
		return -EIO;
	}
	while ((n = trace_reader__batch(rd, &recs, 4096)) > 0) {
		for (ssize_t k = 0; k < n; k++)
			r->sink += recs[k].length;
		r->recs += (uint64_t)n;
	}
	if (n < 0 || !trace_reader__status(rd)->checksum_ok) {
		fprintf(stderr, "bench_read: %s\n", n < 0 ? trace_reader__error(rd) : "reader: checksum not confirmed");
		ret = -EIO;
	}
	trace_reader__close(rd);
	r->sum = r->want = b->footer_sum;	/* the reader compared its own with the footer's */
	return ret;
}

static int v_reader_v1(struct bench *b, struct run *r) { return v_reader(b->v1, r); }

/* ---- driver ---- */

enum { V_PLAIN_READ, V_READ, V_PREAD, V_URING, V_READ_CHECK, V_MAP_POP, V_MAP, V_MAP_HOT, V_PLAIN_MAP, V_READER,
       V_READ_V1, V_READER_V1, V_OLD_LIMIT, NVAR };

static const struct variant {
	const char *name, *what;
	int (*run)(struct bench *b, struct run *r);
} variants[NVAR] = {
	[V_PLAIN_READ] = { "read_plain", "read() loop, no checks (the limit)", v_plain_read },
	[V_READ] = { "read", "read() + check + sum", v_read },
	[V_PREAD] = { "pread", "pread() + check + sum", v_pread },
	[V_URING] = { "io_uring", "io_uring, 2 x 128 KiB + check + sum", v_uring },
	[V_READ_CHECK] = { "read_check", "read() + check, no sum", v_read_check },
	[V_MAP_POP] = { "map_pop", "map + populate + check + sum (old reader)", v_map_pop },
	[V_MAP] = { "map", "map, no populate + check + sum", v_map },
	[V_MAP_HOT] = { "map_hot", "map already populated + check + sum", v_map_hot },
	[V_PLAIN_MAP] = { "plain_map", "plain loop over a mapping, no checks", v_plain_map },
	[V_READER] = { "reader", "trace_reader__batch (the reader)", v_reader },
	[V_READ_V1] = { "read_v1", "read() + check + sum, format version 1", v_read_v1 },
	[V_READER_V1] = { "reader_v1", "the reader, format version 1", v_reader_v1 },
	[V_OLD_LIMIT] = { "read_plain_old", "old limit: 262,128-byte reads, 64-byte buffer", v_old_limit },
};

/* Variants that run here: "map hot" not on a cold cache, the version 1 ones only with TRACE_V1. */
static bool runs(const struct bench *b, unsigned v)
{
	return !(b->cold && v == V_MAP_HOT) && (b->v1 || (v != V_READ_V1 && v != V_READER_V1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Maps the whole file, populated and every cache line touched once, for "map hot". */
static int map_hot(struct bench *b, int fd)
{
	unsigned char *m = mmap(NULL, b->size, PROT_READ, MAP_SHARED, fd, 0);
	volatile unsigned char sink = 0;

	if (m == MAP_FAILED || madvise(m, b->size, MADV_POPULATE_READ))
		return -errno;
	for (uint64_t k = 0; k < b->size; k += 64)
		sink ^= m[k];
	b->hot = m;
	return 0;
}

/* Reads the header (summed) and the footer's checksum of a whole trace; hot: maps it for "map hot". */
static int setup(struct bench *b, bool hot)
{
	unsigned char fixed[TS_FIXED_HDR], *h = NULL;
	struct ts_footer ft;
	struct stat sb;
	uint32_t hlen;
	int fd = open(b->path, O_RDONLY | O_CLOEXEC), ret = -EBADMSG;

	if (fd < 0 || fstat(fd, &sb))
		return -errno;
	b->size = (uint64_t)sb.st_size;
	if (pread(fd, fixed, sizeof(fixed), 0) != (ssize_t)sizeof(fixed))
		goto out;
	memcpy(&hlen, fixed + 4, 4);
	if ((fixed[0] != 1 && fixed[0] != 2) || hlen < TS_FIXED_HDR || b->size < (uint64_t)hlen + TS_RECORD_SIZE || (b->size - hlen) % TS_RECORD_SIZE)
		goto out;
	b->hlen = hlen;
	b->nrec = (b->size - hlen) / TS_RECORD_SIZE - 1;
	h = malloc(hlen);
	if (!h || pread(fd, h, hlen, 0) != (ssize_t)hlen ||
	    pread(fd, &ft, sizeof(ft), (off_t)(b->size - TS_RECORD_SIZE)) != (ssize_t)sizeof(ft) ||
	    ft.kind != TS_KIND_FOOTER)
		goto out;
	ts_sum_start(&b->hsum, fixed[0], h, hlen);	/* the magic's first byte (little-endian): the version */
	b->footer_sum = ft.checksum;
	ret = -ENOMEM;
	b->buf = aligned_alloc(64, TS_BUF_ALLOC);
	if (!b->buf)
		goto out;
	memset(b->buf, 0, TS_BUF_ALLOC);
	b->page = aligned_alloc(TS_READ_ALIGN, TS_READ_ALIGN + TS_READ_BYTES);
	if (!b->page)
		goto out;
	memset(b->page, 0, TS_READ_ALIGN + TS_READ_BYTES);
	ret = b->cold || !hot ? 0 : map_hot(b, fd);
out:
	free(h);
	close(fd);
	return ret;
}

static void drop_cache(const struct bench *b)
{
	int fd = open(b->path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		fdatasync(fd);	/* dirty pages are not dropped */
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/*
 * The fused check + sum alone, on one buffer of records already in cache (the
 * first TS_BUF_RECORDS of TRACE, read into b->buf): ns a record for version 1
 * and for every form of version 2 this CPU runs, best of 5 runs of 200 passes,
 * the forms interleaved within each run.
 */
static void sum_alone(struct bench *b)
{
	enum { PASSES = 200, RUNS = 5, NF = TS_ISA_N + 1 };
	double best[NF];
	ssize_t got;
	size_t n;
	int fd = open_seq(b);

	if (fd < 0)
		return;
	got = pread(fd, b->buf, TS_BUF_BYTES, (off_t)b->hlen);
	close(fd);
	if (got < (ssize_t)TS_RECORD_SIZE)
		return;
	n = (size_t)got / TS_RECORD_SIZE;
	for (int f = 0; f < NF; f++)
		best[f] = 1e9;
	for (int run = 0; run < RUNS; run++)
		for (int f = 0; f < NF; f++) {
			struct ts_sum s;
			size_t ok = 0;
			double c0;

			if (f > 0 && !ts_sum_isa_ok((enum ts_sum_isa)(f - 1)))
				continue;
			ts_sum_start(&s, f ? 2 : 1, b->buf, 16);
			c0 = cpu_s();
			for (int k = 0; k < PASSES; k++) {
				ok += f ? ts_sum2_records_isa(&s, b->buf, n, NULL, (enum ts_sum_isa)(f - 1)) :
					  ts_sum_records(&s, b->buf, n);
				__asm__ volatile("" ::: "memory");
			}
			c0 = (cpu_s() - c0) / PASSES / (double)n * 1e9;
			if (ok == PASSES * n && c0 < best[f])
				best[f] = c0;
		}
	printf("  check + sum alone, %zu records in cache (ns a record, best of %d):  version 1 %.2f", n, RUNS, best[0]);
	for (int f = 1; f < NF; f++)
		if (ts_sum_isa_ok((enum ts_sum_isa)(f - 1)))
			printf(", v2 %s %.2f", ts_sum_isa_name((enum ts_sum_isa)(f - 1)), best[f]);
	printf("\n");
}

static int write_ratios(const char *dir, const char *name, const double *v, int n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.ratio", dir, name);
	f = fopen(path, "w");
	for (int i = 0; f && i < n; i++)
		fprintf(f, "%.4f\n", v[i]);
	if (!f || fclose(f)) {
		fprintf(stderr, "bench_read: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static double cpu[NVAR][MAX_ROUNDS], wall[NVAR][MAX_ROUNDS], rc[NVAR][MAX_ROUNDS], rw[NVAR][MAX_ROUNDS];
	static double old[MAX_ROUNDS];	/* the reader against the old limit, per round */
	struct bench b = { 0 }, b1 = { 0 };
	const char *dir = NULL;
	int rounds = 5, npos = 0, ret;
	uint64_t sink = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cold"))
			b.cold = b1.cold = true;
		else if (!strcmp(argv[i], "--v1") && i + 1 < argc)
			b1.path = argv[++i];
		else if (npos == 0 && ++npos)
			b.path = argv[i];
		else if (npos == 1 && ++npos)
			rounds = atoi(argv[i]);
		else if (npos == 2 && ++npos)
			dir = argv[i];
		else
			rounds = 0;
	}
	if (!b.path || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench_read TRACE [ROUNDS (1..%d) [DIR]] [--cold] [--v1 TRACE_V1]\n", MAX_ROUNDS);
		return 2;
	}
	ret = setup(&b, true);
	if (!ret && b1.path) {
		ret = setup(&b1, false);
		b.v1 = &b1;
		if (!ret && b1.nrec != b.nrec) {
			fprintf(stderr, "bench_read: %s holds %" PRIu64 " records, %s %" PRIu64 "\n", b1.path, b1.nrec,
				b.path, b.nrec);
			return 1;
		}
	}
	if (ret) {
		fprintf(stderr, "bench_read: %s: %s\n", ret && b.v1 ? b1.path : b.path,
			ret == -EBADMSG ? "not a whole little-endian trimsim trace" : strerror(-ret));
		return 1;
	}
	for (int round = 0; round < rounds; round++) {
		for (unsigned j = 0; j < NVAR; j++) {
			unsigned v = (j + (unsigned)round) % NVAR;
			struct run r = { 0 };
			uint64_t t0;
			double c0;

			if (!runs(&b, v))
				continue;
			if (b.cold)
				drop_cache(v == V_READ_V1 || v == V_READER_V1 ? &b1 : &b);
			t0 = ts_now_ns();
			c0 = cpu_s();
			ret = variants[v].run(&b, &r);
			cpu[v][round] = cpu_s() - c0;
			wall[v][round] = (double)(ts_now_ns() - t0) / 1e9;
			if (ret) {
				fprintf(stderr, "bench_read: %s: %s\n", variants[v].name, strerror(-ret));
				return 1;
			}
			if (r.recs != b.nrec || (r.sum && r.sum != r.want)) {
				fprintf(stderr, "bench_read: %s: %" PRIu64 " records, checksum %016" PRIx64
					" (the trace holds %" PRIu64 ", footer %016" PRIx64 ")\n", variants[v].name,
					r.recs, r.sum, b.nrec, r.want);
				return 1;
			}
			sink += r.sink;
		}
		for (unsigned v = 0; v < NVAR; v++) {
			rc[v][round] = cpu[V_PLAIN_READ][round] / cpu[v][round];
			rw[v][round] = wall[V_PLAIN_READ][round] / wall[v][round];
		}
		old[round] = cpu[V_OLD_LIMIT][round] / cpu[V_READER][round];
	}
	printf("  %-42s %13s %6s %11s %6s\n", "variant (median of rounds)", "records/cpu-s", "x read", "records/s",
	       "x read");
	for (unsigned v = 0; v < NVAR; v++) {
		if (!runs(&b, v))
			continue;
		printf("  %-42s %12.2fM %6.2f %10.2fM %6.2f\n", variants[v].what, b.nrec / median(cpu[v], rounds) / 1e6,
		       median(rc[v], rounds), b.nrec / median(wall[v], rounds) / 1e6, median(rw[v], rounds));
		if (dir && write_ratios(dir, variants[v].name, rc[v], rounds))
			return 1;
	}
	sum_alone(&b);
	printf("summary: records=%" PRIu64 " rounds=%d read_cpu_eps=%.0f reader_cpu_eps=%.0f reader_cpu_ratio=%.3f"
	       " reader_wall_ratio=%.3f maphot_cpu_ratio=%.3f mappop_cpu_ratio=%.3f plainmap_cpu_ratio=%.3f"
	       " check_cpu_ratio=%.3f read_cpu_ratio=%.3f reader_v1_cpu_ratio=%.3f read_v1_cpu_ratio=%.3f"
	       " oldlimit_cpu_ratio=%.3f reader_oldlimit_cpu_ratio=%.3f (sink %" PRIu64 ")\n",
	       b.nrec, rounds, b.nrec / median(cpu[V_PLAIN_READ], rounds), b.nrec / median(cpu[V_READER], rounds),
	       median(rc[V_READER], rounds), median(rw[V_READER], rounds),
	       b.cold ? 0.0 : median(rc[V_MAP_HOT], rounds), median(rc[V_MAP_POP], rounds),
	       median(rc[V_PLAIN_MAP], rounds), median(rc[V_READ_CHECK], rounds), median(rc[V_READ], rounds),
	       b.v1 ? median(rc[V_READER_V1], rounds) : 0.0, b.v1 ? median(rc[V_READ_V1], rounds) : 0.0,
	       median(rc[V_OLD_LIMIT], rounds), median(old, rounds), sink & 1);
	return 0;
}
