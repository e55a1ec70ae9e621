// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the device-profile loader. Input: profile JSON text, a NUL, then a
 * "key=value,..." override string (as after "model:PATH:"). A profile that
 * loads is then opened as a model target and serves a short fixed command
 * stream, so parameters the loader accepts are also safe for the engines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/model.h"
#include "traces/trace.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_mutate.h"

/*
 * JSON-aware mutation: one member of the profile object gets an edge value (an
 * integer, a size or duration string with a unit, a fraction, a negative, a
 * string where a number goes) or is dropped, or the override string gets
 * "key=value" for a key the profile has; the NUL between them stays.
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	static const char *const units[] = { "", "K", "M", "G", "T", "E", "ns", "us", "ms", "s", "w" };
	struct fm_rng r;
	const uint8_t *ov;
	size_t jlen, olen, n = 0, nkeys;
	json_t *o;
	const char *key = NULL, *k;
	json_t *v;
	char *js = NULL, val[64];

	fm_seed(&r, seed);
	fuzz_split(data, size, &jlen, &ov, &olen);
	o = json_loadb((const char *)data, jlen, 0, NULL);
	if (!json_is_object(o) || fm_below(&r, 8) == 0) {
		json_decref(o);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	nkeys = json_object_size(o);
	n = fm_below(&r, nkeys ? nkeys : 1);
	json_object_foreach(o, k, v)
		if (!n--) {
			key = k;
			break;
		}
	if (!key)
		key = "capacity";
	snprintf(val, sizeof(val), "%llu%s", (unsigned long long)(fm_edges[fm_below(&r, FM_NELEM(fm_edges))] >>
		 fm_below(&r, 4) * 10), units[fm_below(&r, FM_NELEM(units))]);
	switch (fm_below(&r, 6)) {
	case 0: json_object_set_new(o, key, json_string(val)); break;
	case 1: json_object_set_new(o, key, fm_json_u64(fm_edges[fm_below(&r, FM_NELEM(fm_edges))])); break;
	case 2: json_object_set_new(o, key, json_real(fm_below(&r, 2) ? -0.5 : 1e300)); break;
	case 3: json_object_del(o, key); break;
	default: {	/* the override string instead */
		char *nv = NULL;
		int len = asprintf(&nv, "%.*s%s%s=%s", (int)olen, (const char *)ov, olen ? "," : "", key, val);

		if (len > 0 && jlen + 1 + (size_t)len <= max_size) {
			data[jlen] = 0;
			memcpy(data + jlen + 1, nv, (size_t)len);
			n = jlen + 1 + (size_t)len;
		} else {
			n = 0;
		}
		free(nv);
		json_decref(o);
		return n ? n : LLVMFuzzerMutate(data, size, max_size);
	}
	}
	js = json_dumps(o, JSON_INDENT(1));
	json_decref(o);
	n = 0;
	if (js && strlen(js) + 1 + olen <= max_size) {
		uint8_t *tail = malloc(olen + 1);

		if (tail) {
			memcpy(tail, ov, olen);
			memcpy(data, js, strlen(js));
			data[strlen(js)] = 0;
			memcpy(data + strlen(js) + 1, tail, olen);
			n = strlen(js) + 1 + olen;
			free(tail);
		}
	}
	free(js);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

static void serve(const char *spec)
{
	static const struct { uint8_t op; uint64_t off, len; } cmds[] = {
		{ TS_OP_WRITE, 0, 1 << 20 },
		{ TS_OP_DISCARD, 4096, 13 << 10 },
		{ TS_OP_READ, 8192, 4096 },
		{ TS_OP_DISCARD, 0, 64 << 20 },
		{ TS_OP_FLUSH, 0, 0 },
		{ TS_OP_WRITE, 1 << 20, 128 << 10 },
		{ TS_OP_DISCARD, 3 << 20, 1 << 20 },
	};
	struct target_env env = { .seed = 1, .device_size = 1ull << 30, .trace_extent = 64 << 20 };
	const struct target_ops *ops = &model_target_ops;
	struct target_done done;
	char err[512];
	void *priv = NULL;
	uint64_t t = 0;

	if (ops->open(spec, &env, &priv, err, sizeof(err)))
		return;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct target_cmd c = { .tag = i + 1, .submit_ns = t, .offset = cmds[i].off, .length = cmds[i].len,
					.op = cmds[i].op,
					.klass = cmds[i].op == TS_OP_DISCARD ? TC_DISCARD : TC_FOREGROUND };

		while (ops->inflight(priv) >= ops->max_inflight(priv)) {
			uint64_t d = ops->next_done(priv);

			if (d == UINT64_MAX || ops->reap(priv, d, &done) != 1)
				goto out;
			if (d > t)
				t = d;
		}
		if (ops->submit(priv, &c))
			break;
		t += 1000;
	}
	while (ops->next_done(priv) != UINT64_MAX && ops->reap(priv, ops->next_done(priv), &done) == 1)
		;
out:
	ops->close(priv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512], *spec;
	struct model_profile *p;
	const uint8_t *ov;
	size_t jlen, olen;
	int fd;

	fuzz_split(data, size, &jlen, &ov, &olen);
	fd = fuzz_memfile(NULL, 0, data, jlen, path, sizeof(path));
	if (fd < 0)
		return 0;
	spec = malloc(sizeof(path) + 1 + olen + 1);
	if (!spec)
		goto out;
	/* The override string ends at its first NUL, as a C string from argv would. */
	snprintf(spec, sizeof(path) + 1 + olen + 1, "%s%s%.*s", path, olen ? ":" : "", (int)olen, (const char *)ov);
	p = model_profile__load(spec, err, sizeof(err));
	if (p) {
		json_decref(model_profile__describe(p));
		model_profile__free(p);
		serve(spec);
	}
	free(spec);
out:
	close(fd);
	return 0;
}
