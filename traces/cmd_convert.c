// SPDX-License-Identifier: GPL-2.0
/* trimsim convert: binary <-> JSON Lines, written as an output (traces/output.h, traces/FORMAT.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "replay/cli.h"
#include "traces/trace.h"
#include "traces/util.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim convert [--to binary|jsonl] [--format-version 1|2] [--salvage] IN OUT\n"
		"       trimsim convert [OPTIONS] IN -o OUT\n"
		"\n"
		"Converts a trace between the binary form and JSON Lines. The input form is\n"
		"detected from its first bytes; the output form follows OUT's extension\n"
		"(.jsonl or .json: JSON Lines, anything else: binary) unless --to says.\n"
		"A file OUT is written beside itself and renamed into place, so an error or an\n"
		"interrupt leaves nothing half-written; - is stdout, pipes and devices are written\n"
		"directly. binary -> JSON Lines -> binary is byte-identical (a format version 1\n"
		"trace comes back so with --format-version 1). IN - is standard input.\n"
		"\n"
		"  -o, --output OUT\n"
		"                OUT as an option, as import, export and replay take it\n"
		"  --to FORMAT   binary or jsonl, whatever OUT is called\n"
		"  --format-version N\n"
		"                binary output: 2 (the default) or 1, whose checksum trimsim\n"
		"                builds older than format version 2 read (traces/FORMAT.md);\n"
		"                header and records are the same in both\n"
		"  --salvage     convert a trace cut short (recorder killed): keep every whole\n"
		"                record and write a proper footer; otherwise that is an error\n"
		"\n"
		"example:\n"
		"  trimsim convert rm.tsim rm.jsonl\n"
		"  trimsim convert --to binary edited.jsonl rm2.tsim\n"
		"  trimsim convert --format-version 1 rm.tsim rm-v1.tsim\n");
}

static enum trace_writer_format format_for(const char *path)
{
	size_t n = strlen(path);

	if ((n >= 6 && !strcmp(path + n - 6, ".jsonl")) || (n >= 5 && !strcmp(path + n - 5, ".json")))
		return TW_JSONL;
	return TW_BINARY;
}

/* Copies every record; 0, or -errno with the message printed. */
static int copy(struct trace_reader *r, struct trace_writer *w, bool salvage, uint64_t *last_ns)
{
	const struct trace_status *st = trace_reader__status(r);
	const struct ts_record *recs;
	ssize_t n;

	while ((n = trace_reader__batch(r, &recs, 4096)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			int ret = trace_writer__write(w, &recs[i]);

			if (ret) {
				fprintf(stderr, "trimsim convert: %s\n", trace_writer__error(w));
				return ret;
			}
		}
		*last_ns = recs[n - 1].time_ns;
		if (trimsim_stop) {
			fprintf(stderr, "trimsim convert: interrupted\n");
			return -EINTR;
		}
	}
	if (n < 0) {
		fprintf(stderr, "trimsim convert: %s\n", trace_reader__error(r));
		return (int)n;
	}
	if (st->truncated && !salvage) {
		fprintf(stderr, "trimsim convert: %s (use --salvage to keep them)\n", trace_reader__error(r));
		return -EBADMSG;
	}
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "salvage", no_argument, NULL, 's' },
		{ "format-version", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { [TW_BINARY] = "binary", [TW_JSONL] = "jsonl" };
	struct trace_reader *r = NULL;
	struct trace_writer *w = NULL;
	int fmt = -1, c, ret = 1, version = TS_VERSION;
	const char *in, *out = NULL;
	bool salvage = false;
	uint64_t last_ns = 0, end_ns;
	char err[600];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			fmt = !strcmp(optarg, formats[TW_BINARY]) ? TW_BINARY :
			      !strcmp(optarg, formats[TW_JSONL]) ? TW_JSONL : -1;
			if (fmt < 0)
				return cli_usage_error("convert", "option '--to': '%s' is not one of: binary, jsonl",
						       optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			salvage = true;
			break;
		case 'V':
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return cli_usage_error("convert", "option '--format-version': '%s' is not 1 or 2",
						       optarg);
			version = optarg[0] - '0';
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_getopt_error("convert", c, argv, usage);
		}
	}
	if (out && argc - optind != 1)
		return cli_usage_error("convert", "with -o OUT, expected IN alone, got %d argument%s", argc - optind,
				       argc - optind == 1 ? "" : "s");
	if (!out && argc - optind != 2)
		return cli_usage_error("convert", "expected IN and OUT, got %d argument%s", argc - optind,
				       argc - optind == 1 ? "" : "s");
	in = argv[optind];
	if (!out)
		out = argv[optind + 1];
	if (fmt < 0)
		fmt = format_for(out);
	if (version != TS_VERSION && fmt == TW_JSONL)
		return cli_usage_error("convert", "option '--format-version': JSON Lines output has no format version");
	if (version == 1)
		fmt = TW_BINARY_V1;
	r = trace_reader__open(in, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "trimsim convert: %s\n", err);
		goto out;
	}
	w = trace_writer__open(out, trace_reader__header(r), (enum trace_writer_format)fmt,
			       TW_ATOMIC, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "trimsim convert: %s\n", err);
		goto out;
	}
	if (copy(r, w, salvage, &last_ns))
		goto out;
	trace_writer__add_lost(w, trace_reader__status(r)->lost);
	end_ns = trace_reader__status(r)->footer ? trace_reader__status(r)->end_ns : last_ns;
	ret = trace_writer__close(w, end_ns, err, sizeof(err)) ? 1 : 0;
	w = NULL;
	if (ret)
		fprintf(stderr, "trimsim convert: %s\n", err);
out:
	trace_writer__abort(w);
	trace_reader__close(r);
	return ret;
}
