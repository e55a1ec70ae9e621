// SPDX-License-Identifier: GPL-2.0
/*
 * One replay and one recording under valgrind memcheck, on the plain build
 * ($TRIMSIM_PLAIN: -O2 -g, no sanitizers), with zero errors and no definite or
 * indirect leaks (--error-exitcode).
 *
 * The recording uses the tracefs backend: valgrind 3.19 does not know libbpf
 * 1.1's bpf() commands (BPF_LINK_CREATE: "unhandled eBPF command 28") and
 * reports the union bpf_attr fields libbpf leaves unset as uninitialised
 * syscall parameters (bpf_prog_load from the fentry probe); those are the
 * tool's limits, not trimsim's, and the same user-side code (recorder, writer,
 * device probing) runs under both backends. The record test is live (root, a
 * loop device of our own) and skips otherwise.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/reliab/live_fs.h"

#define VALGRIND "valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect " \
	"--errors-for-leak-kinds=definite,indirect --track-origins=yes"

/* The plain build (valgrind and ASan do not mix). */
static const char *plain(void)
{
	const char *p = getenv("TRIMSIM_PLAIN");

	return p && *p ? p : "build/trimsim";
}

static void lfs_setup(void) { lfs_up(false); }

/* A small trace: frees, intents, discards and writes on one 1 GiB device. */
static void write_trace(const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned long long t = 1000000;

	cr_assert(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\","
		"\"name\":\"loop7\",\"size\":1073741824,\"logical_block_size\":512,\"physical_block_size\":4096,"
		"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1,"
		"\"fs\":\"xfs\"}]}}\n");
	for (unsigned i = 0; i < 300; i++, t += 70000) {
		unsigned long long off = (i * 7919ull % 4096) * 65536;
		static const char *const kinds[] = { "FREE", "INTENT", "ISSUE", "DONE" };
		const char *k = kinds[i % 4];

		fprintf(f, "{\"t\":%llu,\"kind\":\"%s\",\"op\":\"%s\",\"dev\":\"7:0\",\"off\":%llu,\"len\":%u,"
			"\"ino\":%u,\"lat\":%u,\"flags\":\"xfs\"}\n", t, k, i % 8 < 4 ? "none" : i % 8 < 6 ? "discard" :
			"write", off, 4096u << (i % 5), 100 + i % 7, !strcmp(k, "DONE") ? 90000u : 0u);
	}
	fprintf(f, "{\"footer\":{\"records\":300,\"lost\":0,\"end_ns\":%llu}}\n", t);
	cr_assert_eq(fclose(f), 0);
}

Test(valgrind, replay, .init = th_dir_init, .fini = th_dir_fini, .timeout = 600)
{
	char trace[512], cmd[2048], *err = NULL;
	int rc;

	if (th_run("command -v valgrind", NULL, NULL))
		cr_skip_test("valgrind missing (.ci/deps test installs it)");
	snprintf(trace, sizeof(trace), "%s/t.jsonl", th_dir());
	write_trace(trace);
	/* A kernel-emulating preset and a generic pipeline, on the parametric and the FTL engine. */
	snprintf(cmd, sizeof(cmd), VALGRIND " %1$s replay %2$s -p xfs -M sata-sf2281 -q -o %3$s/a.json && "
		 VALGRIND " %1$s replay %2$s -p 'sort-merge-async(qd=4,window=10ms)' -M ftl-sata:capacity=1G "
		 "-q -o %3$s/b.json", plain(), trace, th_dir());
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 0, "valgrind replay: exit %d:\n%s", rc, err ? err : "");
	cr_expect_str_eq(err ? err : "", "", "valgrind said:\n%s", err ? err : "");
	free(err);
}

Test(valgrind, record_tracefs, .init = lfs_setup, .fini = lfs_down, .timeout = 600)
{
	char cmd[4096], storm[1024], *err = NULL, *out = NULL;
	int rc;

	if (th_run("command -v valgrind", NULL, NULL))
		cr_skip_test("valgrind missing (.ci/deps test installs it)");
	snprintf(storm, sizeof(storm), LFS_STORM, lfs.mnt, 2);
	snprintf(cmd, sizeof(cmd), VALGRIND " %s record --backend tracefs -o %s/v.tsim -m %s -- sh -c '%s'",
		 plain(), lfs.dir, lfs.mnt, storm);
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 0, "valgrind record: exit %d:\n%s", rc, err ? err : "");
	cr_expect(err && !strstr(err, "=="), "valgrind said:\n%s", err ? err : "");
	snprintf(cmd, sizeof(cmd), "%s info %s/v.tsim", plain(), lfs.dir);
	cr_expect_eq(th_run(cmd, &out, NULL), 0);
	cr_expect(out && strstr(out, "complete, checksum ok"), "%s", out ? out : "");
	free(out);
	free(err);
}
