/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the libFuzzer harnesses: the input as a file the parsers can open by path. */
#ifndef TRIMSIM_FUZZ_UTIL_H
#define TRIMSIM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
