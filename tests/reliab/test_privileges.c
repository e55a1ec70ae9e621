// SPDX-License-Identifier: GPL-2.0
/*
 * No command needs more privilege than its job: everything but `record` (and a
 * replay onto a real device) works as nobody on files nobody can read and a
 * directory nobody can write. And every output file honours the umask: 077
 * gives 0600, 022 gives 0644 (atomic writers mkstemp() a 0600 file and must
 * chmod it to 0666 & ~umask before the rename).
 * Switching to nobody needs root and setpriv (util-linux); otherwise skipped.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common/helpers.h"

struct cmd {
	char name[32];
	char args[200];	/* %1$s: the input directory, %2$s: the output directory */
	char out[24];	/* file it writes into the output directory, "" for none */
};

TestSuite(privileges, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(privileges, command)
{
	static struct cmd t[] = {
		{ .name = "info", .args = "info %1$s/t.jsonl" },
		{ .name = "convert", .args = "convert %1$s/t.jsonl %2$s/o.tsim", .out = "o.tsim" },
		{ .name = "convert jsonl", .args = "convert %1$s/t.jsonl %2$s/o.jsonl", .out = "o.jsonl" },
		{ .name = "export blktrace", .args = "export --to blktrace %1$s/t.jsonl -o %2$s/o.bt", .out = "o.bt" },
		{ .name = "export fio", .args = "export --to fio %1$s/t.jsonl -o %2$s/o.log", .out = "o.log" },
		{ .name = "import dtrace", .args = "import --from dtrace %1$s/d.txt -o %2$s/o.tsim", .out = "o.tsim" },
		{ .name = "replay", .args = "replay %1$s/t.jsonl -p xfs -M sata-sf2281 -q -o %2$s/o.json",
		  .out = "o.json" },
		{ .name = "compare", .args = "compare %1$s/t.jsonl -p xfs,ext4 -M nvme -o %2$s/o.json",
		  .out = "o.json" },
		{ .name = "models", .args = "models" },
		{ .name = "policies", .args = "policies" },
	};
	return cr_make_param_array(struct cmd, t, sizeof(t) / sizeof(t[0]));
}

static const char trace[] =
	"{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\","
	"\"name\":\"loop7\",\"size\":1073741824,\"logical_block_size\":512,\"physical_block_size\":4096,"
	"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1,\"fs\":\"xfs\"}]}}\n"
	"{\"t\":1000,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"
	"{\"t\":2000,\"kind\":\"INTENT\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"
	"{\"t\":3000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"\"}\n"
	"{\"t\":9000,\"kind\":\"DONE\",\"op\":\"discard\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":6000,\"flags\":\"\"}\n"
	"{\"footer\":{\"records\":4,\"lost\":0,\"end_ns\":9000}}\n";
static const char dtrace[] = "trimsim-dtrace 1\nfree 1000 ada0p2 77 8192 32768\nstart 2000 ada0 delete 8192 32768\n";

/* in: read-only inputs (0755 dir, 0644 files); out: 0777 dir. */
static void inputs(char *in, size_t inlen, char *out, size_t outlen)
{
	char path[600];

	snprintf(in, inlen, "%s/in", th_dir());
	snprintf(out, outlen, "%s/out", th_dir());
	cr_assert_eq(mkdir(in, 0755), 0);
	cr_assert_eq(mkdir(out, 0777), 0);
	cr_assert_eq(chmod(th_dir(), 0755), 0);
	cr_assert_eq(chmod(out, 0777), 0);
	snprintf(path, sizeof(path), "%s/t.jsonl", in);
	cr_assert_eq(th_write(path, trace, strlen(trace)), 0);
	cr_assert_eq(chmod(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/d.txt", in);
	cr_assert_eq(th_write(path, dtrace, strlen(dtrace)), 0);
	cr_assert_eq(chmod(path, 0644), 0);
}

ParameterizedTest(struct cmd *c, privileges, command, .timeout = 120)
{
	char in[512], out[512], args[1200], cmd[2048], path[600], *err = NULL;
	static const struct { const char *mask; unsigned mode; } um[] = { { "077", 0600 }, { "022", 0644 } };
	struct stat s;
	int rc;

	if (geteuid() != 0)
		cr_skip_test("switching to nobody needs root");
	if (th_run("command -v setpriv", NULL, NULL))
		cr_skip_test("setpriv (util-linux) missing");
	inputs(in, sizeof(in), out, sizeof(out));
	snprintf(args, sizeof(args), c->args, in, out);
	/* As nobody: works, and writes a file nobody owns. */
	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 --clear-groups %s %s >/dev/null", th_trimsim(),
		 args);
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 0, "%s as nobody: exit %d: %s", c->name, rc, err ? err : "");
	free(err);
	err = NULL;
	if (c->out[0]) {
		snprintf(path, sizeof(path), "%s/%s", out, c->out);
		cr_expect(!stat(path, &s) && s.st_uid == 65534, "%s: no output owned by nobody", c->name);
	}
	/* The umask decides the mode. */
	for (size_t i = 0; c->out[0] && i < sizeof(um) / sizeof(um[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", out, c->out);
		unlink(path);
		snprintf(cmd, sizeof(cmd), "umask %s && %s %s >/dev/null", um[i].mask, th_trimsim(), args);
		cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s with umask %s", c->name, um[i].mask);
		cr_assert_eq(stat(path, &s), 0, "%s: %s missing", c->name, path);
		cr_expect_eq(s.st_mode & 0777, um[i].mode, "%s with umask %s: mode %o, expected %o", c->name,
			     um[i].mask, s.st_mode & 0777, um[i].mode);
	}
}
