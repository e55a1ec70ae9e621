// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim calibrate: measure a real block device through the device target
 * and write a parametric profile (the models/profiles JSON format).
 *
 * Sweeps, all on non-contiguous ranges (the block layer merges adjacent
 * discards, blk_rq_merge_ok() / bio_attempt_discard_merge() in block/blk-merge.c):
 *   1. discard sizes 4 KiB .. 1 GiB (bounded by --max-size and the device):
 *      write the ranges, discard them at QD1 (mapped), discard again (unmapped);
 *   2. writes and reads of 4 KiB .. 4 MiB at QD1, and flushes;
 *   3. queue depths 1..32 of 64 KiB discards: throughput per depth;
 *   4. a 4 KiB write submitted right behind a large discard versus idle:
 *      a write that waits for the discard means non-queued TRIM: libata turns
 *      a discard into a DSM TRIM in ata_scsi_write_same_xlat()
 *      (drivers/ata/libata-scsi.c), a non-NCQ command that drains the queue,
 *      unless the drive has queued TRIM (SATA 3.1, ata_fpdma_dsm_supported()).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "traces/figure.h"
#include "traces/opts.h"
#include "traces/output.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/cli.h"
#include "replay/targets/calib.h"
#include "replay/targets/rd_safety.h"
#include "replay/report/stats.h"
#include "replay/targets/realdev.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)
#define MAXN 64

struct cal_opts {
	char device[PATH_MAX];
	bool destructive, quick;
	char output[PATH_MAX], svg[PATH_MAX];
	unsigned dispatch;
	uint64_t max_size, seed;
};

static const char *const dispatch_names[] = { "auto", "uring", "threads", NULL };

static const struct opt_spec cal_table[] = {
	{ "device", OPT_STR, offsetof(struct cal_opts, device), 0, 0, NULL,
	  "block device to measure (its data is destroyed)", NULL, PATH_MAX },
	{ "destructive", OPT_BOOL, offsetof(struct cal_opts, destructive), 0, 0, "false",
	  "required: allow writing and discarding the device" },
	{ "output", OPT_STR, offsetof(struct cal_opts, output), 0, 0, NULL,
	  "profile file (-o; .json or no extension; default and -: standard output)", NULL, PATH_MAX },
	{ "quick", OPT_BOOL, offsetof(struct cal_opts, quick), 0, 0, "false",
	  "fewer sizes, depths and repetitions (about a tenth of the time)" },
	{ "svg", OPT_STR, offsetof(struct cal_opts, svg), 0, 0, NULL,
	  "draw measured points and fitted lines into this SVG file (.svg or no extension)", NULL, PATH_MAX },
	{ "dispatch", OPT_ENUM, offsetof(struct cal_opts, dispatch), 0, 0, "auto",
	  "uring, threads or auto (see the device target)", dispatch_names },
	{ "max-size", OPT_BYTES, offsetof(struct cal_opts, max_size), 4096, 1ull << 40, "1G",
	  "largest discard to measure" },
	{ "seed", OPT_U64, offsetof(struct cal_opts, seed), 0, 1.8e19, "1", "seed of the write data (-s)" },
	{ 0 }
};

struct cal {
	const struct target_ops *ops;
	void *priv;
	uint64_t size;
	bool quick;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim calibrate --device /dev/X --destructive [-o profile.json] [--quick] [--svg fit.svg]\n"
		"\n"
		"Measures a block device (DESTROYING its data) and writes a parametric device profile:\n"
		"discard latency against size for mapped and already-unmapped ranges (fitted as\n"
		"base + bytes/bw), write/read/flush cost, the queue-depth sweep, and whether a write\n"
		"waits for a discard (non-queued TRIM). Load the profile with -M profile.json.\n"
		"\n"
		"options:\n");
	opts__print(cal_table, f, "  --");
	fprintf(f, "\nexample:\n"
		"  trimsim calibrate --device /dev/sdb --destructive -o models/profiles/mine.json --svg fit.svg\n");
}

/* --key value, --key=value, -o value, -s value (as -o/--output, -s/--seed elsewhere); booleans take no value. */
static int parse_cli(int argc, char **argv, struct cal_opts *o, char *err, size_t errlen)
{
	const struct opt_spec *s;
	char key[64];
	const char *a, *eq, *val;
	int i, rc = opts__defaults(cal_table, o, err, errlen);

	for (i = 1; i < argc && !rc; i++) {
		a = argv[i];
		if (!strcmp(a, "-o"))
			a = "--output";
		else if (!strcmp(a, "-s"))
			a = "--seed";
		if (strncmp(a, "--", 2))
			return ts_errf(err, errlen, -EINVAL, "unexpected argument '%s'", argv[i]);
		eq = strchr(a + 2, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq ? (size_t)(eq - a - 2) : strlen(a + 2)), a + 2);
		s = opts__find(cal_table, key);
		if (!s) {	/* printed with a did-you-mean: nothing more to say */
			err[0] = 0;
			cli_unknown_option("calibrate", argv[i], usage);
			return -EINVAL;
		}
		if (eq)
			val = eq + 1;
		else if (s && s->type == OPT_BOOL)
			val = "true";
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return ts_errf(err, errlen, -EINVAL, "option '--%s' needs a value", key);
		rc = opts__set(cal_table, o, key, val, err, errlen);
	}
	if (!rc && !*o->device)
		rc = ts_errf(err, errlen, -EINVAL, "--device is required");
	return rc;
}

/* Waits for a command to complete: 1 with *d, 0 if none did, -errno (its own, if it failed). */
static int reap_one(struct cal *c, struct target_done *d)
{
	int rc = c->ops->reap(c->priv, UINT64_MAX, d);

	return rc > 0 && d->error ? d->error : rc;
}

/*
 * n commands of one op, up to depth in flight; lat[i] in seconds; *wall the
 * whole batch. Any failed command fails the calibration (-errno).
 */
static int run(struct cal *c, uint8_t op, const uint64_t *off, const uint64_t *len, unsigned n,
	       unsigned depth, double *lat, double *wall)
{
	struct target_done d;
	uint64_t t0 = c->ops->clock(c->priv);
	unsigned sent = 0, done = 0;
	int rc;

	while (done < n) {
		while (sent < n && !trimsim_stop && c->ops->inflight(c->priv) < depth) {
			struct target_cmd cmd = { .tag = sent, .offset = off[sent], .length = len[sent],
						  .op = op, .klass = op == TS_OP_DISCARD ? TC_DISCARD : TC_FOREGROUND };

			rc = c->ops->submit(c->priv, &cmd);
			if (rc)
				return rc;
			sent++;
		}
		if (trimsim_stop && done == sent)	/* SIGINT/SIGTERM: what was sent is back */
			return -EINTR;
		rc = reap_one(c, &d);
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		if (lat)
			lat[d.tag] = (double)(d.done_ns - d.submit_ns) / 1e9;
		done++;
	}
	if (wall)
		*wall = (double)(c->ops->clock(c->priv) - t0) / 1e9;
	return trimsim_stop ? -EINTR : 0;
}

static int one(struct cal *c, uint8_t op, uint64_t off, uint64_t len, double *lat)
{
	return run(c, op, &off, &len, 1, 1, lat, NULL);
}

/* 0 for no samples: a profile key must stay a number. */
static double median(double *v, unsigned n)
{
	return n ? stat_median_inplace(v, n) : 0;
}

/* Ranges of len at every other slot: 0, 2 len, 4 len ... */
static unsigned layout(const struct cal *c, uint64_t len, unsigned want, uint64_t *off, uint64_t *lens)
{
	unsigned n = (unsigned)(c->size / (2 * len) < want ? c->size / (2 * len) : want), i;

	for (i = 0; i < n; i++) {
		off[i] = 2 * len * i;
		lens[i] = len;
	}
	return n;
}

/* Every measured point (for the chart) and each size's median (for the fit). */
struct size_points {
	struct calib_point map[16 * MAXN], unmap[16 * MAXN];
	struct calib_point map_med[32], unmap_med[32];
	size_t n, nmed;
};

/* Phase 1: mapped and unmapped discard latency against size. */
static int sweep_sizes(struct cal *c, uint64_t max, struct size_points *sp, char *sizes, size_t slen)
{
	uint64_t off[MAXN], len[MAXN], s, first = 0, last = 0;
	double lat[MAXN], lat2[MAXN];
	unsigned n, i, reps;
	char a[32], b[32], m2[32];
	int rc;

	sp->n = sp->nmed = 0;
	for (s = 4 * KIB; s <= max && s <= c->size / 2; s *= c->quick ? 16 : 4) {
		reps = s <= 16 * MIB ? (c->quick ? 4 : 8) : s <= 64 * MIB ? 4 : 2;
		n = layout(c, s, reps, off, len);
		if ((rc = run(c, TS_OP_WRITE, off, len, n, 8, NULL, NULL)) ||
		    (rc = one(c, TS_OP_FLUSH, 0, 0, NULL)) ||
		    (rc = run(c, TS_OP_DISCARD, off, len, n, 1, lat, NULL)) ||
		    (rc = run(c, TS_OP_DISCARD, off, len, n, 1, lat2, NULL)))
			return rc;
		for (i = 0; i < n; i++, sp->n++) {
			sp->map[sp->n] = (struct calib_point){ (double)s, lat[i] };
			sp->unmap[sp->n] = (struct calib_point){ (double)s, lat2[i] };
		}
		sp->map_med[sp->nmed] = (struct calib_point){ (double)s, median(lat, n) };
		sp->unmap_med[sp->nmed++] = (struct calib_point){ (double)s, median(lat2, n) };
		fprintf(stderr, "  discard %s x%u: mapped %s, unmapped %s (medians)\n",
			fmt_bytes(s, a, sizeof(a)), n, fig_format(FIG_NS, sp->map_med[sp->nmed - 1].y * 1e9, b, sizeof(b)),
			fig_format(FIG_NS, sp->unmap_med[sp->nmed - 1].y * 1e9, m2, sizeof(m2)));
		first = first ? first : s;
		last = s;
	}
	snprintf(sizes, slen, "%s .. %s", fmt_bytes(first, a, sizeof(a)), fmt_bytes(last, b, sizeof(b)));
	return sp->nmed ? 0 : -ENOSPC;
}

/* Phase 2: writes, reads (QD1, 4 KiB .. 4 MiB) and flushes. */
static int sweep_rw(struct cal *c, struct calib_result *r)
{
	struct calib_point wp[4 * 8], rp[4 * 8];
	uint64_t off[MAXN], len[MAXN], s;
	double lw[MAXN], lr[MAXN], fl[8];
	unsigned n, i, k = 0;
	int rc;

	for (s = 4 * KIB; s <= 4 * MIB && s <= c->size / 2; s *= 16) {
		n = layout(c, s, c->quick ? 4 : 8, off, len);
		if ((rc = run(c, TS_OP_WRITE, off, len, n, 1, lw, NULL)) ||
		    (rc = run(c, TS_OP_READ, off, len, n, 1, lr, NULL)))
			return rc;
		for (i = 0; i < n; i++, k++) {
			wp[k] = (struct calib_point){ (double)s, lw[i] };
			rp[k] = (struct calib_point){ (double)s, lr[i] };
		}
	}
	for (i = 0; i < 8; i++)
		if ((rc = one(c, TS_OP_WRITE, i * 8 * KIB, 4 * KIB, NULL)) ||
		    (rc = one(c, TS_OP_FLUSH, 0, 0, &fl[i])))
			return rc;
	r->flush = median(fl, 8);
	if ((rc = calib__fit(wp, k, &r->write)))
		return rc;
	return calib__fit(rp, k, &r->read);
}

/* Phase 3: 64 KiB discards at increasing queue depth. */
static int sweep_qd(struct cal *c, struct calib_result *r)
{
	static const unsigned full[] = { 1, 2, 4, 8, 16, 32 }, quick[] = { 1, 4, 16 };
	const unsigned *qd = c->quick ? quick : full;
	unsigned nq = c->quick ? 3 : 6, n, i;
	uint64_t off[MAXN], len[MAXN];
	double wall, iops;
	int rc;

	n = layout(c, 64 * KIB, c->quick ? 16 : 32, off, len);
	for (i = 0; i < nq; i++) {
		if ((rc = run(c, TS_OP_WRITE, off, len, n, 8, NULL, NULL)) ||
		    (rc = run(c, TS_OP_DISCARD, off, len, n, qd[i], NULL, &wall)))
			return rc;
		iops = n / wall;
		fprintf(stderr, "  QD%-2u %6.0f discards/s\n", qd[i], iops);
		if (qd[i] == 1)
			r->qd1_iops = iops;
		if (iops > r->best_iops * 1.1) {
			r->best_iops = iops;
			r->best_qd = qd[i];
		}
	}
	/* the model requires channels <= qd: a device cannot serve more than it was given */
	r->channels = (unsigned)fmin(fmax(1, round(r->best_iops / r->qd1_iops)), r->best_qd);
	return 0;
}

/* A discard of [0, big) and a 4 KiB write at wofs submitted right behind it. */
static int discard_then_write(struct cal *c, uint64_t big, uint64_t wofs, double *dlat, double *wlat)
{
	struct target_cmd dc = { .tag = 0, .offset = 0, .length = big, .op = TS_OP_DISCARD,
				 .klass = TC_DISCARD };
	struct target_cmd wc = { .tag = 1, .offset = wofs, .length = 4 * KIB, .op = TS_OP_WRITE,
				 .klass = TC_FOREGROUND };
	struct target_done d;
	unsigned got = 0;
	int rc;

	if ((rc = c->ops->submit(c->priv, &dc)) || (rc = c->ops->submit(c->priv, &wc)))
		return rc;
	while (got < 2) {
		rc = reap_one(c, &d);
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		*(d.tag ? wlat : dlat) = (double)(d.done_ns - d.submit_ns) / 1e9;
		got++;
	}
	return 0;
}

/* Phase 4: does a write wait for a discard in front of it? */
static int sweep_nonqueued(struct cal *c, struct calib_result *r, uint64_t big)
{
	uint64_t wofs = c->size - 64 * KIB;
	double idle[16], w[8], d[8];
	char a[32], b[32], c2[32];
	unsigned i, n = c->quick ? 4 : 8;
	int rc;

	for (i = 0; i < 16; i++)
		if ((rc = one(c, TS_OP_WRITE, wofs, 4 * KIB, &idle[i])))
			return rc;
	for (i = 0; i < n; i++)
		if ((rc = one(c, TS_OP_WRITE, 0, big, NULL)) || (rc = one(c, TS_OP_FLUSH, 0, 0, NULL)) ||
		    (rc = discard_then_write(c, big, wofs, &d[i], &w[i])))
			return rc;
	r->idle_write = median(idle, 16);
	r->busy_write = median(w, n);
	r->busy_discard = median(d, n);
	r->queued_known = r->busy_discard > 4 * r->idle_write;
	r->queued_trim = r->queued_known && r->busy_write - r->idle_write < 0.5 * r->busy_discard;
	fprintf(stderr, "  4 KiB write behind a discard: %s (idle %s, discard %s)\n",
		fig_format(FIG_NS, r->busy_write * 1e9, a, sizeof(a)), fig_format(FIG_NS, r->idle_write * 1e9, b, sizeof(b)),
		fig_format(FIG_NS, r->busy_discard * 1e9, c2, sizeof(c2)));
	return 0;
}

static void identify(struct calib_result *r, const struct rd_bdev_info *bi, const char *disp)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	snprintf(r->device, sizeof(r->device), "%.250s", bi->path);
	snprintf(r->name, sizeof(r->name), "%s", bi->name);
	snprintf(r->model, sizeof(r->model), "%s", bi->model);
	snprintf(r->dispatch, sizeof(r->dispatch), "%s", disp);
	r->size = bi->size;
	r->discard_max = bi->discard_max;
	r->granularity = bi->granularity;
	r->max_segments = bi->max_segments;
	snprintf(r->kernel, sizeof(r->kernel), "%s", uname(&u) ? "unknown" : u.release);
	gmtime_r(&now, &tm);
	strftime(r->when, sizeof(r->when), "%Y-%m-%dT%H:%MZ", &tm);
}

/* Writes text into an output (traces/output.h) and commits it: a file is never left half-written. */
static int write_text(struct output *o, const char *text, char *err, size_t errlen)
{
	FILE *f = output__file(o);

	if (!f) {
		ts_errf(err, errlen, -ENOMEM, "%s: out of memory", output__path(o));
		output__abort(o);
		return -ENOMEM;
	}
	fputs(text, f);		/* a failed write is named, with its errno, by the commit */
	return output__commit(o, err, errlen);
}

static int write_svg(struct output *o, const struct calib_point *mp, const struct calib_point *up,
		     size_t n, const struct calib_result *r, char *err, size_t errlen)
{
	const struct calib_series s[] = {
		{ "mapped", 1, mp, n, &r->trim },
		{ "unmapped", 0, up, n, &r->trim_unmapped },
	};
	char title[400], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		output__abort(o);
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	}
	snprintf(title, sizeof(title), "discard latency: %s (%s)", r->name, r->model);
	rc = calib__svg(f, title, s, 2);
	fclose(f);
	if (!rc)
		rc = write_text(o, buf, err, errlen);
	else
		output__abort(o);
	free(buf);
	return rc;
}

/* Measures; writes the chart into *svg (consumed) if there is one. */
static int calibrate(struct cal *c, const struct cal_opts *o, struct calib_result *r, struct output **svg,
		     char *err, size_t errlen)
{
	static struct size_points sp;
	uint64_t big;
	int rc;

	fprintf(stderr, "calibrate: discard sizes (mapped, then already unmapped)\n");
	rc = sweep_sizes(c, o->max_size, &sp, r->sizes, sizeof(r->sizes));
	if (rc)
		return ts_errf(err, errlen, rc, "%s: discard sweep: %s", o->device, strerror(-rc));
	r->npoints = 2 * sp.n;
	if ((rc = calib__fit(sp.map_med, sp.nmed, &r->trim)) ||
	    (rc = calib__fit(sp.unmap_med, sp.nmed, &r->trim_unmapped)))
		return ts_errf(err, errlen, rc, "%s: fit: no usable points", o->device);
	if ((rc = calib__jitter(sp.map, sp.n, &r->trim, &r->jitter)))	/* every mapped point around the fit */
		return ts_errf(err, errlen, rc, "out of memory");
	fprintf(stderr, "calibrate: writes, reads, flushes\n");
	if ((rc = sweep_rw(c, r)))
		return ts_errf(err, errlen, rc, "%s: write/read sweep: %s", o->device, strerror(-rc));
	fprintf(stderr, "calibrate: queue depths\n");
	if ((rc = sweep_qd(c, r)))
		return ts_errf(err, errlen, rc, "%s: queue-depth sweep: %s", o->device, strerror(-rc));
	fprintf(stderr, "calibrate: writes during discards\n");
	big = c->size / 4 < (c->quick ? 4 : 16) * MIB ? c->size / 4 : (c->quick ? 4 : 16) * MIB;
	if ((rc = sweep_nonqueued(c, r, big & ~4095ull)))
		return ts_errf(err, errlen, rc, "%s: queued-TRIM test: %s", o->device, strerror(-rc));
	if (*svg) {
		rc = write_svg(*svg, sp.map, sp.unmap, sp.n, r, err, errlen);
		*svg = NULL;
		return rc;
	}
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	static struct cal_opts o;
	struct calib_result r = { 0 };
	struct realdev_stats st;
	struct rd_bdev_info bi;
	struct target_env env = { .qd = REALDEV_DEFAULT_QD, .action = "calibration writes and discards the whole device" };
	struct cal c = { .ops = &device_target_ops };
	char err[1024] = "", arg[PATH_MAX + 64], a[32], b[32];
	json_t *prof = NULL;
	struct output *out = NULL, *svg = NULL;
	char *text = NULL;
	int rc;

	if (cli_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if ((rc = parse_cli(argc, argv, &o, err, sizeof(err))) ||
	    (rc = output__check_ext("-o", o.output, ".json", "a profile is JSON", err, sizeof(err))) ||
	    (rc = output__check_ext("--svg", o.svg, ".svg", "the chart is SVG", err, sizeof(err)))) {
		if (err[0])
			cli_usage_error("calibrate", "%s", err);
		return 2;
	}
	env.seed = o.seed;
	env.destructive = o.destructive;
	snprintf(arg, sizeof(arg), "%s,dispatch=%s", o.device, dispatch_names[o.dispatch]);
	/* the outputs before the device: a bad path fails before anything is destroyed */
	if (*o.output && !(out = output__open(o.output, OUTPUT_ATOMIC, err, sizeof(err))))
		rc = -errno;
	if (!rc && *o.svg && !(svg = output__open(o.svg, OUTPUT_ATOMIC, err, sizeof(err))))
		rc = -errno;
	/* the device target's open makes every safety check (rd_check_device(), as replay and compare) */
	if (!rc)
		rc = c.ops->open(arg, &env, &c.priv, err, sizeof(err));
	if (!rc)
		rc = rd_bdev_inspect(o.device, &bi, err, sizeof(err));	/* what it is, for the profile */
	if (rc)
		goto out;
	realdev__stats(c.priv, &st);
	c.size = bi.size;
	c.quick = o.quick;
	r.dispatch_qd = c.ops->max_inflight(c.priv);
	identify(&r, &bi, realdev__dispatch_name(st.dispatch));
	rc = calibrate(&c, &o, &r, &svg, err, sizeof(err));
	if (rc)
		goto out;
	prof = calib__profile(&r);
	text = prof ? json_dumps(prof, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	if (!text) {
		rc = ts_errf(err, sizeof(err), -ENOMEM, "out of memory");
		goto out;
	}
	if (out)
		rc = write_text(out, text, err, sizeof(err));
	else
		puts(text);
	out = NULL;
	if (!rc)
		fprintf(stderr, "calibrate: trim_base %s (unmapped %s), trim_bw %s/s, queued_trim %s -> %s\n",
			fmt_duration((uint64_t)(r.trim.base * 1e9), a, sizeof(a)),
			fmt_duration((uint64_t)(r.trim_unmapped.base * 1e9), b, sizeof(b)),
			r.trim.per_byte > 0 ? fmt_bytes((uint64_t)(1 / r.trim.per_byte), arg, sizeof(arg)) : "unlimited",
			r.queued_trim ? "true" : "false", *o.output ? o.output : "stdout");
out:
	output__abort(out);
	output__abort(svg);
	if (c.priv)
		c.ops->close(c.priv);
	json_decref(prof);
	free(text);
	if (rc)
		fprintf(stderr, "trimsim calibrate: %s\n", err);
	return rc ? 1 : 0;
}
