// SPDX-License-Identifier: GPL-2.0
/* trimsim models: the device profiles, their parameters and where the numbers come from. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/cli.h"
#include "traces/opts.h"
#include "traces/util.h"
#include "models/model.h"
#include "models/model_int.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim models [--json] [PROFILE[:key=value,...]]\n"
		"\n"
		"Lists the device profiles built into trimsim (models/profiles/*.json) with\n"
		"their parameters and the sources their numbers come from. With PROFILE,\n"
		"shows that one (a bundled name or a path to a .json file) after overrides.\n"
		"Replays use them as the target model:PROFILE[:key=value,...].\n"
		"\n"
		"  --json      print JSON (an array, or one object with PROFILE)\n"
		"  -h, --help  this text\n"
		"\n"
		"example:\n"
		"  trimsim models\n"
		"  trimsim models sata-sf2281:trim_base=5ms,qd=1\n"
		"  trimsim models --json ./my-ssd.json\n");
	for (size_t i = 0; model_engines[i]; i++) {
		fprintf(f, "\n\"model\": \"%s\" (%s), parameters:\n", model_engines[i]->name, model_engines[i]->help);
		opts__print(model_engines[i]->opts, f, "  ");
	}
}

static void print_text(const struct model_profile *prof, bool full)
{
	const struct opt_spec *t = prof->engine->opts;
	char v[64];

	printf("%s (%s)%s%s\n", prof->name, model_profile__engine(prof), prof->description ? ": " : "",
	       prof->description ? prof->description : "");
	if (full) {
		for (; t->key; t++) {
			opts__format(t, &prof->p, true, v, sizeof(v));
			printf("  %-22s %s\n", t->key, v);
		}
	} else {
		printf("  qd %u, %s TRIM", prof->p.qd, prof->p.queued_trim ? "queued" : "non-queued");
		if (!prof->p.discard_supported) {
			printf(", discards rejected (EOPNOTSUPP)");
		} else {
			printf(", trim_base %s", opts__format(opts__find(t, "trim_base"), &prof->p, true, v, sizeof(v)));
			printf(", discard_max_bytes %s", fmt_bytes(prof->p.discard_max_bytes, v, sizeof(v)));
			printf(", %u segments", prof->p.max_discard_segments);
			printf(", granularity %s", fmt_bytes(prof->p.discard_granularity, v, sizeof(v)));
		}
		printf(", capacity %s\n", fmt_bytes(prof->p.capacity, v, sizeof(v)));
	}
	printf("  source: %s\n", prof->source);
}

/* A PROFILE the user named that does not load is a usage error (2), as in replay and compare. */
static int show(const char *spec, bool json, json_t *arr, bool full)
{
	char err[512];
	struct model_profile *prof = model_profile__load(spec, err, sizeof(err));

	if (!prof) {
		fprintf(stderr, "trimsim models: %s\n", err);
		return full ? 2 : 1;
	}
	if (json) {
		json_t *o = model_profile__describe(prof);

		if (!o) {
			model_profile__free(prof);
			fprintf(stderr, "trimsim models: out of memory\n");
			return 1;
		}
		if (arr) {
			json_array_append_new(arr, o);
		} else {
			json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(o);
		}
	} else {
		print_text(prof, full);
	}
	model_profile__free(prof);
	return 0;
}

int cmd_models(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false;
	json_t *arr = NULL;
	int c, ret = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h': usage(stdout); return 0;
		default: return cli_getopt_error("models", c, argv, usage);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("models", "one PROFILE at most");
	if (optind < argc)
		return show(argv[optind], json, NULL, true);
	if (json && !(arr = json_array())) {
		fprintf(stderr, "trimsim models: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < model_profile__count() && !ret; i++) {
		if (i && !json)
			fputc('\n', stdout);
		ret = show(model_profile__name_at(i), json, arr, false);
	}
	if (arr) {
		if (!ret) {
			json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
		}
		json_decref(arr);
	}
	return ret;
}
