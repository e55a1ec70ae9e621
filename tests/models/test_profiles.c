// SPDX-License-Identifier: GPL-2.0
/* Profiles: bundled ones load, bad ones name the file, key and range; determinism; the CLI. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/common/helpers.h"
#include "tests/models/drive.h"
#include "models/model_int.h"

static const char *const bundled[] = { "emmc", "ftl-sata", "hdd-nodiscard", "nvme-ftl", "nvme", "sata-good",
				       "sata-sf2281", "sdcard", "thin-cloud" };

TestSuite(profiles, .init = th_dir_init, .fini = th_dir_fini);

Test(profiles, bundled_load_and_describe)
{
	char err[512];

	cr_assert_eq(model_profile__count(), sizeof(bundled) / sizeof(bundled[0]));
	for (size_t i = 0; i < model_profile__count(); i++) {
		struct model_profile *p;
		json_t *o;

		cr_assert_str_eq(model_profile__name_at(i), bundled[i]);
		p = model_profile__load(bundled[i], err, sizeof(err));
		cr_assert_not_null(p, "%s: %s", bundled[i], err);
		cr_assert_gt(strlen(model_profile__source(p)), 100, "%s: source too short", bundled[i]);
		o = model_profile__describe(p);
		cr_assert_not_null(o);
		cr_assert_str_eq(json_string_value(json_object_get(o, "name")), bundled[i]);
		cr_assert(json_is_object(json_object_get(o, "params")));
		json_decref(o);
		model_profile__free(p);
	}
	cr_assert_null(model_profile__name_at(99));
	model_profile__free(NULL);
}

/* Every bundled profile opens as a target with the engine's defaults and serves commands. */
Test(profiles, bundled_open_and_serve)
{
	for (size_t i = 0; i < sizeof(bundled) / sizeof(bundled[0]); i++) {
		struct target_done w, t;
		struct drv d;
		json_t *rep;

		drv_open(&d, bundled[i], 1);
		w = drv_serial(&d, TS_OP_WRITE, 1 << 30, 1 << 20);
		t = drv_serial(&d, TS_OP_DISCARD, 1 << 30, 1 << 20);
		cr_assert_eq(w.error, 0, "%s", bundled[i]);
		cr_assert_gt(w.done_ns, w.start_ns, "%s", bundled[i]);
		cr_assert(t.error == 0 || (t.error == -EOPNOTSUPP && !strcmp(bundled[i], "hdd-nodiscard")),
			  "%s: %d", bundled[i], t.error);
		rep = drv_report(&d);
		cr_assert_str_eq(json_string_value(json_object_get(rep, "profile")), bundled[i]);
		cr_assert(json_is_string(json_object_get(rep, "source")));
		cr_assert_eq(jnum(rep, "discard_bytes_freed"), t.error ? 0 : (double)t.freed);
		json_decref(rep);
		drv_close(&d);
	}
}

Test(profiles, overrides_apply)
{
	char err[512];
	struct model_profile *p = model_profile__load("sata-sf2281:trim_base=5ms,qd=1,queued_trim=yes", err,
						       sizeof(err));
	json_t *o, *params;

	cr_assert_not_null(p, "%s", err);
	o = model_profile__describe(p);
	params = json_object_get(o, "params");
	cr_assert_float_eq(json_number_value(json_object_get(params, "trim_base")), 0.005, 1e-12);
	cr_assert_eq(json_integer_value(json_object_get(params, "qd")), 1);
	cr_assert(json_is_true(json_object_get(params, "queued_trim")));
	json_decref(o);
	model_profile__free(p);
}

struct bad_case {
	char json[256];		/* file content; "" = use spec as is */
	char spec[96];		/* after the file path, or a whole spec */
	char want[3][64];	/* substrings the message must hold */
};

#define P "{\"model\":\"parametric\",\"source\":\"test\","
#define F "{\"model\":\"ftl\",\"source\":\"test\","

ParameterizedTestParameters(profiles, bad)
{
	static struct bad_case cases[] = {
		{ .json = P "\"trim_base\":\"20s\"}",
		  .want = { "bad.json", "'trim_base'", "out of range [0, 10000000000]" } },
		{ .json = P "\"qd\":0}", .want = { "bad.json", "'qd'", "[1, 65535]" } },
		{ .json = P "\"qd\":\"many\"}", .want = { "bad.json", "'qd'", "not a valid integer" } },
		{ .json = P "\"jitter\":2}", .want = { "bad.json", "'jitter'", "[0, 0.9" } },
		{ .json = P "\"discard_granularity\":1000}",
		  .want = { "bad.json", "'discard_granularity'", "power of two" } },
		{ .json = P "\"channels\":64,\"qd\":8}", .want = { "bad.json", "'channels'", "<= qd" } },
		{ .json = P "\"trim_bass\":1}", .want = { "bad.json", "unknown option 'trim_bass'", "trim_base" } },
		{ .json = P "\"page_size\":4096}", .want = { "bad.json", "unknown option 'page_size'", "" } },
		{ .json = "{\"model\":\"magic\",\"source\":\"x\"}", .want = { "bad.json", "'model'", "parametric" } },
		{ .json = "{\"model\":\"parametric\"}", .want = { "bad.json", "'source'", "non-empty string" } },
		{ .json = "{\"model\":\"parametric\",\"source\":\"\"}", .want = { "bad.json", "'source'", "" } },
		{ .json = "{\"model\": \"parametric\",\n  \"source\": }", .want = { "bad.json:2:", "", "" } },
		{ .json = "[1, 2]", .want = { "bad.json", "JSON object", "" } },
		{ .json = F "\"gc_low\":0.2,\"gc_high\":0.1}", .want = { "bad.json", "'gc_high'", "gc_low" } },
		{ .json = F "\"block_size\":\"5000\"}", .want = { "bad.json", "'block_size'", "page_size" } },
		{ .json = F "\"page_size\":\"3K\"}", .want = { "bad.json", "'page_size'", "power of two" } },
		{ .json = F "\"op\":0}", .want = { "bad.json", "'op'", "[0.01, 4]" } },
		{ .json = F "\"gc_policy\":\"lru\"}", .want = { "bad.json", "'gc_policy'", "greedy, cost-benefit" } },
		{ .json = P "\"qd\":4}", .spec = ":trim_base=20s", .want = { "bad.json", "override", "'trim_base'" } },
		{ .spec = "sata-sf2281:trim_base=20s",
		  .want = { "models/profiles/sata-sf2281.json", "override", "out of range" } },
		{ .spec = "sata-sf2281:bogus=1",
		  .want = { "sata-sf2281.json", "unknown option 'bogus'", "trim_base" } },
		{ .spec = "sata-sf2281:qd", .want = { "sata-sf2281.json", "'qd'", "key=value" } },
		{ .spec = "ftl-sata:read_bw=1G", .want = { "ftl-sata.json", "unknown option 'read_bw'", "" } },
		{ .spec = "nosuch", .want = { "unknown profile 'nosuch'", "sata-sf2281", "" } },
		{ .spec = "/nonexistent/x.json", .want = { "/nonexistent/x.json", "", "" } },
	};

	return cr_make_param_array(struct bad_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, profiles, bad)
{
	char err[512] = "", spec[512], path[300];
	struct model_profile *p;
	struct target_env env = { .seed = 1 };
	void *priv = NULL;

	if (c->json[0]) {
		snprintf(path, sizeof(path), "%s/bad.json", th_dir());
		cr_assert_eq(th_write(path, c->json, strlen(c->json)), 0);
		snprintf(spec, sizeof(spec), "%s%s", path, c->spec);
	} else {
		snprintf(spec, sizeof(spec), "%s", c->spec);
	}
	p = model_profile__load(spec, err, sizeof(err));
	cr_assert_null(p, "%s loaded", spec);
	cr_assert_neq(errno, 0);
	cr_assert_null(strchr(err, '\n'), "one line: %s", err);
	for (int i = 0; i < 3; i++)
		cr_assert(strstr(err, c->want[i]), "message '%s' lacks '%s'", err, c->want[i]);
	/* The target reports the same error and leaves nothing open. */
	err[0] = 0;
	cr_assert_lt(model_target_ops.open(spec, &env, &priv, err, sizeof(err)), 0);
	cr_assert(strstr(err, c->want[0]), "target open: %s", err);
}

/* A profile on disk, by path, with overrides; a path profile is named after its file. */
/* The engine registry: each engine is one row of model_engines[], found by the name a profile's "model" gives. */
Test(profiles, engine_registry)
{
	static const char doc[] = "{\"model\":\"ssd\",\"source\":\"unit test\"}";
	char err[512], path[300];
	size_t n = 0;

	for (; model_engines[n]; n++) {
		const struct model_engine_ops *e = model_engines[n];

		cr_assert(e->name && e->help && e->opts && e->open && e->submit && e->sched && e->report && e->close,
			  "engine %zu incomplete", n);
		cr_assert_eq(model_engine_find(e->name), e);
		cr_assert_eq(model_profile__opts(e->name), e->opts);
		cr_assert_str_eq(e->opts[0].key, "capacity", "%s: the common options come first", e->name);
	}
	cr_assert_eq(n, 2);
	cr_assert_null(model_engine_find("ssd"));
	snprintf(path, sizeof(path), "%s/bad-model.json", th_dir());
	cr_assert_eq(th_write(path, doc, strlen(doc)), 0);
	cr_assert_null(model_profile__load(path, err, sizeof(err)));
	cr_assert(strstr(err, "'model' must be \"parametric\" or \"ftl\""), "%s", err);
}

Test(profiles, load_by_path)
{
	static const char doc[] = "{\"model\":\"parametric\",\"source\":\"unit test\",\"trim_base\":\"2ms\"}";
	char err[512], path[300], spec[320];
	struct model_profile *p;
	json_t *o;

	snprintf(path, sizeof(path), "%s/my-ssd.json", th_dir());
	cr_assert_eq(th_write(path, doc, strlen(doc)), 0);
	snprintf(spec, sizeof(spec), "%s:qd=2", path);
	p = model_profile__load(spec, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_str_eq(model_profile__name(p), "my-ssd");
	o = model_profile__describe(p);
	cr_assert_float_eq(json_number_value(json_object_get(json_object_get(o, "params"), "trim_base")), 0.002,
			   1e-12);
	cr_assert_str_eq(json_string_value(json_object_get(o, "path")), path);
	json_decref(o);
	model_profile__free(p);
}

/* Same profile, seed and commands: identical completions and byte-identical report JSON. */
static char *run(const char *spec, uint64_t seed, uint64_t *digest)
{
	struct target_env env = { .seed = seed, .qd = 8 };
	struct target_done done;
	struct drv d;
	uint64_t s = 99, t = 0;
	json_t *rep;
	char *out;

	drv_open_env(&d, spec, &env);
	*digest = 0;
	for (int i = 0; i < 20000; i++) {
		uint64_t r = s = s * 6364136223846793005ull + 1442695040888963407ull;
		uint8_t op = r >> 60 < 4 ? TS_OP_DISCARD : r >> 60 < 12 ? TS_OP_WRITE : TS_OP_READ;

		t += (r >> 40) % 200000;
		while (d.ops->inflight(d.priv) >= d.ops->max_inflight(d.priv)) {
			cr_assert_eq(d.ops->reap(d.priv, d.ops->next_done(d.priv), &done), 1);
			*digest = *digest * 1099511628211ull ^ done.tag ^ done.start_ns ^ (done.done_ns << 7) ^
				  done.freed;
			if (done.done_ns > t)
				t = done.done_ns;
		}
		drv_submit(&d, t, op, (r >> 20) % (100ull << 20) / 4096 * 4096, 4096 * (1 + (r >> 8) % 64), NULL,
			   0);
	}
	while (d.ops->reap(d.priv, UINT64_MAX, &done) == 1)
		*digest = *digest * 1099511628211ull ^ done.tag ^ done.start_ns ^ (done.done_ns << 7) ^ done.freed;
	rep = drv_report(&d);
	out = json_dumps(rep, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(rep);
	drv_close(&d);
	return out;
}

struct det_case {
	char spec[96];
};

ParameterizedTestParameters(profiles, deterministic)
{
	static struct det_case cases[] = {
		{ .spec = "sata-sf2281" }, { .spec = "nvme" }, { .spec = "thin-cloud" },
		{ .spec = "ftl-sata:capacity=128M,block_size=256K,jitter=0.1,prefill=0.9" },
		{ .spec = "ftl-sata:capacity=128M,block_size=256K,gc_policy=cost-benefit,jitter=0.1" },
	};

	return cr_make_param_array(struct det_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct det_case *c, profiles, deterministic)
{
	uint64_t d1, d2, d3;
	char *a = run(c->spec, 5, &d1), *b = run(c->spec, 5, &d2), *x = run(c->spec, 6, &d3);

	cr_assert_eq(d1, d2, "%s: completions differ between identical runs", c->spec);
	cr_assert_str_eq(a, b, "%s: report JSON differs between identical runs", c->spec);
	cr_assert_neq(d1, d3, "%s: the seed changes nothing", c->spec);
	free(a);
	free(b);
	free(x);
}

Test(profiles, cli_lists_profiles)
{
	char cmd[1024], *out = NULL, *err = NULL;
	json_t *arr;

	snprintf(cmd, sizeof(cmd), "cd / && %s models", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s", err);
	for (size_t i = 0; i < sizeof(bundled) / sizeof(bundled[0]); i++)
		cr_assert(strstr(out, bundled[i]), "%s missing", bundled[i]);
	cr_assert(strstr(out, "source: Seed 001"));
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "cd / && %s models --json", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s", err);
	arr = json_loads(out, 0, NULL);
	cr_assert(json_is_array(arr));
	cr_assert_eq(json_array_size(arr), sizeof(bundled) / sizeof(bundled[0]));
	json_decref(arr);
	free(out);
	free(err);
}

Test(profiles, cli_one_profile_help_and_errors)
{
	char cmd[1024], *out = NULL, *err = NULL;
	json_t *o;

	snprintf(cmd, sizeof(cmd), "%s models --json sata-sf2281:trim_base=5ms", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s", err);
	o = json_loads(out, 0, NULL);
	cr_assert_float_eq(json_number_value(json_object_get(json_object_get(o, "params"), "trim_base")), 0.005,
			   1e-12);
	json_decref(o);
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s models --help", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, &err), 0);
	cr_assert(strstr(out, "example:") && strstr(out, "gc_policy"));
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s models sata-sf2281:qd=0", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, &err), 2);	/* a profile that does not load: usage, as in replay */
	cr_assert_eq(th_lines(err), 1, "%s", err);
	cr_assert(strstr(err, "'qd'") && strstr(err, "[1, 65535]"), "%s", err);
	free(out);
	free(err);
}
