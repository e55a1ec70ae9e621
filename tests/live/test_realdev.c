// SPDX-License-Identifier: GPL-2.0
/*
 * The device and file targets driven through their ops tables, on loop
 * devices (root). Discards must really free the backing file's blocks, every
 * command must come back with a real latency, and QD > 1 must overlap.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "tests/live/live.h"
#include "replay/targets/realdev.h"
#include "traces/trace.h"

#define MIB (1024ull * 1024)

TestSuite(realdev, .init = lv_init, .fini = lv_fini, .timeout = 120);

struct run_result {
	unsigned done, errors;
	uint64_t min_lat, max_lat;
	struct realdev_stats st;
};

/* n discards of len bytes, every other slot of len (never contiguous), at the target's QD. */
static void run_discards(const struct target_ops *ops, void *priv, unsigned n, uint64_t len,
			 struct run_result *r)
{
	struct target_done d;
	unsigned sent = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->min_lat = UINT64_MAX;
	while (r->done < n) {
		while (sent < n && ops->inflight(priv) < ops->max_inflight(priv)) {
			struct target_cmd c = { .tag = sent, .offset = 2 * sent * len, .length = len,
						.op = TS_OP_DISCARD, .klass = TC_DISCARD };

			cr_assert_eq(ops->submit(priv, &c), 0);
			sent++;
		}
		rc = ops->reap(priv, UINT64_MAX, &d);
		cr_assert_geq(rc, 0, "reap: %s", strerror(-rc));
		if (!rc)
			continue;
		cr_assert_geq(d.done_ns, d.submit_ns);
		cr_assert_eq(d.bytes, len);
		r->errors += d.error != 0;
		r->min_lat = d.done_ns - d.submit_ns < r->min_lat ? d.done_ns - d.submit_ns : r->min_lat;
		r->max_lat = d.done_ns - d.submit_ns > r->max_lat ? d.done_ns - d.submit_ns : r->max_lat;
		r->done++;
	}
	realdev__stats(priv, &r->st);
}

/*
 * st_blocks counts the extent tree too: splitting an extent around a hole can
 * cost ext4 an index block (ext4_ext_remove_space() in fs/ext4/extents.c), so
 * allow one 4 KiB block per discard on top of exact.
 */
static void assert_freed(long long before, long long after, uint64_t want)
{
	long long freed = (before - after) * 512;

	cr_assert(freed <= (long long)want && freed >= (long long)want - 16 * 4096,
		  "freed %lld bytes, discarded %llu", freed, (unsigned long long)want);
}

struct disp_case {
	char dispatch[16];
	unsigned qd;
};

static struct disp_case disp_cases[] = {
	{ .dispatch = "uring", .qd = 1 },
	{ .dispatch = "uring", .qd = 8 },
	{ .dispatch = "threads", .qd = 1 },
	{ .dispatch = "threads", .qd = 8 },
};

ParameterizedTestParameters(realdev, device_discards_free_blocks)
{
	return cr_make_param_array(struct disp_case, disp_cases,
				   sizeof(disp_cases) / sizeof(disp_cases[0]));
}

ParameterizedTest(struct disp_case *p, realdev, device_discards_free_blocks)
{
	const char *img = lv_path("disk.img"), *dev;
	struct target_env env = { .seed = 1, .qd = p->qd, .destructive = true, .quiet = true,
				  .trace_extent = 32 * MIB };
	struct run_result r;
	char arg[128], err[256] = "";
	long long before, after;
	void *priv = NULL;

	lv_mkfile(img, 64);
	dev = lv_loop(img, NULL);
	before = lv_blocks(img);
	snprintf(arg, sizeof(arg), "%s,dispatch=%s", dev, p->dispatch);
	cr_assert_eq(device_target_ops.open(arg, &env, &priv, err, sizeof(err)), 0, "%s", err);
	run_discards(&device_target_ops, priv, 16, 1 * MIB, &r);
	device_target_ops.close(priv);
	after = lv_blocks(img);
	cr_log_info("%s qd=%u: st_blocks %lld -> %lld (-%lld bytes), latency %.1f..%.1f us, max in flight %u",
		    p->dispatch, p->qd, before, after, (before - after) * 512, r.min_lat / 1e3,
		    r.max_lat / 1e3, r.st.max_inflight_seen);
	cr_assert_eq(r.errors, 0);
	cr_assert_eq(r.done, 16);
	cr_assert_str_eq(realdev__dispatch_name(r.st.dispatch), p->dispatch);
	assert_freed(before, after, 16 * MIB);
	cr_assert_gt(r.min_lat, 0);
	if (p->qd == 1)
		cr_assert_eq(r.st.max_inflight_seen, 1);
}

ParameterizedTestParameters(realdev, file_punches_holes)
{
	return cr_make_param_array(struct disp_case, disp_cases,
				   sizeof(disp_cases) / sizeof(disp_cases[0]));
}

ParameterizedTest(struct disp_case *p, realdev, file_punches_holes)
{
	const char *img = lv_path("file.img");
	/* the file holds data (lv_mkfile): --destructive */
	struct target_env env = { .seed = 1, .qd = p->qd, .quiet = true, .trace_extent = 32 * MIB, .destructive = true };
	struct run_result r;
	char arg[600], err[256] = "";
	long long before, after;
	void *priv = NULL;

	lv_mkfile(img, 64);
	before = lv_blocks(img);
	snprintf(arg, sizeof(arg), "%s,dispatch=%s", img, p->dispatch);
	cr_assert_eq(file_target_ops.open(arg, &env, &priv, err, sizeof(err)), 0, "%s", err);
	run_discards(&file_target_ops, priv, 16, 1 * MIB, &r);
	file_target_ops.close(priv);
	after = lv_blocks(img);
	cr_assert_eq(r.errors, 0);
	cr_assert_eq(r.done, 16);
	assert_freed(before, after, 16 * MIB);
}

/* On slowfs every discard takes >= 20 ms, so QD 4 must hold several at once. */
ParameterizedTestParameters(realdev, qd_overlaps_on_slow_device)
{
	static struct disp_case c[] = {
		{ .dispatch = "uring", .qd = 4 },
		{ .dispatch = "threads", .qd = 4 },
	};

	return cr_make_param_array(struct disp_case, c, 2);
}

ParameterizedTest(struct disp_case *p, realdev, qd_overlaps_on_slow_device)
{
	const char *back = lv_path("tmpfs/back.img"), *mnt = lv_path("slow"), *dev;
	struct target_env env = { .seed = 1, .qd = p->qd, .destructive = true, .quiet = true };
	struct run_result r;
	char arg[128], err[256] = "";
	void *priv = NULL;

	lv_tmpfs(lv_path("tmpfs"), 32);
	lv_mkfile(back, 16);
	lv_slowfs(back, mnt, 20);
	dev = lv_loop(lv_path("slow/disk"), NULL);
	snprintf(arg, sizeof(arg), "%s,dispatch=%s", dev, p->dispatch);
	cr_assert_eq(device_target_ops.open(arg, &env, &priv, err, sizeof(err)), 0, "%s", err);
	run_discards(&device_target_ops, priv, 8, 64 * 1024, &r);
	device_target_ops.close(priv);
	cr_log_info("%s qd=%u on slowfs(20 ms): latency %.1f..%.1f ms, max in flight %u", p->dispatch,
		    p->qd, r.min_lat / 1e6, r.max_lat / 1e6, r.st.max_inflight_seen);
	cr_assert_eq(r.errors, 0);
	cr_assert_geq(r.min_lat, 20000000ull, "a discard finished faster than the injected delay");
	cr_assert_gt(r.st.max_inflight_seen, 1);
}

Test(realdev, writes_reads_flush_on_device)
{
	const char *img = lv_path("disk.img"), *dev;
	struct target_env env = { .seed = 1, .qd = 4, .destructive = true, .quiet = true };
	static const uint8_t ops[] = { TS_OP_WRITE, TS_OP_READ, TS_OP_FLUSH, TS_OP_WRITE };
	struct target_done d;
	char err[256] = "", cmd[256];
	unsigned long long gz;
	void *priv = NULL;
	unsigned i, got = 0;
	int rc;

	lv_mkfile(img, 32);
	dev = lv_loop(img, NULL);
	cr_assert_eq(device_target_ops.open(dev, &env, &priv, err, sizeof(err)), 0, "%s", err);
	for (i = 0; i < 4; i++) {
		/* 5 MiB write spans two chunks; odd offset is rounded to the block size */
		struct target_cmd c = { .tag = i, .offset = i * 4 * MIB + 512, .length = 5 * MIB,
					.op = ops[i], .klass = TC_FOREGROUND };

		cr_assert_eq(device_target_ops.submit(priv, &c), 0);
	}
	while (got < 4) {
		rc = device_target_ops.reap(priv, UINT64_MAX, &d);
		cr_assert_geq(rc, 0);
		if (!rc)
			continue;
		cr_assert_eq(d.error, 0, "op %u: %s", d.op, strerror(-d.error));
		got++;
	}
	device_target_ops.close(priv);
	/* what landed at [512, 1 MiB + 512) is the seeded pattern: gzip cannot shrink it */
	snprintf(cmd, sizeof(cmd), "dd if=%s bs=512 skip=1 count=2048 2>/dev/null | gzip -c | wc -c", dev);
	gz = strtoull(lv_sh(cmd), NULL, 10);
	cr_assert_gt(gz, MIB, "1 MiB written compressed to %llu bytes", (unsigned long long)gz);
}
