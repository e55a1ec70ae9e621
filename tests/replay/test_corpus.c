// SPDX-License-Identifier: GPL-2.0
/* Real recorded traces (traces/corpus/): as-recorded replays report exactly the recorded discard commands. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"

/* Discard ISSUE records and bytes of the device the replay picks (the header's only/first fs device). */
static void recorded(const char *path, uint64_t *cmds, uint64_t *bytes)
{
	char err[512];
	struct trace_reader *r = trace_reader__open(path, err, sizeof(err));
	const struct ts_record *recs;
	const struct ts_device *d;
	uint32_t dev;
	ssize_t n;

	cr_assert_not_null(r, "%s", err);
	d = trace_reader__replay_device(r);
	dev = d ? d->dev : 0;
	*cmds = *bytes = 0;
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (recs[i].kind == TS_ISSUE && recs[i].op == TS_OP_DISCARD && recs[i].length &&
			    (!dev || recs[i].dev == dev)) {
				(*cmds)++;
				*bytes += recs[i].length;
			}
	cr_assert_eq(n, 0, "%s", trace_reader__error(r));
	trace_reader__close(r);
}

TestSuite(corpus, .init = th_dir_init, .fini = th_dir_fini);

Test(corpus, as_recorded_counts_are_exact, .timeout = 300)
{
	char dirpath[1024];
	struct dirent *de;
	unsigned done = 0;
	DIR *dir;

	snprintf(dirpath, sizeof(dirpath), "%s/traces/corpus", th_src());
	dir = opendir(dirpath);
	cr_assert_not_null(dir, "%s: no corpus", dirpath);
	while ((de = readdir(dir))) {
		char path[2048], out[1200], cmd[4096], *err = NULL;
		uint64_t cmds, bytes;
		json_t *j, *disc;
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 5, ".tsim"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dirpath, de->d_name);
		snprintf(out, sizeof(out), "%s/r.json", th_dir());
		recorded(path, &cmds, &bytes);
		snprintf(cmd, sizeof(cmd), "%s replay %s -p as-recorded -M nvme --no-baseline -q -o %s",
			 th_trimsim(), path, out);
		cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
		free(err);
		j = json_load_file(out, 0, NULL);
		cr_assert_not_null(j);
		disc = json_object_get(j, "discard");
		cr_expect_eq((uint64_t)json_integer_value(json_object_get(disc, "commands")), cmds, "%s", de->d_name);
		cr_expect_eq((uint64_t)json_integer_value(json_object_get(disc, "bytes")), bytes, "%s", de->d_name);
		json_decref(j);
		done++;
	}
	closedir(dir);
	cr_assert_gt(done, 0, "no .tsim in %s", dirpath);
}
