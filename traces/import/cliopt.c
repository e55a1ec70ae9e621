// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/util.h"
#include "traces/import/cliopt.h"

/*
 * argv[*i] is "--key=value" or "--key" followed by its value. If key names an
 * option of t, sets it, advances *i past what it used and returns 1; returns 0
 * if argv[*i] is not one of t's options, -EINVAL with err set on a bad value.
 */
static int take_option(const struct opt_spec *t, void *obj, int argc, char **argv, int *i,
		       char *err, size_t errlen)
{
	const char *arg = argv[*i], *val, *eq;
	char key[64];
	size_t n;
	int ret;

	if (!t || strncmp(arg, "--", 2))
		return 0;
	arg += 2;
	eq = strchr(arg, '=');
	n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (n == 0 || n >= sizeof(key))
		return 0;
	for (size_t k = 0; k < n; k++)
		key[k] = arg[k] == '-' ? '_' : arg[k];
	key[n] = 0;
	if (!opts__find(t, key))
		return 0;
	if (eq) {
		val = eq + 1;
	} else {
		if (*i + 1 >= argc)
			return ts_errf(err, errlen, -EINVAL, "option '--%s' needs a value", arg);
		val = argv[++*i];
	}
	ret = opts__set(t, obj, key, val, err, errlen);
	if (ret)
		return ret;
	(*i)++;
	return 1;
}

long cliopt__plugin(cliopt_plugin_fn at, const char *name)
{
	struct cliopt_plugin p;

	for (size_t i = 0; at(i, &p); i++)
		if (!strcmp(p.name, name))
			return (long)i;
	return -1;
}

/* The value of argv[i] if it is opt KIND or opt=KIND, else NULL. */
static const char *kind_arg(int argc, char **argv, int i, const char *opt)
{
	size_t n = strlen(opt);

	if (!strcmp(argv[i], opt))
		return i + 1 < argc ? argv[i + 1] : NULL;
	return !strncmp(argv[i], opt, n) && argv[i][n] == '=' ? argv[i] + n + 1 : NULL;
}

int cliopt__kind(const struct cliopt_cmd *c, int argc, char **argv, struct cliopt_plugin *p,
		 char *err, size_t errlen)
{
	char names[256];
	size_t used = 0;
	const char *v;
	long k = -1;

	names[0] = 0;
	for (size_t i = 0; c->plugin(i, p) && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", p->name);
	for (int i = 1; i < argc; i++)
		if ((v = kind_arg(argc, argv, i, c->opt)) && (k = cliopt__plugin(c->plugin, v)) < 0)
			return ts_errf(err, errlen, -EINVAL, "%s: unknown kind '%s' (%s)", c->opt, v, names);
	if (k < 0)
		return ts_errf(err, errlen, -EINVAL, "%s KIND is required (%s)", c->opt, names);
	c->plugin((size_t)k, p);
	return 0;
}

/*
 * argv[*i] is one of the arguments every plug-in command takes: OPT KIND / OPT=KIND (skipped:
 * cliopt__kind read it) or -o/--output FILE (*out set). 1 and *i advanced past it; 0 if it is
 * neither; -EINVAL with err if -o has no FILE.
 */
static int common_arg(int argc, char **argv, const char *opt, int *i, const char **out, char *err, size_t errlen)
{
	if (kind_arg(argc, argv, *i, opt)) {
		*i += strcmp(argv[*i], opt) ? 1 : 2;
		return 1;
	}
	if (strcmp(argv[*i], "-o") && strcmp(argv[*i], "--output"))
		return 0;
	if (*i + 1 >= argc)
		return ts_errf(err, errlen, -EINVAL, "option '%s' needs a value", argv[*i]);
	*out = argv[*i + 1];
	*i += 2;
	return 1;
}

/*
 * One step of a plug-in command's argument loop: argv[*i] is OPT KIND, -o FILE (common_arg)
 * or one of the plug-in's options (take_option, t into obj). 1 and *i advanced if it was; 0 if it
 * is the command's own (its flags, operands, an unknown option); -EINVAL with err on a bad value.
 */
static int step(int argc, char **argv, const char *opt, int *i, const char **out,
		const struct opt_spec *t, void *obj, char *err, size_t errlen)
{
	int r = common_arg(argc, argv, opt, i, out, err, errlen);

	return r ? r : take_option(t, obj, argc, argv, i, err, errlen);
}

int cliopt__args(const struct cliopt_cmd *c, const struct cliopt_plugin *p, int argc, char **argv, void *ctx,
		 struct cliopt_args *a, char *err, size_t errlen)
{
	bool operands = false;
	char what[128];
	int r;

	if (!(a->opts = calloc(1, p->opts_size ? p->opts_size : 1)))
		return ts_errf(err, errlen, 1, "%s", strerror(errno));
	if (opts__defaults(p->opts, a->opts, err, errlen))
		return 1;
	for (int i = 1; i < argc;) {
		if ((r = step(argc, argv, c->opt, &i, &a->out, p->opts, a->opts, err, errlen)) < 0)
			return cli_usage_error(c->cmd, "%s", err);
		if (r)
			continue;
		if (!strcmp(argv[i], c->flag)) {
			a->flag = true;
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			snprintf(what, sizeof(what), "%s %s", c->opt, p->name);
			return cli_unknown_option_for(c->cmd, argv[i], what, c->usage);
		} else if ((r = c->operand(ctx, argv[i++]))) {
			return r;
		} else {
			operands = true;
		}
	}
	if (!operands || !a->out)
		return cli_usage_error(c->cmd, "%s", !operands ? c->none : "-o OUT is required");
	return 0;
}

int cliopt__check_plugin(const char *kind, size_t i, const char *name, bool complete, const char *need,
			 const struct opt_spec *t, char *err, size_t errlen)
{
	char e[256];

	if (!complete)
		return ts_errf(err, errlen, -EINVAL, "%s %zu: %s are required", kind, i, need);
	if (t && opts__validate(t, e, sizeof(e)))
		return ts_errf(err, errlen, -EINVAL, "%s %s: %s", kind, name, e);
	return 0;
}

void cliopt__print(const struct opt_spec *t, FILE *f)
{
	for (const struct opt_spec *o = t; o && o->key; o++) {
		char flag[64];
		size_t k;

		for (k = 0; o->key[k] && k < sizeof(flag) - 1; k++)
			flag[k] = o->key[k] == '_' ? '-' : o->key[k];
		flag[k] = 0;
		fprintf(f, "    --%-20s %s", flag, o->help);
		if (o->def && o->def[0])
			fprintf(f, " (default %s)", o->def);
		if (o->choices) {
			fprintf(f, " [");
			for (const char *const *c = o->choices; *c; c++)
				fprintf(f, "%s%s", c == o->choices ? "" : "|", *c);
			fprintf(f, "]");
		}
		fputc('\n', f);
	}
}

void cliopt__usage(const struct cliopt_cmd *c, FILE *f)
{
	struct cliopt_plugin p;

	fprintf(f, "%s\nkinds and their options:\n", c->about);
	for (size_t i = 0; c->plugin(i, &p); i++) {
		fprintf(f, "  %s\n", p.name);	/* its help indented line by line, then its options */
		for (const char *h = p.help; *h;) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);

			fprintf(f, "    %.*s\n", len, h);
			h += len + (nl ? 1 : 0);
		}
		cliopt__print(p.opts, f);
	}
	fprintf(f, "\nexamples:\n%s", c->examples);
}
