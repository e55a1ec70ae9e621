// SPDX-License-Identifier: GPL-2.0
/* The JSON header every trace carries (traces/FORMAT.md, "Header"). */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/util.h"

#ifndef TRIMSIM_VERSION
#define TRIMSIM_VERSION "0"
#endif

static int set(json_t *h, const char *key, json_t *v)
{
	return v ? json_object_set_new(h, key, v) : -1;
}

json_t *trace_header__new(int argc, char **argv)
{
	json_t *h = json_object(), *cmd = json_array();
	struct utsname u;
	struct timespec now;
	struct tm tm;
	char when[64], kernel[sizeof(u.release) + sizeof(u.version) + 2];
	int bad = !h || !cmd;

	if (uname(&u)) {
		memset(&u, 0, sizeof(u));
	}
	snprintf(kernel, sizeof(kernel), "%s %s", u.release, u.version);
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, now.tv_nsec);
	for (int i = 0; !bad && i < argc; i++)
		bad |= json_array_append_new(cmd, json_string(argv[i] ? argv[i] : ""));
	if (!bad) {
		bad |= set(h, "format", json_string("trimsim"));
		bad |= set(h, "version", json_integer(TS_HEADER_VERSION));
		bad |= set(h, "revision", json_integer(TS_REVISION));
		bad |= set(h, "recorder", json_string("trimsim " TRIMSIM_VERSION));
		bad |= set(h, "host", json_string(u.nodename));
		bad |= set(h, "kernel", json_string(kernel));
		bad |= set(h, "start_wall", json_string(when));
		bad |= set(h, "start_ns", json_integer((json_int_t)ts_now_ns()));
		bad |= set(h, "cmdline", json_incref(cmd));
		bad |= set(h, "devices", json_array());
	}
	json_decref(cmd);
	if (bad) {
		json_decref(h);
		return NULL;
	}
	return h;
}
