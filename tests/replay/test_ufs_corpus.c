// SPDX-License-Identifier: GPL-2.0
/*
 * ufs vs ufs-trimcons on the recorded rm -rf traces of traces/corpus/ (issue 5: "on an rm -rf
 * trace, ufs-trimcons sends at least 100 times fewer commands than ufs").
 *
 * `ufs` sends one BIO_DELETE per 32 KiB block a FREE extent covers; `ufs-trimcons` one per run of
 * adjacent blocks of one release (sys/ufs/ffs/ffs_alloc.c, ffs_blkfree(), trim_lookup()). The
 * ratio is bounded by the blocks per file: the large-file tree (rm_large.sh, 1-128 MiB files)
 * consolidates hundreds of blocks per command; the kernel-like tree (rm_tree.sh) is mostly
 * one-block files, where a file is one BIO_DELETE either way. See replay/policies/PRESETS.md.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/common/helpers.h"

struct ufs_trace {
	char name[64];
};

struct ufs_pair {
	uint64_t ufs_cmds, ufs_bytes, cons_cmds, cons_bytes;
};

/* Commands and bytes of one replay of a corpus trace through POLICY on the sdcard model (seed 000). */
static void replay(const char *trace, const char *policy, uint64_t *cmds, uint64_t *bytes)
{
	char path[1024], out[1200], cmd[4096], *err = NULL;
	json_t *j, *disc;

	snprintf(path, sizeof(path), "%s/traces/corpus/%s", th_src(), trace);
	cr_assert_eq(access(path, R_OK), 0, "%s: not in the corpus", path);
	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "'%s' replay '%s' -p %s -M sdcard --no-baseline -q -o '%s'",
		 th_trimsim(), path, policy, out);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	j = json_load_file(out, 0, NULL);
	cr_assert_not_null(j, "%s: no result JSON", cmd);
	disc = json_object_get(j, "discard");
	*cmds = (uint64_t)json_integer_value(json_object_get(disc, "commands"));
	*bytes = (uint64_t)json_integer_value(json_object_get(disc, "bytes"));
	json_decref(j);
}

static struct ufs_pair both(const char *trace)
{
	struct ufs_pair p;

	replay(trace, "ufs", &p.ufs_cmds, &p.ufs_bytes);
	replay(trace, "ufs-trimcons", &p.cons_cmds, &p.cons_bytes);
	cr_assert_gt(p.cons_cmds, 0, "%s: ufs-trimcons sent nothing", trace);
	/* Consolidation changes how the freed bytes are cut, never which. */
	cr_assert_eq(p.ufs_bytes, p.cons_bytes, "%s: ufs %llu bytes, ufs-trimcons %llu", trace,
		     (unsigned long long)p.ufs_bytes, (unsigned long long)p.cons_bytes);
	cr_log_info("%s: ufs %llu commands, ufs-trimcons %llu (%.1fx)", trace,
		    (unsigned long long)p.ufs_cmds, (unsigned long long)p.cons_cmds,
		    (double)p.ufs_cmds / (double)p.cons_cmds);
	return p;
}

/* Files of 1-128 MiB: hundreds of 32 KiB blocks per file, one run each (measured 546x, 383x). */
static struct ufs_trace large_trees[] = {
	{ "xfs-discard-rmlarge.tsim" },
	{ "ext4-discard-rmlarge.tsim" },
};

TestSuite(ufs_corpus, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(ufs_corpus, large_files_100x_fewer)
{
	return cr_make_param_array(struct ufs_trace, large_trees, sizeof(large_trees) / sizeof(large_trees[0]));
}

ParameterizedTest(struct ufs_trace *t, ufs_corpus, large_files_100x_fewer, .timeout = 120)
{
	struct ufs_pair p = both(t->name);

	cr_assert_geq(p.ufs_cmds, 100 * p.cons_cmds, "%s: ufs %llu commands, ufs-trimcons %llu: under 100x",
		      t->name, (unsigned long long)p.ufs_cmds, (unsigned long long)p.cons_cmds);
}

/* A kernel-like tree: most files are one 32 KiB block, nothing to join (measured 2.3x, 1.6x). */
static struct ufs_trace kernel_trees[] = {
	{ "xfs-discard-rmtree.tsim" },
	{ "ext4-discard-rmtree.tsim" },
};

ParameterizedTestParameters(ufs_corpus, small_files_cannot_consolidate)
{
	return cr_make_param_array(struct ufs_trace, kernel_trees, sizeof(kernel_trees) / sizeof(kernel_trees[0]));
}

ParameterizedTest(struct ufs_trace *t, ufs_corpus, small_files_cannot_consolidate, .timeout = 120)
{
	struct ufs_pair p = both(t->name);

	cr_assert_gt(p.ufs_cmds, p.cons_cmds, "%s: ufs %llu commands, ufs-trimcons %llu: no consolidation at all",
		     t->name, (unsigned long long)p.ufs_cmds, (unsigned long long)p.cons_cmds);
	cr_assert_lt(p.ufs_cmds, 100 * p.cons_cmds, "%s: ufs %llu commands, ufs-trimcons %llu: 100x or more "
		     "from a tree of one-block files", t->name, (unsigned long long)p.ufs_cmds,
		     (unsigned long long)p.cons_cmds);
}
