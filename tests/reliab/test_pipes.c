// SPDX-License-Identifier: GPL-2.0
/*
 * A trace on a pipe, a FIFO or "-" gives what the same file gives, in every
 * command that reads one. Commands that read their input more than once
 * (compare's cells, export's survey, replay's extent pass before a real target,
 * recommend's cells and the hash that keys its cache) copy a pipe once first
 * (trace_reader__spool()); before that copy, compare's workers each opened the
 * FIFO and split its bytes between them ("bad magic"), and recommend hashed a
 * file named "-".
 * Outputs are compared byte for byte after the trace's name is set aside.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common/helpers.h"

struct pcase {
	char name[40];
	char args[200];		/* IN stands for the input: "-", "fifo" or the file */
	char out[16];		/* compared output file ("" = stdout) */
	bool timing;		/* a real target: compare its command count, not its timing */
	bool jsonl;		/* the input in JSON Lines (the reader re-reads a file's first bytes, a pipe's it kept) */
};

TestSuite(pipes, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(pipes, same_as_file)
{
	static struct pcase t[] = {
		{ .name = "info", .args = "info IN" },
		{ .name = "convert", .args = "convert IN out.jsonl", .out = "out.jsonl" },
		{ .name = "replay to a model", .args = "replay IN -p xfs -M nvme -q -o out.json", .out = "out.json" },
		{ .name = "replay --file", .args = "replay IN -p ext4 --file disk.img --timing asap -q -o out.json",
		  .out = "out.json", .timing = true },
		{ .name = "export fio", .args = "export --to fio IN -o out.log", .out = "out.log" },
		{ .name = "export blktrace", .args = "export --to blktrace IN -o out.bt", .out = "out.bt" },
		{ .name = "recommend (hashes its input)", .args = "recommend IN -M nvme --budget 8 -j 2 -o out.json",
		  .out = "out.json" },
		{ .name = "compare (2 workers)", .args = "compare IN -p xfs,ext4,none -M nvme,sata-good -j 2 -q -o out.json",
		  .out = "out.json" },
		{ .name = "info, JSON Lines", .args = "info IN", .jsonl = true },
		{ .name = "convert, JSON Lines", .args = "convert IN out.tsim", .out = "out.tsim", .jsonl = true },
		{ .name = "replay, JSON Lines", .args = "replay IN -p xfs -M nvme -q -o out.json", .out = "out.json",
		  .jsonl = true },
		{ .name = "compare, JSON Lines", .args = "compare IN -p xfs,none -M nvme -j 2 -q -o out.json",
		  .out = "out.json", .jsonl = true },
	};
	return cr_make_param_array(struct pcase, t, sizeof(t) / sizeof(t[0]));
}

/* s with every from replaced by to (a new string). */
static char *replace(char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	char *r, *w;

	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	r = w = malloc(strlen(s) + n * tl + 1);
	cr_assert_not_null(r);
	for (const char *p = s, *q; ; p = q + fl) {
		q = strstr(p, from);
		if (!q) {
			strcpy(w, p);
			break;
		}
		memcpy(w, p, (size_t)(q - p));
		w += q - p;
		memcpy(w, to, tl);
		w += tl;
	}
	free(s);
	return r;
}

/* The discard commands a real target was sent: what a replay to one decides (its timing is the device's). */
static char *commands_of(char *json)
{
	json_error_t e;
	json_t *j = json_loads(json, 0, &e), *c;
	char *r;

	cr_assert_not_null(j, "result JSON: %s", e.text);
	c = json_object_get(json_object_get(j, "discard"), "commands");
	cr_assert(json_is_integer(c), "no discard.commands in the result");
	cr_assert_gt(asprintf(&r, "%lld commands", (long long)json_integer_value(c)), 0);
	json_decref(j);
	free(json);
	return r;
}

/* Runs c with the input given as how ("file", "-" or "fifo"); its output, the input's name replaced by IN. */
static char *run_with(const struct pcase *c, const char *how)
{
	const char *dir = th_dir(), *base = "ext4-discard-rmlarge.tsim";
	bool file = !strcmp(how, "file"), fifo = !strcmp(how, "fifo");
	char trace[600], args[1000], cmd[3000], path[700], *out = NULL, *err = NULL, *at;
	size_t len;
	int rc;

	snprintf(trace, sizeof(trace), "%s/traces/corpus/%s", th_src(), base);
	if (c->jsonl) {
		snprintf(cmd, sizeof(cmd), "%s convert %s %s/in.jsonl", th_trimsim(), trace, dir);
		cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
		snprintf(trace, sizeof(trace), "%s/in.jsonl", dir);
	}
	at = strstr(c->args, "IN");
	snprintf(args, sizeof(args), "%.*s%s%s", (int)(at - c->args), c->args, file ? trace : how, at + 2);
	snprintf(path, sizeof(path), "%s/disk.img", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	unlink(path);
	cr_assert(!fifo || !mkfifo(path, 0600));
	if (file)
		snprintf(cmd, sizeof(cmd), "cd %s && %s %s", dir, th_trimsim(), args);
	else
		snprintf(cmd, sizeof(cmd), "cd %s && %scat %s %s %s %s", dir, fifo ? "(timeout 120 " : "", trace,
			 fifo ? "> fifo &) &&" : "|", th_trimsim(), args);
	rc = th_run(cmd, &out, &err);
	cr_assert_eq(rc, 0, "%s, input %s: exit %d: %s", c->name, how, rc, err ? err : "");
	cr_expect_eq(th_lines(err), 0, "%s, input %s: stderr: %s", c->name, how, err ? err : "");
	free(err);
	if (c->out[0]) {
		snprintf(path, sizeof(path), "%s/%s", dir, c->out);
		free(out);
		out = th_slurp(path, &len);
		cr_assert_not_null(out, "%s, input %s: no %s", c->name, how, c->out);
		unlink(path);
	}
	if (c->timing)
		return commands_of(out);
	if (file)
		return replace(out, trace, "IN");
	if (fifo)
		return replace(out, "fifo", "IN");
	return replace(replace(out, "\"-\"", "\"IN\""), "stdin", "IN");
}

ParameterizedTest(struct pcase *c, pipes, same_as_file, .timeout = 120)
{
	char *ref = run_with(c, "file"), *dash = run_with(c, "-"), *fifo = run_with(c, "fifo");

	cr_expect(!strcmp(dash, ref), "%s: \"-\" differs from the file:\n%.600s\nvs\n%.600s", c->name, dash, ref);
	cr_expect(!strcmp(fifo, ref), "%s: a FIFO differs from the file:\n%.600s\nvs\n%.600s", c->name, fifo, ref);
	free(ref);
	free(dash);
	free(fifo);
}

/* What cannot be copied says so in one line: a pipe that is not a trace, a TMPDIR that is not there. */
Test(pipes, spool_errors)
{
	char cmd[1200], *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), "cd %s && echo hello | %s compare - -p xfs -M nvme -q -o r.json", th_dir(),
		 th_trimsim());
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(err, "trimsim compare: stdin: byte 0: bad magic (not a trimsim trace)\n");
	free(err);
	snprintf(cmd, sizeof(cmd), "cd %s && cat %s/traces/corpus/xfs-discard-churn.tsim | TMPDIR=%s/nowhere %s export "
		 "--to fio - -o out.log", th_dir(), th_src(), th_dir(), th_trimsim());
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 1);
	cr_expect_eq(th_lines(err), 1, "%s", err);
	cr_expect(strstr(err, "trimsim export: stdin: temporary copy in ") && strstr(err, "No such file or directory"),
		  "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "ls -A %s", th_dir());
	th_run(cmd, &err, NULL);
	cr_expect_str_eq(err, "", "left behind: %s", err);
	free(err);
}
