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

#include "common/helpers.h"
#include "gen.h"

/* The base file: gen_trace(5 records): header 488 bytes, records at 488..727, footer 728..775. */
#define HDR 488
#define REC(i) (HDR + 48 * (i))
#define FOOTER REC(5)

struct bad {
	char name[40];
	long cut;		/* truncate to this many bytes; -1 keeps the length */
	long at;		/* overwrite bytes[0..n) here; -1 for none */
	unsigned char bytes[8];
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

ParameterizedTestParameters(badinput, info)
{
	static struct bad t[] = {
		{ "empty", 0, -1, {0}, 0, 0, "", "%s: byte 0: empty file" },
		{ "wrong magic", -1, 0, "XXXX", 4, 0, "", "%s: byte 0: bad magic (not a trimsim trace)" },
		{ "two bytes", 2, -1, {0}, 0, 0, "", "%s: byte 0: bad magic (not a trimsim trace)" },
		{ "future version", -1, 0, { 2 }, 1, 0, "",
		  "%s: byte 0: unsupported format version 2 (this trimsim reads 1)" },
		{ "fixed header cut", 10, -1, {0}, 0, 0, "", "%s: byte 10: header cut short (10 of 16 bytes)" },
		{ "header length past end", -1, 4, { 0, 0, 0x10, 0 }, 4, 0, "",
		  "%s: byte 4: header length 1048576 runs past the end of the file (776 bytes)" },
		{ "header cut", 300, -1, {0}, 0, 0, "",
		  "%s: byte 4: header length 488 runs past the end of the file (300 bytes)" },
		{ "header length odd", -1, 4, { 0xe9, 1 }, 2, 0, "",
		  "%s: byte 4: bad header length 489 (multiple of 8, 16..67108864)" },
		{ "record size mismatch", -1, 8, { 40 }, 1, 0, "", "%s: byte 8: record size 40, expected 48" },
		{ "json length", -1, 12, { 0xff, 1 }, 2, 0, "",
		  "%s: byte 12: JSON length 511 does not fit the header length 488" },
		{ "header json", -1, 16, "[", 1, 0, "",
		  "%s: byte 27: header JSON: ']' expected near ':'" },
		{ "truncated record", REC(2) + 10, -1, {0}, 0, 0, "",
		  "%s: byte 584: truncated record (10 of 48 bytes); 2 whole records recovered", true },
		{ "no footer", FOOTER, -1, {0}, 0, 0, "",
		  "%s: byte 728: no footer, trace cut short; 5 whole records recovered", true },
		{ "footer cut", FOOTER + 12, -1, {0}, 0, 0, "",
		  "%s: byte 728: truncated record (12 of 48 bytes); 5 whole records recovered", true },
		{ "corrupt checksum", -1, REC(3) + 8, { 0x55 }, 1, 0, "",
		  "%s: byte 744: checksum mismatch (footer 5f5d90b1a16bbaa3, computed 49ee22e46502c7cc)" },
		{ "unknown kind", -1, REC(1) + 44, { 9 }, 1, 0, "", "%s: byte 536: record 1: unknown kind 9" },
		{ "unknown op", -1, REC(0) + 45, { 9 }, 1, 0, "", "%s: byte 488: record 0: unknown op 9" },
		{ "unknown meta", -1, REC(4) + 44, { 7, 0 }, 2, 0, "",
		  "%s: byte 680: record 4: unknown META subtype 0" },
		{ "offset overflow", -1, REC(0) + 8, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8, 0, "",
		  "%s: byte 488: record 0: offset 18446744073709551615 + length 4096 overflows" },
		{ "data after footer", -1, -1, {0}, 0, 8, "", "%s: byte 776: data after the footer" },
		{ "footer count", -1, FOOTER, { 4 }, 1, 0, "", "%s: byte 728: footer counts 4 records, file holds 5" },
		{ "footer magic", -1, FOOTER + 32, { 0 }, 1, 0, "", "%s: byte 728: footer has a bad magic" },
		{ "jsonl missing field", .jsonl = JH JR("\"ino\":0,\"lat\":0,\"flags\":\"\"") JF(1),
		  .msg = "%s: line 2: missing field \"len\"" },
		{ "jsonl wrong type", .jsonl = JH JR("\"len\":true,\"ino\":0,\"lat\":0,\"flags\":\"\"") JF(1),
		  .msg = "%s: line 2: field \"len\": expected a non-negative integer, got a boolean" },
		{ "jsonl negative", .jsonl = JH JOK JR("\"len\":-1,\"ino\":0,\"lat\":0,\"flags\":\"\"") JF(2),
		  .msg = "%s: line 3: field \"len\": expected a non-negative integer, got a negative integer" },
		{ "jsonl unknown kind",
		  .jsonl = JH "{\"t\":1,\"kind\":\"ERASE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: unknown kind \"ERASE\"" },
		{ "jsonl unknown op",
		  .jsonl = JH "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"zap\",\"dev\":\"8:0\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: unknown op \"zap\"" },
		{ "jsonl unknown meta",
		  .jsonl = JH "{\"t\":1,\"kind\":\"META\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: unknown META subtype \"discard\"" },
		{ "jsonl unknown field", .jsonl = JH JR("\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\",\"x\":1") JF(1),
		  .msg = "%s: line 2: unknown field \"x\"" },
		{ "jsonl bad flags", .jsonl = JH JR("\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"xfs|bogus\"") JF(1),
		  .msg = "%s: line 2: field \"flags\": \"xfs|bogus\" is not a list of flag names" },
		{ "jsonl bad dev",
		  .jsonl = JH "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"sda\",\"off\":0,\"len\":1,"
			   "\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: field \"dev\": \"sda\" is not major:minor" },
		{ "jsonl overflow", .jsonl = JH "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\","
			   "\"off\":\"18446744073709551615\",\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n" JF(1),
		  .msg = "%s: line 2: offset 18446744073709551615 + length 1 overflows" },
		{ "jsonl invalid json", .jsonl = JH JOK "{\"t\":1,\n" JF(2),
		  .msg = "%s: line 3: invalid JSON: string or '}' expected near end of file" },
		{ "jsonl not a header", .jsonl = "{\"format\":\"trimsim\"}\n" JF(0),
		  .msg = "%s: line 1: not a trimsim JSON Lines header ({\"trimsim\":1,\"header\":{...}})" },
		{ "jsonl future version", .jsonl = "{\"trimsim\":2,\"header\":{\"format\":\"trimsim\"}}\n" JF(0),
		  .msg = "%s: line 1: unsupported format version 2 (this trimsim reads 1)" },
		{ "jsonl header format", .jsonl = "{\"trimsim\":1,\"header\":{\"format\":\"blk\"}}\n" JF(0),
		  .msg = "%s: line 1: header field \"format\" is not \"trimsim\"" },
		{ "jsonl device", .jsonl = "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":[{\"name\":\"sda\"}]}}\n",
		  .msg = "%s: line 1: header devices[0]: device entry lacks \"dev\"" },
		{ "jsonl device type", .jsonl = "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"devices\":"
			   "[{\"name\":\"sda\",\"dev\":\"8:0\",\"size\":\"big\"}]}}\n",
		  .msg = "%s: line 1: header devices[0]: device field \"size\": expected a non-negative integer" },
		{ "jsonl footer count", .jsonl = JH JOK JF(2),
		  .msg = "%s: line 3: footer counts 2 records, file holds 1" },
		{ "jsonl after footer", .jsonl = JH JOK JF(1) JOK, .msg = "%s: line 4: data after the footer" },
		{ "jsonl no footer", .jsonl = JH JOK JOK,
		  .msg = "%s: line 4: no footer, trace cut short; 2 records recovered", .report = true },
		{ "jsonl cut line", .jsonl = JH JOK "{\"t\":1,\"kind\"",
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
	char *dir = th_tmpdir(), path[512], cmd[1024], want[1024], *out = NULL, *err = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/in%s", dir, b->jsonl[0] ? ".jsonl" : ".tsim");
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
	snprintf(cmd, sizeof(cmd), "%s convert %s %s/out.jsonl 2>/dev/null; ls -A %s", th_trimsim(), path, dir, dir);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_str_eq(out, b->jsonl[0] ? "in.jsonl\n" : "in.tsim\n", "%s", b->name);
	free(out);
	th_rmtree(dir);
	free(dir);
}
