// SPDX-License-Identifier: GPL-2.0
/* Result JSON and summary table (result.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/result.h"
#include "traces/figure.h"
#include "traces/output.h"
#include "traces/util.h"

json_t *result__build(const struct engine *e, const struct trace_reader *r, const char *trace_path,
		      const char *target_name)
{
	json_t *res = engine__result(e), *tr = json_object();
	const struct trace_status *st = trace_reader__status(r);
	char dev[32];

	if (!res || !tr) {
		json_decref(res);
		json_decref(tr);
		return NULL;
	}
	(void)target_name;
	json_object_set_new(res, "schema", json_string(RESULT_SCHEMA));
	json_object_set_new(tr, "path", json_string(trace_path));
	json_object_set_new(tr, "records", json_integer((json_int_t)st->records));
	json_object_set_new(tr, "lost", json_integer((json_int_t)st->lost));
	json_object_set_new(tr, "truncated", json_boolean(st->truncated));
	json_object_set_new(tr, "jsonl", json_boolean(st->jsonl));
	json_object_set_new(tr, "device", json_string(ts_dev_str(engine__devno(e), dev, sizeof(dev))));
	json_object_set_new(res, "trace", tr);
	return res;
}

struct output *result__open(const char *path, char *err, size_t errlen)
{
	if (output__check_ext("-o", path, RESULT_EXT, "the result is JSON", err, errlen)) {
		errno = EINVAL;
		return NULL;
	}
	return output__open(path, OUTPUT_ATOMIC, err, errlen);
}

int result__write(const json_t *res, struct output *o, char *err, size_t errlen)
{
	FILE *f = output__file(o);

	if (!f || ((json_dumpf(res, f, JSON_SORT_KEYS | JSON_INDENT(2)) || fputc('\n', f) == EOF) &&
		   !output__error(o))) {	/* not a write error (commit names those, with their errno) */
		ts_errf(err, errlen, -ENOMEM, "%s: cannot serialise the result", output__path(o));
		output__abort(o);
		return -ENOMEM;
	}
	return output__commit(o, err, errlen);
}

static uint64_t u(const json_t *o, const char *path)
{
	char buf[128], *save = NULL, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return o ? (uint64_t)json_integer_value(o) : 0;
}

static double d(const json_t *o, const char *path)
{
	char buf[128], *save = NULL, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return o ? json_number_value(o) : 0;
}

static const char *s(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(o, a), b);

	return json_is_string(v) ? json_string_value(v) : "";
}

/* "  18 failed: EOPNOTSUPP 18" from a section's errors and errors_by_errno (RESULT.md); nothing if none. */
static void print_failed(FILE *f, const char *indent, const json_t *sec)
{
	const json_t *by = json_object_get(sec, "errors_by_errno"), *n;
	const char *name, *sep = ": ";

	if (!json_integer_value(json_object_get(sec, "errors")))
		return;
	fprintf(f, "%s%" PRIu64 " failed", indent, (uint64_t)json_integer_value(json_object_get(sec, "errors")));
	json_object_foreach((json_t *)by, name, n) {
		fprintf(f, "%s%s %" PRIu64, sep, name, (uint64_t)json_integer_value(n));
		sep = ", ";
	}
	fprintf(f, "\n");
}

/*
 * What the workload waited per op, from the time the trace issued each command (queueing
 * for room included): the latency table above starts at the device's submit, so a device
 * that falls behind the trace shows there only as the makespan.
 */
static void print_waited(FILE *f, const json_t *lat)
{
	const char *op, *sep = "";
	const json_t *h;
	char a[32], b[32];

	if (!json_object_size(lat))
		return;
	fprintf(f, "           from the trace's issue time:");
	json_object_foreach((json_t *)lat, op, h) {
		fprintf(f, "%s %s p50 %s, p99 %s", sep, op, fmt_duration(u(h, "p50_ns"), a, sizeof(a)),
			fmt_duration(u(h, "p99_ns"), b, sizeof(b)));
		sep = ";";
	}
	fprintf(f, "\n");
}

/* A figure of the discards, or "-" when there are none to have it (the JSON keeps its 0). */
static double of_discards(const json_t *res, const char *path, bool any)
{
	return any ? d(res, path) : NAN;
}

/* A free-to-discard duration, "-" when no discard was sent. */
static char *free_delay(const json_t *res, const char *key, bool any, char *buf, size_t len)
{
	char path[64];

	if (!any)
		return fig_format(FIG_NS, NAN, buf, len);
	snprintf(path, sizeof(path), "discard.free_to_discard.%s", key);
	return fmt_duration(u(res, path), buf, len);
}

void result__print(const json_t *res, FILE *f)
{
	const json_t *lat = json_object_get(res, "latency"), *h;
	const char *op;
	char b1[32], b2[32], b3[32], b4[32];
	bool any = u(res, "discard.commands") > 0;

	fprintf(f, "trace      %s (device %s, %" PRIu64 " records, span %s)%s\n", s(res, "trace", "path"),
		s(res, "trace", "device"), u(res, "trace.records"),
		fmt_duration(u(res, "records.span_ns"), b1, sizeof(b1)),
		json_is_true(json_object_get(json_object_get(res, "trace"), "truncated")) ?
		" truncated: cut short before its footer" : "");
	fprintf(f, "policy     %s\n", s(res, "policy", "pipeline"));
	fprintf(f, "target     %s%s%s  (seed %" PRIu64 ", timing %s", s(res, "target", "name"),
		s(res, "target", "spec")[0] ? ":" : "", s(res, "target", "spec"), u(res, "seed"),
		s(res, "timing", "mode"));
	if (!strcmp(s(res, "timing", "mode"), "trace") && d(res, "timing.speed") != 1.0)
		fprintf(f, " x%g", d(res, "timing.speed"));
	fprintf(f, ")\n\n");
	fprintf(f, "discard    %" PRIu64 " commands for %" PRIu64 " requests, %s (unique %s, redundancy %s)\n",
		u(res, "discard.commands"), u(res, "discard.requests"),
		fmt_bytes(u(res, "discard.bytes"), b1, sizeof(b1)),
		fmt_bytes(u(res, "discard.unique_bytes"), b2, sizeof(b2)),
		fig_format(FIG_RATIO, of_discards(res, "discard.redundancy", u(res, "discard.unique_bytes") > 0), b3,
			   sizeof(b3)));
	fprintf(f, "           mean %s per command, peak %s and %s, busy %s\n",
		fig_format(FIG_BYTES, of_discards(res, "discard.mean_bytes", any), b1, sizeof(b1)),
		fig_format(FIG_RATE, (double)u(res, "discard.peak_commands_per_s"), b4, sizeof(b4)),
		fig_format(FIG_BYTE_RATE, (double)u(res, "discard.peak_bytes_per_s"), b2, sizeof(b2)),
		fmt_duration(u(res, "discard.busy_ns"), b3, sizeof(b3)));
	fprintf(f, "           free to discard p50 %s, p99 %s, max %s\n", free_delay(res, "p50_ns", any, b1, sizeof(b1)),
		free_delay(res, "p99_ns", any, b2, sizeof(b2)), free_delay(res, "max_ns", any, b3, sizeof(b3)));
	print_failed(f, "           ", json_object_get(res, "discard"));	/* failed ones have no latency row */
	fprintf(f, "\n%-12s %10s %12s %12s %12s %12s\n", "latency", "count", "p50", "p99", "p99.9", "max");
	json_object_foreach((json_t *)lat, op, h) {
		fprintf(f, "%-12s %10" PRIu64 " %12s %12s %12s %12s\n", op, u(h, "count"),
			fmt_duration(u(h, "p50_ns"), b1, sizeof(b1)), fmt_duration(u(h, "p99_ns"), b2, sizeof(b2)),
			fmt_duration(u(h, "p999_ns"), b3, sizeof(b3)), fmt_duration(u(h, "max_ns"), b4, sizeof(b4)));
	}
	if (u(res, "foreground.commands")) {
		fprintf(f, "\nforeground %" PRIu64 " commands", u(res, "foreground.commands"));
		if (u(res, "foreground.baseline_pairs"))
			fprintf(f, ": stall %s over %" PRIu64 " commands, latency %s of the discard-free run\n",
				fmt_duration(u(res, "foreground.stall_ns"), b1, sizeof(b1)),
				u(res, "foreground.stalled_commands"),
				fig_format(FIG_RATIO, d(res, "foreground.latency_inflation"), b2, sizeof(b2)));
		else if (!strcmp(s(res, "policy", "source"), "none"))
			fprintf(f, " (this run is the discard-free baseline)\n");
		else
			fprintf(f, " (no discard-free baseline: real target or --no-baseline)\n");
		print_waited(f, json_object_get(json_object_get(res, "foreground"), "latency"));
		print_failed(f, "           ", json_object_get(res, "foreground"));
	}
	fprintf(f, "\ndevice     busy %s (%s)", fmt_duration(u(res, "device.busy_ns"), b1, sizeof(b1)),
		fig_format(FIG_SHARE, d(res, "device.utilization"), b2, sizeof(b2)));
	if (json_object_get(json_object_get(res, "device"), "write_amplification"))
		fprintf(f, ", write amplification %s",
			fig_format(FIG_RATIO, d(res, "device.write_amplification"), b1, sizeof(b1)));
	fprintf(f, "\n");
	fprintf(f, "makespan   %s (trace span %s)\n", fmt_duration(u(res, "makespan_ns"), b1, sizeof(b1)),
		fmt_duration(u(res, "records.span_ns"), b2, sizeof(b2)));
}
