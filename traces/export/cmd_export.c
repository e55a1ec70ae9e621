// SPDX-License-Identifier: GPL-2.0
/* trimsim export --to KIND TRACE -o OUT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/cli.h"
#include "traces/import/cliopt.h"
#include "traces/output.h"
#include "traces/util.h"
#include "traces/export/exporter.h"

/* First pass: counts per kind and the first record's time; a cut trace only with salvage (as convert). */
static int survey(const char *in, bool salvage, struct export_ctx *c, char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader__open(in, err, errlen);
	struct ts_record rec;
	bool first = true;
	int ret;

	if (!r)
		return errno ? -errno : -EINVAL;
	while ((ret = trace_reader__next(r, &rec)) == 1) {
		if (first)
			c->first_ns = rec.time_ns;
		first = false;
		if (rec.kind <= TS_KIND_MAX)
			c->kinds[rec.kind]++;
	}
	if (ret < 0)
		ts_errf(err, errlen, ret, "%s", trace_reader__error(r));
	else if (trace_reader__status(r)->truncated && !salvage)
		ret = ts_errf(err, errlen, -EBADMSG, "%s (use --salvage to keep them)", trace_reader__error(r));
	trace_reader__close(r);
	return ret;
}

static int run_export(const struct exporter_ops *ex, const void *opts, const char *in, const char *out,
		      bool salvage, char *err, size_t errlen)
{
	struct export_ctx c = { .in_path = in, .out_path = out };
	struct trace_reader *r = NULL;
	struct output *o = NULL;
	struct ts_record rec;
	void *state = NULL;
	uint64_t no = 0;
	int ret;

	/* two passes over the input: a pipe or "-" is copied once first */
	if ((ret = trace_reader__spool(in, err, errlen)) || (ret = survey(in, salvage, &c, err, errlen)))
		return ret;
	r = trace_reader__open(in, err, errlen);
	if (!r)
		return errno ? -errno : -EINVAL;
	c.header = trace_reader__header(r);
	c.devs = trace_reader__devices(r, &c.ndev);
	if (!(o = output__open(out, OUTPUT_ATOMIC, err, errlen))) {
		ret = -errno;
		goto out;
	}
	if (!(c.out = output__file(o))) {
		ret = ts_errf(err, errlen, -ENOMEM, "%s: out of memory", out);
		goto out;
	}
	if ((ret = ex->begin(&state, opts, &c, err, errlen)))
		goto out;
	while ((ret = trace_reader__next(r, &rec)) == 1) {
		if ((ret = ex->record(state, &rec, no++, err, errlen)))
			goto out;
		if (trimsim_stop) {
			ret = ts_errf(err, errlen, -EINTR, "interrupted");
			goto out;
		}
	}
	if (ret < 0) {
		ts_errf(err, errlen, ret, "%s", trace_reader__error(r));
		goto out;
	}
	if (ex->end && (ret = ex->end(state, err, errlen)))
		goto out;
	ret = output__commit(o, err, errlen);
	o = NULL;
out:
	output__abort(o);
	if (state)
		ex->destroy(state);
	trace_reader__close(r);
	return ret;
}

/* The one TRACE operand. */
static int take_trace(void *ctx, const char *arg)
{
	const char **in = ctx;

	if (*in)
		return cli_usage_error("export", "one TRACE only ('%s' and '%s')", *in, arg);
	*in = arg;
	return 0;
}

static void export_usage(FILE *f);

static const struct cliopt_cmd export_cmd = {
	.cmd = "export", .opt = "--to", .plugin = exporter__plugin_at, .flag = "--salvage", .none = "no TRACE given",
	.about = "usage: trimsim export --to KIND TRACE -o OUT [--salvage] [OPTIONS]\n"
		 "\n"
		 "Writes a trace in a format other tools read. OUT is written atomically:\n"
		 "on any error nothing is left behind. OUT may be - (stdout), a pipe or a device.\n"
		 "TRACE is read twice (a survey, then the export): - or a pipe is copied once first.\n"
		 "A trace cut short (no footer) is refused unless --salvage: then its whole\n"
		 "records are exported.\n",
	.examples = "  trimsim export --to blktrace rm.tsim -o rm.blktrace\n"
		    "  blkparse -i - < rm.blktrace\n"
		    "  fio --name=replay --ioengine=libaio --direct=1 --read_iolog=rm.blktrace --replay_redirect=/dev/sdX\n"
		    "  trimsim export --to fio rm.tsim -o rm.iolog --ops discard --file /dev/sdX   (fio >= 3.34 for trims)\n"
		    "  trimsim export --to blktrace rm.tsim --records free -o frees.blktrace  (every free as a discard)\n",
	.usage = export_usage, .operand = take_trace,
};

static void export_usage(FILE *f)
{
	cliopt__usage(&export_cmd, f);
}

int cmd_export(int argc, char **argv)
{
	struct cliopt_plugin p;
	struct cliopt_args a = { 0 };
	const char *in = NULL;
	char err[512] = "";
	int ret = 1;

	if (cli_wants_help(argc, argv)) {
		export_usage(stdout);
		return 0;
	}
	if (exporters__validate(err, sizeof(err)))
		goto out;
	if (cliopt__kind(&export_cmd, argc, argv, &p, err, sizeof(err)))
		return cli_usage_error("export", "%s", err);
	ret = cliopt__args(&export_cmd, &p, argc, argv, &in, &a, err, sizeof(err));
	if (!ret && run_export(p.ops, a.opts, in, a.out, a.flag, err, sizeof(err)))
		ret = 1;
out:
	if (ret == 1)
		fprintf(stderr, "trimsim export: %s\n", err[0] ? err : strerror(errno));
	free(a.opts);
	return ret;
}
