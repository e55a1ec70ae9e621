// SPDX-License-Identifier: GPL-2.0
/* Outputs written the way coreutils write theirs (output.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "traces/output.h"
#include "traces/util.h"

#define STREAM_BUF (64u << 10)

struct output {
	char *path;		/* as given, for messages */
	char *target;		/* the file the temporary replaces (atomic) */
	char *tmp;		/* the temporary, until renamed */
	FILE *f;		/* stdio over fd, made on first use */
	int fd;
	bool own_fd;		/* false for an inherited descriptor ("-", /dev/fd/N) */
	int werr;		/* errno of the first failed write through f */
};

/* "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: N; any other path: -1. */
static int named_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(path, dirs[i], len) || path[len] < '0' || path[len] > '9')
			continue;
		errno = 0;
		n = strtol(path + len, &end, 10);
		if (!errno && !*end && n <= INT_MAX)
			return (int)n;
	}
	return -1;
}

static int open_named(struct output *o, int fd, char *err, size_t errlen)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return ts_path_errf(err, errlen, -EBADF, o->path, "descriptor %d is not open for writing", fd);
	if (fd == STDOUT_FILENO && fflush(stdout))	/* what was printed before comes first */
		return ts_path_errf(err, errlen, -errno, o->path, "%s", strerror(errno));
	o->fd = fd;
	return 0;
}

/* A temporary beside target, with the mode the file will have. */
static int open_tmp(struct output *o, const char *target, const struct stat *old, char *err, size_t errlen)
{
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
	int dirlen = slash ? (int)(slash - target + 1) : 0, e;
	char *tmp;

	if (!*base)
		return ts_path_errf(err, errlen, -EISDIR, o->path, "%s", strerror(EISDIR));
	if (!(o->target = strdup(target)))
		return ts_path_errf(err, errlen, -ENOMEM, o->path, "out of memory");
	/* NAME_MAX: keep ".NAME.XXXXXX" a legal file name whatever NAME's length */
	if (asprintf(&tmp, "%.*s.%.200s.XXXXXX", dirlen, target, base) < 0)
		return ts_path_errf(err, errlen, -ENOMEM, o->path, "out of memory");
	o->fd = mkostemp(tmp, O_CLOEXEC);
	if (o->fd < 0) {
		e = errno;
		free(tmp);
		return ts_path_errf(err, errlen, -e, o->path, "cannot create a file in %.*s: %s", dirlen ? dirlen : 1,
			     dirlen ? target : ".", strerror(e));
	}
	o->tmp = tmp;	/* from here on, output__abort() unlinks it */
	o->own_fd = true;
	/* mkostemp() made it 0600: a new file gets the umask's mode, a replaced one keeps its own */
	if (fchmod(o->fd, old ? old->st_mode & 0777 : ts_create_mode(0666)))
		return ts_path_errf(err, errlen, -errno, o->path, "chmod %s: %s", o->tmp, strerror(errno));
	return 0;
}

/* The recorder's file, written in place: created exclusively, or the very file looked at, truncated. */
static int open_stream(struct output *o, const char *target, const struct stat *old, char *err, size_t errlen)
{
	struct stat now;

	if (!old)
		o->fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
	else
		o->fd = open(target, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0)
		return ts_path_errf(err, errlen, -errno, o->path, "%s", strerror(errno));
	o->own_fd = true;
	if (old && (fstat(o->fd, &now) || now.st_dev != old->st_dev || now.st_ino != old->st_ino))
		return ts_path_errf(err, errlen, -EAGAIN, o->path, "replaced while being opened; not written");
	if (old && ftruncate(o->fd, 0))
		return ts_path_errf(err, errlen, -errno, o->path, "truncate: %s", strerror(errno));
	return 0;
}

/* Character devices and FIFOs: the thing itself, never created, truncated or replaced. */
static int open_direct(struct output *o, const char *target, char *err, size_t errlen)
{
	struct stat now;

	o->fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0)
		return ts_path_errf(err, errlen, -errno, o->path, "%s", strerror(errno));
	o->own_fd = true;
	if (fstat(o->fd, &now) || S_ISREG(now.st_mode) || S_ISDIR(now.st_mode) || S_ISBLK(now.st_mode))
		return ts_path_errf(err, errlen, -EAGAIN, o->path, "replaced while being opened; not written");
	return 0;
}

/* target: the path itself, or the target of the symlink it is; old: what is there, NULL if nothing. */
static int open_target(struct output *o, const char *target, const struct stat *old, enum output_mode mode,
		       char *err, size_t errlen)
{
	if (old && S_ISDIR(old->st_mode))
		return ts_path_errf(err, errlen, -EISDIR, o->path, "%s", strerror(EISDIR));
	if (old && S_ISBLK(old->st_mode))
		return ts_path_errf(err, errlen, -EINVAL, o->path, "is a block device; outputs go to files, pipes or "
			     "character devices, never over a device");
	if (old && !S_ISREG(old->st_mode))
		return open_direct(o, target, err, errlen);
	return mode == OUTPUT_STREAM ? open_stream(o, target, old, err, errlen)
				     : open_tmp(o, target, old, err, errlen);
}

static int open_path(struct output *o, enum output_mode mode, char *err, size_t errlen)
{
	struct stat st;
	char *real;
	int ret;

	if (lstat(o->path, &st)) {
		if (errno != ENOENT)
			return ts_path_errf(err, errlen, -errno, o->path, "%s", strerror(errno));
		return open_target(o, o->path, NULL, mode, err, errlen);
	}
	if (!S_ISLNK(st.st_mode))
		return open_target(o, o->path, &st, mode, err, errlen);
	/* A symlink is the user's way of naming its target: write that, keep the link. */
	real = realpath(o->path, NULL);
	if (!real && errno == ENOENT)
		return ts_path_errf(err, errlen, -ENOENT, o->path, "dangling symbolic link; not writing through it");
	if (!real)
		return ts_path_errf(err, errlen, -errno, o->path, "%s", strerror(errno));
	if (stat(real, &st))
		ret = ts_path_errf(err, errlen, -errno, o->path, "%s: %s", real, strerror(errno));
	else
		ret = open_target(o, real, &st, mode, err, errlen);
	free(real);
	return ret;
}

struct output *output__open(const char *path, enum output_mode mode, char *err, size_t errlen)
{
	struct output *o = calloc(1, sizeof(*o));
	int fd, ret;

	if (!o || !(o->path = strdup(path))) {
		free(o);
		ts_path_errf(err, errlen, 0, path, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	o->fd = -1;
	fd = named_fd(path);
	ret = fd >= 0 ? open_named(o, fd, err, errlen) : open_path(o, mode, err, errlen);
	if (ret) {
		output__abort(o);
		errno = -ret;
		return NULL;
	}
	return o;
}

int output__fd(const struct output *o)
{
	return o->fd;
}

int output__error(const struct output *o)
{
	return o->werr;
}

const char *output__path(const struct output *o)
{
	return o->path;
}

bool output__names_stdout(const char *path)
{
	return named_fd(path) == STDOUT_FILENO;
}

/* The stream's writes: all of buf, or 0 with the errno kept for the message. */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct output *o = cookie;
	size_t done;
	int ret = ts_write_all(o->fd, buf, len, &done);

	if (ret && !o->werr)
		o->werr = -ret;
	return (ssize_t)done;
}

FILE *output__file(struct output *o)
{
	static const cookie_io_functions_t io = { .write = stream_write };

	if (!o->f) {
		o->f = fopencookie(o, "w", io);
		if (o->f)
			setvbuf(o->f, NULL, _IOFBF, STREAM_BUF);
	}
	return o->f;
}

int output__commit(struct output *o, char *err, size_t errlen)
{
	int ret = 0;

	if (o->f) {
		if (fflush(o->f) || ferror(o->f) || o->werr)
			ret = o->werr == EINTR && trimsim_stop ? ts_path_errf(err, errlen, -EINTR, o->path, "interrupted")
				: ts_path_errf(err, errlen, -(o->werr ? o->werr : EIO), o->path, "write: %s",
					strerror(o->werr ? o->werr : EIO));
		fclose(o->f);	/* the stream's only resource is its buffer: the descriptor is ours */
		o->f = NULL;
	}
	if (!ret && o->tmp && fsync(o->fd))
		ret = ts_path_errf(err, errlen, -errno, o->path, "fsync: %s", strerror(errno));
	if (o->own_fd) {
		if (close(o->fd) && !ret)
			ret = ts_path_errf(err, errlen, -errno, o->path, "close: %s", strerror(errno));
		o->own_fd = false;
		o->fd = -1;
	}
	if (!ret && o->tmp && trimsim_stop)	/* an interrupted command leaves nothing behind */
		ret = ts_path_errf(err, errlen, -EINTR, o->path, "interrupted");
	if (!ret && o->tmp) {
		if (rename(o->tmp, o->target))
			ret = ts_path_errf(err, errlen, -errno, o->path, "rename from %s: %s", o->tmp, strerror(errno));
		else {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	output__abort(o);
	return ret;
}

void output__abort(struct output *o)
{
	if (!o)
		return;
	if (o->f)
		fclose(o->f);
	if (o->own_fd)
		close(o->fd);
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
	}
	free(o->target);
	free(o->path);
	free(o);
}

const char *output__ext(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path, *dot = strrchr(base, '.');

	return dot && dot != base && dot[1] ? dot : NULL;
}

int output__check_ext(const char *opt, const char *path, const char *ext, const char *what, char *err,
		      size_t errlen)
{
	const char *has = output__ext(path);

	if (has && strcasecmp(has, ext))
		return ts_errf(err, errlen, -EINVAL, "%s %s: unknown extension '%s' (%s: %s)", opt, path, has, what,
			       ext);
	return 0;
}
