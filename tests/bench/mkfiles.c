// SPDX-License-Identifier: GPL-2.0
/*
 * Creates the discard storm's victims for tests/bench/bench.sh:
 *   mkfiles DIR NFILES SIZE
 * NFILES files of SIZE bytes (non-zero data, so each owns an extent) in
 * DIR/dNNN subdirectories of 1000 files each; DIR must exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char data[1 << 20];
	char path[4096];
	long n, size;

	if (argc != 4 || (n = atol(argv[2])) < 1 || (size = atol(argv[3])) < 1 || size > (long)sizeof(data)) {
		fprintf(stderr, "usage: mkfiles DIR NFILES SIZE (SIZE 1..%zu)\n", sizeof(data));
		return 2;
	}
	memset(data, 0x5a, sizeof(data));
	for (long i = 0; i < n; i++) {
		int fd;

		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/d%03ld", argv[1], i / 1000);
			if (mkdir(path, 0755) && errno != EEXIST) {
				fprintf(stderr, "mkfiles: %s: %s\n", path, strerror(errno));
				return 1;
			}
		}
		snprintf(path, sizeof(path), "%s/d%03ld/f%ld", argv[1], i / 1000, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, data, (size_t)size) != (ssize_t)size || close(fd)) {
			fprintf(stderr, "mkfiles: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}
