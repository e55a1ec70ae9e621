// SPDX-License-Identifier: GPL-2.0
/*
 * The device and file targets: open (with the safety checks), report, close;
 * everything in between is the dispatch core (rd_core.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include "traces/util.h"
#include "replay/targets/rd_core.h"
#include "replay/targets/rd_safety.h"
#include "replay/targets/realdev.h"

struct rd_opts {
	unsigned dispatch;	/* enum realdev_dispatch */
	uint32_t qd;
	uint64_t seed;
};


static const char *const dispatch_names[] = { "auto", "uring", "threads", NULL };

static const struct opt_spec rd_opt_table[] = {
	{ "dispatch", OPT_ENUM, offsetof(struct rd_opts, dispatch), 0, 0, "auto",
	  "uring: io_uring (block discard command, Linux 6.12+); threads: BLKDISCARD/fallocate "
	  "thread pool; auto: uring if the kernel has it", dispatch_names },
	{ "qd", OPT_U32, offsetof(struct rd_opts, qd), 0, 1024, "0",
	  "queue depth (0: the engine's --qd, else 32)" },
	{ "seed", OPT_U64, offsetof(struct rd_opts, seed), 0, 1.8e19, "0",
	  "seed of the incompressible write data (0: the engine's --seed)" },
	{ 0 }
};

struct rd_target {
	struct rd_io *io;
	int fd;
	bool is_bdev;
	struct rd_bdev_info bi;	/* block device */
	char path[PATH_MAX];
	unsigned qd;
	uint64_t base;		/* target_env.base */
};

const char *realdev__dispatch_name(enum realdev_dispatch d)
{
	return d <= RD_DISPATCH_THREADS ? dispatch_names[d] : "?";
}

/* "PATH[,k=v...]" into path and options. */
static int parse_arg(const char *arg, const struct target_env *env, char *path, size_t plen,
		     struct rd_opts *o, char *err, size_t errlen)
{
	const char *comma = arg ? strchr(arg, ',') : NULL;
	size_t n = comma ? (size_t)(comma - arg) : (arg ? strlen(arg) : 0);
	int rc;

	if (!n)
		return ts_errf(err, errlen, -EINVAL, "target needs a path (name:PATH[,key=value...])");
	if (n >= plen)
		return ts_errf(err, errlen, -ENAMETOOLONG, "%.64s...: path too long", arg);
	memcpy(path, arg, n);
	path[n] = '\0';
	rc = opts__defaults(rd_opt_table, o, err, errlen);
	if (!rc && comma)
		rc = opts__parse_kv(rd_opt_table, o, comma + 1, ',', err, errlen);
	if (rc)
		return rc;
	if (!o->qd)
		o->qd = env && env->qd ? env->qd : REALDEV_DEFAULT_QD;
	if (env && !o->seed)
		o->seed = env->seed;
	return 0;
}

unsigned realdev__qd(const char *arg, unsigned env_qd)
{
	struct target_env env = { .qd = env_qd };
	char path[PATH_MAX], err[256];
	struct rd_opts o;

	return parse_arg(arg, &env, path, sizeof(path), &o, err, sizeof(err)) ? 0 : o.qd;
}

static void rt_close(void *priv)
{
	struct rd_target *t = priv;

	if (!t)
		return;
	rd_io__free(t->io);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

static struct rd_target *rt_new(void)
{
	struct rd_target *t = calloc(1, sizeof(*t));

	if (t)
		t->fd = -1;
	return t;
}

static int start_io(struct rd_target *t, const struct rd_opts *o, uint32_t align,
		    uint32_t gran, uint64_t dmax, bool direct, char *err, size_t errlen)
{
	struct rd_io_conf c = {
		.fd = t->fd, .is_bdev = t->is_bdev, .direct = direct, .qd = o->qd,
		.dispatch = (enum realdev_dispatch)o->dispatch, .seed = o->seed,
		.align = align, .granularity = gran, .discard_max = dmax, .base = t->base,
	};
	char why[256] = "";

	t->qd = o->qd;
	t->io = rd_io__new(&c, why, sizeof(why));
	if (!t->io)
		return ts_errf(err, errlen, -errno, "%s: %s", t->path, why);
	return 0;
}

static struct rd_want want_of(const struct target_env *env)
{
	uint64_t base = env ? env->base : 0;

	return (struct rd_want){ .extent = env && env->trace_extent > base ? env->trace_extent - base : 0,
				 .destructive = env && env->destructive,
				 .action = env ? env->action : NULL };
}

static int device_check(const char *arg, const struct target_env *env, char *err, size_t errlen)
{
	struct rd_want w = want_of(env);
	struct rd_bdev_info bi;
	char path[PATH_MAX];
	struct rd_opts o;
	int rc = parse_arg(arg, env, path, sizeof(path), &o, err, errlen);

	return rc ? rc : rd_check_device(path, &w, &bi, err, errlen);
}

static int device_open(const char *arg, const struct target_env *env, void **priv,
		       char *err, size_t errlen)
{
	struct rd_target *t = rt_new();
	struct rd_want w = want_of(env);
	struct rd_opts o;
	char sz[32];
	uint64_t bytes = 0;
	int rc;

	if (!t)
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	t->base = env ? env->base : 0;
	rc = parse_arg(arg, env, t->path, sizeof(t->path), &o, err, errlen);
	if (!rc)
		rc = rd_check_device(t->path, &w, &t->bi, err, errlen);
	if (rc)
		goto out;
	t->is_bdev = true;
	t->fd = open(t->path, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		ts_errf(err, errlen, rc, "%s: %s", t->path, rc == -EBUSY ?
			"busy (opened exclusively elsewhere); refusing to touch it" : strerror(-rc));
		goto out;
	}
	if (!ioctl(t->fd, BLKGETSIZE64, &bytes))
		t->bi.size = bytes;
	/* always, even with --quiet: the user must see what is about to be lost */
	fprintf(stderr, "trimsim: DESTROYING data on %s (%s, %s, model: %s)\n", t->path,
		t->bi.name, fmt_bytes(t->bi.size, sz, sizeof(sz)), t->bi.model);
	rc = start_io(t, &o, t->bi.lbs, t->bi.granularity ? t->bi.granularity : t->bi.lbs,
		      t->bi.discard_max, true, err, errlen);
out:
	if (rc) {
		rt_close(t);
		t = NULL;
	}
	*priv = t;
	return rc;
}

/* O_DIRECT where the filesystem has it (tmpfs does not); buffered otherwise. */
static int open_file(const char *path, bool *direct)
{
	int fd = open(path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);

	*direct = fd >= 0;
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	return fd;
}

static int file_check(const char *arg, const struct target_env *env, char *err, size_t errlen)
{
	struct rd_want w = want_of(env);
	char path[PATH_MAX];
	struct rd_opts o;
	int rc = parse_arg(arg, env, path, sizeof(path), &o, err, errlen);

	return rc ? rc : rd_check_file(path, &w, err, errlen);
}

static int file_open(const char *arg, const struct target_env *env, void **priv,
		     char *err, size_t errlen)
{
	struct rd_target *t = rt_new();
	struct rd_want w = want_of(env);
	struct rd_opts o;
	struct stat st;
	bool direct = false;
	int rc;

	if (!t)
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	t->base = env ? env->base : 0;
	rc = parse_arg(arg, env, t->path, sizeof(t->path), &o, err, errlen);
	if (!rc)
		rc = rd_check_file(t->path, &w, err, errlen);
	if (rc)
		goto out;
	t->fd = open_file(t->path, &direct);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		rc = ts_errf(err, errlen, -errno, "%s: %s", t->path, strerror(errno));
		goto out;
	}
	if (w.extent > (uint64_t)st.st_size && ftruncate(t->fd, (off_t)w.extent)) {
		rc = ts_errf(err, errlen, -errno, "%s: extending to %" PRIu64 " bytes: %s", t->path, w.extent,
			     strerror(errno));
		goto out;
	}
	rc = start_io(t, &o, 4096, (uint32_t)st.st_blksize, 0, direct, err, errlen);
out:
	if (rc) {
		rt_close(t);
		t = NULL;
	}
	*priv = t;
	return rc;
}

static int rt_submit(void *priv, const struct target_cmd *cmd)
{
	return rd_io__submit(((struct rd_target *)priv)->io, cmd);
}

static int rt_reap(void *priv, uint64_t until_ns, struct target_done *out)
{
	return rd_io__reap(((struct rd_target *)priv)->io, until_ns, out);
}

static uint64_t rt_next_done(void *priv) { return rd_io__next_done(((struct rd_target *)priv)->io); }
static unsigned rt_inflight(void *priv) { return rd_io__inflight(((struct rd_target *)priv)->io); }
static unsigned rt_max_inflight(void *priv) { return ((struct rd_target *)priv)->qd; }
static uint64_t rt_clock(void *priv) { return rd_io__clock(((struct rd_target *)priv)->io); }

void realdev__stats(void *priv, struct realdev_stats *out)
{
	rd_io__stats(((struct rd_target *)priv)->io, out);
}

static int rt_report(void *priv, json_t *obj)
{
	struct rd_target *t = priv;
	struct realdev_stats s;
	int rc = 0;

	rd_io__stats(t->io, &s);
	rc |= json_object_set_new(obj, "path", json_string(t->path));
	rc |= json_object_set_new(obj, "dispatch", json_string(realdev__dispatch_name(s.dispatch)));
	rc |= json_object_set_new(obj, "qd", json_integer(t->qd));
	rc |= json_object_set_new(obj, "max_inflight_seen", json_integer(s.max_inflight_seen));
	rc |= json_object_set_new(obj, "commands", json_integer((json_int_t)s.completed));
	rc |= json_object_set_new(obj, "errors", json_integer((json_int_t)s.errors));
	rc |= json_object_set_new(obj, "discard_bytes", json_integer((json_int_t)s.discard_bytes));
	rc |= json_object_set_new(obj, "write_bytes", json_integer((json_int_t)s.write_bytes));
	if (t->is_bdev) {
		rc |= json_object_set_new(obj, "device", json_string(t->bi.name));
		rc |= json_object_set_new(obj, "size_bytes", json_integer((json_int_t)t->bi.size));
		rc |= json_object_set_new(obj, "model", json_string(t->bi.model));
	}
	return rc ? -ENOMEM : 0;
}

/* Everything but open and check is one implementation for a device and a file: say it once. */
#define RD_HOOKS							\
	.opts = rd_opt_table, .realtime = true, .submit = rt_submit, .reap = rt_reap,	\
	.next_done = rt_next_done, .inflight = rt_inflight, .max_inflight = rt_max_inflight, \
	.clock = rt_clock, .report = rt_report, .close = rt_close

const struct target_ops device_target_ops = {
	.name = "device",
	.help = "a real block device: DESTROYS its data (--destructive); async discard at a queue "
		"depth (io_uring block discard command, or a BLKDISCARD thread pool), O_DIRECT "
		"writes of incompressible data, reads, flushes",
	.open = device_open,
	.check = device_check,
	RD_HOOKS,
};

const struct target_ops file_target_ops = {
	.name = "file",
	.help = "a regular file (created and extended as needed): discards punch holes "
		"(fallocate PUNCH_HOLE|KEEP_SIZE), writes write; a file that holds data needs --destructive",
	.open = file_open,
	.check = file_check,
	RD_HOOKS,
};
