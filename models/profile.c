// SPDX-License-Identifier: GPL-2.0
/*
 * Device profiles: JSON files (bundled into the binary by models/models.mk,
 * or any path), applied to the engine's option table with the generic
 * parser, then "key=value" overrides, then cross-checks. Every error names
 * the file and the key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/opts.h"
#include "models/model.h"
#include "models/model_int.h"

static const char *const ignore_keys[] = { "name", "model", "source", "description", NULL };

const struct opt_spec *model_profile__opts(const char *engine)
{
	const struct model_engine_ops *e = model_engine_find(engine);

	return e ? e->opts : NULL;
}

size_t model_profile__count(void)
{
	return model_embedded_count;
}

const char *model_profile__name_at(size_t i)
{
	return i < model_embedded_count ? model_embedded_profiles[i].name : NULL;
}

void model_profile__free(struct model_profile *p)
{
	if (!p)
		return;
	free(p->source);
	free(p->description);
	free(p);
}

const char *model_profile__name(const struct model_profile *p) { return p->name; }
const char *model_profile__source(const struct model_profile *p) { return p->source; }
const char *model_profile__engine(const struct model_profile *p) { return p->engine->name; }

/* Relations a single option range cannot express. */
static int check_params(const struct model_profile *prof, const char *label, char *err, size_t errlen)
{
	const struct model_params *p = &prof->p;

	if (!model_is_pow2(p->discard_granularity))
		goto gran;
	if (p->discard_max_bytes < p->discard_granularity) {
		snprintf(err, errlen, "%s: option 'discard_max_bytes': %llu must be >= discard_granularity (%llu)",
			 label, (unsigned long long)p->discard_max_bytes,
			 (unsigned long long)p->discard_granularity);
		return -ERANGE;
	}
	if (p->channels > p->qd) {
		snprintf(err, errlen, "%s: option 'channels': %u must be <= qd (%u)", label, p->channels, p->qd);
		return -ERANGE;
	}
	return prof->engine->check ? prof->engine->check(p, label, err, errlen) : 0;
gran:
	snprintf(err, errlen, "%s: option 'discard_granularity': %llu must be a power of two in [512, 1G]",
		 label, (unsigned long long)p->discard_granularity);
	return -ERANGE;
}

static char *dup_member(const json_t *root, const char *key, bool required, const char *label,
			char *err, size_t errlen, int *ret)
{
	const json_t *v = json_object_get(root, key);
	char *s;

	*ret = 0;
	if (!v && !required)
		return NULL;
	if (!json_is_string(v) || (required && !*json_string_value(v))) {
		snprintf(err, errlen, "%s: '%s' must be a %sstring", label, key, required ? "non-empty " : "");
		*ret = -EINVAL;
		return NULL;
	}
	s = strdup(json_string_value(v));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		*ret = -ENOMEM;
	}
	return s;
}

/* Reads and applies one profile document. */
static int apply_doc(struct model_profile *prof, const json_t *root, const char *label, char *err, size_t errlen)
{
	const json_t *model = json_object_get(root, "model");
	const struct opt_spec *t;
	char sub[384];
	int ret;

	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: a profile must be a JSON object", label);
		return -EINVAL;
	}
	if (!json_is_string(model) || !(prof->engine = model_engine_find(json_string_value(model)))) {
		char names[128];
		size_t used = 0;

		names[0] = 0;
		for (size_t i = 0; model_engines[i] && used < sizeof(names); i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s\"%s\"",
						 !i ? "" : model_engines[i + 1] ? ", " : " or ", model_engines[i]->name);
		snprintf(err, errlen, "%s: 'model' must be %s", label, names);
		return -EINVAL;
	}
	t = prof->engine->opts;
	prof->source = dup_member(root, "source", true, label, err, errlen, &ret);
	if (ret)
		return ret;
	prof->description = dup_member(root, "description", false, label, err, errlen, &ret);
	if (ret)
		return ret;
	ret = opts__defaults(t, &prof->p, sub, sizeof(sub));
	if (!ret)
		ret = opts__apply_json(t, &prof->p, root, ignore_keys, sub, sizeof(sub));
	if (ret)
		snprintf(err, errlen, "%s: %s", label, sub);
	return ret;
}

static const struct model_embedded *find_embedded(const char *name)
{
	for (size_t i = 0; i < model_embedded_count; i++)
		if (!strcmp(model_embedded_profiles[i].name, name))
			return &model_embedded_profiles[i];
	return NULL;
}

static void known_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < model_embedded_count && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", model_embedded_profiles[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* "NAME[:k=v,...]" or "path.json[:k=v,...]": the ':' after the last '/' splits. */
static int split_spec(const char *spec, char *base, size_t blen, const char **overrides)
{
	const char *slash = strrchr(spec, '/');
	const char *colon = strchr(slash ? slash : spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	if (!n || n >= blen)
		return -EINVAL;
	memcpy(base, spec, n);
	base[n] = 0;
	*overrides = colon ? colon + 1 : "";
	return 0;
}

static bool is_path(const char *base)
{
	size_t n = strlen(base);

	return strchr(base, '/') || (n > 5 && !strcmp(base + n - 5, ".json"));
}

static json_t *load_doc(struct model_profile *prof, const char *base, char *label, size_t llen,
			char *err, size_t errlen)
{
	const struct model_embedded *e;
	json_error_t jerr;
	json_t *root;

	if (is_path(base)) {
		const char *slash = strrchr(base, '/');
		const char *nm = slash ? slash + 1 : base;
		size_t n = strlen(nm);
		FILE *f;

		if (n > 5 && !strcmp(nm + n - 5, ".json"))
			n -= 5;
		snprintf(prof->name, sizeof(prof->name), "%.*s", (int)n, nm);
		snprintf(prof->path, sizeof(prof->path), "%s", base);
		snprintf(label, llen, "%s", base);
		f = fopen(base, "r");
		if (!f) {	/* jansson would report it at line -1, column -1 */
			int e = errno;

			snprintf(err, errlen, "%s: %s", base, strerror(e));
			errno = e;
			return NULL;
		}
		root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
		fclose(f);
	} else {
		char names[512];

		e = find_embedded(base);
		if (!e) {
			known_names(names, sizeof(names));
			snprintf(err, errlen, "unknown profile '%s' (known: %s; or give a path to a .json file)",
				 base, names);
			errno = ENOENT;
			return NULL;
		}
		snprintf(prof->name, sizeof(prof->name), "%s", e->name);
		snprintf(label, llen, "models/profiles/%s.json", e->name);
		root = json_loads(e->json, JSON_REJECT_DUPLICATES, &jerr);
	}
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: %s", label, jerr.line, jerr.column, jerr.text);
		errno = EINVAL;
	}
	return root;
}

struct model_profile *model_profile__load(const char *spec, char *err, size_t errlen)
{
	struct model_profile *prof = NULL;
	const char *overrides;
	char base[256], label[300], sub[384];
	json_t *root = NULL;
	int ret = -EINVAL;

	if (!spec || split_spec(spec, base, sizeof(base), &overrides)) {
		snprintf(err, errlen, "profile: expected NAME or PATH.json[:key=value,...], got '%s'",
			 spec ? spec : "");
		goto out;
	}
	prof = calloc(1, sizeof(*prof));
	if (!prof) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	root = load_doc(prof, base, label, sizeof(label), err, errlen);
	if (!root) {
		ret = -errno;
		goto out;
	}
	ret = apply_doc(prof, root, label, err, errlen);
	if (ret)
		goto out;
	ret = opts__parse_kv(prof->engine->opts, &prof->p, overrides, ',',
			     sub, sizeof(sub));
	if (ret) {
		snprintf(err, errlen, "%s: override: %s", label, sub);
		goto out;
	}
	ret = check_params(prof, label, err, errlen);
out:
	json_decref(root);
	if (ret) {
		model_profile__free(prof);
		errno = -ret;
		return NULL;
	}
	return prof;
}

json_t *model_profile__describe(const struct model_profile *p)
{
	json_t *o = json_object();
	json_t *params = opts__to_json(p->engine->opts, &p->p);

	if (!o || !params) {
		json_decref(o);
		json_decref(params);
		return NULL;
	}
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "model", json_string(p->engine->name));
	json_object_set_new(o, "bundled", json_boolean(!p->path[0]));
	if (p->path[0])
		json_object_set_new(o, "path", json_string(p->path));
	if (p->description)
		json_object_set_new(o, "description", json_string(p->description));
	json_object_set_new(o, "source", json_string(p->source));
	json_object_set_new(o, "params", params);
	return o;
}
