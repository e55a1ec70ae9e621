// SPDX-License-Identifier: GPL-2.0
/*
 * Exports checked with the real tools: Debian's blkparse reads the blktrace
 * export and lists the same discard commands; Debian's fio replays it (null
 * engine, redirected to a file) and reports the same trims and bytes; the fio
 * iolog v3 export follows the grammar of fio's HOWTO "Trace file format", and
 * fio replays its writes. Round trip through the blktrace importer.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/traces/export_util.h"
#include "traces/import/importer.h"

#define NCMD 400

extern const struct importer_ops importer_blktrace;

static struct ts_record recs[2 * NCMD + 2];
static size_t nrecs;

static void setup(void)
{
	nrecs = tu_workload(recs, NCMD, 7);
	th_dir_init();
}

TestSuite(export, .init = setup, .fini = th_dir_fini);

static void expected(unsigned op, uint64_t *count, uint64_t *bytes)
{
	*count = *bytes = 0;
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].kind == TS_ISSUE && recs[i].op == op) {
			(*count)++;
			*bytes += recs[i].length;
		}
}

static bool have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return th_run(cmd, NULL, NULL) == 0;
}

/* Sums blkparse's listing: events with this action letter and RWBS op letter. */
static void blkparse_sum(const char *path, char action, char op, uint64_t *count, uint64_t *sectors)
{
	char cmd[512], *out = NULL, *line, *save = NULL;

	snprintf(cmd, sizeof(cmd), "blkparse -i - < '%s'", path);
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "blkparse failed");
	*count = *sectors = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[16], act[4], rwbs[8];
		unsigned cpu, seq, pid;
		double t;
		unsigned long long sector, n;

		if (sscanf(line, "%15s %u %u %lf %u %3s %7s %llu + %llu", dev, &cpu, &seq, &t, &pid, act, rwbs,
			   &sector, &n) != 9)
			continue;
		if (act[0] == action && !act[1] && strchr(rwbs, op)) {
			(*count)++;
			*sectors += n;
		}
	}
	free(out);
}

Test(export, blktrace_read_by_blkparse)
{
	char path[512], err[256] = "";
	uint64_t want, bytes, n, sectors;

	if (!have("blkparse"))
		cr_skip("blkparse not installed (apt-get install blktrace)");
	snprintf(path, sizeof(path), "%s/out.blktrace", th_dir());
	cr_assert_eq(tu_export(exporter__find("blktrace"), "", recs, nrecs, path, err, sizeof(err)), 0, "%s", err);
	expected(TS_OP_DISCARD, &want, &bytes);
	cr_assert_gt(want, 100);
	blkparse_sum(path, 'D', 'D', &n, &sectors);
	cr_assert_eq(n, want, "blkparse D events of discards");
	cr_assert_eq(sectors * 512, bytes);
	blkparse_sum(path, 'C', 'D', &n, &sectors);
	cr_assert_eq(n, want, "blkparse C events of discards");
	blkparse_sum(path, 'Q', 'W', &n, &sectors);
	expected(TS_OP_WRITE, &want, &bytes);
	cr_assert_eq(n, want, "writes queued");
	cr_assert_eq(sectors * 512, bytes);
}

/* fio's JSON: total_ios and io_bytes of one direction. */
static void fio_counts(const char *json, const char *dir_name, uint64_t *ios, uint64_t *bytes)
{
	json_error_t je;
	json_t *j = json_loads(json, 0, &je), *d;

	cr_assert_not_null(j, "fio JSON: %s", je.text);
	d = json_object_get(json_array_get(json_object_get(j, "jobs"), 0), dir_name);
	cr_assert_not_null(d);
	*ios = (uint64_t)json_integer_value(json_object_get(d, "total_ios"));
	*bytes = (uint64_t)json_integer_value(json_object_get(d, "io_bytes"));
	json_decref(j);
}

static char *fio_replay(const char *log, const char *redirect)
{
	char cmd[1024], *out = NULL, *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "fio --name=replay --ioengine=null --read_iolog='%s' %s%s%s --replay_no_stall=1 "
		 "--output-format=json", log, redirect ? "--replay_redirect='" : "", redirect ? redirect : "",
		 redirect ? "'" : "");
	rc = th_run(cmd, &out, &err);
	cr_assert_eq(rc, 0, "fio failed: %s", err ? err : "");
	free(err);
	return out;
}

/* blkparse -d writes the merged binary dump the importer also reads: a real-tool round trip. */
Test(export, blkparse_dump_imported)
{
	char path[512], dump[512], cmd[1200], err[256] = "", opts[64] = { 0 };
	char *files[1] = { dump };
	struct import_sink *sink = import_sink__new();
	uint64_t want, bytes;

	if (!have("blkparse"))
		cr_skip("blkparse not installed");
	cr_assert_not_null(sink);
	snprintf(path, sizeof(path), "%s/out.blktrace", th_dir());
	snprintf(dump, sizeof(dump), "%s/dump.bin", th_dir());
	cr_assert_eq(tu_export(exporter__find("blktrace"), "", recs, nrecs, path, err, sizeof(err)), 0, "%s", err);
	snprintf(cmd, sizeof(cmd), "blkparse -i - -d '%s' < '%s' > /dev/null", dump, path);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "blkparse -d");
	cr_assert_eq(opts__defaults(importer_blktrace.opts, opts, err, sizeof(err)), 0);
	cr_assert_eq(importer_blktrace.run(opts, files, 1, sink, err, sizeof(err)), 0, "%s", err);
	expected(TS_OP_DISCARD, &want, &bytes);
	cr_assert_eq(import_sink__kind_count(sink, TS_BIO), want, "one Q per discard");
	cr_assert_eq(import_sink__kind_count(sink, TS_ISSUE), NCMD);
	cr_assert_eq(import_sink__kind_count(sink, TS_DONE), NCMD);
	import_sink__free(sink);
}

Test(export, blktrace_replayed_by_fio)
{
	char path[512], target[512], err[256] = "", *json;
	uint64_t want, bytes, ios, iob;

	if (!have("fio"))
		cr_skip("fio not installed");
	snprintf(path, sizeof(path), "%s/out.blktrace", th_dir());
	snprintf(target, sizeof(target), "%s/target.img", th_dir());
	{
		FILE *f = fopen(target, "w");

		cr_assert_not_null(f);
		cr_assert_eq(ftruncate(fileno(f), 8ll << 30), 0);
		fclose(f);
	}
	cr_assert_eq(tu_export(exporter__find("blktrace"), "", recs, nrecs, path, err, sizeof(err)), 0, "%s", err);
	json = fio_replay(path, target);
	expected(TS_OP_DISCARD, &want, &bytes);
	fio_counts(json, "trim", &ios, &iob);
	cr_assert_eq(ios, want, "trims replayed");
	cr_assert_eq(iob, bytes, "trim bytes replayed");
	expected(TS_OP_WRITE, &want, &bytes);
	fio_counts(json, "write", &ios, &iob);
	cr_assert_eq(ios, want);
	cr_assert_eq(iob, bytes);
	free(json);
}

Test(export, blktrace_long_discard_split)
{
	struct ts_record big[2] = {
		{ .time_ns = 10, .offset = 1ull << 20, .length = 5ull << 30, .dev = TU_DEV, .kind = TS_ISSUE,
		  .op = TS_OP_DISCARD },
		{ .time_ns = 20, .offset = 1ull << 20, .length = 5ull << 30, .dev = TU_DEV, .kind = TS_DONE,
		  .op = TS_OP_DISCARD, .latency_ns = 10 },
	};
	char path[512], err[256] = "";
	uint64_t n, sectors;

	if (!have("blkparse"))
		cr_skip("blkparse not installed");
	snprintf(path, sizeof(path), "%s/big.blktrace", th_dir());
	cr_assert_eq(tu_export(exporter__find("blktrace"), "", big, 2, path, err, sizeof(err)), 0, "%s", err);
	blkparse_sum(path, 'D', 'D', &n, &sectors);
	cr_assert_eq(n, 2, "5 GiB does not fit blk_io_trace.bytes: two pieces");
	cr_assert_eq(sectors * 512, 5ull << 30);
}

Test(export, unaligned_record_is_an_error)
{
	struct ts_record r = { .time_ns = 1, .offset = 1000, .length = 4096, .dev = TU_DEV, .kind = TS_BIO };
	char path[512], err[256] = "";

	snprintf(path, sizeof(path), "%s/bad.blktrace", th_dir());
	cr_assert_neq(tu_export(exporter__find("blktrace"), "", &r, 1, path, err, sizeof(err)), 0);
	cr_assert(strstr(err, "record 0") && strstr(err, "512"), "%s", err);
}

struct layer {
	char kv[48];
	unsigned kind;
	char name[16];
};

ParameterizedTestParameters(export, round_trip_through_import)
{
	static struct layer p[] = {
		{ .kv = "", .kind = TS_ISSUE, .name = "issue" },
		{ .kv = "ops=discard", .kind = TS_ISSUE, .name = "issue discard" },
	};
	return cr_make_param_array(struct layer, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct layer *p, export, round_trip_through_import)
{
	char path[512], err[256] = "", opts[64] = { 0 };
	char *files[1] = { path };
	struct import_sink *sink = import_sink__new();
	struct ts_record back[4];
	size_t j = 0;
	bool discard_only = strstr(p->kv, "discard") != NULL;
	ssize_t n;

	cr_assert_not_null(sink);
	snprintf(path, sizeof(path), "%s/rt.blktrace", th_dir());
	cr_assert_eq(tu_export(exporter__find("blktrace"), p->kv, recs, nrecs, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(opts__defaults(importer_blktrace.opts, opts, err, sizeof(err)), 0);
	cr_assert_eq(importer_blktrace.run(opts, files, 1, sink, err, sizeof(err)), 0, "%s", err);
	for (uint64_t pos = 0; (n = import_sink__read(sink, pos, back, 4)) > 0; pos += (uint64_t)n) {
		for (ssize_t k = 0; k < n; k++) {
			if (back[k].kind == TS_BIO)
				continue;	/* the Q of each discard */
			while (j < nrecs && discard_only && recs[j].op != TS_OP_DISCARD)
				j++;
			cr_assert_lt(j, nrecs);
			cr_assert_eq(back[k].kind, recs[j].kind, "%s: record %zu", p->name, j);
			cr_assert_eq(back[k].op, recs[j].op);
			cr_assert_eq(back[k].offset, recs[j].offset);
			cr_assert_eq(back[k].length, recs[j].length);
			cr_assert_eq(back[k].time_ns, recs[j].time_ns - recs[0].time_ns, "times relative to the first");
			cr_assert_eq(back[k].latency_ns, recs[j].kind == TS_DONE ? recs[j].latency_ns : 0);
			j++;
		}
	}
	while (j < nrecs && discard_only && recs[j].op != TS_OP_DISCARD)
		j++;
	cr_assert_eq(j, nrecs, "%s: every record came back", p->name);
	import_sink__free(sink);
}

/* fio HOWTO, "Trace file format v3": header, then "TS FILE add|open|close" or "TS FILE ACTION OFFSET LENGTH". */
static void check_iolog_v3(const char *text, uint64_t *trims, uint64_t *trim_bytes)
{
	char *copy = strdup(text), *line, *save = NULL, files[4][256] = { { 0 } };
	bool open_[4] = { false };
	size_t nf = 0, lineno = 0;
	uint64_t last = 0;

	*trims = *trim_bytes = 0;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256], act[16], extra[8];
		unsigned long long ts, off, len;
		int nfield;
		size_t f;

		lineno++;
		if (lineno == 1) {
			cr_assert_str_eq(line, "fio version 3 iolog");
			continue;
		}
		nfield = sscanf(line, "%llu %255s %15s %llu %llu %7s", &ts, name, act, &off, &len, extra);
		cr_assert(nfield == 3 || nfield == 5, "line %zu: '%s'", lineno, line);
		cr_assert_geq(ts, last, "line %zu: timestamps never go back", lineno);
		last = ts;
		for (f = 0; f < nf && strcmp(files[f], name); f++)
			;
		if (nfield == 3) {
			if (!strcmp(act, "add")) {
				cr_assert_eq(f, nf, "line %zu: added twice", lineno);
				cr_assert_lt(nf, 4);
				snprintf(files[nf++], sizeof(files[0]), "%s", name);
			} else if (!strcmp(act, "open")) {
				cr_assert_lt(f, nf, "line %zu: open before add", lineno);
				open_[f] = true;
			} else {
				cr_assert_str_eq(act, "close");
				cr_assert(f < nf && open_[f], "line %zu: close of a file not open", lineno);
				open_[f] = false;
			}
			continue;
		}
		cr_assert(f < nf && open_[f], "line %zu: I/O on a file not open", lineno);
		cr_assert(!strcmp(act, "read") || !strcmp(act, "write") || !strcmp(act, "trim") ||
			  !strcmp(act, "sync") || !strcmp(act, "datasync"), "line %zu: action '%s'", lineno, act);
		cr_assert_leq(len, 0xffffffffull, "line %zu: fio reads LENGTH as unsigned int", lineno);
		if (!strcmp(act, "trim")) {
			(*trims)++;
			*trim_bytes += len;
		}
	}
	for (size_t f = 0; f < nf; f++)
		cr_assert_not(open_[f], "%s left open", files[f]);
	free(copy);
}

Test(export, fio_iolog_v3_grammar)
{
	char path[512], err[256] = "", *text;
	uint64_t want, bytes, trims, tb;

	snprintf(path, sizeof(path), "%s/out.iolog", th_dir());
	cr_assert_eq(tu_export(exporter__find("fio"), "", recs, nrecs, path, err, sizeof(err)), 0, "%s", err);
	text = th_slurp(path, NULL);
	cr_assert_not_null(text);
	check_iolog_v3(text, &trims, &tb);
	expected(TS_OP_DISCARD, &want, &bytes);
	cr_assert_eq(trims, want);
	cr_assert_eq(tb, bytes);
	cr_assert(strstr(text, " /dev/loop42 add\n"), "file named from the device table");
	free(text);
}

Test(export, fio_iolog_v3_replayed_by_fio)
{
	char path[512], target[512], kv[600], err[256] = "", *json;
	uint64_t want, bytes, ios, iob;
	FILE *f;

	if (!have("fio"))
		cr_skip("fio not installed");
	snprintf(target, sizeof(target), "%s/target.img", th_dir());
	f = fopen(target, "w");
	cr_assert_not_null(f);
	cr_assert_eq(ftruncate(fileno(f), 8ll << 30), 0);
	fclose(f);
	/* Writes only: fio 3.33 (Debian 12) rejects trim lines, fio issue #769. */
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].op == TS_OP_DISCARD)
			recs[i].op = TS_OP_WRITE;
	snprintf(path, sizeof(path), "%s/w.iolog", th_dir());
	snprintf(kv, sizeof(kv), "file=%s", target);
	cr_assert_eq(tu_export(exporter__find("fio"), kv, recs, nrecs, path, err, sizeof(err)), 0, "%s", err);
	json = fio_replay(path, NULL);
	expected(TS_OP_WRITE, &want, &bytes);
	fio_counts(json, "write", &ios, &iob);
	cr_assert_eq(ios, want);
	cr_assert_eq(iob, bytes);
	free(json);
}

/* --records free: an unused preallocation given back (flag prealloc) is no discard (FORMAT.md). */
Test(export, free_layer_leaves_out_unused_preallocations)
{
	static const struct ts_record frees[] = {
		{ .time_ns = 1000000, .kind = TS_FREE, .dev = TU_DEV, .offset = 1 << 20, .length = 65536, .ino = 12,
		  .flags = TS_FS_EXT4 },
		{ .time_ns = 2000000, .kind = TS_FREE, .dev = TU_DEV, .offset = 4 << 20, .length = 1 << 20,
		  .flags = TS_FS_EXT4 | TS_F_PREALLOC },
		{ .time_ns = 3000000, .kind = TS_FREE, .dev = TU_DEV, .offset = 8 << 20, .length = 8192, .ino = 13,
		  .flags = TS_FS_EXT4 },
	};
	char path[512], err[256] = "", opts[64] = { 0 };
	char *files[1] = { path };
	struct import_sink *sink = import_sink__new();
	struct ts_record back[8];
	ssize_t n;

	cr_assert_not_null(sink);
	snprintf(path, sizeof(path), "%s/free.blktrace", th_dir());
	cr_assert_eq(tu_export(exporter__find("blktrace"), "records=free", frees, 3, path, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(opts__defaults(importer_blktrace.opts, opts, err, sizeof(err)), 0);
	cr_assert_eq(importer_blktrace.run(opts, files, 1, sink, err, sizeof(err)), 0, "%s", err);
	n = import_sink__read(sink, 0, back, 8);
	cr_assert_eq(n, 2, "two discards (the unused preallocation left out), got %zd", n);
	cr_expect_eq(back[0].offset, 1 << 20);
	cr_expect_eq(back[1].offset, 8 << 20);
	import_sink__free(sink);
}

/*
 * A partition's trace: /dev/NAME names the partition, so its offsets are the partition's own
 * (less partition_start), as the replay targets take them. Before, the iolog asked fio for
 * disk offsets on the partition's node: 1 MiB off, and past its end for the last MiB.
 */
Test(export, fio_offsets_on_a_partition)
{
	char in[512], out[512], cmd[1400], *text;
	FILE *f;

	snprintf(in, sizeof(in), "%s/part.jsonl", th_dir());
	snprintf(out, sizeof(out), "%s/part.iolog", th_dir());
	cr_assert_not_null(f = fopen(in, "w"));
	fprintf(f, "{\"trimsim\":1,\"header\":{\"devices\":[{\"dev\":\"259:0\",\"name\":\"loop0p1\",\"size\":4194304,"
		   "\"partition_start\":1048576,\"logical_block_size\":512}],\"format\":\"trimsim\",\"start_ns\":1000,"
		   "\"version\":1}}\n"
		   "{\"t\":2000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"259:0\",\"off\":1056768,\"len\":4096,"
		   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n"
		   "{\"footer\":{\"records\":1,\"lost\":0,\"end_ns\":3000}}\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s export --to fio %s -o %s", th_trimsim(), in, out);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	cr_assert_not_null(text = th_slurp(out, NULL));
	cr_expect(strstr(text, " /dev/loop0p1 trim 8192 4096\n"), "%s", text);
	free(text);
}
