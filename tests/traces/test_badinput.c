// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input: every broken file gives one exact line on stderr naming the file
 * and the byte offset (binary) or line (JSON Lines), a non-zero exit, and no
 * sanitizer report (any would land on stderr and fail the comparison).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "gen.h"

/* The base file: gen_trace(5 records): header 488 bytes, records at 488..727, footer 728..775. */
#define HDR 488
#define REC(i) (HDR + 48 * (i))
#define FOOTER REC(5)

struct bad {
	char name[40];
	long cut;		/* truncate to this many bytes; -1 keeps the length */
	long at;		/* overwrite bytes[0..n) here; -1 for none */
	unsigned char bytes[24];
	int n;
	int append;		/* bytes of junk to append */
	char jsonl[400];	/* if set, the file is this text instead */
	char msg[240];		/* expected stderr, %s = the file's path */
	bool report;		/* a summary is still printed on stdout */
};

#define JH "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":[]}}\n"
#define JR(fields) "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":0," fields "}\n"
#define JOK JR("\"len\":4096,\"ino\":0,\"lat\":0,\"flags\":\"\"")
#define JF(n) "{\"footer\":{\"records\":" #n ",\"lost\":0,\"end_ns\":9}}\n"

TestSuite(badinput, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(badinput, info)
{
	static struct bad t[] = {
		{ .name = "empty", .at = -1, .bytes = {0}, .msg = "%s: byte 0: empty file" },
		{ .name = "wrong magic", .cut = -1, .bytes = "XXXX", .n = 4,
		  .msg = "%s: byte 0: bad magic (not a trimsim trace)" },
		{ .name = "blktrace", .cut = -1, .bytes = { 0x07, 0x74, 0x61, 0x65 }, .n = 4,
		  .msg = "%s: byte 0: bad magic (not a trimsim trace; it looks like blktrace output: trimsim import "
			 "--from blktrace)" },
		{ .name = "blktrace big-endian", .cut = -1, .bytes = { 0x65, 0x61, 0x74, 0x07 }, .n = 4,
		  .msg = "%s: byte 0: bad magic (not a trimsim trace; it looks like blktrace output: trimsim import "
			 "--from blktrace)" },
		{ .name = "trace-cmd", .cut = -1, .bytes = "\x17\x08\x44tracing", .n = 10,
		  .msg = "%s: byte 0: bad magic (not a trimsim trace; it looks like a trace-cmd trace.dat: trimsim "
			 "import --from trace-cmd)" },
		{ .name = "dtrace", .cut = -1, .bytes = "trimsim-dtrace 1\n", .n = 17,
		  .msg = "%s: byte 0: bad magic (not a trimsim trace; it looks like FreeBSD DTrace output: trimsim "
			 "import --from dtrace)" },
		{ .name = "fio iolog", .cut = -1, .bytes = "fio version 3 iolog\n", .n = 20,
		  .msg = "%s: byte 0: bad magic (not a trimsim trace; it looks like a fio iolog, which trimsim writes "
			 "(export --to fio) but does not read)" },
		{ .name = "two bytes", .cut = 2, .at = -1, .bytes = {0},
		  .msg = "%s: byte 0: bad magic (not a trimsim trace)" },
		{ .name = "future version", .cut = -1, .bytes = { 3 }, .n = 1,
		  .msg = "%s: byte 0: unsupported format version 3 (this trimsim reads 1..2)" },
		{ .name = "fixed header cut", .cut = 10, .at = -1, .bytes = {0},
		  .msg = "%s: byte 10: header cut short (10 of 16 bytes)" },
		{ .name = "header length past end", .cut = -1, .at = 4, .bytes = { 0, 0, 0x10, 0 }, .n = 4,
		  .msg = "%s: byte 4: header length 1048576 runs past the end of the file (776 bytes)" },
		{ .name = "header cut", .cut = 300, .at = -1, .bytes = {0},
		  .msg = "%s: byte 4: header length 488 runs past the end of the file (300 bytes)" },
		{ .name = "header length odd", .cut = -1, .at = 4, .bytes = { 0xe9, 1 }, .n = 2,
		  .msg = "%s: byte 4: bad header length 489 (multiple of 8, 16..67108864)" },
		{ .name = "record size mismatch", .cut = -1, .at = 8, .bytes = { 40 }, .n = 1,
		  .msg = "%s: byte 8: record size 40, expected 48" },
		{ .name = "json length", .cut = -1, .at = 12, .bytes = { 0xff, 1 }, .n = 2,
		  .msg = "%s: byte 12: JSON length 511 does not fit the header length 488" },
		{ .name = "header json", .cut = -1, .at = 16, .bytes = "[", .n = 1,
		  .msg = "%s: byte 27: header JSON: ']' expected near ':'" },
		{ .name = "truncated record", .cut = REC(2) + 10, .at = -1, .bytes = {0},
		  .msg = "%s: byte 584: truncated record (10 of 48 bytes); 2 whole records recovered", .report = true },
		{ .name = "no footer", .cut = FOOTER, .at = -1, .bytes = {0},
		  .msg = "%s: byte 728: no footer, trace cut short; 5 whole records recovered", .report = true },
		{ .name = "footer cut", .cut = FOOTER + 12, .at = -1, .bytes = {0},
		  .msg = "%s: byte 728: truncated record (12 of 48 bytes); 5 whole records recovered", .report = true },
		{ .name = "corrupt checksum", .cut = -1, .at = REC(3) + 8, .bytes = { 0x55 }, .n = 1,
		  .msg = "%s: byte 744: checksum mismatch (footer 3fc683f06672d9e1, computed eeeb51a3db680265)" },
		{ .name = "unknown kind", .cut = -1, .at = REC(1) + 44, .bytes = { 9 }, .n = 1,
		  .msg = "%s: byte 536: record 1: unknown kind 9" },
		{ .name = "unknown op", .cut = -1, .at = REC(0) + 45, .bytes = { 9 }, .n = 1,
		  .msg = "%s: byte 488: record 0: unknown op 9" },
		{ .name = "unknown meta", .cut = -1, .at = REC(4) + 44, .bytes = { 7, 0 }, .n = 2,
		  .msg = "%s: byte 680: record 4: unknown META subtype 0" },
		{ .name = "offset overflow", .cut = -1, .at = REC(0) + 8,
		  .bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, .n = 8,
		  .msg = "%s: byte 488: record 0: offset 18446744073709551615 + length 4096 overflows" },
		{ .name = "data after footer", .cut = -1, .at = -1, .bytes = {0}, .append = 8,
		  .msg = "%s: byte 776: data after the footer" },
		{ .name = "footer count", .cut = -1, .at = FOOTER, .bytes = { 4 }, .n = 1,
		  .msg = "%s: byte 728: footer counts 4 records, file holds 5" },
		{ .name = "footer magic", .cut = -1, .at = FOOTER + 32, .bytes = { 0 }, .n = 1,
		  .msg = "%s: byte 728: footer has a bad magic" },
		{ .name = "jsonl missing field", .jsonl = JH JR("\"ino\":0,\"lat\":0,\"flags\":\"\"") JF(1),
		  .msg = "%s: line 2: missing field \"len\"" },
		{ .name = "jsonl wrong type", .jsonl = JH JR("\"len\":true,\"ino\":0,\"lat\":0,\"flags\":\"\"") JF(1),
		  .msg = "%s: line 2: field \"len\": expected a non-negative integer, got a boolean" },
		{ .name = "jsonl negative", .jsonl = JH JOK JR("\"len\":-1,\"ino\":0,\"lat\":0,\"flags\":\"\"") JF(2),
		  .msg = "%s: line 3: field \"len\": expected a non-negative integer, got a negative integer" },
		{ .name = "jsonl unknown kind",
		  .jsonl = JH "{\"t\":1,\"kind\":\"ERASE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: unknown kind \"ERASE\"" },
		{ .name = "jsonl unknown op",
		  .jsonl = JH "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"zap\",\"dev\":\"8:0\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: unknown op \"zap\"" },
		{ .name = "jsonl unknown meta",
		  .jsonl = JH "{\"t\":1,\"kind\":\"META\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: unknown META subtype \"discard\"" },
		{ .name = "jsonl unknown field",
		  .jsonl = JH JR("\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\",\"x\":1") JF(1),
		  .msg = "%s: line 2: unknown field \"x\"" },
		{ .name = "jsonl bad flags",
		  .jsonl = JH JR("\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"xfs|bogus\"") JF(1),
		  .msg = "%s: line 2: field \"flags\": \"xfs|bogus\" is not a list of flag names" },
		{ .name = "jsonl bad dev",
		  .jsonl = JH "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"sda\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: field \"dev\": \"sda\" is not major:minor" },
		{ .name = "jsonl overflow", .jsonl = JH "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\","
			   "\"off\":\"18446744073709551615\",\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: offset 18446744073709551615 + length 1 overflows" },
		{ .name = "jsonl invalid json", .jsonl = JH JOK "{\"t\":1,\n" JF(2),
		  .msg = "%s: line 3: invalid JSON: string or '}' expected near end of file" },
		{ .name = "jsonl not a header", .jsonl = "{\"format\":\"trimsim\"}\n" JF(0),
		  .msg = "%s: line 1: not a trimsim JSON Lines header ({\"trimsim\":1,\"header\":{...}})" },
		{ .name = "jsonl future version",
		  .jsonl = "{\"trimsim\":2,\"header\":{\"format\":\"trimsim\"}}\n" JF(0),
		  .msg = "%s: line 1: unsupported format version 2 (this trimsim reads 1)" },
		{ .name = "jsonl header format", .jsonl = "{\"trimsim\":1,\"header\":{\"format\":\"blk\"}}\n" JF(0),
		  .msg = "%s: line 1: header field \"format\" is not \"trimsim\"" },
		{ .name = "jsonl device",
		  .jsonl = "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":[{\"name\":\"sda\"}]}}\n",
		  .msg = "%s: line 1: header devices[0]: device entry lacks \"dev\"" },
		{ .name = "jsonl device type", .jsonl = "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":"
			   "[{\"name\":\"sda\",\"dev\":\"8:0\",\"size\":\"big\"}]}}\n",
		  .msg = "%s: line 1: header devices[0]: device field \"size\": expected a non-negative integer" },
		{ .name = "jsonl footer count", .jsonl = JH JOK JF(2),
		  .msg = "%s: line 3: footer counts 2 records, file holds 1" },
		{ .name = "jsonl after footer", .jsonl = JH JOK JF(1) JOK, .msg = "%s: line 4: data after the footer" },
		{ .name = "jsonl no footer", .jsonl = JH JOK JOK,
		  .msg = "%s: line 4: no footer, trace cut short; 2 records recovered", .report = true },
		{ .name = "jsonl cut line", .jsonl = JH JOK "{\"t\":1,\"kind\"",
		  .msg = "%s: line 3: truncated line; 1 records recovered", .report = true },
	};
	return cr_make_param_array(struct bad, t, sizeof(t) / sizeof(t[0]));
}

static void make_file(const struct bad *b, const char *path)
{
	size_t len;
	char *s;

	if (b->jsonl[0]) {
		cr_assert_eq(th_write(path, b->jsonl, strlen(b->jsonl)), 0);
		return;
	}
	cr_assert_eq(gen_trace(path, 5, TW_BINARY, 0), 0);
	s = th_slurp(path, &len);
	cr_assert_not_null(s);
	cr_assert_eq(len, FOOTER + 48, "base file changed size: %zu", len);
	s = realloc(s, len + 64);
	cr_assert_not_null(s);
	if (b->at >= 0)
		memcpy(s + b->at, b->bytes, (size_t)b->n);
	memset(s + len, 'x', (size_t)b->append);
	len += (size_t)b->append;
	if (b->cut >= 0)
		len = (size_t)b->cut;
	cr_assert_eq(th_write(path, s, len), 0);
	free(s);
}

ParameterizedTest(struct bad *b, badinput, info)
{
	char path[512], cmd[1024], want[1024], *out = NULL, *err = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/in%s", th_dir(), b->jsonl[0] ? ".jsonl" : ".tsim");
	make_file(b, path);
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
	rc = th_run(cmd, &out, &err);
	snprintf(want, sizeof(want), "trimsim info: ");
	snprintf(want + strlen(want), sizeof(want) - strlen(want), b->msg, path);
	strcat(want, "\n");
	cr_assert_str_eq(err, want, "%s: %s", b->name, err);
	cr_assert_eq(rc, 1, "%s: exit %d", b->name, rc);
	if (b->report)
		cr_assert(strstr(out, "status:   TRUNCATED (no footer)"), "%s: %s", b->name, out);
	else
		cr_assert_str_eq(out, "", "%s", b->name);
	/* convert refuses the same file and leaves nothing behind. */
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s convert %s %s/out.jsonl 2>/dev/null; ls -A "
		  "%s", th_trimsim(), path, th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_str_eq(out, b->jsonl[0] ? "in.jsonl\n" : "in.tsim\n", "%s", b->name);
	free(out);
}
