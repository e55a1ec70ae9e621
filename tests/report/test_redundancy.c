// SPDX-License-Identifier: GPL-2.0
/* Redundancy analysis: unique vs total bytes per device and layer. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "replay/report/redundancy.h"

static struct ts_record rec(uint8_t kind, uint8_t op, uint32_t dev, uint64_t off, uint64_t len)
{
	return (struct ts_record){ .kind = kind, .op = op, .dev = dev, .offset = off, .length = len };
}

Test(redundancy, per_device_and_layer)
{
	struct redund *r = redund__new();
	struct redund_figures x;
	uint32_t a = TS_DEV_MK(7, 0), b = TS_DEV_MK(8, 16);

	cr_assert_not_null(r);
	/* device a: 3 FREEs of 4 KiB; discard ISSUEs cover the first 8 KiB three times (fstrim re-trims) */
	for (int i = 0; i < 3; i++)
		cr_assert_eq(redund__add(r, &(struct ts_record){ .kind = TS_FREE, .dev = a, .offset = i * 4096ull,
								 .length = 4096 }), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(redund__add(r, &(struct ts_record){ .kind = TS_ISSUE, .op = TS_OP_DISCARD, .dev = a,
								 .length = 8192 }), 0);
	/* writes and DONE records are not discards */
	struct ts_record w = rec(TS_ISSUE, TS_OP_WRITE, a, 0, 1 << 20), d = rec(TS_DONE, TS_OP_DISCARD, a, 0, 8192);

	cr_assert_eq(redund__add(r, &w), 0);
	cr_assert_eq(redund__add(r, &d), 0);
	/* device b: one BIO discard */
	struct ts_record bio = rec(TS_BIO, TS_OP_DISCARD, b, 1 << 20, 1 << 20);

	cr_assert_eq(redund__add(r, &bio), 0);
	cr_assert_eq(redund__ndevs(r), 2);
	cr_assert_eq(redund__dev(r, 0), a);
	redund__figures(r, 0, RL_ISSUE, &x);
	cr_assert_eq(x.records, 3);
	cr_assert_eq(x.total, 3 * 8192);
	cr_assert_eq(x.unique, 8192);
	cr_assert_eq(x.extents, 1);
	redund__figures(r, 0, RL_FREE, &x);
	cr_assert_eq(x.total, 3 * 4096);
	cr_assert_eq(x.unique, 3 * 4096);
	redund__figures(r, 1, RL_BIO, &x);
	cr_assert_eq(x.unique, 1 << 20);

	json_t *j = redund__json(r);
	json_t *issue = json_object_get(json_object_get(json_array_get(json_object_get(j, "devices"), 0), "layers"),
					"ISSUE");

	cr_assert_not_null(issue);
	cr_assert_eq(json_integer_value(json_object_get(issue, "overlap_bytes")), 2 * 8192);
	cr_assert_float_eq(json_real_value(json_object_get(issue, "redundancy")), 3.0, 1e-12);
	json_decref(j);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(redund__print(r, f), 0);
	fclose(f);
	cr_assert(strstr(buf, "device 7:0"), "%s", buf);
	cr_assert(strstr(buf, "      3x\n"), "%s", buf);
	free(buf);
	redund__destroy(r);
	redund__destroy(NULL);
}
