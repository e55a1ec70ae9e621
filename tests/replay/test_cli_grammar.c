// SPDX-License-Identifier: GPL-2.0
/*
 * One command-line grammar across every command (README.md, "Command-line
 * conventions"), walked as tables over the commands `trimsim --help` lists:
 * --help/-h, -V/--version, an unknown option (one line, a hint, exit 2), a near
 * miss (did you mean), a missing value, the shared options in both spellings,
 * - as stdin (or one line saying why not) and -o - as stdout, one exit status
 * for a bad -M, and a write error on stdout (>/dev/full: one line, exit 1).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

TestSuite(cli_grammar, .init = th_dir_init, .fini = th_dir_fini);

#define TRACE "\"$S\"/traces/corpus/ext4-discard-rmtree.tsim"

/* sh -c "CMD" in the scratch directory, $T the sanitized binary, $S the source tree; stdout and stderr captured. */
static int run(const char *cmd, char **out, char **err)
{
	char full[4096];

	snprintf(full, sizeof(full), "cd '%s' && S='%s' && T='%s' && %s", th_dir(), th_src(), th_trimsim(), cmd);
	return th_run(full, out, err);
}

/* Every command `trimsim --help` lists is in the tables below. */
static const char *const commands[] = { "record", "info", "convert", "import", "export", "replay",
					"compare", "recommend", "cell", "calibrate", "policies", "models" };
#define NCMD (sizeof(commands) / sizeof(commands[0]))

Test(cli_grammar, the_tables_cover_every_command)
{
	char *out = NULL;
	size_t n = 0;

	cr_assert_eq(run("$T --help | awk '/^commands:$/ { on = 1; next } on && /^  [a-z]/ { print $1; next } "
			 "on { exit }'", &out, NULL), 0);
	for (char *save = NULL, *c = strtok_r(out, "\n", &save); c; c = strtok_r(NULL, "\n", &save), n++) {
		bool found = false;

		for (size_t i = 0; i < NCMD; i++)
			found |= !strcmp(commands[i], c);
		cr_expect(found, "command '%s' is not in this suite's tables", c);
	}
	cr_expect_eq(n, NCMD);
	free(out);
}

struct cmd_case {
	char cmd[16];
	char pre[48];		/* what the command needs before an option is looked at */
	char typo[24];		/* a near miss ... */
	char near[24];		/* ... and the option it is near */
	char valued[12];		/* an option that takes a value, given none */
};

static struct cmd_case cmds[] = {
	{ .cmd = "record", .typo = "--duraton", .near = "--duration", .valued = "-o" },
	{ .cmd = "info", .typo = "--jsn", .near = "--json" },
	{ .cmd = "convert", .typo = "--slavage", .near = "--salvage", .valued = "--to" },
	{ .cmd = "import", .pre = "--from dtrace", .typo = "--jsnol", .near = "--jsonl", .valued = "-o" },
	{ .cmd = "export", .pre = "--to fio", .typo = "--opz", .near = "--ops", .valued = "--records" },
	{ .cmd = "replay", .typo = "--polcy", .near = "--policy", .valued = "-p" },
	{ .cmd = "compare", .typo = "--modles", .near = "--models", .valued = "-s" },
	{ .cmd = "recommend", .typo = "--budgte", .near = "--budget", .valued = "--fs" },
	{ .cmd = "cell", .typo = "--rnage", .near = "--range", .valued = "--index" },
	{ .cmd = "calibrate", .typo = "--qiuck", .near = "--quick", .valued = "--svg" },
	{ .cmd = "policies", .typo = "--jsno", .near = "--json" },
	{ .cmd = "models", .typo = "--jsno", .near = "--json" },
};

ParameterizedTestParameters(cli_grammar, every_command)
{
	return cr_make_param_array(struct cmd_case, cmds, sizeof(cmds) / sizeof(cmds[0]));
}

/* err is exactly one line "trimsim CMD: <what>...; see 'trimsim CMD --help'\n". */
static void one_usage_line(const char *cmd, const char *err, const char *what)
{
	char head[128], tail[64];
	size_t n = strlen(err), t;

	snprintf(head, sizeof(head), "trimsim %s: %s", cmd, what);
	snprintf(tail, sizeof(tail), "; see 'trimsim %s --help'\n", cmd);
	t = strlen(tail);
	cr_expect_eq(th_lines(err), 1, "%s: not one line: %s", cmd, err);
	cr_expect(!strncmp(err, head, strlen(head)), "%s: expected '%s...', got %s", cmd, head, err);
	cr_expect(n >= t && !strcmp(err + n - t, tail), "%s: no hint: %s", cmd, err);
}

ParameterizedTest(struct cmd_case *c, cli_grammar, every_command)
{
	char cmd[1024], want[160], *out = NULL, *err = NULL;
	const char *help[] = { "--help", "-h" }, *ver[] = { "-V", "--version" };
	int rc;

	for (size_t i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "$T %s %s", c->cmd, help[i]);
		rc = run(cmd, &out, &err);
		snprintf(want, sizeof(want), "usage: trimsim %s", c->cmd);
		cr_expect_eq(rc, 0, "%s: exit %d", cmd, rc);
		cr_expect(!strncmp(out, want, strlen(want)), "%s: %s", cmd, out);
		cr_expect_str_eq(err, "", "%s", cmd);
		free(out), free(err);
		/* a write error on stdout is one line and exit 1 */
		snprintf(cmd, sizeof(cmd), "$T %s %s >/dev/full", c->cmd, help[i]);
		rc = run(cmd, NULL, &err);
		cr_expect_eq(rc, 1, "%s: exit %d", cmd, rc);
		cr_expect(th_lines(err) == 1 && strstr(err, "No space left on device"), "%s: %s", cmd, err);
		free(err);
		snprintf(cmd, sizeof(cmd), "$T %s %s", c->cmd, ver[i]);
		rc = run(cmd, &out, &err);
		cr_expect_eq(rc, 0, "%s: exit %d", cmd, rc);
		cr_expect(!strncmp(out, "trimsim ", 8) && th_lines(out) == 1, "%s: %s", cmd, out);
		free(out), free(err);
	}
	/* an unknown option */
	snprintf(cmd, sizeof(cmd), "$T %s %s --bogus-option x", c->cmd, c->pre);
	rc = run(cmd, &out, &err);
	cr_expect_eq(rc, 2, "%s: exit %d", cmd, rc);
	cr_expect_str_eq(out, "", "%s", cmd);
	one_usage_line(c->cmd, err, "unknown option '--bogus-option'");
	cr_expect(!strstr(err, "did you mean"), "%s: %s", cmd, err);
	free(out), free(err);
	/* a near miss */
	snprintf(cmd, sizeof(cmd), "$T %s %s %s", c->cmd, c->pre, c->typo);
	rc = run(cmd, NULL, &err);
	snprintf(want, sizeof(want), "unknown option '%s'", c->typo);
	cr_expect_eq(rc, 2, "%s: exit %d", cmd, rc);
	one_usage_line(c->cmd, err, want);
	snprintf(want, sizeof(want), "(did you mean '%s'?)", c->near);
	cr_expect(strstr(err, want), "%s: %s", cmd, err);
	free(err);
	/* an option without its value */
	if (c->valued[0]) {
		snprintf(cmd, sizeof(cmd), "$T %s %s %s", c->cmd, c->pre, c->valued);
		rc = run(cmd, NULL, &err);
		snprintf(want, sizeof(want), "option '%s' needs a value", c->valued);
		cr_expect_eq(rc, 2, "%s: exit %d", cmd, rc);
		one_usage_line(c->cmd, err, want);
		free(err);
	}
}

/* The same thing spelled each way gives the same bytes (binary outputs by their checksum). */
struct same_case {
	char a[160], b[160];
};

static struct same_case sames[] = {
	{ "$T replay " TRACE " -p ext4 -M nvme -s 2 --json",
	  "$T replay " TRACE " --policy ext4 --model nvme --seed 2 -o -" },
	{ "$T replay " TRACE " -p ext4 -M nvme -s 2 --json",
	  "$T replay " TRACE " --policies ext4 --models nvme --seed 2 --json" },
	{ "$T compare " TRACE " -p ext4 -M nvme -s 2 --json",
	  "$T compare " TRACE " --policy ext4 --model nvme --seed 2 --format json" },
	{ "$T compare " TRACE " --policies ext4 --models nvme --json", "$T compare " TRACE " -p ext4 -M nvme -f json" },
	/* -q without a file to write keeps the report on stdout (it printed nothing, exit 0) */
	{ "$T compare " TRACE " -p ext4 -M nvme --json", "$T compare " TRACE " -p ext4 -M nvme --json -q" },
	{ "$T recommend " TRACE " -M nvme --json", "$T recommend " TRACE " -M nvme --json -q" },
	{ "$T replay - -p xfs -M sata-sf2281 --json < " TRACE, "cat " TRACE " | $T replay - -p xfs -M sata-sf2281 --json" },
	{ "$T info --json - < " TRACE, "cat " TRACE " | $T info --json -" },
	/* the corpus trace is format version 1: written back in version 1 it is the same file */
	{ "cksum < " TRACE, "cat " TRACE " | $T convert --format-version 1 - - | cksum" },
	{ "$T convert " TRACE " x.tsim; cksum < x.tsim; rm x.tsim", "cat " TRACE " | $T convert - - | cksum" },
	{ "$T convert " TRACE " x.jsonl >/dev/null; cat x.jsonl; rm x.jsonl", "$T convert --to jsonl - - < " TRACE },
	{ "$T convert " TRACE " x.jsonl >/dev/null; cat x.jsonl; rm x.jsonl",
	  "$T convert " TRACE " -o y.jsonl >/dev/null; cat y.jsonl; rm y.jsonl" },
	{ "$T convert " TRACE " - | cksum", "$T convert --output - " TRACE " | cksum" },
	{ "$T export --to blktrace " TRACE " -o x.bt; cksum < x.bt; rm x.bt",
	  "$T export --to blktrace - -o - < " TRACE " | cksum" },
	{ "$T models nvme --json", "$T models --json nvme" },
	{ "printf 'trimsim-dtrace 1\\nfree 1000 ada0p2 77 0 4096\\n' > d.txt; "
	  "$T import --from dtrace d.txt -o - --jsonl | grep -v header; rm d.txt",
	  "printf 'trimsim-dtrace 1\\nfree 1000 ada0p2 77 0 4096\\n' | $T import --from dtrace - -o - --jsonl | grep -v header" },
};

ParameterizedTestParameters(cli_grammar, both_spellings)
{
	return cr_make_param_array(struct same_case, sames, sizeof(sames) / sizeof(sames[0]));
}

ParameterizedTest(struct same_case *c, cli_grammar, both_spellings)
{
	char *a = NULL, *b = NULL, *ea = NULL, *eb = NULL;
	int ra, rb;

	ra = run(c->a, &a, &ea);
	rb = run(c->b, &b, &eb);
	cr_expect_eq(ra, 0, "%s: exit %d: %s", c->a, ra, ea);
	cr_expect_eq(rb, 0, "%s: exit %d: %s", c->b, rb, eb);
	cr_expect_gt(strlen(a), 10, "%s: %s", c->a, a);
	cr_expect(!strcmp(a, b), "'%s' and '%s' differ", c->a, c->b);
	free(a), free(b), free(ea), free(eb);
}

/* Usage errors and the one-line refusals: exit status and the one line. */
struct err_case {
	char args[160];
	int rc;
	char cmd[16];
	char what[96];	/* the line starts "trimsim CMD: what" */
	bool hint;	/* and ends "; see 'trimsim CMD --help'" */
};

static struct err_case errs[] = {
	/* a bad -M is a bad option value in both commands */
	{ "replay " TRACE " -M nosuch", 2, "replay", "unknown profile 'nosuch'" },
	{ "compare " TRACE " -p xfs -M nosuch", 2, "compare", "--models 'nosuch': unknown profile 'nosuch'" },
	{ "replay " TRACE " -M nvme:qdd=3", 2, "replay", "models/profiles/nvme.json: override: unknown option" },
	/* inputs read more than once copy a pipe first (tests/reliab/test_pipes.c); an empty one is bad input */
	{ "compare - -p xfs -M nvme < /dev/null", 1, "compare", "stdin: byte 0: empty file" },
	{ "export --to fio - -o - < /dev/null", 1, "export", "stdin: byte 0: empty file" },
	{ "replay - --file x.img < /dev/null", 1, "replay", "stdin: byte 0: empty file" },
	/* an importer that reads its input twice refuses a pipe in one line */
	{ "import --from blktrace - -o x.tsim < /dev/null", 2, "import", "-: import reads its input more than once",
	  true },
	/* operands */
	{ "info", 2, "info", "no FILE given", true },
	{ "info a b", 2, "info", "one FILE only", true },
	{ "convert a", 2, "convert", "expected IN and OUT", true },
	{ "convert a b -o c", 2, "convert", "with -o OUT, expected IN alone, got 2 arguments", true },
	{ "replay", 2, "replay", "no TRACE given", true },
	{ "compare -p xfs -M nvme", 2, "compare", "no TRACE given", true },
	{ "models a b", 2, "models", "one PROFILE at most", true },
	{ "cell --all", 2, "cell", "no plan DIR given", true },
	{ "cell D", 2, "cell", "which cells: one of --index I, --range A-B or --all", true },
	{ "cell D --range 5-2", 2, "cell", "--range '5-2': expected A-B with A <= B", true },
	{ "compare T -p xfs -M nvme --slurm", 2, "compare", "--slurm without --plan DIR", true },
	{ "compare T -p xfs -M nvme --partial", 2, "compare", "--partial without --merge DIR", true },
	{ "compare --merge D T", 2, "compare", "'T': no TRACE with --merge", true },
	{ "compare --merge D -p xfs", 2, "compare", "--merge D: no -p", true },
	{ "recommend T -M nvme --per-task 4", 2, "recommend", "--per-task without --plan DIR", true },
	{ "cell a b --all", 2, "cell", "'b': one plan DIR only", true },
	{ "policies extra", 2, "policies", "'extra' is neither a stage nor a preset (trimsim policies lists them)",
	  true },
	{ "policies xfs extra", 2, "policies", "unexpected argument 'extra'", true },
	{ "calibrate extra", 2, "calibrate", "unexpected argument 'extra'", true },
	/* -s is --seed in calibrate too: parsed, then the device is checked */
	{ "calibrate --device /dev/null -s 3 --destructive", 1, "calibrate", "/dev/null: not a block device" },
	{ "record -o x.tsim extra", 2, "record", "unexpected 'extra' (a command goes after --)", true },
	/* a short option the command does not have */
	{ "replay " TRACE " -Z", 2, "replay", "unknown option '-Z'", true },
	{ "compare " TRACE " -qZ", 2, "compare", "unknown option '-Z'", true },
	{ "compare " TRACE " --json -Zq", 2, "compare", "unknown option '-Z'", true },
	{ "replay " TRACE " -qp", 2, "replay", "option '-p' needs a value", true },
	{ "replay " TRACE " --json --bogus=3", 2, "replay", "unknown option '--bogus';", true },
	/* runtime errors are 1 */
	{ "info nosuch.tsim", 1, "info", "nosuch.tsim: " },
	{ "replay nosuch.tsim", 1, "replay", "nosuch.tsim: " },
};

ParameterizedTestParameters(cli_grammar, errors)
{
	return cr_make_param_array(struct err_case, errs, sizeof(errs) / sizeof(errs[0]));
}

ParameterizedTest(struct err_case *c, cli_grammar, errors)
{
	char cmd[600], head[200], *out = NULL, *err = NULL;
	const char *tail = "--help'\n";
	int rc;

	snprintf(cmd, sizeof(cmd), "$T %s", c->args);
	rc = run(cmd, &out, &err);
	snprintf(head, sizeof(head), "trimsim %s: %s", c->cmd, c->what);
	cr_expect_eq(rc, c->rc, "%s: exit %d: %s", c->args, rc, err);
	cr_expect_eq(th_lines(err), 1, "%s: %s", c->args, err);
	cr_expect(!strncmp(err, head, strlen(head)), "%s: expected '%s...', got %s", c->args, head, err);
	cr_expect(!c->hint || (strlen(err) > strlen(tail) && !strcmp(err + strlen(err) - strlen(tail), tail)),
		  "%s: no hint: %s", c->args, err);
	cr_expect_str_eq(out, "", "%s", c->args);
	free(out), free(err);
}

Test(cli_grammar, unknown_command_near_miss)
{
	char *err = NULL;
	int rc = run("$T repaly x", NULL, &err);

	cr_expect_eq(rc, 2);
	cr_expect_str_eq(err, "trimsim: unknown command 'repaly' (did you mean 'replay'?); see 'trimsim --help'\n");
	free(err);
}

/* The listings print booleans as true/false and zero as 0 (opts__format), in text and --help. */
Test(cli_grammar, listings_share_one_formatter)
{
	static const char *const cmds[] = {
		"$T policies | grep -E ' bool +default' | grep -vE 'default (true|false) '",
		"$T policies | grep -E ' (size|duration) +default' | grep -E 'default (0 B|0 ns|-) '",
		"$T models --help | grep -E ' bool +default' | grep -vE 'default (true|false) '",
		"$T models --help | grep -E 'default (0 B|0 ns) '",
		"$T models sata-sf2281 | grep -E ' (0 B|0 ns)$'",
	};
	char *out = NULL;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		cr_expect_eq(run(cmds[i], &out, NULL), 1, "%s matched:\n%s", cmds[i], out);	/* grep: no line */
		free(out);
	}
	cr_assert_eq(run("$T models sata-sf2281", &out, NULL), 0);
	cr_expect(strstr(out, "queued_trim            false\n") && strstr(out, "trim_per_range         0\n"), "%s", out);
	free(out);
	cr_assert_eq(run("$T policies", &out, NULL), 0);
	cr_expect(strstr(out, "extend       bool      default true "), "%s", out);
	free(out);
}
