/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the libFuzzer harnesses: the input as a file the parsers can open by path. */
#ifndef TRIMSIM_FUZZ_UTIL_H
#define TRIMSIM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * An anonymous in-memory file holding pre[0..plen) then data[0..size), named
 * /proc/self/fd/N in path. Returns the fd (close it), -1 on failure.
 */
static inline int fuzz_memfile(const void *pre, size_t plen, const uint8_t *data, size_t size,
			       char *path, size_t pathlen)
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return -1;
	if ((plen && write(fd, pre, plen) != (ssize_t)plen) ||
	    (size && write(fd, data, size) != (ssize_t)size)) {
		close(fd);
		return -1;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

/*
 * TRIMSIM_FUZZ_RING=DIR in the environment: each input, before it runs, is written to
 * DIR/PID-NNNNNNNNNN (NNNNNNNNNN counts this process's inputs) and the one FUZZ_RING_KEEP
 * inputs older is removed, so the last FUZZ_RING_KEEP executed inputs are on disk when the
 * process dies outside an execution (libFuzzer writes a crash file only for a fault inside
 * one; heap corruption that glibc detects later, in the mutator, leaves nothing): replay
 * them through the ASan+UBSan build. Off (nothing written) without the variable.
 */
#define FUZZ_RING_KEEP 64
static inline void fuzz_ring_keep(const uint8_t *data, size_t size)
{
	static const char *dir;
	static unsigned long long seq;
	static int on = -1;
	char path[4096];
	int fd;

	if (on < 0)
		on = (dir = getenv("TRIMSIM_FUZZ_RING")) && *dir;
	if (!on)
		return;
	snprintf(path, sizeof(path), "%s/%d-%010llu", dir, (int)getpid(), seq);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd)) {
		fprintf(stderr, "fuzz harness: TRIMSIM_FUZZ_RING: %s: %s\n", path, strerror(errno));
		_exit(1);
	}
	if (seq >= FUZZ_RING_KEEP) {
		snprintf(path, sizeof(path), "%s/%d-%010llu", dir, (int)getpid(), seq - FUZZ_RING_KEEP);
		unlink(path);
	}
	seq++;
}

/* Splits data at the first NUL: *a = [0, n) and *b the rest; b empty when there is no NUL. */
static inline void fuzz_split(const uint8_t *data, size_t size, size_t *alen, const uint8_t **b, size_t *blen)
{
	size_t i = 0;

	while (i < size && data[i])
		i++;
	*alen = i;
	*b = i < size ? data + i + 1 : data + size;
	*blen = i < size ? size - i - 1 : 0;
}

#endif
