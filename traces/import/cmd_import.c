// SPDX-License-Identifier: GPL-2.0
/* trimsim import --from KIND FILE... -o OUT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/cli.h"
#include "traces/util.h"
#include "traces/import/cliopt.h"
#include "traces/import/importer.h"

static int write_trace(struct import_sink *sink, const char *out, json_t *header, bool jsonl,
		       char *err, size_t errlen)
{
	struct ts_record buf[1024];
	struct trace_writer *w;
	uint64_t pos = 0, end_ns = 0;
	ssize_t n;
	int ret = 0;

	w = trace_writer__open(out, header, jsonl ? TW_JSONL : TW_BINARY, TW_ATOMIC, err, errlen);
	if (!w)
		return errno ? -errno : -EIO;
	while ((n = import_sink__read(sink, pos, buf, 1024)) > 0) {
		if (trimsim_stop) {
			trace_writer__abort(w);
			return ts_errf(err, errlen, -EINTR, "interrupted");
		}
		for (ssize_t i = 0; i < n; i++) {
			if ((ret = trace_writer__write(w, &buf[i]))) {
				/* the writer's error names OUT already */
				ts_errf(err, errlen, ret, "%s", trace_writer__error(w));
				trace_writer__abort(w);
				return ret;
			}
			if (buf[i].time_ns > end_ns)
				end_ns = buf[i].time_ns;
		}
		pos += (uint64_t)n;
	}
	if (n < 0) {
		trace_writer__abort(w);
		return ts_errf(err, errlen, (int)n, "%s: spool read: %s", out, strerror((int)-n));
	}
	return trace_writer__close(w, end_ns, err, errlen);
}

/* The devices an importer described, against the bounds every trace header obeys (traces/bounds.c). */
static int check_devices(const struct import_sink *sink, char *err, size_t errlen)
{
	size_t n;
	const struct ts_device *d = import_sink__devices(sink, &n);
	char why[400], name[100];
	int ret;

	for (size_t i = 0; i < n; i++)
		if ((ret = ts_device_check(&d[i], why, sizeof(why))))
			return ts_errf(err, errlen, ret, "device %s: %s", ts_escape(d[i].name, name, sizeof(name)), why);
	return 0;
}

static json_t *import_header(int argc, char **argv, const struct importer_ops *im, const void *opts,
			     char *const *files, size_t nfiles, struct import_sink *sink)
{
	json_t *h = trace_header__new(argc, argv), *devs = json_array(), *src = json_object(),
	       *fl = json_array();
	const struct ts_device *d;
	size_t nd;
	int bad = !h || !devs || !src || !fl;

	d = import_sink__devices(sink, &nd);
	for (size_t i = 0; !bad && i < nd; i++)
		bad |= json_array_append_new(devs, ts_device_to_json(&d[i]));
	for (size_t i = 0; !bad && i < nfiles; i++)
		bad |= json_array_append_new(fl, json_string(files[i]));
	if (!bad) {
		/* host and kernel are the recording machine's, which the input does not tell. */
		bad |= json_object_set(src, "imported_on_host", json_object_get(h, "host"));
		bad |= json_object_set(src, "imported_on_kernel", json_object_get(h, "kernel"));
		bad |= json_object_set_new(h, "host", json_string("unknown"));
		bad |= json_object_set_new(h, "kernel", json_string("unknown"));
		bad |= json_object_set_new(src, "importer", json_string(im->name));
		bad |= json_object_set_new(src, "files", fl);
		fl = NULL;
		bad |= json_object_set_new(src, "options", opts__to_json(im->opts, opts));
		bad |= json_object_set_new(h, "devices", devs);
		devs = NULL;
		bad |= json_object_set_new(h, "import", src);
		src = NULL;
	}
	json_decref(devs);
	json_decref(src);
	json_decref(fl);
	/* Record times are the source's clock: start_ns is the first record's, not ours. */
	if (!bad && import_sink__count(sink)) {
		struct ts_record first;

		if (import_sink__read(sink, 0, &first, 1) == 1)
			bad |= json_object_set_new(h, "start_ns", json_integer((json_int_t)first.time_ns));
	}
	if (bad) {
		json_decref(h);
		return NULL;
	}
	return h;
}

/* The FILE operands; an importer that rereads its input takes no pipe. */
struct inputs {
	char **files;
	size_t n;
	const char *rereads;
};

static int take_file(void *ctx, const char *arg)
{
	struct inputs *in = ctx;
	int ret = in->rereads ? cli_input_twice("import", arg, in->rereads) : 0;

	if (!ret)
		in->files[in->n++] = (char *)cli_input(arg);
	return ret;
}

static void import_usage(FILE *f);

static const struct cliopt_cmd import_cmd = {
	.cmd = "import", .opt = "--from", .plugin = importer__plugin_at, .flag = "--jsonl", .none = "no input FILE given",
	.about = "usage: trimsim import --from KIND [OPTIONS] FILE... -o OUT [--jsonl]\n"
		 "\n"
		 "Converts another tool's trace into a trimsim trace. A file OUT is written beside\n"
		 "itself and renamed into place: on any error or interrupt nothing is left behind.\n"
		 "OUT - is stdout; FILE - is stdin for dtrace (blktrace and trace-cmd read their\n"
		 "input twice: give files). --jsonl writes JSON Lines instead of binary.\n",
	.examples = "  trimsim import --from blktrace sda.blktrace.0 sda.blktrace.1 -o rm.tsim --device-size 240G\n"
		    "  blkparse -i sda -d sda.bin >/dev/null; trimsim import --from blktrace sda.bin -o rm.tsim\n"
		    "  trimsim import --from trace-cmd trace.dat --device /dev/sdb1 -o rm.tsim\n"
		    "  trimsim import --from trace-cmd trace.dat --xfs-agblocks 65536 --fs-block-size 4096 -o rm.tsim\n"
		    "  dtrace -qs tracer/freebsd/trimsim.d > ufs.txt; trimsim import --from dtrace ufs.txt -o ufs.tsim\n",
	.usage = import_usage, .operand = take_file,
};

static void import_usage(FILE *f)
{
	cliopt__usage(&import_cmd, f);
}

int cmd_import(int argc, char **argv)
{
	const struct importer_ops *im = NULL;
	struct cliopt_plugin p;
	struct inputs in = { .files = calloc((size_t)argc + 1, sizeof(char *)) };
	struct cliopt_args a = { 0 };
	struct import_sink *sink = NULL;
	json_t *header = NULL;
	char err[512] = "";
	int ret = 1;

	if (cli_wants_help(argc, argv)) {
		import_usage(stdout);
		free(in.files);
		return 0;
	}
	if (!in.files || importers__validate(err, sizeof(err)))
		goto fail;
	/* --from first: the importer's options depend on it. */
	if (cliopt__kind(&import_cmd, argc, argv, &p, err, sizeof(err))) {
		ret = cli_usage_error("import", "%s", err);
		goto out;
	}
	im = p.ops;
	in.rereads = im->rereads;
	ret = cliopt__args(&import_cmd, &p, argc, argv, &in, &a, err, sizeof(err));
	if (ret == 1)
		goto fail;
	if (ret)
		goto out;
	sink = import_sink__new();
	if (!sink) {
		snprintf(err, sizeof(err), "temporary spool: %s", strerror(errno));
		goto fail;
	}
	if (im->run(a.opts, in.files, in.n, sink, err, sizeof(err)) || check_devices(sink, err, sizeof(err)))
		goto fail;
	header = import_header(argc, argv, im, a.opts, in.files, in.n, sink);
	if (!header) {
		snprintf(err, sizeof(err), "header: out of memory");
		goto fail;
	}
	if (write_trace(sink, a.out, header, a.flag, err, sizeof(err)))
		goto fail;
	fprintf(stderr, "trimsim import: %" PRIu64 " records (%" PRIu64 " BIO, %" PRIu64 " ISSUE, %" PRIu64
		" DONE, %" PRIu64 " FREE, %" PRIu64 " INTENT, %" PRIu64 " ALLOC) -> %s\n",
		import_sink__count(sink), import_sink__kind_count(sink, TS_BIO),
		import_sink__kind_count(sink, TS_ISSUE), import_sink__kind_count(sink, TS_DONE),
		import_sink__kind_count(sink, TS_FREE), import_sink__kind_count(sink, TS_INTENT),
		import_sink__kind_count(sink, TS_ALLOC), a.out);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "trimsim import: %s\n", err[0] ? err : strerror(errno));
	ret = 1;
out:
	json_decref(header);
	import_sink__free(sink);
	free(a.opts);
	free(in.files);
	return ret;
}
