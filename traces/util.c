// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

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

int ts_path_errf(char *err, size_t errlen, int code, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return code;
	n = snprintf(err, errlen, "%s: ", path);
	if (n >= 0 && (size_t)n < errlen) {	/* a path longer than err: the message is cut there */
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
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

int ts_dev_read(const char *path, uint32_t *dev)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f) || ts_dev_parse(strtok(buf, "\n"), dev))
		ret = -EINVAL;
	fclose(f);
	return ret;
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

static bool cli_has(int argc, char **argv, const char *s, const char *l)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], s) || !strcmp(argv[i], l))
			return true;
	}
	return false;
}

bool cli_wants_help(int argc, char **argv)
{
	return cli_has(argc, argv, "-h", "--help");
}

bool cli_wants_version(int argc, char **argv)
{
	return cli_has(argc, argv, "-V", "--version");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "trimsim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see 'trimsim %s --help'\n", cmd);
	return 2;
}

size_t cli_edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[3][64], *p2 = d[0], *p1 = d[1], *c = d[2];

	if (la >= 64 || lb >= 64)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		p1[j] = j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = p1[j - 1] + cost;

			if (p1[j] + 1 < v)
				v = p1[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && p2[j - 2] + 1 < v)
				v = p2[j - 2] + 1;
			c[j] = v;
		}
		size_t *t = p2;

		p2 = p1, p1 = c, c = t;
	}
	return p1[lb];
}

/*
 * The option of the help text nearest to arg (its name up to '='), within two
 * edits and less than half its length; "" if none. The options are the tokens
 * starting with '-' of the usage line and of the option lines ("  -o, --output
 * FILE   text": up to the two spaces before the text), as man.awk reads them.
 */
static void nearest_option(const char *arg, const char *help, char *best, size_t len)
{
	size_t la = strcspn(arg, "="), bestd = 3;
	bool usage = false;

	best[0] = 0;
	for (const char *line = help; line && *line;) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line), *p = line;

		if (!strncmp(line, "usage: ", 7))
			usage = true;
		else if (*line != ' ')
			usage = false;
		while (p < end && *p == ' ')
			p++;
		if (usage || (p > line && *p == '-')) {
			const char *stop = usage ? end : p;

			while (!usage && stop < end && !(stop[0] == ' ' && stop + 1 < end && stop[1] == ' '))
				stop++;
			while (p < stop) {
				size_t n, d;

				while (p < stop && *p != '-')
					p++;
				n = strspn(p, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
				if (p + n > stop)
					n = (size_t)(stop - p);
				if (n >= 2 && n < len && p[1] != ' ' && (p == line || p[-1] == ' ' || p[-1] == '[' ||
									 p[-1] == ',')) {
					d = cli_edit_distance(arg, la, p, n);
					if (d && d < bestd && 2 * d < n) {
						bestd = d;
						snprintf(best, len, "%.*s", (int)n, p);
					}
				}
				p += n ? n : 1;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

int cli_unknown_option(const char *cmd, const char *arg, void (*usage)(FILE *))
{
	return cli_unknown_option_for(cmd, arg, NULL, usage);
}

int cli_unknown_option_for(const char *cmd, const char *arg, const char *what, void (*usage)(FILE *))
{
	char *help = NULL, near[64] = "";
	size_t n = 0;
	FILE *f = usage ? open_memstream(&help, &n) : NULL;

	if (f) {
		usage(f);
		if (!fclose(f))
			nearest_option(arg, help, near, sizeof(near));
	}
	free(help);
	if (arg[0] != '-')
		return cli_usage_error(cmd, "unexpected argument '%s'", arg);
	return cli_usage_error(cmd, "unknown option '%.*s'%s%s%s%s%s", (int)strcspn(arg, "="), arg,
			       what ? " for " : "", what ? what : "", near[0] ? " (did you mean '" : "", near,
			       near[0] ? "'?)" : "");
}

int cli_getopt_error(const char *cmd, int c, char **argv, void (*usage)(FILE *))
{
	const char *arg = argv[optind - 1];
	char s[3] = { '-', (char)optopt, 0 };

	/*
	 * glibc: an unknown long option leaves optopt 0 and argv[optind - 1] naming it;
	 * an unknown short one sets optopt, and inside a cluster ("-Zq") optind has not
	 * moved past it yet. A missing value: argv[optind - 1] is the option's word.
	 */
	if (c == '?' ? optopt != 0 : strncmp(arg, "--", 2) != 0)
		arg = s;
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	return cli_unknown_option(cmd, arg, usage);
}

const char *cli_input(const char *path)
{
	return strcmp(path, "-") ? path : "/dev/stdin";
}

int cli_input_twice(const char *cmd, const char *path, const char *why)
{
	struct stat sb;

	if (stat(cli_input(path), &sb) || S_ISREG(sb.st_mode))
		return 0;
	return cli_usage_error(cmd, "%s: %s reads its input more than once (%s): give a file, not a pipe",
			       path, cmd, why);
}

/* Every growable array in the tree grows here (util.h). */
int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Every ring in the tree grows here (util.h). */
int grow_ring(void **ring, size_t *cap, size_t *head, size_t n, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 64, first = n < *cap - *head ? n : *cap - *head;
	char *p = malloc(ncap * elem);

	if (!p)
		return -ENOMEM;
	if (n) {	/* from head to the end, then what wrapped to the start */
		memcpy(p, (char *)*ring + *head * elem, first * elem);
		memcpy(p + first * elem, *ring, (n - first) * elem);
	}
	free(*ring);
	*ring = p;
	*cap = ncap;
	*head = 0;
	return 0;
}

int ts_write_all(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	size_t n = 0;
	int ret = 0;

	while (n < len) {
		ssize_t w = write(fd, p + n, len - n);

		if (w < 0 && errno == EINTR && !trimsim_stop)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		n += (size_t)w;
	}
	if (done)
		*done = n;
	return ret;
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
