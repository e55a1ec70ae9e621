// SPDX-License-Identifier: GPL-2.0
/*
 * The policy string parser: "preset(args)" or "stage(args) | stage | ...",
 * presets expanded in place. Errors point at the column (caret line) and
 * list what is valid. The result is a list of (ops, cfg) for pipeline.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/parse.h"
#include "traces/util.h"

#define MAX_ARGS 32
#define MAX_DEPTH 4

struct arg {
	char key[64];
	char val[256];
	int kcol, vcol;		/* columns in the text being parsed */
	bool has_key;
};

struct elem {
	char name[64];
	int col;
	size_t nargs;
	struct arg args[MAX_ARGS];
};

/* Columns of an expanded preset map back to the user's string. */
struct colmap {
	const struct colmap *up;
	int base;		/* the preset's column in the parent text */
	size_t n;
	struct { int from, to, col; } r[MAX_ARGS];	/* substituted values: [from,to) -> parent col */
};

struct parser {
	const char *orig;
	char *err;
	size_t errlen;
	struct parsed *out;
};

static int map_col(const struct colmap *m, int col)
{
	for (; m; m = m->up) {
		int c = m->base;

		for (size_t i = 0; i < m->n; i++)
			if (col >= m->r[i].from && col < m->r[i].to)
				c = m->r[i].col;
		col = c;
	}
	return col;
}

static int perr(struct parser *ps, const struct colmap *m, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr(struct parser *ps, const struct colmap *m, int col, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	col = map_col(m, col);
	snprintf(ps->err, ps->errlen, "policy: %s (column %d)\n  %s\n  %*s^", msg, col + 1, ps->orig,
		 col, "");
	return -EINVAL;
}

static void names_list(char *buf, size_t len)
{
	const struct policy_stage_ops *o;
	size_t used = 0;

	buf[0] = 0;
	used += (size_t)snprintf(buf, len, "stages: ");
	for (size_t i = 0; (o = policy_stage_at(i)) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", o->name);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "; presets: ");
	for (const struct policy_preset *p = policy_presets; p->name && used < len; p++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", p == policy_presets ? "" : ", ", p->name);
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* Reads a trimmed token up to one of stop; returns its start column or -1 if too long. */
static int read_token(const char *s, int *i, const char *stop, char *buf, size_t len)
{
	int start, end;

	while (s[*i] == ' ' || s[*i] == '\t')
		(*i)++;
	start = *i;
	while (s[*i] && !strchr(stop, s[*i]))
		(*i)++;
	end = *i;
	while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	if ((size_t)(end - start) >= len)
		return -1;
	memcpy(buf, s + start, (size_t)(end - start));
	buf[end - start] = 0;
	return start;
}

static int parse_args(struct parser *ps, const struct colmap *m, const char *s, int *i, struct elem *e)
{
	(*i)++;	/* '(' */
	for (;;) {
		struct arg *a;
		char tok[320];
		int col = read_token(s, i, ",)|(", tok, sizeof(tok));
		char *eq;

		if (col < 0)
			return perr(ps, m, *i, "argument too long");
		if (s[*i] != ',' && s[*i] != ')')
			return perr(ps, m, *i, "'%s(': expected ',' or ')'", e->name);
		if (!tok[0]) {
			if (s[*i] == ')' && !e->nargs) {
				(*i)++;
				return 0;
			}
			return perr(ps, m, col, "'%s': empty argument", e->name);
		}
		if (e->nargs == MAX_ARGS)
			return perr(ps, m, col, "'%s': more than %d arguments", e->name, MAX_ARGS);
		a = &e->args[e->nargs++];
		memset(a, 0, sizeof(*a));
		eq = strchr(tok, '=');
		a->kcol = a->vcol = col;
		if (eq) {
			char *k = tok, *v = eq + 1;

			*eq = 0;
			while (eq > k && eq[-1] == ' ')
				*--eq = 0;
			a->vcol = col + (int)(v - tok);
			while (*v == ' ')
				v++, a->vcol++;
			if (!k[0] || strlen(k) >= sizeof(a->key))
				return perr(ps, m, col, "'%s': bad option name", e->name);
			if (!v[0])
				return perr(ps, m, a->vcol, "'%s': option '%s' has no value", e->name, k);
			memcpy(a->key, k, strlen(k) + 1);
			a->has_key = true;
			if (strlen(v) >= sizeof(a->val))
				return perr(ps, m, a->vcol, "value too long");
			memcpy(a->val, v, strlen(v) + 1);
		} else {
			if (strlen(tok) >= sizeof(a->val))
				return perr(ps, m, col, "value too long");
			memcpy(a->val, tok, strlen(tok) + 1);
		}
		if (s[(*i)++] == ')')
			return 0;
	}
}

static int parse_text(struct parser *ps, const char *s, const struct colmap *m, int depth);

/* The i-th key of a comma-separated list into buf; false past its end. */
static bool list_key(const char *list, size_t i, char *buf, size_t len)
{
	for (const char *p = list; p && *p; i--) {
		size_t n = strcspn(p, ",");

		if (!i) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

/*
 * key=val forwarded to the stages [first, n) of a preset's expansion: each one after the
 * source that has an option called key, and the option an alias of the preset names.
 * val NULL: only counts them. The number of options set, or -EINVAL with msg.
 */
static int forward(struct parsed *out, size_t first, const struct policy_preset *pr, const char *key,
		   const char *val, char *msg, size_t len)
{
	int n = 0;

	for (size_t i = first; i < out->n; i++) {
		const struct policy_stage_ops *o = out->st[i].ops;
		const char *opt = strcmp(o->name, "source") && opts__find(o->opts, key) ? key : NULL;
		char m[512];

		for (const struct policy_alias *al = pr->aliases; !opt && al && al->key; al++)
			if (!strcmp(al->key, key) && !strcmp(al->stage, o->name))
				opt = al->opt;
		if (!opt)
			continue;
		if (val && opts__set(o->opts, out->st[i].cfg, opt, val, m, sizeof(m)))
			return snprintf(msg, len, "stage '%s': %s", o->name, m), -EINVAL;
		n++;
	}
	return n;
}

/* The keys a preset's arguments may name: its stages' options after the source, then its aliases. */
static void preset_keys(const struct parsed *out, size_t first, const struct policy_preset *pr, char *buf,
			size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = first; i < out->n && used < len; i++)
		for (const struct opt_spec *o = out->st[i].ops->opts; strcmp(out->st[i].ops->name, "source") && o &&
		     o->key && used < len; o++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", o->key);
	for (const struct policy_alias *al = pr->aliases; al && al->key && used < len; al++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", al->key);
	if (!used)
		snprintf(buf, len, "none");
}

static int expand_preset(struct parser *ps, const struct colmap *m, const struct policy_preset *pr,
			 const struct elem *e, int depth)
{
	struct colmap sub = { .up = m, .base = e->col };
	size_t first = ps->out->n, pos = 0, npos = 0;
	char keys[512], key[64], msg[768];
	int ret;

	if (pr->waiter)
		ps->out->waiter = pr->waiter;
	if ((ret = parse_text(ps, pr->pipeline, &sub, depth + 1)))
		return ret;
	while (list_key(pr->positional, npos, key, sizeof(key)))
		npos++;
	for (size_t i = 0; i < e->nargs; i++) {
		const struct arg *a = &e->args[i];

		if (!a->has_key && !list_key(pr->positional, pos++, key, sizeof(key)))
			return perr(ps, m, a->vcol, "preset '%s' takes %zu bare argument%s (%s)", pr->name, npos,
				    npos == 1 ? "" : "s", npos ? pr->positional : "none");
		if ((ret = forward(ps->out, first, pr, a->has_key ? a->key : key, a->val, msg, sizeof(msg))) < 0)
			return perr(ps, m, a->vcol, "%s", msg);
		if (!ret) {
			preset_keys(ps->out, first, pr, keys, sizeof(keys));
			return perr(ps, m, a->kcol, "preset '%s' has no option '%s' (options: %s)", pr->name,
				    a->has_key ? a->key : key, keys);
		}
	}
	return 0;
}

int policy_preset_check(const struct policy_preset *pr, char *err, size_t errlen)
{
	struct parsed p;
	char key[64];
	int ret = policy_parse(pr->name, &p, err, errlen);

	for (size_t i = 0; !ret && list_key(pr->positional, i, key, sizeof(key)); i++)
		if (forward(&p, 0, pr, key, NULL, NULL, 0) <= 0)
			ret = (snprintf(err, errlen, "positional '%s' is no option of its stages", key), -EINVAL);
	for (const struct policy_alias *al = pr->aliases; !ret && al && al->key; al++)
		if (forward(&p, 0, pr, al->key, NULL, NULL, 0) <= 0 || !policy_stage_find(al->stage) ||
		    !opts__find(policy_stage_find(al->stage)->opts, al->opt))
			ret = (snprintf(err, errlen, "alias '%s' names no option of its stages", al->key), -EINVAL);
	parsed_free(&p);
	return ret;
}

static int add_stage(struct parser *ps, const struct colmap *m, const struct policy_stage_ops *ops,
		     const struct elem *e)
{
	struct parsed_stage *st;
	char msg[768], keys[512];
	int ret;

	ret = grow_parsed(ps->out);
	if (ret)
		return ret;
	st = &ps->out->st[ps->out->n];
	st->ops = ops;
	st->cfg = calloc(1, ops->cfg_size ? ops->cfg_size : 1);
	if (!st->cfg)
		return -ENOMEM;
	ps->out->n++;
	if ((ret = opts__defaults(ops->opts, st->cfg, msg, sizeof(msg))))
		return perr(ps, m, e->col, "stage '%s': bad default: %s", ops->name, msg);
	opts__keys(ops->opts, keys, sizeof(keys));
	for (size_t i = 0; i < e->nargs; i++) {
		const struct arg *a = &e->args[i];
		const char *key = a->has_key ? a->key : ops->positional;

		if (!key)
			return perr(ps, m, a->vcol, "stage '%s' takes no bare argument (options: %s)", ops->name,
				    keys);
		if (!opts__find(ops->opts, key))
			return perr(ps, m, a->kcol, "stage '%s' has no option '%s' (options: %s)", ops->name,
				    key, keys);
		if (opts__set(ops->opts, st->cfg, key, a->val, msg, sizeof(msg)))
			return perr(ps, m, a->vcol, "stage '%s': %s", ops->name, msg);
	}
	return 0;
}

static int parse_text(struct parser *ps, const char *s, const struct colmap *m, int depth)
{
	int i = 0;

	if (depth > MAX_DEPTH)
		return perr(ps, m, 0, "presets nest deeper than %d", MAX_DEPTH);
	for (;;) {
		struct elem *e = calloc(1, sizeof(*e));
		const struct policy_stage_ops *ops;
		const struct policy_preset *pr;
		char list[1024];
		int ret;

		if (!e)
			return -ENOMEM;
		while (s[i] == ' ' || s[i] == '\t')
			i++;
		e->col = i;
		while (name_char(s[i]) && (size_t)(i - e->col) < sizeof(e->name) - 1)
			e->name[i - e->col] = s[i], i++;
		while (s[i] == ' ' || s[i] == '\t')
			i++;
		ret = 0;
		if (!e->name[0]) {
			names_list(list, sizeof(list));
			ret = perr(ps, m, i, "expected a stage or preset name (%s)", list);
		} else if (s[i] == '(') {
			ret = parse_args(ps, m, s, &i, e);
		}
		while (!ret && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (!ret && s[i] && s[i] != '|')
			ret = perr(ps, m, i, "unexpected '%c' after '%s' (expected '(' , '|' or the end)", s[i],
				   e->name);
		if (!ret) {
			if ((pr = policy_preset_find(e->name)))
				ret = expand_preset(ps, m, pr, e, depth);
			else if ((ops = policy_stage_find(e->name)))
				ret = add_stage(ps, m, ops, e);
			else {
				names_list(list, sizeof(list));
				ret = perr(ps, m, e->col, "unknown stage or preset '%s' (%s)", e->name, list);
			}
		}
		free(e);
		if (ret)
			return ret;
		if (!s[i])
			return 0;
		i++;	/* '|' */
	}
}

int grow_parsed(struct parsed *p)
{
	return grow_array((void **)&p->st, &p->cap, p->n + 1, sizeof(*p->st));
}

int policy_parse(const char *spec, struct parsed *out, char *err, size_t errlen)
{
	struct parser ps = { .orig = spec, .err = err, .errlen = errlen, .out = out };

	memset(out, 0, sizeof(*out));
	if (!spec || !spec[strspn(spec, " \t")])
		return perr(&ps, NULL, 0, "empty policy (try a preset: trimsim policies)");
	return parse_text(&ps, spec, NULL, 0);
}

void parsed_free(struct parsed *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->st[i].cfg);
	free(p->st);
	memset(p, 0, sizeof(*p));
}
