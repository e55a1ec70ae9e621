// SPDX-License-Identifier: GPL-2.0
/*
 * eBPF backend: probes the running kernel for each attach variant, loads the
 * CO-RE object (trimsim.bpf.c) with the device filter and settings, and
 * drains the ring buffer. Variants are chosen by what exists and loads here,
 * never by kernel version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tracer/recorder.h"
#include "tracer/trimsim.skel.h"
#include "traces/util.h"

struct bpf_state {
	struct trimsim_bpf *skel;
	struct ring_buffer *rb;
	struct recorder *r;	/* during poll */
	int cb_err;
	int ncpus;
	uint64_t *lost_seen;	/* per CPU, already reported */
	uint64_t *lost_now;
	char notes[512];
};

/* A tracepoint exists if tracefs lists it (libbpf attaches classic tracepoints through its id). */
static bool tp_exists(const char *cat, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", rec_tracefs_dir(), cat, name);
	return access(path, R_OK) == 0;
}

/* Number of arguments of a BTF tracepoint (btf_trace_<name> typedef), -1 if absent. */
static int tp_btf_args(const struct btf *btf, const char *name)
{
	char tname[128];
	const struct btf_type *t;
	int id;

	if (!btf)
		return -1;
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__resolve_type(btf, id) > 0 ? (__u32)btf__resolve_type(btf, id) : 0);
	while (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1;	/* minus the void *ctx */
}

/* Does an fentry program on func load and attach here? (EPERM on locked-down kernels.) */
static int fentry_probe(const struct btf *btf, const char *func)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY);
	int id, fd, link, rc = 0;

	id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) : -1;
	if (id < 0)
		return -ENOENT;
	o.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "probe", "GPL", insns, 2, &o);
	if (fd < 0)
		return -errno;
	link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link < 0)
		rc = -errno;
	else
		close(link);
	close(fd);
	return rc;
}

/* kprobes need CONFIG_KPROBE_EVENTS (a kprobe_events file) and a traceable symbol. */
static int kprobe_probe(const char *func)
{
	char path[256], line[256];
	int rc = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_events", rec_tracefs_dir());
	if (access(path, F_OK))
		return -EOPNOTSUPP;
	snprintf(path, sizeof(path), "%s/available_filter_functions", rec_tracefs_dir());
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (rc && fgets(line, sizeof(line), f))
		if (!strncmp(line, func, strlen(func)) && (line[strlen(func)] == '\n' ||
							   line[strlen(func)] == ' '))
			rc = 0;
	fclose(f);
	return rc;
}

struct tp_prog {
	const char *cat, *name;
	size_t prog_off;	/* offsetof(struct trimsim_bpf, progs.X) */
};

#define TP(c, n) { #c, #n, offsetof(struct trimsim_bpf, progs.n) }
static const struct tp_prog fs_tps[] = {
	TP(ext4, ext4_free_blocks), TP(ext4, ext4_mballoc_alloc), TP(ext4, ext4_mballoc_discard),
	TP(ext4, ext4_discard_blocks), TP(ext4, ext4_trim_extent), TP(jbd2, jbd2_end_commit),
	TP(xfs, xfs_free_extent), TP(xfs, xfs_alloc_vextent_finish), TP(xfs, xfs_alloc_exact_done),
	TP(xfs, xfs_alloc_near_first), TP(xfs, xfs_alloc_size_done), TP(xfs, xfs_discard_extent),
	TP(xfs, xlog_iclog_callbacks_start), TP(syscalls, sys_enter_ioctl), TP(syscalls, sys_exit_ioctl),
};

static struct bpf_program *prog_at(struct trimsim_bpf *s, size_t off)
{
	return *(struct bpf_program **)((char *)s + off);
}

static void note(struct bpf_state *st, const char *fmt, const char *a, int e)
{
	size_t n = strlen(st->notes);

	snprintf(st->notes + n, sizeof(st->notes) - n, fmt, a, e ? strerror(-e) : "");
}

static int choose_variants(struct bpf_state *st, const struct rec_config *cfg, char *err, size_t errlen)
{
	struct trimsim_bpf *s = st->skel;
	struct btf *btf = btf__load_vmlinux_btf();
	int nargs, rc = 0, fe, kp;

	if (!btf) {
		rc = ts_errf(err, errlen, -ENOENT, "eBPF: no kernel BTF (/sys/kernel/btf/vmlinux)");
		goto out;
	}
	for (size_t i = 0; i < sizeof(fs_tps) / sizeof(fs_tps[0]); i++)
		bpf_program__set_autoload(prog_at(s, fs_tps[i].prog_off),
					  tp_exists(fs_tps[i].cat, fs_tps[i].name));
	/* The allocator rework made xfs_alloc_vextent_finish the one place allocations finish. */
	if (tp_exists("xfs", "xfs_alloc_vextent_finish")) {
		bpf_program__set_autoload(s->progs.xfs_alloc_exact_done, false);
		bpf_program__set_autoload(s->progs.xfs_alloc_near_first, false);
		bpf_program__set_autoload(s->progs.xfs_alloc_size_done, false);
	}
	nargs = tp_btf_args(btf, "block_rq_issue");
	if (nargs < 1 || tp_btf_args(btf, "block_rq_complete") < 3) {
		rc = ts_errf(err, errlen, -ENOENT, "eBPF: no BTF tracepoint block_rq_issue/complete");
		goto out;
	}
	s->rodata->blk_tp_has_q = nargs == 2;	/* core_fixes.bpf.h */
	fe = fentry_probe(btf, "__blkdev_issue_discard");
	kp = fe ? kprobe_probe("__blkdev_issue_discard") : -EALREADY;
	bpf_program__set_autoload(s->progs.fentry_issue_discard, !fe);
	bpf_program__set_autoload(s->progs.kprobe_issue_discard, fe && !kp);
	bpf_program__set_autoload(s->progs.block_bio_queue, fe && kp);
	if (!fe)
		note(st, "bio: fentry %s%s", "__blkdev_issue_discard", 0);
	else if (!kp)
		note(st, "bio: kprobe %s (fentry: %s)", "__blkdev_issue_discard", fe);
	else
		note(st, "bio: %s (fentry/kprobe unavailable: %s)", "block_bio_queue", fe);
	s->rodata->trace_io = cfg->io;
	s->rodata->filter_on = true;
out:
	btf__free(btf);
	return rc;
}

static int set_filter(struct bpf_state *st, const struct rec_config *cfg, char *err, size_t errlen)
{
	int fd = bpf_map__fd(st->skel->maps.filter);

	for (size_t i = 0; i < cfg->ndevs; i++) {
		const struct rec_dev *d = &cfg->devs[i];
		struct tr_filter self = { 0, ~0ull, d->d.dev, d->disk_dev == d->d.dev };
		struct tr_filter disk = { d->start_sect, d->start_sect + d->nr_sect, d->d.dev, 1 };

		if (bpf_map_update_elem(fd, &d->d.dev, &self, BPF_ANY) ||
		    (d->disk_dev != d->d.dev && bpf_map_update_elem(fd, &d->disk_dev, &disk, BPF_ANY)))
			return ts_errf(err, errlen, -errno, "eBPF: device filter: %s", strerror(errno));
	}
	return 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct bpf_state *st = ctx;

	if (len < sizeof(struct tr_event))
		return 0;
	st->cb_err = recorder__event(st->r, data);
	return st->cb_err;
}

static void bpf_close(void *p)
{
	struct bpf_state *st = p;

	if (!st)
		return;
	ring_buffer__free(st->rb);
	trimsim_bpf__destroy(st->skel);
	free(st->lost_seen);
	free(st->lost_now);
	free(st);
}

static int silent(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l; (void)fmt; (void)ap;
	return 0;
}

static uint32_t ringbuf_pages(uint64_t want)
{
	uint64_t sz = 4096;

	while (sz < want && sz < (1ull << 30))
		sz <<= 1;
	return (uint32_t)sz;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

/*
 * The capabilities loading tracepoint programs needs that this process lacks, in
 * buf ("" if none). kernel/bpf/syscall.c: bpf_prog_load() wants bpf_capable() and,
 * for tracing program types, perfmon_capable() (include/linux/capability.h: each
 * is CAP_BPF / CAP_PERFMON, or CAP_SYS_ADMIN). Root with them dropped (a container,
 * setpriv --bounding-set) gets EPERM from the kernel; this names the reason.
 */
static void missing_caps(char *buf, size_t len)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	bool admin;

	buf[0] = 0;
	if (syscall(SYS_capget, &h, d))
		return;
	admin = has_cap(d, CAP_SYS_ADMIN);
	snprintf(buf, len, "%s%s%s", admin || has_cap(d, CAP_BPF) ? "" : "CAP_BPF",
		 admin || has_cap(d, CAP_BPF) || has_cap(d, CAP_PERFMON) ? "" : " and ",
		 admin || has_cap(d, CAP_PERFMON) ? "" : "CAP_PERFMON");
}

static void *bpf_open(const struct rec_config *cfg, char *err, size_t errlen)
{
	char caps[64];
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	struct bpf_state *st = calloc(1, sizeof(*st));
	int rc;

	if (!st) {
		ts_errf(err, errlen, -ENOMEM, "eBPF: out of memory");
		return NULL;
	}
	if (geteuid() != 0) {
		ts_errf(err, errlen, -EPERM, "eBPF: needs root (CAP_BPF and CAP_PERFMON)");
		goto fail;
	}
	missing_caps(caps, sizeof(caps));
	if (caps[0]) {
		ts_errf(err, errlen, -EPERM, "eBPF: missing %s (or CAP_SYS_ADMIN)", caps);
		goto fail;
	}
	if (getenv("TRIMSIM_NO_BPF")) {
		ts_errf(err, errlen, -ENOTSUP, "eBPF: disabled by TRIMSIM_NO_BPF");
		goto fail;
	}
	setrlimit(RLIMIT_MEMLOCK, &rl);	/* pre-5.11 kernels charge maps to it; failure is not fatal */
	if (!getenv("TRIMSIM_BPF_DEBUG"))
		libbpf_set_print(silent);
	st->ncpus = libbpf_num_possible_cpus();
	st->lost_seen = calloc(st->ncpus > 0 ? st->ncpus : 1, sizeof(uint64_t));
	st->lost_now = calloc(st->ncpus > 0 ? st->ncpus : 1, sizeof(uint64_t));
	st->skel = trimsim_bpf__open();
	if (st->ncpus <= 0 || !st->lost_seen || !st->lost_now || !st->skel) {
		ts_errf(err, errlen, -errno, "eBPF: cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (choose_variants(st, cfg, err, errlen))
		goto fail;
	if (cfg->ringbuf_size)
		bpf_map__set_max_entries(st->skel->maps.events, ringbuf_pages(cfg->ringbuf_size));
	/* trimsim.bpf.c submit_flags(): wake the consumer early only past a quarter of the buffer */
	st->skel->rodata->wakeup_bytes = bpf_map__max_entries(st->skel->maps.events) / 4;
	rc = trimsim_bpf__load(st->skel);
	if (rc) {
		ts_errf(err, errlen, rc, "eBPF: loading the programs failed: %s", strerror(-rc));
		goto fail;
	}
	if (set_filter(st, cfg, err, errlen))
		goto fail;
	rc = trimsim_bpf__attach(st->skel);
	if (rc) {
		ts_errf(err, errlen, rc, "eBPF: attaching failed: %s", strerror(-rc));
		goto fail;
	}
	st->rb = ring_buffer__new(bpf_map__fd(st->skel->maps.events), on_event, st, NULL);
	if (!st->rb) {
		ts_errf(err, errlen, -errno, "eBPF: ring buffer: %s", strerror(errno));
		goto fail;
	}
	return st;
fail:
	bpf_close(st);
	return NULL;
}

/* Per-CPU failed reservations since the last call become META_LOST records. */
static int report_lost(struct bpf_state *st)
{
	__u32 zero = 0;
	int rc;

	if (bpf_map__lookup_elem(st->skel->maps.lost_events, &zero, sizeof(zero), st->lost_now,
				 sizeof(uint64_t) * st->ncpus, 0))
		return -errno;
	for (int c = 0; c < st->ncpus; c++)
		if ((rc = recorder__lost(st->r, c, st->lost_now[c], &st->lost_seen[c])))
			return rc;
	return 0;
}

/*
 * Records arrive without wakeups (trimsim.bpf.c submit_flags()): epoll returns on a
 * forced wakeup (a quarter of the buffer waiting) or after timeout_ms, and whatever
 * is in the buffer then is consumed either way. So a record waits at most
 * timeout_ms (the record loop's 100 ms) plus the time to drain the ones before it.
 */
static int bpf_poll(void *p, struct recorder *r, int timeout_ms)
{
	struct bpf_state *st = p;
	int n, m;

	st->r = r;
	st->cb_err = 0;
	n = ring_buffer__poll(st->rb, timeout_ms);
	if (st->cb_err)
		return st->cb_err;
	if (n < 0 && n != -EINTR)
		return n;
	n = n < 0 ? 0 : n;
	m = ring_buffer__consume(st->rb);
	if (st->cb_err)
		return st->cb_err;
	if (m < 0)
		return m;
	return report_lost(st) ?: n + m;
}

/* End of recording: everything still in the buffer, without waiting. */
static int bpf_drain(void *p, struct recorder *r)
{
	return bpf_poll(p, r, 0);
}

/* The recorded command's first thread: trimsim.bpf.c follows its forks and flags its discards. */
static int bpf_follow(void *p, int tid)
{
	struct bpf_state *st = p;
	__u32 key = (__u32)tid;
	__u8 one = 1;
	int rc = bpf_map__update_elem(st->skel->maps.workload, &key, sizeof(key), &one, sizeof(one), BPF_ANY);

	return rc < 0 ? rc : 0;	/* libbpf 1.x: -errno */
}

static const char *bpf_notes(void *p)
{
	return ((struct bpf_state *)p)->notes;
}

const struct rec_backend_ops rec_bpf_ops = {
	.name = "bpf",
	.open = bpf_open,
	.poll = bpf_poll,
	.drain = bpf_drain,
	.follow = bpf_follow,
	.notes = bpf_notes,
	.close = bpf_close,
};
