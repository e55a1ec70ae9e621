// SPDX-License-Identifier: GPL-2.0
/*
 * blktrace import: files written here in the documented binary layout
 * (include/uapi/linux/blktrace_api.h, struct blk_io_trace), in both byte
 * orders, as per-CPU files or one dump, with payloads and notify records
 * mixed in; importing must give back the discard commands generated.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/import/blkio.h"
#include "traces/import/importer.h"

#define NCMD 300
#define DEV TS_DEV_MK(8, 16)

extern const struct importer_ops importer_blktrace;

struct cmd {
	uint64_t t, sector;
	uint32_t bytes;
	bool discard;
	uint32_t lat;
};

static void gen(struct cmd *c, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, t = 5000000000ull;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		c[i].t = t;
		c[i].sector = (x % 1000000) * 8;
		c[i].bytes = (uint32_t)((x >> 20) % 2048 + 1) * 512;
		c[i].discard = i % 3 != 2;
		c[i].lat = 20000 + (uint32_t)(x % 50000);
		t += 100000;	/* completion before the next command */
	}
}

struct writer {
	FILE *f[2];
	bool be;
	uint32_t seq[2];
};

static void put(struct writer *w, int cpu, uint64_t t, uint64_t sector, uint32_t bytes, uint32_t action,
		uint16_t pdu_len)
{
	struct blkio_trace r = {
		.magic = BLKIO_MAGIC | BLKIO_VERSION, .sequence = ++w->seq[cpu], .time = t, .sector = sector,
		.bytes = bytes, .action = action, .pid = 1234, .device = DEV, .cpu = (uint32_t)cpu,
		.pdu_len = pdu_len,
	};
	char pdu[64];

	memset(pdu, 0xab, sizeof(pdu));
	if (w->be)
		blkio_swap(&r);
	cr_assert_eq(fwrite(&r, sizeof(r), 1, w->f[cpu]), 1);
	if (pdu_len)
		cr_assert_eq(fwrite(pdu, pdu_len, 1, w->f[cpu]), 1);
}

/* Writes the commands as a kernel would trace them: notify, Q, G, I, D, C (C with a payload). */
static void write_files(const struct cmd *c, size_t n, bool be, int nfiles, char paths[2][256])
{
	struct writer w = { .be = be };

	for (int i = 0; i < nfiles; i++) {
		w.f[i] = fopen(paths[i], "wb");
		cr_assert_not_null(w.f[i]);
	}
	put(&w, 0, c[0].t - 1, 0, 0, BLKIO_TC(BLKIO_TC_NOTIFY), 16);	/* process name */
	for (size_t i = 0; i < n; i++) {
		int cpu = nfiles == 2 ? (int)(i % 2) : 0;
		uint32_t cat = c[i].discard ? BLKIO_TC_WRITE | BLKIO_TC_DISCARD : BLKIO_TC_WRITE | BLKIO_TC_SYNC;

		put(&w, cpu, c[i].t, c[i].sector, c[i].bytes, BLKIO_TC(cat) | BLKIO_TA_QUEUE, 0);
		put(&w, cpu, c[i].t + 10, c[i].sector, c[i].bytes, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_GETRQ, 0);
		put(&w, cpu, c[i].t + 20, c[i].sector, c[i].bytes, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_INSERT, 0);
		put(&w, cpu, c[i].t + 30, c[i].sector, c[i].bytes, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_ISSUE, 0);
		/* The completion lands on the other CPU: the importer must merge by time. */
		put(&w, nfiles == 2 ? 1 - cpu : 0, c[i].t + 30 + c[i].lat, c[i].sector, c[i].bytes,
		    BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_COMPLETE, 8);
	}
	for (int i = 0; i < nfiles; i++)
		cr_assert_eq(fclose(w.f[i]), 0);
}

static int import(char paths[2][256], int nfiles, const char *kv, struct import_sink **sink, char *err, size_t errlen)
{
	char opts[64];
	char *files[2] = { paths[0], paths[1] };

	cr_assert_leq(importer_blktrace.opts_size, sizeof(opts));
	memset(opts, 0, sizeof(opts));
	cr_assert_eq(opts__defaults(importer_blktrace.opts, opts, err, errlen), 0, "%s", err);
	cr_assert_eq(opts__parse_kv(importer_blktrace.opts, opts, kv, ',', err, errlen), 0, "%s", err);
	*sink = import_sink__new();
	cr_assert_not_null(*sink);
	return importer_blktrace.run(opts, files, (size_t)nfiles, *sink, err, errlen);
}

struct layout {
	bool be;
	int nfiles;
	char name[32];
};

TestSuite(blktrace_import, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(blktrace_import, round_trip)
{
	static struct layout p[] = {
		{ .be = false, .nfiles = 1, .name = "le dump" },
		{ .be = true, .nfiles = 1, .name = "be dump" },
		{ .be = false, .nfiles = 2, .name = "le per-cpu" },
		{ .be = true, .nfiles = 2, .name = "be per-cpu" },
	};
	return cr_make_param_array(struct layout, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct layout *p, blktrace_import, round_trip)
{
	static struct cmd c[NCMD];
	char paths[2][256], err[512] = "";
	struct import_sink *sink;
	struct ts_record buf[8];
	size_t nd, issue = 0, done = 0, bio = 0, ndisc = 0;
	const struct ts_device *d;
	ssize_t n;

	gen(c, NCMD);
	for (size_t i = 0; i < NCMD; i++)
		ndisc += c[i].discard;
	snprintf(paths[0], sizeof(paths[0]), "%s/sdb.blktrace.0", th_dir());
	snprintf(paths[1], sizeof(paths[1]), "%s/sdb.blktrace.1", th_dir());
	write_files(c, NCMD, p->be, p->nfiles, paths);
	cr_assert_eq(import(paths, p->nfiles, "device_size=1G", &sink, err, sizeof(err)), 0, "%s: %s", p->name, err);

	cr_assert_eq(import_sink__count(sink), ndisc + 2 * NCMD, "%s", p->name);
	for (uint64_t pos = 0; (n = import_sink__read(sink, pos, buf, 8)) > 0; pos += (uint64_t)n) {
		for (ssize_t k = 0; k < n; k++) {
			const struct ts_record *r = &buf[k];

			cr_assert_eq(r->dev, DEV);
			if (r->kind == TS_BIO) {
				while (!c[bio].discard)
					bio++;
				cr_assert_eq(r->offset, c[bio].sector * 512);
				cr_assert_eq(r->length, c[bio].bytes);
				cr_assert_eq(r->op, TS_OP_DISCARD);
				bio++;
			} else if (r->kind == TS_ISSUE) {
				cr_assert_eq(r->time_ns, c[issue].t + 30);
				cr_assert_eq(r->offset, c[issue].sector * 512, "%s: issue %zu", p->name, issue);
				cr_assert_eq(r->length, c[issue].bytes);
				cr_assert_eq(r->op, c[issue].discard ? TS_OP_DISCARD : TS_OP_WRITE);
				cr_assert_eq(r->flags & TS_F_SYNC, c[issue].discard ? 0 : TS_F_SYNC);
				cr_assert_eq(r->ino, 1234);
				issue++;
			} else {
				cr_assert_eq(r->kind, TS_DONE);
				cr_assert_eq(r->offset, c[done].sector * 512);
				cr_assert_eq(r->latency_ns, c[done].lat, "%s: done %zu", p->name, done);
				done++;
			}
		}
	}
	cr_assert_eq(n, 0);
	cr_assert_eq(issue, NCMD);
	cr_assert_eq(done, NCMD);
	d = import_sink__devices(sink, &nd);
	cr_assert_eq(nd, 1);
	cr_assert_eq(d[0].dev, DEV);
	cr_assert_eq(d[0].size, 1ull << 30);
	import_sink__free(sink);
}

Test(blktrace_import, discard_only)
{
	static struct cmd c[NCMD];
	char paths[2][256], err[512] = "";
	struct import_sink *sink;
	size_t ndisc = 0;

	gen(c, NCMD);
	for (size_t i = 0; i < NCMD; i++)
		ndisc += c[i].discard;
	snprintf(paths[0], sizeof(paths[0]), "%s/dump.bin", th_dir());
	write_files(c, NCMD, false, 1, paths);
	cr_assert_eq(import(paths, 1, "ops=discard", &sink, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(import_sink__kind_count(sink, TS_ISSUE), ndisc);
	cr_assert_eq(import_sink__kind_count(sink, TS_DONE), ndisc);
	cr_assert_eq(import_sink__kind_count(sink, TS_BIO), ndisc);
	import_sink__free(sink);
}

struct bad {
	char content[64];	/* written as given */
	size_t len;
	size_t corrupt_at;	/* overwrite 4 bytes with junk at this offset of a good file, if len == 0 */
	char expect[64];
};

ParameterizedTestParameters(blktrace_import, bad_input)
{
	static struct bad p[] = {
		{ .content = "this is not a blktrace file at all, no it is not!", .len = 48,
		  .expect = "offset 0: bad magic" },
		/* notify 48 + 16 payload; Q G I D 48 each, C 48 + 8: the second Q starts at 312 */
		{ .len = 0, .corrupt_at = 312, .expect = "offset 312: bad magic" },
		{ .len = 0, .corrupt_at = (size_t)-1, .expect = "truncated record (20 of 48 bytes)" },
	};
	return cr_make_param_array(struct bad, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct bad *p, blktrace_import, bad_input)
{
	static struct cmd c[4];
	char paths[2][256], err[512] = "";
	struct import_sink *sink;

	snprintf(paths[0], sizeof(paths[0]), "%s/bad.blktrace.0", th_dir());
	if (p->len) {
		cr_assert_eq(th_write(paths[0], p->content, p->len), 0);
	} else {
		FILE *f;

		gen(c, 4);
		write_files(c, 4, false, 1, paths);	/* notify(16 pdu), then Q G I D C(8 pdu) ... */
		f = fopen(paths[0], p->corrupt_at == (size_t)-1 ? "ab" : "r+b");
		cr_assert_not_null(f);
		if (p->corrupt_at == (size_t)-1) {
			cr_assert_eq(fwrite("01234567890123456789", 20, 1, f), 1);
		} else {
			cr_assert_eq(fseek(f, (long)p->corrupt_at, SEEK_SET), 0);
			cr_assert_eq(fwrite("JUNK", 4, 1, f), 1);
		}
		cr_assert_eq(fclose(f), 0);
	}
	cr_assert_neq(import(paths, 1, "", &sink, err, sizeof(err)), 0);
	cr_assert(strstr(err, paths[0]), "message names the file: %s", err);
	cr_assert(strstr(err, p->expect), "expected '%s' in: %s", p->expect, err);
	import_sink__free(sink);
}

/* Damaged files: any byte may be wrong; the import either succeeds or names file and offset. */
Test(blktrace_import, corrupted_bytes_never_crash)
{
	static struct cmd c[16];
	char paths[2][256], err[512];
	size_t len;
	char *good;
	uint64_t x = 12345;

	gen(c, 16);
	snprintf(paths[0], sizeof(paths[0]), "%s/good.bin", th_dir());
	write_files(c, 16, true, 1, paths);
	good = th_slurp(paths[0], &len);
	cr_assert_not_null(good);
	snprintf(paths[0], sizeof(paths[0]), "%s/bad.bin", th_dir());
	for (int round = 0; round < 300; round++) {
		char *bad = malloc(len);
		struct import_sink *sink;
		int ret;

		cr_assert_not_null(bad);
		memcpy(bad, good, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			bad[x % len] = (char)(x >> 32);
		}
		cr_assert_eq(th_write(paths[0], bad, round % 7 ? len : len - (size_t)(x % 48)), 0);
		err[0] = 0;
		ret = import(paths, 1, "", &sink, err, sizeof(err));
		if (ret)
			cr_assert(strstr(err, paths[0]) && strstr(err, "offset"), "round %d: %s", round, err);
		import_sink__free(sink);
		free(bad);
	}
	free(good);
}

/*
 * From a recorded trace (the corpus): its device commands written as blktrace D and C events
 * by the writer above (not the exporter), in both byte orders; the import gives back the same
 * discard commands, in order, with C - D latencies (within 100 us of the recorder's own, which
 * times the issue at a slightly different point: up to 58 us apart on latencies of ~50 ms here).
 */
struct order { bool be; char name[8]; };

ParameterizedTestParameters(blktrace_import, recorded_trace)
{
	static struct order p[] = { { false, "le" }, { true, "be" } };

	return cr_make_param_array(struct order, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct order *p, blktrace_import, recorded_trace)
{
	char src[512], err[512], paths[2][256];
	struct trace_reader *r;
	struct writer w = { .be = p->be };
	struct ts_record rec, *want = NULL, got[64];
	size_t nwant = 0, cap = 0, k = 0;
	struct import_sink *sink;
	ssize_t n;
	int ret;

	snprintf(src, sizeof(src), "%s/traces/corpus/xfs-discard-churn.tsim", th_src());
	r = trace_reader__open(src, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	snprintf(paths[0], sizeof(paths[0]), "%s/rec.blktrace.0", th_dir());
	w.f[0] = fopen(paths[0], "wb");
	cr_assert_not_null(w.f[0]);
	while ((ret = trace_reader__next(r, &rec)) == 1) {
		uint32_t cat;

		if ((rec.kind != TS_ISSUE && rec.kind != TS_DONE) || rec.op != TS_OP_DISCARD)
			continue;
		cat = BLKIO_TC_WRITE | BLKIO_TC_DISCARD | BLKIO_TC_FS;
		w.seq[0]++;
		{
			struct blkio_trace t = {
				.magic = BLKIO_MAGIC | BLKIO_VERSION, .sequence = w.seq[0], .time = rec.time_ns,
				.sector = rec.offset / 512, .bytes = (uint32_t)rec.length,
				.action = BLKIO_TC(cat) | (rec.kind == TS_ISSUE ? BLKIO_TA_ISSUE : BLKIO_TA_COMPLETE),
				.pid = (uint32_t)rec.ino, .device = rec.dev,
			};

			if (p->be)
				blkio_swap(&t);
			cr_assert_eq(fwrite(&t, sizeof(t), 1, w.f[0]), 1);
		}
		if (nwant == cap) {
			cap = cap ? 2 * cap : 1024;
			want = realloc(want, cap * sizeof(*want));
			cr_assert_not_null(want);
		}
		want[nwant++] = rec;
	}
	cr_assert_eq(ret, 0);
	trace_reader__close(r);
	cr_assert_eq(fclose(w.f[0]), 0);
	cr_assert_gt(nwant, 1000, "the corpus trace has thousands of discard commands");
	cr_assert_eq(import(paths, 1, "", &sink, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(import_sink__count(sink), nwant);
	for (uint64_t pos = 0; (n = import_sink__read(sink, pos, got, 64)) > 0; pos += (uint64_t)n) {
		for (ssize_t i = 0; i < n; i++, k++) {
			cr_assert_eq(got[i].kind, want[k].kind, "%s: record %zu", p->name, k);
			cr_assert_eq(got[i].op, TS_OP_DISCARD);
			cr_assert_eq(got[i].time_ns, want[k].time_ns);
			cr_assert_eq(got[i].offset, want[k].offset);
			cr_assert_eq(got[i].length, want[k].length);
			cr_assert_eq(got[i].dev, want[k].dev);
			if (got[i].kind == TS_DONE) {
				/* What blktrace measures: C time - D time (the recorder times the issue its own way). */
				size_t j = k;

				while (j-- > 0 && !(want[j].kind == TS_ISSUE && want[j].offset == want[k].offset))
					;
				cr_assert_lt(j, k, "%s: record %zu has its issue", p->name, k);
				cr_assert_eq(got[i].latency_ns, want[k].time_ns - want[j].time_ns,
					     "%s: latency of record %zu", p->name, k);
				cr_assert_float_eq((double)got[i].latency_ns, (double)want[k].latency_ns, 100000.0,
						   "%s: within 100 us of the recorder's", p->name);
			}
		}
	}
	cr_assert_eq(k, nwant);
	import_sink__free(sink);
	free(want);
}
