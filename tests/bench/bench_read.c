// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reading speed: trace_reader__batch over a file versus a plain read()
 * loop over the same bytes (both touch every record). Prints one line:
 *   read: records=N reader_eps=X plain_eps=Y ratio=R
 * Runs each REPEAT times (default 5) and reports medians.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/util.h"

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
	static char buf[256 * 1024];
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	double rd[32], pl[32];
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
		count = c;

		fd = open(argv[1], O_RDONLY);
		t0 = ts_now_ns();
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
	}
	double a = median(rd, reps), b = median(pl, reps);

	printf("read: records=%" PRIu64 " reader_eps=%.0f plain_eps=%.0f ratio=%.2f (sink %" PRIu64 ")\n",
	       count, a, b, a / b, sink & 1);
	return 0;
}
