// SPDX-License-Identifier: GPL-2.0
/* trimsim policies: the stage kinds and presets, with options, defaults and the kernel code they follow. */
#include <stdio.h>
#include <string.h>

#include "replay/cli.h"
#include "replay/policies/policy.h"
#include "replay/policies/parse.h"
#include "traces/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim policies [NAME] [--json]\n"
		"\n"
		"Lists the policy stages (composed with '|') and the presets (named pipelines that\n"
		"emulate a kernel), with their options, defaults and the kernel source they follow;\n"
		"with NAME, only the stage or preset of that name.\n"
		"\n"
		"  --json   one JSON object on stdout\n"
		"\n"
		"examples:\n"
		"  trimsim policies\n"
		"  trimsim policies xfs\n"
		"  trimsim replay t.tsim -p 'source(free) | batch(window=1s) | sort | merge(max=64M,segments=64) | min(64K)'\n"
		"  trimsim replay t.tsim -p 'sort-merge-async(qd=8)'\n");
}

static const char *type_name(enum opt_type t)
{
	static const char *const names[] = {
		[OPT_U64] = "integer", [OPT_U32] = "integer", [OPT_BOOL] = "bool", [OPT_DOUBLE] = "number",
		[OPT_BYTES] = "size", [OPT_DURATION] = "duration", [OPT_STR] = "string", [OPT_ENUM] = "choice",
	};

	return t <= OPT_ENUM && names[t] ? names[t] : "?";
}

static json_t *opts_json(const struct opt_spec *o)
{
	json_t *arr = json_array();

	for (; o && o->key; o++) {
		json_t *j = json_object(), *ch = json_array();

		json_object_set_new(j, "key", json_string(o->key));
		json_object_set_new(j, "type", json_string(type_name(o->type)));
		json_object_set_new(j, "default", o->def ? json_string(o->def) : json_null());
		json_object_set_new(j, "help", json_string(o->help ? o->help : ""));
		for (const char *const *c = o->choices; c && *c; c++)
			json_array_append_new(ch, json_string(*c));
		json_object_set_new(j, "choices", ch);
		json_array_append_new(arr, j);
	}
	return arr;
}

static bool preset_positional(const struct policy_preset *p, size_t i, char *buf, size_t len)
{
	const char *k = p->positional;

	for (; k && *k && i; i--)
		k += strcspn(k, ",") + (k[strcspn(k, ",")] == ',');
	if (!k || !*k)
		return false;
	snprintf(buf, len, "%.*s", (int)strcspn(k, ","), k);
	return true;
}

/*
 * What a preset's arguments set: the options of its stages after the source, with the
 * preset's defaults (its pipeline's arguments, else the stage's), then its aliases.
 * fn(arg, key, stage, option, default) for each; the help of each is in its stage.
 */
static int preset_options(const struct policy_preset *pr,
			  void (*fn)(void *arg, const char *key, const char *stage, const struct opt_spec *o,
				     const char *def), void *arg)
{
	struct parsed p;
	char err[1024], val[96];
	int ret = policy_parse(pr->name, &p, err, sizeof(err));

	for (size_t i = 0; !ret && i < p.n; i++)
		for (const struct opt_spec *o = p.st[i].ops->opts; strcmp(p.st[i].ops->name, "source") && o && o->key;
		     o++) {
			opts__format(o, p.st[i].cfg, false, val, sizeof(val));
			fn(arg, o->key, p.st[i].ops->name, o, val);
		}
	for (const struct policy_alias *al = pr->aliases; !ret && al && al->key; al++)
		for (size_t i = 0; i < p.n; i++)
			if (!strcmp(p.st[i].ops->name, al->stage)) {
				const struct opt_spec *o = opts__find(p.st[i].ops->opts, al->opt);

				opts__format(o, p.st[i].cfg, false, val, sizeof(val));
				fn(arg, al->key, al->stage, o, val);
			}
	parsed_free(&p);
	return ret;
}

static void opt_json(void *arg, const char *key, const char *stage, const struct opt_spec *o, const char *def)
{
	json_t *k = json_object();

	json_object_set_new(k, "key", json_string(key));
	json_object_set_new(k, "stage", json_string(stage));
	json_object_set_new(k, "option", json_string(o->key));
	json_object_set_new(k, "default", json_string(def));
	json_array_append_new(arg, k);
}

static json_t *preset_json(const struct policy_preset *pr)
{
	json_t *a = json_array();

	preset_options(pr, opt_json, a);
	return a;
}

struct opt_line {
	FILE *f;
	const char *stage;	/* the stage the line being written is for */
};

static void opt_text(void *arg, const char *key, const char *stage, const struct opt_spec *o, const char *def)
{
	struct opt_line *l = arg;

	if (strcmp(key, o->key))
		fprintf(l->f, "%s    %s sets %s's %s", l->stage ? "\n" : "", key, stage, o->key);
	else if (!l->stage || strcmp(l->stage, stage))
		fprintf(l->f, "%s    %s: %s=%s", l->stage ? "\n" : "", stage, key, def);
	else
		fprintf(l->f, " %s=%s", key, def);
	l->stage = strcmp(key, o->key) ? "" : stage;
}

/* NAME given: only the stage or preset of that name (cmd_policies checks there is one). */
static bool shown(const char *only, const char *name)
{
	return !only || !strcmp(only, name);
}

static json_t *all_json(const char *only)
{
	json_t *o = json_object(), *st = json_array(), *pr = json_array();
	const struct policy_stage_ops *s;

	for (size_t i = 0; (s = policy_stage_at(i)); i++) {
		json_t *j;

		if (!shown(only, s->name))
			continue;
		j = json_object();
		json_object_set_new(j, "name", json_string(s->name));
		json_object_set_new(j, "help", json_string(s->help ? s->help : ""));
		json_object_set_new(j, "follows", s->follows ? json_string(s->follows) : json_null());
		json_object_set_new(j, "positional", s->positional ? json_string(s->positional) : json_null());
		json_object_set_new(j, "options", opts_json(s->opts));
		json_array_append_new(st, j);
	}
	for (const struct policy_preset *p = policy_presets; p->name; p++) {
		json_t *j, *po;
		char key[64];

		if (!shown(only, p->name))
			continue;
		j = json_object(), po = json_array();
		json_object_set_new(j, "name", json_string(p->name));
		json_object_set_new(j, "help", json_string(p->help ? p->help : ""));
		json_object_set_new(j, "follows", p->follows ? json_string(p->follows) : json_null());
		json_object_set_new(j, "pipeline", json_string(p->pipeline));
		for (size_t i = 0; preset_positional(p, i, key, sizeof(key)); i++)
			json_array_append_new(po, json_string(key));
		json_object_set_new(j, "positional", po);
		json_object_set_new(j, "options", preset_json(p));
		json_array_append_new(pr, j);
	}
	json_object_set_new(o, "stages", st);
	json_object_set_new(o, "presets", pr);
	return o;
}

static void print_text(FILE *f, const char *only)
{
	const struct policy_stage_ops *s;
	char def[64];

	if (!only || policy_stage_find(only))
		fprintf(f, "stages (compose with '|'; a bare first argument sets the option marked *):\n");
	for (size_t i = 0; (s = policy_stage_at(i)); i++) {
		if (!shown(only, s->name))
			continue;
		fprintf(f, "\n  %s: %s\n", s->name, s->help ? s->help : "");
		if (s->follows)
			fprintf(f, "    follows %s\n", s->follows);
		for (const struct opt_spec *o = s->opts; o && o->key; o++)
			fprintf(f, "    %s%-12s %-9s default %-8s %s\n",
				s->positional && !strcmp(s->positional, o->key) ? "*" : " ", o->key,
				type_name(o->type), opts__format_default(o, def, sizeof(def)), o->help ? o->help : "");
	}
	if (!only || policy_preset_find(only))
		fprintf(f, "%spresets (name or name(option=value, ...): the options of its stages after the source,\n"
			"with the preset's defaults; a bare value sets the next 'bare' key):\n", only ? "" : "\n");
	for (const struct policy_preset *p = policy_presets; p->name; p++) {
		struct opt_line l = { .f = f };

		if (!shown(only, p->name))
			continue;
		fprintf(f, "\n  %s: %s\n", p->name, p->help ? p->help : "");
		if (p->follows)
			fprintf(f, "    follows %s\n", p->follows);
		fprintf(f, "    = %s\n", p->pipeline);
		preset_options(p, opt_text, &l);
		if (l.stage)
			fputc('\n', f);
		if (p->positional)
			fprintf(f, "    bare: %s\n", p->positional);
	}
}

int cmd_policies(int argc, char **argv)
{
	const char *only = NULL;
	bool json = false;
	char err[1024];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' || only) {
			return cli_unknown_option("policies", argv[i], usage);
		} else {
			only = argv[i];
		}
	}
	if (policy_registry_validate(err, sizeof(err))) {
		fprintf(stderr, "trimsim policies: registry: %s\n", err);
		return 1;
	}
	if (only && !policy_stage_find(only) && !policy_preset_find(only))
		return cli_usage_error("policies", "'%s' is neither a stage nor a preset (trimsim policies lists them)",
				       only);
	if (json) {
		json_t *o = all_json(only);

		if (!o || json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2)) || fputc('\n', stdout) == EOF) {
			json_decref(o);
			return 1;
		}
		json_decref(o);
		return 0;
	}
	print_text(stdout, only);
	return 0;
}
