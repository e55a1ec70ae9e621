// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim info: what a trace holds. Devices, time span, records and bytes
 * per kind, per device-command op and per device, log2 size histograms of
 * discard commands (ISSUE) and of discard intents (INTENT), lost events,
 * and whether the file is whole (footer, checksum) or cut short. Per device,
 * the discard-to-free ratio: discard command bytes over freed bytes (FREE
 * records, unused preallocations apart: the kernel never discards those),
 * with a warning past INFO_RATIO_WARN.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "replay/report/redundancy.h"
#include "replay/cli.h"
#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"


struct tally {
	uint64_t n;
	uint64_t bytes;
};

/* Past this many discarded bytes per freed byte, info warns (issue 16: 141 GiB for 284 MiB). */
#define INFO_RATIO_WARN 10.0

struct dev_tally {
	uint32_t dev;
	uint64_t records;	/* every non-META record */
	struct tally cmds;	/* ISSUEs, any op: what the device was asked to do */
	struct tally discard;	/* discard ISSUEs */
	struct tally freed;	/* FREE records, unused preallocations apart */
	struct tally prealloc;	/* FREE records of unused preallocations (ts_free_is_prealloc) */
	struct tally bio;	/* discard BIOs */
	struct tally own;	/* of those, flagged workload: the recorded command's own (FORMAT.md) */
};

struct info {
	struct tally kind[TS_KIND_MAX + 1];
	struct tally op[TS_OP_MAX + 1];		/* ISSUE records: device commands by op */
	struct tally meta[TS_META_MAX + 1];
	uint64_t issue_hist[65];		/* discard ISSUE length, bucket floor(log2(len)) + 1, 0 for 0 */
	uint64_t intent_hist[65];
	uint64_t first_ns, last_ns, records;
	uint64_t meta_lost;
	bool legacy;		/* header revision < TS_REV_PREALLOC */
	struct dev_tally *devs;
	size_t ndev, cap, hit;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim info [--json] [--redundancy] FILE\n"
		"\n"
		"Summarizes a trace (binary or JSON Lines): its devices, time span, records and\n"
		"bytes per kind, device commands per op, per device (with the discard-to-free\n"
		"ratio: discarded bytes / freed bytes, and a warning past 10x), log2 size\n"
		"histograms of discard commands (ISSUE) and discard intents (INTENT), lost events,\n"
		"and whether the file is whole. A trace cut short is summarized up to its last whole record\n"
		"and reported on stderr; the exit status is then 1. FILE - is standard input.\n"
		"\n"
		"  --json   one JSON object on stdout, for scripts\n"
		"  --redundancy  per device and layer (FREE, INTENT, discard BIO, discard ISSUE):\n"
		"           total vs unique bytes, overlap, redundancy (replay/report/redundancy.h)\n"
		"\n"
		"example:\n"
		"  trimsim info rm.tsim\n"
		"  trimsim info --json rm.tsim | jq .kinds.ISSUE\n");
}

static unsigned log2_bucket(uint64_t len)
{
	return len ? 64u - (unsigned)__builtin_clzll(len) : 0;
}

static struct dev_tally *dev_slot(struct info *s, uint32_t dev)
{
	if (s->ndev && s->devs[s->hit].dev == dev)
		return &s->devs[s->hit];
	for (size_t i = 0; i < s->ndev; i++) {
		if (s->devs[i].dev == dev) {
			s->hit = i;
			return &s->devs[i];
		}
	}
	if (grow_array((void **)&s->devs, &s->cap, s->ndev + 1, sizeof(*s->devs)))
		return NULL;
	memset(&s->devs[s->ndev], 0, sizeof(s->devs[0]));
	s->devs[s->ndev].dev = dev;
	s->hit = s->ndev++;
	return &s->devs[s->hit];
}

static void add(struct tally *t, uint64_t bytes)
{
	t->n++;
	t->bytes += bytes;
}

static int account(struct info *s, const struct ts_record *r)
{
	struct dev_tally *d;

	if (!s->records++ || r->time_ns < s->first_ns)
		s->first_ns = r->time_ns;
	if (r->time_ns > s->last_ns)
		s->last_ns = r->time_ns;
	add(&s->kind[r->kind], r->kind == TS_META ? 0 : r->length);	/* a META length is per op (FORMAT.md) */
	if (r->kind == TS_META) {
		add(&s->meta[r->op], r->length);
		if (r->op == TS_META_LOST)
			s->meta_lost += r->length;
		return 0;
	}
	d = dev_slot(s, r->dev);
	if (!d)
		return -ENOMEM;
	d->records++;	/* no sum of lengths across kinds: one discard is an INTENT, a BIO, an ISSUE and a DONE */
	if (r->kind == TS_ISSUE) {
		add(&d->cmds, r->length);
		add(&s->op[r->op], r->length);
		if (r->op == TS_OP_DISCARD) {
			add(&d->discard, r->length);
			s->issue_hist[log2_bucket(r->length)]++;
		}
	} else if (r->kind == TS_INTENT) {
		s->intent_hist[log2_bucket(r->length)]++;
	} else if (r->kind == TS_FREE) {
		add(ts_free_is_prealloc(r, s->legacy) ? &d->prealloc : &d->freed, r->length);
	} else if (r->kind == TS_BIO) {
		add(&d->bio, r->length);
		if (r->flags & TS_F_WORKLOAD)
			add(&d->own, r->length);
	}
	return 0;
}

/* Discarded bytes per freed byte; < 0 when nothing was freed. */
static double discard_to_free(const struct dev_tally *d)
{
	return d->freed.bytes ? (double)d->discard.bytes / (double)d->freed.bytes : -1;
}

/* A header string for the terminal: escaped (ts_escape()), "?" when absent. */
static const char *hdr_str(const json_t *h, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(h, key));

	return s ? ts_escape(s, buf, len) : "?";
}

/* ---- text ---- */

static void print_hist(const char *title, const uint64_t *hist)
{
	uint64_t total = 0, max = 0;
	char lo[32], hi[32];

	for (int b = 0; b < 65; b++) {
		total += hist[b];
		max = hist[b] > max ? hist[b] : max;
	}
	printf("\n%s (log2 buckets): %" PRIu64 "\n", title, total);
	for (int b = 0; b < 65 && total; b++) {
		int bar;

		if (!hist[b])
			continue;
		bar = (int)((hist[b] * 40 + max - 1) / max);
		if (b == 0)
			printf("  %21s", "0");
		else
			printf("  [%8s, %8s)", fmt_bytes(1ull << (b - 1), lo, sizeof(lo)),
			       b < 64 ? fmt_bytes(1ull << b, hi, sizeof(hi)) : "2^64");
		printf(" %12" PRIu64 " %.*s\n", hist[b], bar, "########################################");
	}
}

static void print_devices(const struct trace_reader *r)
{
	size_t n;
	const struct ts_device *d = trace_reader__devices(r, &n);
	char dev[24], sz[32], g[32], m[32], e1[200], e2[4 * sizeof(d->mount)];

	printf("\ndevices in the header: %zu\n", n);
	for (size_t i = 0; i < n; i++, d++) {
		printf("  %-8s %-12s %10s  sectors %u/%u  start %" PRIu64 "  discard granularity %s max %s segments %u"
		       "  %s\n", ts_dev_str(d->dev, dev, sizeof(dev)), ts_escape(d->name, e1, sizeof(e1)),
		       fmt_bytes(d->size, sz, sizeof(sz)),
		       d->logical_block_size, d->physical_block_size, d->partition_start,
		       fmt_bytes(d->discard_granularity, g, sizeof(g)), fmt_bytes(d->discard_max_bytes, m, sizeof(m)),
		       d->max_discard_segments, d->rotational ? "rotational" : "non-rotational");
		if (d->fs[0])
			printf("  %8s %s on %s, block %u%s", "", ts_escape(d->fs, e1, sizeof(e1)),
			       d->mount[0] ? ts_escape(d->mount, e2, sizeof(e2)) : "?", d->fs_block_size,
			       d->xfs_agblocks ? "" : "\n");
		if (d->fs[0] && d->xfs_agblocks)
			printf(", agblocks %" PRIu64 "\n", d->xfs_agblocks);
	}
}

/* The filesystem the header names for dev ("" if none). */
static const char *dev_fs(const struct trace_reader *r, uint32_t dev)
{
	size_t n;
	const struct ts_device *d = trace_reader__devices(r, &n);

	for (size_t i = 0; i < n; i++)
		if (d[i].dev == dev)
			return d[i].fs;
	return "";
}

static void print_text(const struct trace_reader *r, const struct info *s)
{
	const struct trace_status *st = trace_reader__status(r);
	const json_t *h = trace_reader__header(r);
	char a[32], b[32], e1[1024], e2[1024], e3[1024];

	printf("trace:    %s (%s%s", ts_escape(trace_reader__path(r), e1, sizeof(e1)), st->jsonl ? "JSON Lines" : "binary",
	       st->jsonl ? "" : st->big_endian ? ", big-endian" : ", little-endian");
	if (!st->jsonl)
		printf(", format version %u", st->version);
	printf(")\n");
	printf("recorder: %s on %s, kernel %s\n", hdr_str(h, "recorder", e1, sizeof(e1)),
	       hdr_str(h, "host", e2, sizeof(e2)), hdr_str(h, "kernel", e3, sizeof(e3)));
	printf("started:  %s\n", hdr_str(h, "start_wall", e1, sizeof(e1)));
	printf("status:   %s\n", !st->footer ? "TRUNCATED (no footer)" :
	       st->jsonl ? "complete" : st->checksum_ok ? "complete, checksum ok" : "checksum MISMATCH");
	printf("records:  %" PRIu64 "\n", s->records);
	printf("span:     %s (%" PRIu64 " .. %" PRIu64 " ns)\n",
	       fmt_duration(s->records ? s->last_ns - s->first_ns : 0, a, sizeof(a)), s->first_ns, s->last_ns);
	printf("lost:     %" PRIu64 " events (footer %" PRIu64 ", META lost records %" PRIu64 ")\n",
	       st->lost + s->meta_lost, st->lost, s->meta_lost);
	print_devices(r);
	printf("\n%-8s %12s %14s\n", "kind", "records", "bytes");
	for (unsigned k = 1; k <= TS_KIND_MAX; k++)
		printf("%-8s %12" PRIu64 " %14s\n", ts_kind_name(k), s->kind[k].n,
		       k == TS_META ? "-" : fmt_bytes(s->kind[k].bytes, a, sizeof(a)));
	printf("\n%-14s %12s %14s\n", "command op", "ISSUEs", "bytes");
	for (unsigned o = 0; o <= TS_OP_MAX; o++)
		if (s->op[o].n)
			printf("%-14s %12" PRIu64 " %14s\n", ts_op_name(o), s->op[o].n,
			       fmt_bytes(s->op[o].bytes, a, sizeof(a)));
	printf("\n%-14s %12s\n", "META", "records");
	for (unsigned m = 1; m <= TS_META_MAX; m++)
		if (s->meta[m].n)
			printf("%-14s %12" PRIu64 "\n", ts_meta_name(m), s->meta[m].n);
	printf("\n%-10s %12s %14s %12s %14s %14s %13s\n", "device", "records", "command bytes", "discards",
	       "discard bytes", "freed", "discard/free");
	for (size_t i = 0; i < s->ndev; i++) {
		const struct dev_tally *d = &s->devs[i];
		double x = discard_to_free(d);
		char dev[24], f[32], ratio[32];

		fig_format(FIG_RATIO, x >= 0 ? x : NAN, ratio, sizeof(ratio));
		printf("%-10s %12" PRIu64 " %14s %12" PRIu64 " %14s %14s %13s\n", ts_dev_str(d->dev, dev, sizeof(dev)),
		       d->records, fmt_bytes(d->cmds.bytes, a, sizeof(a)), d->discard.n,
		       fmt_bytes(d->discard.bytes, b, sizeof(b)), fmt_bytes(d->freed.bytes, f, sizeof(f)), ratio);
	}
	for (size_t i = 0; i < s->ndev; i++) {
		const struct dev_tally *d = &s->devs[i];
		const char *fs = dev_fs(r, d->dev);
		char dev[24], f[32], x[32];

		if (d->prealloc.n)
			printf("%-10s %" PRIu64 " unused preallocations given back (%s): free space, never discarded by "
			       "ext4, not in \"freed\"\n", ts_dev_str(d->dev, dev, sizeof(dev)), d->prealloc.n,
			       fmt_bytes(d->prealloc.bytes, f, sizeof(f)));
		if (d->own.n)
			printf("%-10s %" PRIu64 " of %" PRIu64 " discard BIOs (%s) submitted by the recorded command's "
			       "own threads (flag workload)\n", ts_dev_str(d->dev, dev, sizeof(dev)), d->own.n,
			       d->bio.n, fmt_bytes(d->own.bytes, f, sizeof(f)));
		if (discard_to_free(d) > INFO_RATIO_WARN)
			printf("warning: %s discarded %s for %s freed (%s): the filesystem discards the same free "
			       "space again and again%s\n", ts_dev_str(d->dev, dev, sizeof(dev)),
			       fmt_bytes(d->discard.bytes, a, sizeof(a)), fmt_bytes(d->freed.bytes, f, sizeof(f)),
			       fig_format(FIG_RATIO, discard_to_free(d), x, sizeof(x)), !strcmp(fs, "ext4") ? " (ext4 since Linux 6.6 extends each discard "
			       "to the whole free run around the freed blocks, traces/corpus/README.md)" : "");
	}
	print_hist("discard commands (ISSUE)", s->issue_hist);
	print_hist("discard intents (INTENT)", s->intent_hist);
}

/* ---- JSON ---- */

static json_t *tally_json(const struct tally *t)
{
	return json_pack("{sIsI}", "records", (json_int_t)t->n, "bytes", (json_int_t)t->bytes);
}

static json_t *hist_json(const uint64_t *hist)
{
	json_t *a = json_array();

	for (int b = 0; a && b < 65; b++) {
		if (!hist[b])
			continue;
		json_array_append_new(a, json_pack("{sIsIsI}", "log2", (json_int_t)(b ? b - 1 : -1),
						   "min_bytes", (json_int_t)(b ? 1ull << (b - 1) : 0),
						   "count", (json_int_t)hist[b]));
	}
	return a;
}

static json_t *info_json(const struct trace_reader *r, const struct info *s, const char *warning)
{
	const struct trace_status *st = trace_reader__status(r);
	json_t *o, *kinds = json_object(), *ops = json_object(), *meta = json_object(), *devs = json_array();
	size_t nd;
	const struct ts_device *d = trace_reader__devices(r, &nd);
	json_t *hdevs = json_array();
	char dev[24];

	for (unsigned k = 1; k <= TS_KIND_MAX; k++) {
		json_t *t = tally_json(&s->kind[k]);

		if (k == TS_META)	/* records only: a META length is a count, bytes or nothing, per op */
			json_object_del(t, "bytes");
		json_object_set_new(kinds, ts_kind_name(k), t);
	}
	for (unsigned k = 0; k <= TS_OP_MAX; k++)
		json_object_set_new(ops, ts_op_name(k), tally_json(&s->op[k]));
	for (unsigned k = 1; k <= TS_META_MAX; k++)
		json_object_set_new(meta, ts_meta_name(k), tally_json(&s->meta[k]));
	for (size_t i = 0; i < s->ndev; i++) {
		const struct dev_tally *t = &s->devs[i];
		double x = discard_to_free(t);

		json_array_append_new(devs, json_pack("{sssIsIsIsIsIsIsIsosb}", "dev", ts_dev_str(t->dev, dev, sizeof(dev)),
						       "records", (json_int_t)t->records, "command_bytes", (json_int_t)t->cmds.bytes,
						       "discards", (json_int_t)t->discard.n,
						       "discard_bytes", (json_int_t)t->discard.bytes,
						       "freed_bytes", (json_int_t)t->freed.bytes,
						       "prealloc_bytes", (json_int_t)t->prealloc.bytes,
						       "workload_bio_bytes", (json_int_t)t->own.bytes,
						       "discard_to_free", x >= 0 ? json_real(x) : json_null(),
						       "discard_to_free_warning", x > INFO_RATIO_WARN));
	}
	for (size_t i = 0; i < nd; i++)
		json_array_append_new(hdevs, ts_device_to_json(&d[i]));
	o = json_pack("{sssssbsIsbsbsbs{sIsIsI}s{sIsIsIsI}sosososososososs?}",
		      "file", trace_reader__path(r), "format", st->jsonl ? "jsonl" : "binary",
		      "big_endian", st->big_endian, "records", (json_int_t)s->records,
		      "footer", st->footer, "truncated", st->truncated, "checksum_ok", st->checksum_ok,
		      "lost", "footer", (json_int_t)st->lost, "meta", (json_int_t)s->meta_lost,
		      "total", (json_int_t)(st->lost + s->meta_lost),
		      "time", "first_ns", (json_int_t)s->first_ns, "last_ns", (json_int_t)s->last_ns,
		      "span_ns", (json_int_t)(s->records ? s->last_ns - s->first_ns : 0),
		      "end_ns", (json_int_t)st->end_ns,
		      "devices", hdevs, "kinds", kinds, "ops", ops, "meta", meta, "per_device", devs,
		      "discard_sizes", hist_json(s->issue_hist), "intent_sizes", hist_json(s->intent_hist),
		      "warning", warning);
	if (o && !st->jsonl)
		json_object_set_new(o, "format_version", json_integer(st->version));
	if (o)
		json_object_set(o, "header", (json_t *)trace_reader__header(r));
	return o;
}

int cmd_info(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "redundancy", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_reader *r = NULL;
	struct info s = { 0 };
	struct redund *red = NULL;
	const struct ts_record *recs;
	bool json = false;
	char err[600];
	int c, ret = 1;
	ssize_t n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'R':
			if (!red && !(red = redund__new())) {
				fprintf(stderr, "trimsim info: out of memory\n");
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			redund__destroy(red);
			return cli_getopt_error("info", c, argv, usage);
		}
	}
	if (argc - optind != 1) {
		redund__destroy(red);
		return cli_usage_error("info", argc == optind ? "no FILE given" : "one FILE only");
	}
	r = trace_reader__open(argv[optind], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "trimsim info: %s\n", err);
		goto out;
	}
	s.legacy = ts_header_revision(trace_reader__header(r)) < TS_REV_PREALLOC;
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (account(&s, &recs[i]) || (red && redund__add(red, &recs[i]))) {
				fprintf(stderr, "trimsim info: out of memory\n");
				goto out;
			}
		}
	}
	if (n < 0) {
		fprintf(stderr, "trimsim info: %s\n", trace_reader__error(r));
		goto out;
	}
	if (json) {
		json_t *o = info_json(r, &s, trace_reader__status(r)->truncated ? trace_reader__error(r) : NULL);

		if (o && red)
			json_object_set_new(o, "redundancy", redund__json(red));

		/* a write error is main's to report (stdout's errno); anything else is ours */
		if (!o || ((json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) || fputc('\n', stdout) == EOF) &&
			   !ferror(stdout))) {
			json_decref(o);
			fprintf(stderr, "trimsim info: cannot write JSON: out of memory\n");
			goto out;
		}
		json_decref(o);
	} else {
		print_text(r, &s);
		if (red) {
			putchar('\n');
			redund__print(red, stdout);
		}
	}
	ret = 0;
	if (trace_reader__status(r)->truncated) {
		fprintf(stderr, "trimsim info: %s\n", trace_reader__error(r));
		ret = 1;
	}
out:
	free(s.devs);
	redund__destroy(red);
	trace_reader__close(r);
	return ret;
}
