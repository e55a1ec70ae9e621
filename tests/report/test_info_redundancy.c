// SPDX-License-Identifier: GPL-2.0
/* trimsim info --redundancy on a small JSON Lines trace with known overlap. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

static const char trace[] =
	"{\"trimsim\":1,\"header\":{\"devices\":[{\"dev\":\"8:0\",\"name\":\"sda\"}],\"format\":\"trimsim\",\"version\":1}}\n"
	"{\"t\":1000,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"8:0\",\"off\":0,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"
	"{\"t\":2000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":0,\"len\":8192,\"ino\":9,\"lat\":0,\"flags\":\"\"}\n"
	"{\"t\":3000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":4096,\"len\":8192,\"ino\":9,\"lat\":0,\"flags\":\"\"}\n"
	"{\"t\":4000,\"kind\":\"ISSUE\",\"op\":\"write\",\"dev\":\"8:0\",\"off\":0,\"len\":4096,\"ino\":9,\"lat\":0,\"flags\":\"\"}\n"
	"{\"footer\":{\"records\":4,\"lost\":0,\"end_ns\":5000}}\n";

TestSuite(info_redundancy, .init = th_dir_init, .fini = th_dir_fini);

Test(info_redundancy, text_and_json)
{
	char path[600], cmd[1400], *out = NULL, *err = NULL;

	snprintf(path, sizeof(path), "%s/t.jsonl", th_dir());
	cr_assert_eq(th_write(path, trace, strlen(trace)), 0);

	snprintf(cmd, sizeof(cmd), "%s info --redundancy %s", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s", err);
	/* ISSUE discards: 16 KiB named, 12 KiB distinct, 4 KiB overlap, 1.33x; the write is not counted */
	cr_assert(strstr(out, "redundancy (bytes named per layer vs distinct bytes):"), "%s", out);
	cr_assert(strstr(out, "    ISSUE            2       16 KiB       12 KiB        4 KiB      1.33x\n"), "%s", out);
	cr_assert(strstr(out, "    FREE             1        8 KiB        8 KiB            0         1x\n"), "%s", out);
	free(out);
	free(err);

	snprintf(cmd, sizeof(cmd), "%s info --json --redundancy %s", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s", err);
	json_t *o = json_loads(out, 0, NULL);
	json_t *issue = json_object_get(json_object_get(json_array_get(json_object_get(
		json_object_get(o, "redundancy"), "devices"), 0), "layers"), "ISSUE");

	cr_assert_not_null(issue, "%s", out);
	cr_assert_eq(json_integer_value(json_object_get(issue, "total_bytes")), 16384);
	cr_assert_eq(json_integer_value(json_object_get(issue, "unique_bytes")), 12288);
	cr_assert_eq(json_integer_value(json_object_get(issue, "overlap_bytes")), 4096);
	json_decref(o);
	free(out);
	free(err);

	/* without the flag, info is unchanged: no redundancy section */
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_null(strstr(out, "redundancy"));
	free(out);
}
