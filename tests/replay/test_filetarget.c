// SPDX-License-Identifier: GPL-2.0
/*
 * The file target needs no root: hole punching, writes, reads and flushes on
 * a temporary file through the ops table, both dispatch paths, and its
 * refusals. (The block-device target's tests are in tests/live.)
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "replay/targets/rd_core.h"
#include "replay/targets/realdev.h"
#include "traces/trace.h"

#define MIB (1024ull * 1024)

TestSuite(filetarget, .init = th_dir_init, .fini = th_dir_fini, .timeout = 60);

static void fill(const char *path, uint64_t bytes)
{
	static uint8_t buf[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t i;

	cr_assert_geq(fd, 0);
	rd_fill_random(buf, sizeof(buf), 7);
	for (i = 0; i < bytes; i += sizeof(buf))
		cr_assert_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	cr_assert_eq(fsync(fd), 0);
	close(fd);
}

static long long blocks(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	return (long long)st.st_blocks;
}

/* Submits cmds keeping the target full, reaps all; returns errors. */
static unsigned drive(void *priv, const struct target_cmd *c, unsigned n)
{
	const struct target_ops *ops = &file_target_ops;
	struct target_done d;
	unsigned sent = 0, got = 0, errors = 0;
	int rc;

	while (got < n) {
		while (sent < n && ops->inflight(priv) < ops->max_inflight(priv))
			cr_assert_eq(ops->submit(priv, &c[sent++]), 0);
		rc = ops->reap(priv, UINT64_MAX, &d);
		cr_assert_geq(rc, 0);
		if (!rc)
			continue;
		cr_assert_geq(d.done_ns, d.submit_ns);
		cr_assert_eq(d.op, c[d.tag - c[0].tag].op);
		errors += d.error != 0;
		got++;
	}
	return errors;
}

struct ft_case {
	char dispatch[8];
	unsigned qd;
};

ParameterizedTestParameters(filetarget, punch_write_read_flush)
{
	static struct ft_case c[] = { { "uring", 1 }, { "uring", 4 }, { "threads", 1 }, { "threads", 4 } };

	return cr_make_param_array(struct ft_case, c, 4);
}

ParameterizedTest(struct ft_case *p, filetarget, punch_write_read_flush)
{
	/* the file holds data (fill): --destructive */
	struct target_env env = { .seed = 3, .qd = p->qd, .quiet = true, .trace_extent = 16 * MIB, .destructive = true };
	struct target_cmd c[24];
	struct realdev_stats st;
	char path[512], arg[600], err[256] = "";
	long long before, after;
	void *priv = NULL;
	unsigned i;

	snprintf(path, sizeof(path), "%s/f.img", th_dir());
	fill(path, 8 * MIB);
	before = blocks(path);
	snprintf(arg, sizeof(arg), "%s,dispatch=%s", path, p->dispatch);
	cr_assert_eq(file_target_ops.open(arg, &env, &priv, err, sizeof(err)), 0, "%s", err);
	cr_assert(file_target_ops.realtime);
	for (i = 0; i < 16; i++)	/* 16 x 128 KiB holes, every other 256 KiB */
		c[i] = (struct target_cmd){ .tag = i, .offset = i * 256 * 1024, .length = 128 * 1024,
					    .op = TS_OP_DISCARD, .klass = TC_DISCARD };
	for (; i < 20; i++)	/* writes past the old end: the file grows (extent 16 MiB) */
		c[i] = (struct target_cmd){ .tag = i, .offset = 8 * MIB + (i - 16) * MIB, .length = 64 * 1024,
					    .op = TS_OP_WRITE };
	for (; i < 23; i++)
		c[i] = (struct target_cmd){ .tag = i, .offset = (i - 20) * MIB, .length = 4096, .op = TS_OP_READ };
	c[23] = (struct target_cmd){ .tag = 23, .op = TS_OP_FLUSH };
	cr_assert_eq(drive(priv, c, 16), 0);
	cr_assert_eq(drive(priv, c + 16, 8), 0);
	realdev__stats(priv, &st);
	file_target_ops.close(priv);
	after = blocks(path);
	cr_assert_str_eq(realdev__dispatch_name(st.dispatch), p->dispatch);
	cr_assert_eq(st.completed, 24);
	cr_assert_eq(st.discard_bytes, 16 * 128 * 1024);
	cr_assert_leq(st.max_inflight_seen, p->qd);
	/* 2 MiB punched, 4 x 64 KiB written; allow an extent-tree block per hole */
	cr_assert((before - after) * 512 <= 2 * (long long)MIB - 4 * 65536 &&
		  (before - after) * 512 >= 2 * (long long)MIB - 4 * 65536 - 16 * 4096,
		  "st_blocks %lld -> %lld", before, after);
}

Test(filetarget, refuses_what_is_not_a_regular_file)
{
	struct target_env env = { .quiet = true };
	char err[256] = "";
	void *priv = (void *)1;

	cr_assert_lt(file_target_ops.open(th_dir(), &env, &priv, err, sizeof(err)), 0);
	cr_assert_null(priv);
	cr_assert_str_eq(err, strcat(strcpy((char[600]){ 0 }, th_dir()), ": not a regular file"));
	cr_assert_lt(file_target_ops.open("", &env, &priv, err, sizeof(err)), 0);
	cr_assert_str_eq(err, "target needs a path (name:PATH[,key=value...])");
	cr_assert_lt(file_target_ops.open("/tmp/x,dispatch=warp", &env, &priv, err, sizeof(err)), 0);
	cr_assert_not_null(strstr(err, "dispatch"), "%s", err);
}

Test(filetarget, device_target_refuses_a_regular_file_without_root)
{
	struct target_env env = { .destructive = true, .quiet = true };
	char path[512], want[600], err[600] = "";
	void *priv = (void *)1;

	snprintf(path, sizeof(path), "%s/f.img", th_dir());
	fill(path, 1 * MIB);
	cr_assert_lt(device_target_ops.open(path, &env, &priv, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s: not a block device (use --file for a regular file)", path);
	cr_assert_str_eq(err, want);
	cr_assert_null(priv);
}

/*
 * --file needs --destructive for a file that holds data: lseek(SEEK_DATA)
 * finds some. A new file, an empty one and one of holes only go without, and
 * nothing is created or changed by a refusal.
 */
enum fkind { FK_NEW, FK_EMPTY, FK_SPARSE, FK_DATA, FK_DATA_DESTRUCTIVE, FK_DATA_IN_A_HOLE };

struct data_case {
	char name[24];
	enum fkind kind;
	bool refused;
};

ParameterizedTestParameters(filetarget, destructive_only_for_a_file_with_data)
{
	static struct data_case c[] = {
		{ "new", FK_NEW, false }, { "empty", FK_EMPTY, false }, { "sparse", FK_SPARSE, false },
		{ "data", FK_DATA, true }, { "data --destructive", FK_DATA_DESTRUCTIVE, false },
		{ "4 KiB in 64 MiB of holes", FK_DATA_IN_A_HOLE, true },
	};

	return cr_make_param_array(struct data_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct data_case *p, filetarget, destructive_only_for_a_file_with_data)
{
	struct target_env env = { .quiet = true, .trace_extent = 1 * MIB, .destructive = p->kind == FK_DATA_DESTRUCTIVE };
	char path[512], want[700], err[700] = "";
	struct stat before, after;
	void *priv = NULL;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/f.img", th_dir());
	if (p->kind != FK_NEW) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		cr_assert_geq(fd, 0);
		if (p->kind == FK_SPARSE || p->kind == FK_DATA_IN_A_HOLE)
			cr_assert_eq(ftruncate(fd, 64 * MIB), 0);
		if (p->kind == FK_DATA_IN_A_HOLE)
			cr_assert_eq(pwrite(fd, "x", 1, 32 * MIB), 1);
		close(fd);
		if (p->kind == FK_DATA || p->kind == FK_DATA_DESTRUCTIVE)
			fill(path, 1 * MIB);
		cr_assert_eq(stat(path, &before), 0);
	}
	cr_assert_eq(file_target_ops.check(path, &env, err, sizeof(err)), p->refused ? -EPERM : 0, "%s: %s",
		     p->name, err);
	rc = file_target_ops.open(path, &env, &priv, err, sizeof(err));
	if (!p->refused) {
		cr_assert_eq(rc, 0, "%s: %s", p->name, err);
		file_target_ops.close(priv);
		return;
	}
	snprintf(want, sizeof(want), "%s: holds data (%lld bytes, not all holes), which the replay overwrites; "
		 "add --destructive to allow it", path, (long long)before.st_size);
	cr_assert_eq(rc, -EPERM);
	cr_assert_null(priv);
	cr_assert_str_eq(err, want, "%s", p->name);
	cr_assert_eq(stat(path, &after), 0);
	cr_assert_eq(after.st_size, before.st_size, "%s: the refused file changed size", p->name);
	cr_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec,
		  "%s: the refused file was written", p->name);
}

/*
 * Write zeroes are replayed (they failed with EOPNOTSUPP before): on a file a
 * hole punch, as the loop driver does (lo_fallocate()); the range reads back zero.
 */
Test(filetarget, write_zeroes_read_back_zero)
{
	struct target_env env = { .quiet = true, .trace_extent = 4 * MIB, .destructive = true };
	struct target_cmd c = { .tag = 0, .offset = 1 * MIB + 512, .length = 256 * 1024, .op = TS_OP_WRITE_ZEROES };
	static uint8_t buf[256 * 1024];
	char path[512], err[256] = "";
	void *priv = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/z.img", th_dir());
	fill(path, 4 * MIB);
	cr_assert_eq(file_target_ops.open(path, &env, &priv, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(drive(priv, &c, 1), 0, "a write-zeroes command failed");
	file_target_ops.close(priv);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, buf, sizeof(buf), (off_t)c.offset), (ssize_t)sizeof(buf));
	close(fd);
	for (size_t i = 0; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0, "byte %zu of the zeroed range is %u", i, buf[i]);
}

/*
 * The trace's extent covers its free-space snapshots: fstrim discards there, past every FREE.
 * The file was sized to the last FREE (1 MiB + 64 KiB), its 32 MiB of hole punching past the
 * end did nothing, and the result counted them as discarded without an error (a device that
 * size passed the size check, then failed those discards with EINVAL).
 */
Test(filetarget, extent_covers_the_free_space_snapshot)
{
	static const char trace[] =
		"{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"revision\":1,\"start_ns\":1000,"
		"\"devices\":[{\"dev\":\"7:9\",\"name\":\"loop9\",\"size\":67108864,\"logical_block_size\":512,"
		"\"physical_block_size\":512,\"discard_granularity\":4096,\"discard_max_bytes\":4294966784,"
		"\"max_discard_segments\":1,\"fs\":\"ext4\",\"fs_block_size\":4096,\"mount\":\"/mnt\","
		"\"partition_start\":0}]}}\n"
		"{\"t\":1000,\"kind\":\"META\",\"op\":\"freespace\",\"dev\":\"7:9\",\"off\":33554432,\"len\":33554432,"
		"\"ino\":0,\"lat\":0,\"flags\":\"ext4\"}\n"
		"{\"t\":2000,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:9\",\"off\":1048576,\"len\":65536,\"ino\":12,"
		"\"lat\":0,\"flags\":\"ext4\"}\n"
		"{\"footer\":{\"records\":2,\"lost\":0,\"end_ns\":3000}}\n";
	char tpath[512], img[512], cmd[1500], *out = NULL, *err = NULL;
	struct stat st;
	FILE *f;

	snprintf(tpath, sizeof(tpath), "%s/snap.jsonl", th_dir());
	snprintf(img, sizeof(img), "%s/snap.img", th_dir());
	cr_assert_not_null(f = fopen(tpath, "w"));
	cr_assert_geq(fputs(trace, f), 0);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s replay %s -p 'fstrim(interval=1d)' --file %s --timing asap --json",
		 th_trimsim(), tpath, img);
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s: %s", cmd, err);
	cr_assert_eq(stat(img, &st), 0);
	cr_assert_eq(st.st_size, 64 * MIB, "the file reaches the snapshot's end: %lld", (long long)st.st_size);
	cr_assert(strstr(out, "\"bytes\": 33619968"), "32 MiB + 64 KiB discarded: %s", out);
	free(out);
	free(err);
}

/*
 * A partition's trace (offsets on the whole disk, the partition 1 MiB in) replays in the
 * partition's own layout (target_env.base): the file is the partition's size, a discard at
 * disk offset 1 MiB + 64 KiB punches the file at 64 KiB, and a range before the partition
 * is refused. Before, the file grew to 1 MiB + the partition, and a device of the
 * partition's size was refused as "smaller than the trace's extent".
 */
Test(filetarget, a_partitions_trace_in_its_own_layout)
{
	struct target_env env = { .quiet = true, .trace_extent = 1 * MIB + 4 * MIB, .base = 1 * MIB,
				  .destructive = true };
	struct target_cmd c = { .tag = 0, .offset = 1 * MIB + 65536, .length = 65536, .op = TS_OP_DISCARD,
				.klass = TC_DISCARD };
	char path[512], err[256] = "";
	struct stat st;
	void *priv = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/p.img", th_dir());
	fill(path, 4 * MIB);
	cr_assert_eq(file_target_ops.open(path, &env, &priv, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(drive(priv, &c, 1), 0);
	c.offset = MIB - 4096;	/* fails as a command does on the device: counted, the replay exits 1 */
	cr_expect_eq(drive(priv, &c, 1), 1, "a range before the partition");
	file_target_ops.close(priv);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_size, 4 * MIB, "the file is the partition's size: %lld", (long long)st.st_size);
	cr_assert_geq(fd = open(path, O_RDONLY), 0);
	cr_expect_eq(lseek(fd, 0, SEEK_HOLE), 65536);
	cr_expect_eq(lseek(fd, 65536, SEEK_DATA), 131072);
	close(fd);
}
