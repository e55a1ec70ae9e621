// SPDX-License-Identifier: GPL-2.0
/*
 * Untrusted trace values that are legal but extreme: replay must finish (a
 * 20 s timeout catches a hang), stay deterministic and count what the kernel
 * would do. A zero-length discard is no command (block/blk-lib.c:
 * __blkdev_issue_discard() issues no bio for nr_sects == 0); the last
 * representable time (2^63 - 1 ns) and a range ending exactly at the device's
 * last byte replay like any other.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

struct extreme {
	char name[40];
	char recs[400];		/* JSON Lines records after the header */
	char policy[64];
	char model[48];
	long commands;		/* discard.commands in the result */
	long long bytes;	/* discard.bytes */
};

#define HDR "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\"," \
	"\"name\":\"loop7\",\"size\":1073741824,\"logical_block_size\":512,\"physical_block_size\":4096," \
	"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1,\"fs\":\"xfs\"}]}}\n"
#define R(t, kind, op, off, len) "{\"t\":" t ",\"kind\":\"" kind "\",\"op\":\"" op "\",\"dev\":\"7:0\",\"off\":" \
	off ",\"len\":" len ",\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"

TestSuite(untrusted, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(untrusted, extreme)
{
	static struct extreme t[] = {
		{ .name = "zero-length intent", .recs = R("1000", "INTENT", "none", "4096", "0"),
		  .policy = "passthrough", .model = "sata-sf2281" },
		{ .name = "zero-length issue", .recs = R("1000", "ISSUE", "discard", "4096", "0"),
		  .policy = "as-recorded", .model = "nvme" },
		{ .name = "zero and real",
		  .recs = R("1000", "INTENT", "none", "4096", "0") R("2000", "INTENT", "none", "8192", "4096"),
		  .policy = "passthrough", .model = "sata-sf2281", .commands = 1, .bytes = 4096 },
		{ .name = "last byte of the device", .recs = R("1000", "INTENT", "none", "1073737728", "4096"),
		  .policy = "passthrough", .model = "ftl-sata:capacity=1G", .commands = 1, .bytes = 4096 },
		{ .name = "whole device", .recs = R("1000", "INTENT", "none", "0", "1073741824"),
		  .policy = "passthrough", .model = "sata-sf2281", .commands = 1, .bytes = 1073741824 },
		{ .name = "time 2^63-1", .recs = R("\"9223372036854775807\"", "FREE", "none", "0", "4096"),
		  .policy = "xfs", .model = "sata-sf2281", .commands = 1, .bytes = 4096 },
		{ .name = "time 1 then 2^63-1",
		  .recs = R("1", "FREE", "none", "0", "4096")
			  R("\"9223372036854775807\"", "FREE", "none", "8192", "4096"),
		  .policy = "source(free) | batch(window=1s) | sort | merge | dispatch(qd=4)", .model = "nvme",
		  .commands = 2, .bytes = 8192 },
		{ .name = "backwards time",
		  .recs = R("5000", "INTENT", "none", "0", "4096") R("1000", "INTENT", "none", "4096", "4096"),
		  .policy = "passthrough", .model = "sata-sf2281", .commands = 2, .bytes = 8192 },
	};
	return cr_make_param_array(struct extreme, t, sizeof(t) / sizeof(t[0]));
}

static json_t *replay(const char *dir, const struct extreme *x, int n)
{
	char path[600], cmd[1600], *err = NULL;
	json_error_t jerr;
	json_t *res;
	int rc;

	snprintf(cmd, sizeof(cmd), "cd %s && timeout 20 %s replay t.jsonl -p '%s' -M '%s' -q --timing %s -o r%d.json",
		 dir, th_trimsim(), x->policy, x->model, n ? "asap" : "trace", n);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", x->name, rc, err ? err : "");
	free(err);
	snprintf(path, sizeof(path), "%s/r%d.json", dir, n);
	res = json_load_file(path, 0, &jerr);
	cr_assert(res, "%s: %s", x->name, jerr.text);
	return res;
}

ParameterizedTest(struct extreme *x, untrusted, extreme, .timeout = 60)
{
	char path[600], text[1200];
	json_t *a, *b, *d;

	snprintf(path, sizeof(path), "%s/t.jsonl", th_dir());
	snprintf(text, sizeof(text), "%s%s", HDR, x->recs);
	cr_assert_eq(th_write(path, text, strlen(text)), 0);
	a = replay(th_dir(), x, 0);
	d = json_object_get(a, "discard");
	cr_expect_eq(json_integer_value(json_object_get(d, "commands")), x->commands, "%s: commands", x->name);
	cr_expect_eq(json_integer_value(json_object_get(d, "bytes")), x->bytes, "%s: bytes", x->name);
	/* Same again with --timing asap: the same commands, whatever the clock does. */
	b = replay(th_dir(), x, 1);
	d = json_object_get(b, "discard");
	cr_expect_eq(json_integer_value(json_object_get(d, "commands")), x->commands, "%s: asap commands", x->name);
	json_decref(a);
	json_decref(b);
}
