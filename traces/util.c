// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "traces/trace.h"
#include "traces/util.h"

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

/* Decimal digits only, as ts_dev_str() writes them (strtoul() would also take " 7", "+7" and "-0"). */
static const char *dev_part(const char *s, unsigned long max, unsigned long *v)
{
	unsigned long x = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (unsigned long)(*p - '0');
		if (x > max)
			return NULL;
	}
	*v = x;
	return p == s ? NULL : p;
}

int ts_dev_parse(const char *s, uint32_t *dev)
{
	unsigned long ma, mi;

	if (!(s = dev_part(s, 0xfff, &ma)) || *s != ':' || !(s = dev_part(s + 1, 0xfffff, &mi)) || *s)
		return -EINVAL;
	*dev = TS_DEV_MK((uint32_t)ma, (uint32_t)mi);
	return 0;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong form, no surrogate, <= U+10FFFF), 0 if none. */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned c = p[0], n, min, v;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, v = c & 0x07;
	else
		return 0;
	for (unsigned i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	return n;
}

size_t ts_utf8_invalid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; p[i];) {
		size_t n = utf8_seq(p + i);

		if (!n)
			return i;
		i += n;
	}
	return (size_t)-1;
}

/*
 * A terminal prints what it is sent: escape sequences in a trace's host name
 * or a device's mount point would move the cursor, retitle the window or
 * worse. Printable text (ASCII and valid UTF-8 beyond the C1 controls) goes
 * through; a control character, a C1 control, a byte that is not UTF-8 and
 * the backslash itself become \xNN and \\.
 */
char *ts_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, i = 0;

	if (!len)
		return buf;
	while (p[i]) {
		size_t n = utf8_seq(p + i);
		char tmp[8];
		const char *out = tmp;
		size_t k;

		if (p[i] == '\\')
			out = "\\\\", n = 1;
		else if (!n || p[i] < 0x20 || p[i] == 0x7f || (p[i] == 0xc2 && p[i + 1] < 0xa0))
			snprintf(tmp, sizeof(tmp), "\\x%02x", p[i]), n = 1;
		else
			out = (const char *)p + i;
		k = out == tmp || out[0] == '\\' ? strlen(out) : n;
		if (o + k >= len)
			break;
		memcpy(buf + o, out, k);
		o += k;
		i += n;
	}
	buf[o] = 0;
	return buf;
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
