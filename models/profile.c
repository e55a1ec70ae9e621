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

#define P(f) offsetof(struct model_params, f)
#define TIB (1099511627776.0)
#define PIB (1125899906842624.0)

static const char *const gc_choices[] = { "greedy", "cost-benefit", NULL };

#define COMMON_OPTS \
	{ "capacity", OPT_BYTES, P(capacity), 1048576, PIB, "120G", \
	  "device size used when the trace header gives none" }, \
	{ "qd", OPT_U32, P(qd), 1, 65535, "32", "queue depth: commands the engine may keep in flight" }, \
	{ "channels", OPT_U32, P(channels), 1, 1024, "1", "commands the device serves at the same time" }, \
	{ "queued_trim", OPT_BOOL, P(queued_trim), 0, 0, "false", \
	  "TRIM is queued (NCQ TRIM, NVMe deallocate); false: it drains the queue and blocks all I/O" }, \
	{ "discard_supported", OPT_BOOL, P(discard_supported), 0, 0, "true", \
	  "false: discards are rejected with EOPNOTSUPP (counted in the report)" }, \
	{ "discard_max_bytes", OPT_BYTES, P(discard_max_bytes), 512, PIB, "2G", \
	  "largest discard command; larger requests are split (queue/discard_max_bytes)" }, \
	{ "max_discard_segments", OPT_U32, P(max_discard_segments), 1, 65535, "1", \
	  "ranges one discard command may carry (queue/max_discard_segments)" }, \
	{ "discard_granularity", OPT_BYTES, P(discard_granularity), 512, 1073741824, "512", \
	  "unit the device unmaps; smaller pieces cost a command and free nothing" }, \
	{ "jitter", OPT_DOUBLE, P(jitter), 0, 0.9, "0", "service time x (1 +/- jitter), seeded" }, \
	{ "read_base", OPT_DURATION, P(read_base), 0, 10e9, "100us", "fixed cost of a read" }, \
	{ "write_base", OPT_DURATION, P(write_base), 0, 10e9, "50us", "fixed cost of a write" }, \
	{ "flush_base", OPT_DURATION, P(flush_base), 0, 10e9, "1ms", "cost of a cache flush" }, \
	{ "trim_base", OPT_DURATION, P(trim_base), 0, 10e9, "100us", \
	  "fixed cost of a discard command that unmaps something" }, \
	{ "trim_per_range", OPT_DURATION, P(trim_per_range), 0, 10e9, "0", \
	  "extra cost per range after the first in a multi-range discard" }, \
	{ "trim_unmapped_base", OPT_DURATION, P(trim_unmapped_base), 0, 10e9, "50us", \
	  "fixed cost of a discard that unmaps nothing (already unmapped or sub-granularity)" }, \
	{ "trim_bw", OPT_BYTES, P(trim_bw), 0, PIB, "0", \
	  "mapped bytes unmapped per second; 0 = no per-byte cost" }

static const struct opt_spec param_opts[] = {
	COMMON_OPTS,
	{ "read_bw", OPT_BYTES, P(read_bw), 1024, TIB, "500M", "read bytes per second" },
	{ "write_bw", OPT_BYTES, P(write_bw), 1024, TIB, "250M", "write bytes per second" },
	{ "trim_unmapped_bw", OPT_BYTES, P(trim_unmapped_bw), 0, PIB, "0",
	  "already-unmapped bytes per second; 0 = no per-byte cost" },
	{ "initially_mapped", OPT_BOOL, P(initially_mapped), 0, 0, "true",
	  "the device starts fully mapped (a used device); false: factory fresh" },
	{ 0 },
};

static const struct opt_spec ftl_opts[] = {
	COMMON_OPTS,
	{ "page_size", OPT_BYTES, P(page_size), 512, 65536, "4K", "mapping unit (flash page)" },
	{ "block_size", OPT_BYTES, P(block_size), 4096, 1073741824, "1M", "erase block" },
	{ "op", OPT_DOUBLE, P(op), 0.01, 4, "0.07", "over-provisioning: spare / user capacity" },
	{ "gc_policy", OPT_ENUM, P(gc_policy), 0, 0, "greedy", "victim selection", gc_choices },
	{ "gc_low", OPT_DOUBLE, P(gc_low), 0, 0.5, "0.02", "start GC when free blocks fall below this share" },
	{ "gc_high", OPT_DOUBLE, P(gc_high), 0, 0.5, "0.04", "GC until free blocks reach this share" },
	{ "page_read", OPT_DURATION, P(page_read), 0, 1e9, "10us", "effective read time per page" },
	{ "page_write", OPT_DURATION, P(page_write), 0, 1e9, "15us", "effective program time per page" },
	{ "block_erase", OPT_DURATION, P(block_erase), 0, 1e9, "1ms", "effective erase time per block" },
	{ "prefill", OPT_DOUBLE, P(prefill), 0, 1, "0", "share of user space written sequentially before time 0" },
	{ "gc_idle", OPT_BOOL, P(gc_idle), 0, 0, "false",
	  "collect in idle gaps (up to gc_high) without delaying commands" },
	{ 0 },
};

static const char *const engine_names[] = { "parametric", "ftl", NULL };
static const char *const ignore_keys[] = { "name", "model", "source", "description", NULL };

const struct opt_spec *model_profile__opts(const char *engine)
{
	if (!strcmp(engine, "parametric"))
		return param_opts;
	if (!strcmp(engine, "ftl"))
		return ftl_opts;
	return NULL;
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
const char *model_profile__engine(const struct model_profile *p) { return engine_names[p->engine]; }

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Relations a single option range cannot express. */
static int check_params(const struct model_profile *prof, const char *label, char *err, size_t errlen)
{
	const struct model_params *p = &prof->p;

	if (!is_pow2(p->discard_granularity))
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
	if (prof->engine != ENGINE_FTL)
		return 0;
	if (!is_pow2(p->page_size)) {
		snprintf(err, errlen, "%s: option 'page_size': %llu must be a power of two in [512, 65536]",
			 label, (unsigned long long)p->page_size);
		return -ERANGE;
	}
	if (p->block_size % p->page_size || p->block_size / p->page_size < 2 ||
	    p->block_size / p->page_size > 65536) {
		snprintf(err, errlen, "%s: option 'block_size': %llu must be 2..65536 pages of page_size (%llu)",
			 label, (unsigned long long)p->block_size, (unsigned long long)p->page_size);
		return -ERANGE;
	}
	if ((double)p->capacity / (double)p->page_size * (1.0 + p->op) > 4.0e9) {
		snprintf(err, errlen, "%s: option 'capacity': %llu needs more than 4e9 pages of %llu bytes "
			 "(raise page_size)", label, (unsigned long long)p->capacity,
			 (unsigned long long)p->page_size);
		return -ERANGE;
	}
	if (p->gc_high <= p->gc_low) {
		snprintf(err, errlen, "%s: option 'gc_high': %g must be greater than gc_low (%g)",
			 label, p->gc_high, p->gc_low);
		return -ERANGE;
	}
	return 0;
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
	if (!json_is_string(model) || !model_profile__opts(json_string_value(model))) {
		snprintf(err, errlen, "%s: 'model' must be \"parametric\" or \"ftl\"", label);
		return -EINVAL;
	}
	prof->engine = strcmp(json_string_value(model), "ftl") ? ENGINE_PARAMETRIC : ENGINE_FTL;
	t = model_profile__opts(json_string_value(model));
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
	ret = opts__parse_kv(prof->engine == ENGINE_FTL ? ftl_opts : param_opts, &prof->p, overrides, ',',
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
	json_t *params = opts__to_json(p->engine == ENGINE_FTL ? ftl_opts : param_opts, &p->p);

	if (!o || !params) {
		json_decref(o);
		json_decref(params);
		return NULL;
	}
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "model", json_string(engine_names[p->engine]));
	json_object_set_new(o, "bundled", json_boolean(!p->path[0]));
	if (p->path[0])
		json_object_set_new(o, "path", json_string(p->path));
	if (p->description)
		json_object_set_new(o, "description", json_string(p->description));
	json_object_set_new(o, "source", json_string(p->source));
	json_object_set_new(o, "params", params);
	return o;
}
