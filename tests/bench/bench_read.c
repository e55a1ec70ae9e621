// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reading speed: trace_reader__batch over a file versus a plain read()
 * loop over the same bytes. Both touch every record (one 8-byte field per 48
 * bytes); the plain loop neither checks nor checksums, the reader does both.
 * The reader maps a regular file (traces/reader.c); for reference a third
 * loop touches the same words of a plain mapping (MADV_SEQUENTIAL, no checks).
 * Prints one line:
 *   read: records=N reader_eps=X plain_eps=Y ratio=R cpu_reader_eps=X cpu_plain_eps=Y cpu_ratio=R
 *         cpu_plainmap_eps=Z
 * Runs each REPEAT times (default 5) and reports medians; the cpu_ figures
 * divide by this process's user + system time instead of wall time, which a
 * machine shared with other work disturbs less.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/util.h"

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	/* 5461 records: chunks end on 48-byte steps, so every word touched is the same field. */
	static char buf[5461 * 48] __attribute__((aligned(64)));
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	double rd[32], pl[32], crd[32], cpl[32], cmp[32];
	uint64_t count = 0, sink = 0;

	if (argc < 2 || reps < 1 || reps > 32) {
		fprintf(stderr, "usage: bench_read TRACE [REPEAT]\n");
		return 2;
	}
	for (int i = 0; i < reps; i++) {
		char err[512];
		struct trace_reader *r = trace_reader__open(argv[1], err, sizeof(err));
		const struct ts_record *recs;
		ssize_t n;
		uint64_t t0 = ts_now_ns(), c = 0;
		double c0 = cpu_s();
		int fd;

		if (!r) {
			fprintf(stderr, "bench_read: %s\n", err);
			return 1;
		}
		while ((n = trace_reader__batch(r, &recs, 4096)) > 0) {
			for (ssize_t k = 0; k < n; k++)
				sink += recs[k].length;
			c += (uint64_t)n;
		}
		if (n < 0) {
			fprintf(stderr, "bench_read: %s\n", trace_reader__error(r));
			return 1;
		}
		trace_reader__close(r);
		rd[i] = (double)c / ((double)(ts_now_ns() - t0) / 1e9);
		crd[i] = (double)c / (cpu_s() - c0);
		count = c;

		fd = open(argv[1], O_RDONLY);
		t0 = ts_now_ns();
		c0 = cpu_s();
		for (;;) {
			ssize_t got = read(fd, buf, sizeof(buf));

			if (got <= 0)
				break;
			for (ssize_t k = 0; k + 48 <= got; k += 48) {
				uint64_t len;

				memcpy(&len, buf + k + 16, sizeof(len));
				sink += len;
			}
		}
		close(fd);
		pl[i] = (double)count / ((double)(ts_now_ns() - t0) / 1e9);
		cpl[i] = (double)count / (cpu_s() - c0);

		/* Reference only: the same words through a plain mapping, unmapped as it goes. */
		fd = open(argv[1], O_RDONLY);
		c0 = cpu_s();
		{
			struct stat sb;
			const size_t win = 64u << 20;

			if (fd < 0 || fstat(fd, &sb)) {
				fprintf(stderr, "bench_read: %s: cannot open\n", argv[1]);
				return 1;
			}
			for (off_t at = 0; at < sb.st_size; at += (off_t)win) {
				size_t len = (size_t)(sb.st_size - at) < win ? (size_t)(sb.st_size - at) : win;
				const char *m = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, at);

				if (m == MAP_FAILED) {
					perror("bench_read: mmap");
					return 1;
				}
				madvise((void *)m, len, MADV_SEQUENTIAL);
				for (size_t k = 0; k + 48 <= len; k += 48) {
					uint64_t w;

					memcpy(&w, m + k + 16, sizeof(w));
					sink += w;
				}
				munmap((void *)m, len);
			}
		}
		close(fd);
		cmp[i] = (double)count / (cpu_s() - c0);
	}
	double a = median(rd, reps), b = median(pl, reps), ca = median(crd, reps), cb = median(cpl, reps);

	printf("read: records=%" PRIu64 " reader_eps=%.0f plain_eps=%.0f ratio=%.2f cpu_reader_eps=%.0f"
	       " cpu_plain_eps=%.0f cpu_ratio=%.2f cpu_plainmap_eps=%.0f (sink %" PRIu64 ")\n",
	       count, a, b, a / b, ca, cb, ca / cb, median(cmp, reps), sink & 1);
	return 0;
}
