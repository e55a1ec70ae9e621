// SPDX-License-Identifier: GPL-2.0
/*
 * Model throughput benchmark: events/s through the target ops, as the replay
 * engine drives them (queue depth from the profile, reap as commands finish).
 * Usage: model_bench [EVENTS] [SPEC...]   Prints one line per spec.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "models/model.h"
#include "traces/trace.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench(const char *spec, uint64_t events, uint64_t span)
{
	const struct target_ops *ops = &model_target_ops;
	struct target_env env = { .seed = 1 };
	struct target_done done;
	uint64_t s = 88172645463325252ull, t = 0;
	char err[512];
	void *priv;
	double t0, el;
	json_t *rep;

	if (ops->open(spec, &env, &priv, err, sizeof(err))) {
		fprintf(stderr, "model_bench: %s\n", err);
		return 1;
	}
	t0 = now_s();
	for (uint64_t i = 0; i < events; i++) {
		struct target_cmd c = { .tag = i };

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		c.op = s % 4 ? TS_OP_WRITE : TS_OP_DISCARD;
		c.offset = (s >> 8) % (span / 4096) * 4096;
		c.length = 4096;
		while (ops->inflight(priv) >= ops->max_inflight(priv)) {
			ops->reap(priv, ops->next_done(priv), &done);
			if (done.done_ns > t)
				t = done.done_ns;
		}
		c.submit_ns = t;
		if (ops->submit(priv, &c)) {
			fprintf(stderr, "model_bench: submit failed\n");
			ops->close(priv);
			return 1;
		}
	}
	while (ops->reap(priv, UINT64_MAX, &done) == 1)
		;
	el = now_s() - t0;
	rep = json_object();
	ops->report(priv, rep);
	printf("%-40s %6.2f M events/s (%llu events in %.2f s)", spec, (double)events / el / 1e6,
	       (unsigned long long)events, el);
	if (json_is_number(json_object_get(rep, "write_amplification")))
		printf(", write amplification %.3f", json_number_value(json_object_get(rep, "write_amplification")));
	putchar('\n');
	json_decref(rep);
	ops->close(priv);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const def[] = { "ftl-sata:capacity=16G,prefill=0.9", "sata-sf2281", "nvme" };
	uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 0) : 4000000;
	int ret = 0;

	if (argc > 2) {
		for (int i = 2; i < argc; i++)
			ret |= bench(argv[i], events, 14ull << 30);
	} else {
		for (int i = 0; i < 3; i++)
			ret |= bench(def[i], events, 14ull << 30);
	}
	return ret;
}
