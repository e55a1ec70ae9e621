// SPDX-License-Identifier: GPL-2.0
/*
 * Every value a trace carries is bounded (traces/bounds.c, issue 15 items 1-4
 * and 13-16), through the sanitized binary ($TRIMSIM):
 *  - refused: header geometry out of range, records off their device or past
 *    what Linux addresses, contradictory JSON Lines, importer input that
 *    wrapped or was cut, each with its exact one-line message and nothing left
 *    behind;
 *  - extreme: legal values at the edges (a device of unknown size, offsets
 *    near 2^63, a 2^62-byte free) replay to the end with the figures the
 *    kernel would give, where they once crashed (SIGFPE), looped or ran out
 *    of memory;
 *  - escaped: header strings reach a terminal with their control characters
 *    escaped.
 * Each row failed before the fix it pins (the issue names what happened).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "traces/import/blkio.h"

/* A JSON Lines trace with one device 7:0 whose header fields are DEV, records R(...), a footer. */
#define HDRD(dev) "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\"," \
	"\"name\":\"loop7\"" dev "}]}}\n"
#define R(t, kind, op, off, len, flags) "{\"t\":" t ",\"kind\":\"" kind "\",\"op\":\"" op "\",\"dev\":\"7:0\"," \
	"\"off\":" off ",\"len\":" len ",\"ino\":1,\"lat\":0,\"flags\":\"" flags "\"}\n"
#define FREE(off, len) R("1000", "FREE", "none", off, len, "ext4")
#define FOOT(n) "{\"footer\":{\"records\":" #n ",\"lost\":0,\"end_ns\":3000}}\n"
#define GIB ",\"size\":1073741824"

struct refused {
	char name[48];
	char file[16];
	char content[1200];
	char args[160];		/* after "trimsim " */
	char msg[400];		/* exact stderr */
	int rc;
	char out[16];		/* must not exist afterwards */
};

TestSuite(bounds, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(bounds, refused)
{
	static struct refused t[] = {
		/* item 1: an ext4 group of 8 * bs^2 wrapped to 0 (SIGFPE in ext4.c and fstrim.c) */
		{ "fs_block_size 2^31, ext4", "in.jsonl", HDRD(GIB ",\"fs\":\"ext4\",\"fs_block_size\":2147483648")
		  FREE("0", "4096") FOOT(1), "replay in.jsonl -p ext4 -o out.json",
		  "trimsim replay: in.jsonl: line 1: header devices[0]: device field \"fs_block_size\": 2147483648 is not "
		  "a power of two in 512..65536 (blk_validate_block_size())\n", 1, "out.json" },
		{ "fs_block_size 2^31, fstrim", "in.jsonl", HDRD(GIB ",\"fs\":\"ext4\",\"fs_block_size\":2147483648")
		  FREE("0", "4096") FOOT(1), "replay in.jsonl -p 'fstrim(mode=ext4)' -o out.json",
		  "trimsim replay: in.jsonl: line 1: header devices[0]: device field \"fs_block_size\": 2147483648 is not "
		  "a power of two in 512..65536 (blk_validate_block_size())\n", 1, "out.json" },
		{ "xfs_agblocks 2^52", "in.jsonl", HDRD(GIB ",\"fs\":\"xfs\",\"fs_block_size\":4096,"
		  "\"xfs_agblocks\":4503599627370496") FREE("0", "4096") FOOT(1),
		  "replay in.jsonl -p 'fstrim(mode=xfs)' -o out.json",
		  "trimsim replay: in.jsonl: line 1: header devices[0]: device field \"xfs_agblocks\": 4503599627370496 "
		  "blocks of 4096 bytes is above XFS's 1 TiB allocation group (XFS_MAX_AG_BYTES)\n", 1, "out.json" },
		{ "xfs_agblocks past the device", "in.jsonl", HDRD(GIB ",\"fs\":\"xfs\",\"fs_block_size\":4096,"
		  "\"xfs_agblocks\":1048576") FOOT(0), "info in.jsonl",
		  "trimsim info: in.jsonl: line 1: header devices[0]: device field \"xfs_agblocks\": 1048576 blocks of "
		  "4096 bytes is larger than the device (1073741824 bytes)\n", 1, "" },
		/* item 2: a free ending just below 2^64 on a device of unknown size looped forever in ufs.c */
		{ "free ending below 2^64", "in.jsonl", HDRD(",\"size\":0,\"fs\":\"ufs\"")
		  R("1000", "FREE", "none", "\"18446744073709547520\"", "4095", "ufs") FOOT(1),
		  "replay in.jsonl -p ufs -o out.json",
		  "trimsim replay: in.jsonl: line 2: offset 18446744073709547520 + length 4095 ends past 2^63 - 1 bytes "
		  "(loff_t: no block device reaches that far)\n", 1, "out.json" },
		{ "ufs: 2^47 blocks from one free", "in.jsonl", HDRD(",\"size\":0,\"fs\":\"ufs\"")
		  R("1000", "FREE", "none", "4611686018427387904", "4611686018427387903", "ufs") FOOT(1),
		  "replay in.jsonl -p ufs -o out.json",
		  "trimsim replay: in.jsonl: policy stage 'ffs-blkfree': one request would become 140737488355328 "
		  "ffs_blkfree() blocks; the bound is 1048576 per request (TS_MAX_PIECES)\n", 1, "out.json" },
		/* item 3: export of one ISSUE of 2^63 bytes wrote hundreds of GB */
		{ "export of 2^63 bytes", "in.jsonl", HDRD(",\"size\":0")
		  R("1000", "ISSUE", "discard", "0", "\"9223372036854775808\"", "") FOOT(1),
		  "export --to blktrace in.jsonl -o out.bt",
		  "trimsim export: in.jsonl: line 2: offset 0 + length 9223372036854775808 ends past 2^63 - 1 bytes "
		  "(loff_t: no block device reaches that far)\n", 1, "out.bt" },
		{ "export past the device", "in.jsonl", HDRD(GIB) R("1000", "ISSUE", "discard", "0", "2147483648", "")
		  FOOT(1), "export --to fio in.jsonl -o out.log",
		  "trimsim export: in.jsonl: line 2: offset 0 + length 2147483648 is past the end of 7:0 (1073741824 "
		  "bytes)\n", 1, "out.log" },
		{ "export of 2^62 bytes", "in.jsonl", HDRD(",\"size\":4611686018427387904")
		  R("1000", "ISSUE", "discard", "0", "4611686018427387904", "") FOOT(1),
		  "export --to blktrace in.jsonl -o out.bt",
		  "trimsim export: in.jsonl: record 0: its 4611686018427387904 bytes would be 1073741953 blktrace events "
		  "of at most 4294966784 bytes; the bound is 1048576 per record (TS_MAX_PIECES)\n", 1, "out.bt" },
		/* item 4: block sizes 1 and 3 (22 s and 2.8 GB), 2^32 - 1 segments (2 TiB), partition starts */
		{ "fs_block_size 1", "in.jsonl", HDRD(GIB ",\"fs\":\"ext4\",\"fs_block_size\":1") FREE("0", "4096")
		  FOOT(1), "replay in.jsonl -p ext4 -o out.json",
		  "trimsim replay: in.jsonl: line 1: header devices[0]: device field \"fs_block_size\": 1 is not a power "
		  "of two in 512..65536 (blk_validate_block_size())\n", 1, "out.json" },
		{ "fs_block_size 3", "in.jsonl", HDRD(GIB ",\"fs\":\"ext4\",\"fs_block_size\":3") FREE("0", "4096")
		  FOOT(1), "replay in.jsonl -p ext4 -o out.json",
		  "trimsim replay: in.jsonl: line 1: header devices[0]: device field \"fs_block_size\": 3 is not a power "
		  "of two in 512..65536 (blk_validate_block_size())\n", 1, "out.json" },
		{ "fs block below the sector", "in.jsonl", HDRD(GIB ",\"logical_block_size\":4096,\"fs_block_size\":1024")
		  FOOT(0), "info in.jsonl",
		  "trimsim info: in.jsonl: line 1: header devices[0]: device field \"fs_block_size\": 1024 is below "
		  "logical_block_size 4096 (no filesystem mounts so)\n", 1, "" },
		{ "max_discard_segments 2^32 - 1", "in.jsonl", HDRD(GIB ",\"max_discard_segments\":4294967295")
		  FREE("0", "4096") FOOT(1), "replay in.jsonl -p xfs -o out.json",
		  "trimsim replay: in.jsonl: line 1: header devices[0]: device field \"max_discard_segments\": 4294967295 "
		  "is above 65535 (struct queue_limits holds an unsigned short)\n", 1, "out.json" },
		{ "discard_max_bytes not sectors", "in.jsonl", HDRD(GIB ",\"discard_max_bytes\":1") FOOT(0),
		  "info in.jsonl",
		  "trimsim info: in.jsonl: line 1: header devices[0]: device field \"discard_max_bytes\": 1 is not a "
		  "multiple of 512 up to 2199023255040 (max_discard_sectors is an unsigned int of sectors)\n", 1, "" },
		{ "partition above the records", "in.jsonl", HDRD(GIB ",\"partition_start\":1099511627776,\"fs\":\"ext4\"")
		  FREE("0", "4096") FOOT(1), "replay in.jsonl -p ext4 -o out.json",
		  "trimsim replay: in.jsonl: line 2: offset 0 + length 4096 is outside 7:0 (bytes 1099511627776.."
		  "1100585369600 of the disk: partition_start + size)\n", 1, "out.json" },
		{ "partition past 2^63", "in.jsonl", HDRD(GIB ",\"partition_start\":9223372036854775807") FOOT(0),
		  "info in.jsonl",
		  "trimsim info: in.jsonl: line 1: header devices[0]: device field \"partition_start\": "
		  "9223372036854775807 + size 1073741824 ends past 2^63 - 1 bytes (loff_t)\n", 1, "" },
		{ "size past 2^63", "in.jsonl", HDRD(",\"size\":9223372036854775807,\"partition_start\":1") FOOT(0),
		  "info in.jsonl",
		  "trimsim info: in.jsonl: line 1: header devices[0]: device field \"partition_start\": 1 + size "
		  "9223372036854775807 ends past 2^63 - 1 bytes (loff_t)\n", 1, "" },
		{ "one dev twice", "in.jsonl", "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":[{\"dev\":"
		  "\"7:0\",\"name\":\"a\"},{\"dev\":\"7:0\",\"name\":\"b\"}]}}\n" FOOT(0), "info in.jsonl",
		  "trimsim info: in.jsonl: line 1: header devices[1]: dev 7:0 repeats devices[0]\n", 1, "" },
		{ "latency past ktime_t", "in.jsonl", HDRD(GIB) "{\"t\":1,\"kind\":\"DONE\",\"op\":\"discard\",\"dev\":"
		  "\"7:0\",\"off\":0,\"len\":4096,\"ino\":1,\"lat\":\"9223372036854775808\",\"flags\":\"\"}\n" FOOT(1),
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: latency 9223372036854775808 ns is past the kernel's ktime_t range "
		  "(2^63 - 1 ns)\n", 1, "out.tsim" },
		/* impossible parameters that made one record's work huge (found by fuzz_policy) */
		{ "split below a sector", "in.jsonl", HDRD(GIB) FOOT(0), "replay in.jsonl -p 'source(free) | split(max=1)' "
		  "-o out.json", "trimsim replay: policy: stage 'split': option 'max': 1 is below 512 B (a sector)\n",
		  2, "out.json" },
		{ "ext4 group of 4 KiB", "in.jsonl", HDRD(GIB) FOOT(0), "replay in.jsonl -p 'ext4(bgsize=4K)' -o out.json",
		  "trimsim replay: policy: stage 'ext4-mb': option 'bgsize': 4096 is below 256 KiB (256 blocks of 1 KiB, "
		  "mke2fs's least)\n", 2, "out.json" },
		{ "btrfs discards of a byte", "in.jsonl", HDRD(GIB) FOOT(0),
		  "replay in.jsonl -p 'btrfs-async(max_discard_size=1)' -o out.json",
		  "trimsim replay: policy: stage 'btrfs-discard': option 'max_discard_size': 1 is below 4 KiB (btrfs's "
		  "least sectorsize)\n", 2, "out.json" },
		/* item 15: contradictory flags, duplicate keys, a device with a space and a sign */
		{ "flags xfs|ext4", "in.jsonl", HDRD(GIB) R("1", "FREE", "none", "0", "4096", "xfs|ext4") FOOT(1),
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: field \"flags\": \"xfs|ext4\" names two filesystems\n", 1,
		  "out.tsim" },
		{ "flags ext4|ufs", "in.jsonl", HDRD(GIB) R("1", "FREE", "none", "0", "4096", "ext4|ufs") FOOT(1),
		  "replay in.jsonl -p f2fs -o out.json",
		  "trimsim replay: in.jsonl: line 2: field \"flags\": \"ext4|ufs\" names two filesystems\n", 1,
		  "out.json" },
		{ "flags ext4|0x2", "in.jsonl", HDRD(GIB) R("1", "FREE", "none", "0", "4096", "ext4|0x2") FOOT(1),
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: field \"flags\": \"ext4|0x2\" names two filesystems\n", 1,
		  "out.tsim" },
		{ "duplicate key", "in.jsonl", HDRD(GIB) "{\"t\":1,\"len\":8192,\"kind\":\"FREE\",\"op\":\"none\","
		  "\"dev\":\"7:0\",\"off\":0,\"len\":4096,\"ino\":1,\"lat\":0,\"flags\":\"\"}\n" FOOT(1),
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: invalid JSON: duplicate object key near '\"len\"'\n", 1, "out.tsim" },
		{ "duplicate header key", "in.jsonl", "{\"trimsim\":1,\"trimsim\":1,\"header\":{\"format\":\"trimsim\"}}\n"
		  FOOT(0), "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 1: invalid JSON: duplicate object key near '\"trimsim\"'\n", 1,
		  "out.tsim" },
		{ "device ' 7:+0'", "in.jsonl", HDRD(GIB) "{\"t\":1,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\" 7:+0\","
		  "\"off\":0,\"len\":4096,\"ino\":1,\"lat\":0,\"flags\":\"\"}\n" FOOT(1), "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: field \"dev\": \" 7:+0\" is not major:minor\n", 1, "out.tsim" },
		{ "escape in a message", "in.jsonl", HDRD(GIB) R("1", "\\u001b[2J", "none", "0", "4096", "") FOOT(1),
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: unknown kind \"\\x1b[2J\"\n", 1, "out.tsim" },
		/* item 14: DTrace names that JSON cannot hold, a mount point past the format */
		{ "dtrace device not UTF-8", "d.txt", "trimsim-dtrace 1\nfree 1000 ada\xff 77 8192 32768\n",
		  "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: device name is not valid UTF-8 (a trace header is JSON text)\n", 1, "out.tsim" },
		{ "dtrace mount not UTF-8", "d.txt", "trimsim-dtrace 1\nfs ada0p2 4096 32768 /mnt/caf\xe9\n",
		  "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: mount point is not valid UTF-8 at its byte 8 (a trace header is JSON text)\n",
		  1, "out.tsim" },
		{ "dtrace fragment 3", "d.txt", "trimsim-dtrace 1\nfs ada0p2 3 32768 /mnt\n",
		  "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: FSIZE is not a power of two in 512..65536\n", 1, "out.tsim" },
		{ "dtrace time past ktime_t", "d.txt", "trimsim-dtrace 1\nfree 9223372036854775808 ada0p2 7 0 4096\n",
		  "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: a time past 2^63 - 1 ns (no kernel clock reaches it)\n", 1, "out.tsim" },
	};
	return cr_make_param_array(struct refused, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct refused *b, bounds, refused, .timeout = 60)
{
	const char *dir = th_dir();
	char path[512], cmd[1024], *out = NULL, *err = NULL;
	int rc;

	cr_assert_not_null(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, b->file);
	cr_assert_eq(th_write(path, b->content, strlen(b->content)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && timeout 30 %s %s", dir, th_trimsim(), b->args);
	rc = th_run(cmd, &out, &err);
	cr_expect_str_eq(err ? err : "", b->msg, "%s: stderr was:\n%s", b->name, err ? err : "");
	cr_expect_eq(rc, b->rc, "%s: exit %d, expected %d", b->name, rc, b->rc);
	if (b->out[0]) {
		snprintf(path, sizeof(path), "%s/%s", dir, b->out);
		cr_expect_neq(access(path, F_OK), 0, "%s: %s was left behind", b->name, b->out);
	}
	free(out);
	free(err);
}

/*
 * Legal values at the edges replay to the end. unknown-size device: records
 * bounded by 2^63 alone; the stages keep only what the records touch (ext4's
 * and btrfs's groups were arrays indexed by group number: "push failed:
 * Cannot allocate memory"), and ufs-trimcons counts a free's blocks instead of
 * walking them. Figures: the stage's report, as the kernel code would count.
 */
struct extreme {
	char name[48];
	char recs[600];
	char policy[64];
	char key[40];		/* policy stage figure to check (stages[0]) */
	long long want;
	long commands;		/* discard.commands */
};

#define UNK HDRD(",\"size\":0,\"fs\":\"ext4\",\"fs_block_size\":4096")
#define FAR "4611686018427387904"	/* 2^62 */

ParameterizedTestParameters(bounds, extreme)
{
	static struct extreme t[] = {
		{ "ext4 at 2^62", UNK R("1000", "FREE", "none", FAR, "4096", "ext4") FOOT(1), "ext4", "frees", 1, 1 },
		{ "ext4 at 2^62 and 0", UNK R("1000", "FREE", "none", FAR, "4096", "ext4")
		  R("2000", "FREE", "none", "0", "4096", "ext4") FOOT(2), "ext4", "discards", 2, 2 },
		{ "btrfs at 2^62", UNK R("1000", "FREE", "none", FAR, "1048576", "ext4") FOOT(1), "btrfs-async",
		  "discards", 1, 1 },
		{ "ufs-trimcons 2^62 bytes", UNK R("1000", "FREE", "none", FAR, "4611686018427387903", "ext4") FOOT(1),
		  "ufs-trimcons", "blkfree_calls", 140737488355328ll, 1 },
		{ "ufs-trimcons desc", UNK R("1000", "FREE", "none", "0", "1073741824", "ext4") FOOT(1),
		  "ffs-blkfree(trimcons=1,order=desc)", "prepends", 32767, 1 },
		{ "ufs per block", UNK R("1000", "FREE", "none", "0", "1048576", "ext4") FOOT(1), "ufs",
		  "bio_deletes", 32, 32 },
		{ "f2fs at 2^63 - 1 ns", UNK R("1", "FREE", "none", "0", "65536", "ext4")
		  R("\"9223372036854775000\"", "FREE", "none", "1048576", "65536", "ext4") FOOT(2), "f2fs",
		  "discards", 2, 2 },
		{ "fstrim over 2^63 ns", UNK R("1", "FREE", "none", "0", "65536", "ext4")
		  R("\"9223372036854775000\"", "FREE", "none", "1048576", "65536", "ext4") FOOT(2),
		  "fstrim(interval=1ms)", "passes", 9223372036855ll, 2 },
	};
	return cr_make_param_array(struct extreme, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct extreme *x, bounds, extreme, .timeout = 120)
{
	const char *dir = th_dir();
	char path[600], cmd[1600], text[1400], *err = NULL;
	json_error_t jerr;
	json_t *res, *st;
	int rc;

	cr_assert(dir);
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
	snprintf(text, sizeof(text), "%s", x->recs);
	cr_assert_eq(th_write(path, text, strlen(text)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && timeout 60 %s replay t.jsonl -p '%s' -M nvme -q --timing asap -o r.json",
		 dir, th_trimsim(), x->policy);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", x->name, rc, err ? err : "");
	free(err);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	res = json_load_file(path, 0, &jerr);
	cr_assert(res, "%s: %s", x->name, jerr.text);
	st = NULL;
	for (size_t i = 0; !st && i < json_array_size(json_object_get(json_object_get(res, "policy"), "stages")); i++) {
		json_t *s = json_array_get(json_object_get(json_object_get(res, "policy"), "stages"), i);

		st = json_object_get(s, x->key) ? s : NULL;
	}
	cr_assert(st, "%s: no stage reports %s", x->name, x->key);
	cr_expect_eq(json_integer_value(json_object_get(st, x->key)), x->want, "%s: %s = %lld", x->name, x->key,
		     (long long)json_integer_value(json_object_get(st, x->key)));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(res, "discard"), "commands")), x->commands,
		     "%s: commands", x->name);
	json_decref(res);
}

/*
 * item 13: blktrace files built record by record. A payload past the end of
 * the file ended the import with exit 0 after 4 of 10 records; a sector of
 * 2^55 + 8 became offset 4096 (sector * 512 wrapped).
 */
static size_t bt_file(char *buf, size_t cap, unsigned n, unsigned cut_at, uint16_t pdu, uint64_t sector)
{
	size_t len = 0;

	for (unsigned i = 0; i < n && len + sizeof(struct blkio_trace) <= cap; i++) {
		struct blkio_trace t = {
			.magic = BLKIO_MAGIC | BLKIO_VERSION, .sequence = i + 1, .time = 1000 + i,
			.sector = i == 0 ? sector : 8ull * i, .bytes = 4096,
			.action = BLKIO_TC(BLKIO_TC_WRITE | BLKIO_TC_DISCARD) | BLKIO_TA_QUEUE, .pid = 1,
			.device = (8u << 20) | 16,
			.pdu_len = i == cut_at ? pdu : 0,
		};

		memcpy(buf + len, &t, sizeof(t));
		len += sizeof(t);
	}
	return len;
}

struct btcase {
	char name[40];
	unsigned cut_at;	/* record whose pdu_len is set */
	uint16_t pdu;
	uint64_t sector;
	char msg[300];
};

ParameterizedTestParameters(bounds, blktrace)
{
	static struct btcase t[] = {
		{ "payload past the end", 3, 60000, 0,
		  "trimsim import: b.bt: offset 192: payload of 60000 bytes runs past the end of the file (288 bytes "
		  "there)\n" },
		{ "sector 2^55 + 8", 99, 0, (1ull << 55) + 8,
		  "trimsim import: b.bt: offset 0: sector 36028797018963976 + 4096 bytes ends past 2^63 - 1 bytes (no "
		  "block device reaches that far)\n" },
	};
	return cr_make_param_array(struct btcase, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct btcase *c, bounds, blktrace)
{
	const char *dir = th_dir();
	char path[512], cmd[1024], buf[480], *err = NULL;
	int rc;

	cr_assert(dir);
	snprintf(path, sizeof(path), "%s/b.bt", dir);
	cr_assert_eq(th_write(path, buf, bt_file(buf, sizeof(buf), 10, c->cut_at, c->pdu, c->sector)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s import --from blktrace b.bt -o out.tsim", dir, th_trimsim());
	rc = th_run(cmd, NULL, &err);
	cr_expect_str_eq(err ? err : "", c->msg, "%s: stderr was:\n%s", c->name, err ? err : "");
	cr_expect_eq(rc, 1, "%s: exit %d", c->name, rc);
	snprintf(path, sizeof(path), "%s/out.tsim", dir);
	cr_expect_neq(access(path, F_OK), 0, "%s: out.tsim was left behind", c->name);
	free(err);
}

/*
 * A --device-size the records run past: one line naming the output once ("out.tsim: out.tsim: record 2"
 * named it twice), the record and the device, exit 1, nothing left behind.
 */
Test(bounds, blktrace_device_size_too_small)
{
	const char *dir = th_dir();
	char path[512], cmd[1024], buf[480], *err = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/b.bt", dir);
	cr_assert_eq(th_write(path, buf, bt_file(buf, sizeof(buf), 10, 99, 0, 0)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s import --from blktrace b.bt -o out.tsim --device-size 8K", dir,
		 th_trimsim());
	rc = th_run(cmd, NULL, &err);
	cr_expect_str_eq(err ? err : "", "trimsim import: out.tsim: record 2: offset 8192 + length 4096 is past the "
			 "end of 8:16 (8192 bytes)\n");
	cr_expect_eq(rc, 1);
	snprintf(path, sizeof(path), "%s/out.tsim", dir);
	cr_expect_neq(access(path, F_OK), 0, "out.tsim was left behind");
	free(err);
}

/* item 14: a mount point longer than 255 bytes is kept whole (it was cut silently); over PATH_MAX it is refused. */
Test(bounds, dtrace_long_mount)
{
	const char *dir = th_dir();
	char path[512], cmd[1024], mount[5000], text[5200], *out = NULL, *err = NULL;
	json_t *o;
	int rc;

	cr_assert(dir);
	memset(mount, 'm', sizeof(mount));
	mount[0] = '/';
	mount[300] = 0;
	snprintf(path, sizeof(path), "%s/d.txt", dir);
	snprintf(text, sizeof(text), "trimsim-dtrace 1\nfs ada0p2 4096 32768 %s\nfree 1 ada0p2 7 0 4096\n", mount);
	cr_assert_eq(th_write(path, text, strlen(text)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s import --from dtrace d.txt -o t.tsim && %s info --json t.tsim", dir,
		 th_trimsim(), th_trimsim());
	rc = th_run(cmd, &out, &err);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err ? err : "");
	o = json_loads(out, 0, NULL);
	cr_assert(o, "info --json: %s", out);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(json_object_get(o, "header"),
		"devices"), 0), "mount")) ?: "", mount);
	json_decref(o);
	free(out);
	free(err);
	/* Past PATH_MAX: refused, with the length. */
	mount[4500] = 0;
	memset(mount + 300, 'm', 4200);
	snprintf(text, sizeof(text), "trimsim-dtrace 1\nfs ada0p2 4096 32768 %s\n", mount);
	cr_assert_eq(th_write(path, text, strlen(text)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s import --from dtrace d.txt -o u.tsim", dir, th_trimsim());
	err = NULL;
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(err ?: "", "trimsim import: d.txt:2: mount point of 4500 bytes is longer than the trace "
			 "format's 4095\n");
	free(err);
}

/* item 16: info shows header strings with their control characters escaped, never raw. */
Test(bounds, info_escapes)
{
	static const char trace[] = "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"host\":\"h\\u001b]0;owned\\u0007\","
		"\"kernel\":\"k\\u009b31m\",\"recorder\":\"r\\\\x\",\"devices\":[{\"dev\":\"7:0\",\"name\":\"n\\u001b[2J\","
		"\"fs\":\"xfs\",\"mount\":\"/mnt/\\u001b[1m\\u00e9\"}]}}\n" FOOT(0);
	const char *dir = th_dir();
	char path[512], cmd[1024], *out = NULL;

	cr_assert(dir);
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
	cr_assert_eq(th_write(path, trace, strlen(trace)), 0);
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_expect_null(strchr(out, 0x1b), "a raw ESC reached the terminal:\n%s", out);
	cr_expect_null(strchr(out, 0x07), "a raw BEL reached the terminal");
	cr_expect_null(strstr(out, "\xc2\x9b"), "a raw C1 CSI reached the terminal");
	cr_expect(strstr(out, "recorder: r\\\\x on h\\x1b]0;owned\\x07, kernel k\\xc2\\x9b31m\n"), "%s", out);
	cr_expect(strstr(out, " n\\x1b[2J "), "%s", out);
	cr_expect(strstr(out, "xfs on /mnt/\\x1b[1m\xc3\xa9, block"), "%s", out);
	free(out);
}

/*
 * A device name from the trace becomes a path in a fio iolog, a file fio reads
 * as whitespace-separated fields and then writes to: a name with a newline
 * forged a second line ("... write 0 9" against another device). Only plain
 * kernel names are used; any other falls back to /dev/block/MAJ:MIN.
 */
Test(bounds, fio_names_are_not_lines)
{
	static const char trace[] = "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":[{\"dev\":\"7:0\","
		"\"name\":\"a\\n0 /dev/sdb write 0 9\",\"size\":1073741824}]}}\n"
		R("1000", "ISSUE", "discard", "0", "4096", "") FOOT(1);
	const char *dir = th_dir();
	char path[512], cmd[1024], *log;
	size_t len;

	cr_assert(dir);
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
	cr_assert_eq(th_write(path, trace, strlen(trace)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s export --to fio t.jsonl -o t.log", dir, th_trimsim());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	snprintf(path, sizeof(path), "%s/t.log", dir);
	log = th_slurp(path, &len);
	cr_assert(log);
	cr_expect_str_eq(log, "fio version 3 iolog\n0 /dev/block/7:0 add\n0 /dev/block/7:0 open\n"
			 "0 /dev/block/7:0 trim 0 4096\n0 /dev/block/7:0 close\n");
	free(log);
}
