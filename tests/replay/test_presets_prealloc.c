// SPDX-License-Identifier: GPL-2.0
/*
 * Unused preallocations (FREE flagged prealloc, traces/FORMAT.md): each preset does
 * with them what its kernel does (replay/policies/PRESETS.md, "Unused preallocations").
 * A file's allocation [0, 8M) is half written and deleted ([0, 4M), a freed extent),
 * half given back unused ([4M, 8M): ext4_mb_release_inode_pa()). And traces older
 * than the flag (header revision 0) read an ext4 FREE without an inode as one.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/replay/presets_harness.h"

#define GIB (1024 * MIB)

struct pa_case {
	char spec[128];
	bool snapshot;		/* start snapshot: the whole 1 GiB device free */
	bool flagged;		/* the unused part carries TS_F_PREALLOC (else: an ordinary free) */
	uint64_t bytes;		/* discarded bytes */
};

TestSuite(prealloc, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(prealloc, presets)
{
	static struct pa_case c[] = {
		/* ext4_mb_release_inode_pa(): mb_free_blocks(), no discard */
		{ "ext4(extend=0)", false, true, 4 * MIB },
		{ "ext4(extend=0)", false, false, 8 * MIB },
		/* 6.6+: the discarded run reaches the free space after it, the given-back part included
		   (were it still allocated, the run would stop at 4 MiB) */
		{ "ext4", true, true, 128 * MIB },	/* to the end of the 128 MiB block group */
		{ "ext4(journal=0)", false, true, 4 * MIB },
		/* xfs_free_eofblocks(): XFS_BMAPI_NODISCARD */
		{ "xfs(plug=0,unwritten=0)", false, true, 4 * MIB },
		{ "xfs(plug=0,unwritten=0)", false, false, 8 * MIB },
		/* ffs_blkfree() never sees it */
		{ "ufs", false, true, 4 * MIB },
		{ "ufs-trimcons", false, true, 4 * MIB },
		/* NEW_ADDR blocks are never invalidated */
		{ "f2fs", false, true, 4 * MIB },
		{ "f2fs", false, false, 8 * MIB },
		/* btrfs_free_reserved_extent() -> btrfs_add_free_space(): untrimmed, the async work trims it */
		{ "btrfs-async", false, true, 8 * MIB },
		/* free again with the trim state it had when allocated: unknown without a snapshot ... */
		{ "fstrim", false, true, 4 * MIB },
		/* ... untrimmed from the start snapshot: trimmed with the rest of the free space */
		{ "fstrim", true, true, GIB },
		/* ext4: mb_free_blocks() leaves the group's WAS_TRIMMED flag alone; the group was dirtied
		   by the ordinary free, so every free extent of it is trimmed */
		{ "fstrim(mode=ext4)", false, true, 8 * MIB },
	};

	return cr_make_param_array(struct pa_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct pa_case *c, prealloc, presets)
{
	struct harness *h = h_new(c->spec, GIB, 1);

	if (c->snapshot)
		h_snapshot(h, 0, GIB);
	h_alloc(h, 1 * MS, 0, 8 * MIB);
	h_rec(h, TS_ISSUE, TS_OP_WRITE, 2 * MS, 0, 4 * MIB, 0, 0);
	h_rec(h, TS_FREE, TS_OP_NONE, 3 * MS, 4 * MIB, 4 * MIB, 0,
	      TS_FS_EXT4 | (c->flagged ? TS_F_PREALLOC : 0));	/* the unused part, at last close */
	h_rec(h, TS_FREE, TS_OP_NONE, 4 * MS, 0, 4 * MIB, 7, TS_FS_EXT4);	/* rm: the written part */
	h_commit(h, 5 * MS);
	h_end(h, 10 * S);
	cr_expect_eq(h->cap.bytes, c->bytes, "%s (%s, %s): %llu bytes discarded, want %llu", c->spec,
		     c->snapshot ? "snapshot" : "no snapshot", c->flagged ? "flagged" : "unflagged",
		     (unsigned long long)h->cap.bytes, (unsigned long long)c->bytes);
	h_free_all(h);
}

/* A trace older than the flag: an ext4 FREE without an inode came from ext4_mballoc_discard. */
Test(prealloc, legacy_ino0_is_prealloc)
{
	for (int legacy = 0; legacy < 2; legacy++) {
		struct cap cap = { 0 };
		struct policy_env env = { .legacy_prealloc = legacy };
		char err[512];
		struct policy *p = policy__new("ext4(extend=0)", &env, cap_sink, &cap, err, sizeof(err));
		struct ts_record r[] = {
			{ .time_ns = 3 * MS, .offset = 4 * MIB, .length = 4 * MIB, .kind = TS_FREE, .flags = TS_FS_EXT4 },
			{ .time_ns = 4 * MS, .offset = 0, .length = 4 * MIB, .ino = 7, .kind = TS_FREE,
			  .flags = TS_FS_EXT4 },
			{ .time_ns = 5 * MS, .kind = TS_META, .op = TS_META_COMMIT, .ino = 1 },
		};

		cr_assert_not_null(p, "%s", err);
		for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
			cr_assert_eq(policy__record(p, &r[i]), 0, "%s", policy__error(p));
		cr_assert_eq(policy__flush(p, 1 * S), 0);
		cr_expect_eq(cap.bytes, legacy ? 4 * MIB : 8 * MIB, "legacy=%d: %llu", legacy,
			     (unsigned long long)cap.bytes);
		policy__destroy(p);
	}
}

/* Through the CLI: the header's revision decides (none: 0, the inference; 1: the flag only). */
Test(prealloc, revision_decides_cli, .timeout = 60)
{
	static const char *const revs[] = { "", ",\"revision\":1" };
	const char *dir = th_dir();

	for (int k = 0; k < 2; k++) {
		char path[512], out[512], cmd[2048], body[2048], *o = NULL, *e = NULL;
		json_t *j;

		snprintf(path, sizeof(path), "%s/t%d.jsonl", dir, k);
		snprintf(out, sizeof(out), "%s/r%d.json", dir, k);
		snprintf(body, sizeof(body),
			 "{\"trimsim\":1,\"header\":{\"devices\":[{\"dev\":\"7:0\",\"name\":\"loop0\",\"fs\":\"ext4\","
			 "\"fs_block_size\":4096,\"size\":1073741824}],\"format\":\"trimsim\",\"version\":1%s}}\n"
			 "{\"t\":3000000,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":4194304,\"len\":4194304,"
			 "\"ino\":0,\"lat\":0,\"flags\":\"ext4\"}\n"
			 "{\"t\":4000000,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":0,\"len\":4194304,"
			 "\"ino\":7,\"lat\":0,\"flags\":\"ext4\"}\n"
			 "{\"t\":5000000,\"kind\":\"META\",\"op\":\"commit\",\"dev\":\"7:0\",\"off\":0,\"len\":0,"
			 "\"ino\":1,\"lat\":0,\"flags\":\"ext4\"}\n"
			 "{\"footer\":{\"records\":3,\"lost\":0,\"end_ns\":6000000}}\n", revs[k]);
		cr_assert_eq(th_write(path, body, strlen(body)), 0);
		snprintf(cmd, sizeof(cmd), "%s replay %s -p 'ext4(extend=0)' -M nvme --no-baseline -q -o %s",
			 th_trimsim(), path, out);
		cr_assert_eq(th_run(cmd, NULL, &e), 0, "%s", e);
		free(e);
		cr_assert_not_null(j = json_load_file(out, 0, NULL));
		cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "discard"), "bytes")),
			     k ? 8 * MIB : 4 * MIB, "revision %d", k);
		json_decref(j);
		snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
		cr_assert_eq(th_run(cmd, &o, NULL), 0);
		cr_expect_eq(strstr(o, "1 unused preallocations given back (4 MiB)") != NULL, k == 0, "%s", o);
		free(o);
	}
}
