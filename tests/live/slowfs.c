// SPDX-License-Identifier: GPL-2.0
/*
 * slowfs: a one-file FUSE filesystem for the live tests. It exposes /disk,
 * passed through to a real backing file, and sleeps DELAY_MS in every
 * fallocate before doing it for real. A loop device over /disk turns each
 * discard into one slow FALLOCATE (lo_fallocate() in drivers/block/loop.c ->
 * fuse_file_fallocate() in fs/fuse/file.c), which gives the tests a device
 * with a known per-TRIM delay. Contiguous discards may be merged by the block
 * layer first, so tests use non-contiguous ranges.
 *
 * usage: slowfs BACKING_FILE MOUNTPOINT DELAY_MS [fuse options]
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct slowfs {
	const char *backing;
	unsigned delay_ms;
	uint64_t fallocates;
};

static struct slowfs *ctx(void)
{
	return fuse_get_context()->private_data;
}

static int sf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	if (!strcmp(path, "/")) {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/disk"))
		return -ENOENT;
	if (stat(ctx()->backing, st))
		return -errno;
	return 0;
}

static int sf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	return 0;
}

static int sf_open(const char *path, struct fuse_file_info *fi)
{
	int fd;

	if (strcmp(path, "/disk"))
		return -ENOENT;
	fd = open(ctx()->backing, (fi->flags & O_ACCMODE) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int sf_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
	ssize_t r = pread((int)fi->fh, buf, n, off);

	(void)path;
	return r < 0 ? -errno : (int)r;
}

static int sf_write(const char *path, const char *buf, size_t n, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t r = pwrite((int)fi->fh, buf, n, off);

	(void)path;
	return r < 0 ? -errno : (int)r;
}

static int sf_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	struct timespec d = { ctx()->delay_ms / 1000, (long)(ctx()->delay_ms % 1000) * 1000000L };

	(void)path;
	nanosleep(&d, NULL);
	__atomic_add_fetch(&ctx()->fallocates, 1, __ATOMIC_RELAXED);
	return fallocate((int)fi->fh, mode, off, len) ? -errno : 0;
}

static int sf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	return (datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh)) ? -errno : 0;
}

static int sf_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static int sf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)path;
	if (fi)
		return ftruncate((int)fi->fh, size) ? -errno : 0;
	return truncate(ctx()->backing, size) ? -errno : 0;
}

static const struct fuse_operations sf_ops = {
	.getattr = sf_getattr,
	.readdir = sf_readdir,
	.open = sf_open,
	.read = sf_read,
	.write = sf_write,
	.fallocate = sf_fallocate,
	.fsync = sf_fsync,
	.release = sf_release,
	.truncate = sf_truncate,
};

int main(int argc, char **argv)
{
	static struct slowfs sf;
	char *fargv[16];
	int i, n = 0;

	if (argc < 4 || argc > 12) {
		fprintf(stderr, "usage: slowfs BACKING_FILE MOUNTPOINT DELAY_MS [fuse options]\n");
		return 2;
	}
	sf.backing = realpath(argv[1], NULL);
	sf.delay_ms = (unsigned)strtoul(argv[3], NULL, 10);
	if (!sf.backing) {
		fprintf(stderr, "slowfs: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fargv[n++] = argv[0];
	fargv[n++] = argv[2];
	for (i = 4; i < argc; i++)
		fargv[n++] = argv[i];
	fargv[n] = NULL;
	return fuse_main(n, fargv, &sf_ops, &sf);
}
