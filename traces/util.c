// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "trace.h"
#include "util.h"

volatile sig_atomic_t trimsim_stop;

int ts_errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

char *ts_dev_str(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", TS_DEV_MAJOR(dev), TS_DEV_MINOR(dev));
	return buf;
}

int ts_dev_parse(const char *s, uint32_t *dev)
{
	char *end;
	unsigned long ma, mi;

	errno = 0;
	ma = strtoul(s, &end, 10);
	if (errno || end == s || *end != ':' || ma > 0xfff)
		return -EINVAL;
	s = end + 1;
	mi = strtoul(s, &end, 10);
	if (errno || end == s || *end || mi > 0xfffff)
		return -EINVAL;
	*dev = TS_DEV_MK((uint32_t)ma, (uint32_t)mi);
	return 0;
}

uint64_t ts_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

/*
 * The umask without changing it: Linux >= 4.7 shows it in /proc/self/status
 * (fs/proc/array.c: task_state(), "Umask:"); otherwise set and restore it.
 */
unsigned ts_create_mode(unsigned want)
{
	char line[128];
	unsigned mask = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Umask: %o", &mask) == 1;
	if (f)
		fclose(f);
	if (!found) {
		mask = umask(022);
		umask(mask);
	}
	return want & ~mask & 0777;
}
