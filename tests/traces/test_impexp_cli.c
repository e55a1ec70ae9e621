// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim import / export end to end: help, usage errors, atomic output
 * (nothing left behind on any error), messages naming file and line/offset,
 * and a trace going out as blktrace and coming back in through the CLI.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/traces/export_util.h"

TestSuite(impexp_cli, .init = th_dir_init, .fini = th_dir_fini);

/* Files in dir, temporaries included. */
static size_t nfiles(void)
{
	DIR *d = opendir(th_dir());
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int run(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char **out, char **err, const char *fmt, ...)
{
	char args[3072], cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s", th_dir(), th_trimsim(), args);
	return th_run(cmd, out, err);
}

static json_t *info(const char *file)
{
	char *out = NULL;
	json_error_t je;
	json_t *j;

	cr_assert_eq(run(&out, NULL, "info --json '%s'", file), 0, "info %s", file);
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "info --json: %s", je.text);
	free(out);
	return j;
}

static uint64_t kind_records(json_t *j, const char *kind)
{
	return (uint64_t)json_integer_value(json_object_get(json_object_get(json_object_get(j, "kinds"), kind),
							    "records"));
}

Test(impexp_cli, help)
{
	char *out = NULL;

	cr_assert_eq(run(&out, NULL, "import --help"), 0);
	cr_assert(strstr(out, "examples:") && strstr(out, "--xfs-agblocks") && strstr(out, "dtrace"), "%s", out);
	free(out);
	cr_assert_eq(run(&out, NULL, "export --help"), 0);
	cr_assert(strstr(out, "examples:") && strstr(out, "#769") && strstr(out, "--records"), "%s", out);
	free(out);
}

struct usage {
	char args[128];
	int rc;
	char expect[80];
};

ParameterizedTestParameters(impexp_cli, usage_errors)
{
	static struct usage p[] = {
		{ .args = "import x.txt -o o.tsim", .rc = 2, .expect = "--from KIND is required" },
		{ .args = "import --from nope x.txt -o o.tsim", .rc = 2, .expect = "unknown kind 'nope'" },
		{ .args = "import --from dtrace -o o.tsim", .rc = 2, .expect = "no input FILE" },
		{ .args = "import --from dtrace x.txt", .rc = 2, .expect = "-o OUT is required" },
		{ .args = "import --from dtrace --xfs-agblocks 3 x.txt -o o.tsim", .rc = 2,
		  .expect = "unknown option '--xfs-agblocks'" },
		{ .args = "import --from blktrace --ops some x.bin -o o.tsim", .rc = 2, .expect = "ops" },
		{ .args = "import --from dtrace missing.txt -o o.tsim", .rc = 1, .expect = "missing.txt" },
		{ .args = "export x.tsim -o o.bt", .rc = 2, .expect = "--to KIND is required" },
		{ .args = "export --to blktrace -o o.bt", .rc = 2, .expect = "no TRACE" },
		{ .args = "export --to blktrace missing.tsim -o o.bt", .rc = 1, .expect = "missing.tsim" },
		{ .args = "export --to fio --records sideways x.tsim -o o.log", .rc = 2, .expect = "records" },
	};
	return cr_make_param_array(struct usage, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct usage *p, impexp_cli, usage_errors)
{
	char *err = NULL;

	cr_assert_eq(run(NULL, &err, "%s", p->args), p->rc, "%s: %s", p->args, err);
	cr_assert(strstr(err, p->expect), "expected '%s' in: %s", p->expect, err);
	cr_assert_eq(nfiles(), 0, "nothing written");
	free(err);
}

Test(impexp_cli, dtrace_import_info_and_atomic_failure)
{
	char path[512], *err = NULL;
	json_t *j, *h;
	static const char good[] =
		"trimsim-dtrace 1\nfs ada0p2 4096 32768 /usr\nfree 1000 ada0p2 77 8192 32768\n"
		"start 2000 ada0 delete 1056768 32768\ndone 9000 ada0 delete 1056768 32768 0 7000\n";

	snprintf(path, sizeof(path), "%s/ufs.txt", th_dir());
	cr_assert_eq(th_write(path, good, strlen(good)), 0);
	cr_assert_eq(run(NULL, NULL, "import --from dtrace ufs.txt -o ufs.tsim"), 0);
	j = info("ufs.tsim");
	cr_assert_eq(kind_records(j, "FREE"), 1);
	cr_assert_eq(kind_records(j, "ISSUE"), 1);
	cr_assert_eq(kind_records(j, "DONE"), 1);
	h = json_object_get(j, "header");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(h, "import"), "importer")), "dtrace");
	cr_assert_eq(json_integer_value(json_object_get(h, "start_ns")), 1000, "start_ns is the source's");
	cr_assert_str_eq(json_string_value(json_object_get(h, "kernel")), "unknown", "not the importing machine's");
	cr_assert_not_null(json_object_get(json_object_get(h, "import"), "imported_on_kernel"));
	cr_assert_eq(json_array_size(json_object_get(h, "devices")), 2);
	json_decref(j);
	cr_assert_eq(run(NULL, NULL, "import --from dtrace ufs.txt -o ufs.jsonl --jsonl"), 0);
	j = info("ufs.jsonl");
	cr_assert_str_eq(json_string_value(json_object_get(j, "format")), "jsonl");
	cr_assert_eq(kind_records(j, "FREE"), 1);
	json_decref(j);

	/* A bad line late in the file: error with the line, no output, no temporary. */
	snprintf(path, sizeof(path), "%s/bad.txt", th_dir());
	{
		char bad[sizeof(good) + 64];

		snprintf(bad, sizeof(bad), "%sdone 9100 ada0 delete 0 512 0\n", good);
		cr_assert_eq(th_write(path, bad, strlen(bad)), 0);
	}
	cr_assert_eq(run(NULL, &err, "import --from dtrace bad.txt -o bad.tsim"), 1);
	cr_assert(strstr(err, "bad.txt:6: expected 'done"), "%s", err);
	cr_assert_eq(nfiles(), 4, "ufs.txt, ufs.tsim, ufs.jsonl, bad.txt only");
	free(err);
}

/* A trace written with the trace writer, out through export and back in through import. */
Test(impexp_cli, blktrace_round_trip)
{
	static struct ts_record recs[400];
	size_t n = tu_workload(recs, 200, 11);
	char path[512], err[256], *serr = NULL;
	struct ts_device dev = { .name = "loop42", .dev = TU_DEV, .size = 8ull << 30 };
	json_t *h = trace_header__new(0, NULL), *j;
	struct trace_writer *w;
	uint64_t disc = 0;

	cr_assert_not_null(h);
	json_object_set_new(h, "devices", json_array());
	json_array_append_new(json_object_get(h, "devices"), ts_device_to_json(&dev));
	snprintf(path, sizeof(path), "%s/gen.tsim", th_dir());
	w = trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(trace_writer__write(w, &recs[i]), 0);
		disc += recs[i].kind == TS_ISSUE && recs[i].op == TS_OP_DISCARD;
	}
	cr_assert_eq(trace_writer__close(w, recs[n - 1].time_ns, err, sizeof(err)), 0, "%s", err);
	json_decref(h);

	cr_assert_eq(run(NULL, NULL, "export --to blktrace gen.tsim -o gen.blktrace"), 0);
	cr_assert_eq(run(NULL, &serr, "import --from blktrace gen.blktrace -o back.tsim --device-size 8G"), 0);
	free(serr);
	j = info("back.tsim");
	cr_assert_eq(kind_records(j, "ISSUE"), 200);
	cr_assert_eq(kind_records(j, "DONE"), 200);
	cr_assert_eq(kind_records(j, "BIO"), disc, "one Q per discard");
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(j, "devices"), 0), "size")),
		     8ll << 30);
	json_decref(j);

	/* --records free on a trace without FREE records: error, nothing left behind. */
	cr_assert_eq(run(NULL, &serr, "export --to blktrace gen.tsim --records free -o none.blktrace"), 1);
	cr_assert(strstr(serr, "no free records"), "%s", serr);
	cr_assert_eq(nfiles(), 3, "gen.tsim, gen.blktrace, back.tsim only");
	free(serr);
}

/*
 * A trace.dat that makes libtracecmd (trace-cmd 3.1.6) fault inside
 * tracecmd_buffer_instance_handle(): the fuzz seed with one byte of the
 * instance buffer's section changed (found by fuzz_import_tracecmd, shrunk to
 * that byte). The import must end with one line and leave nothing behind,
 * however the installed library treats the file.
 */
Test(impexp_cli, tracecmd_library_fault_is_an_error)
{
	char seed[512], bad[512], *buf, *err = NULL;
	size_t n = 0;
	int st;

	snprintf(seed, sizeof(seed), "%s/tests/fuzz/seeds/fuzz_import_tracecmd/ext4_loop.dat", th_src());
	buf = th_slurp(seed, &n);
	cr_assert(buf && n == 1174120, "%s: %zu bytes", seed, n);
	cr_assert_eq((unsigned char)buf[1168943], 0x12, "the seed changed: find the byte again");
	buf[1168943] = 0x55;
	snprintf(bad, sizeof(bad), "%s/fault.dat", th_dir());
	cr_assert_eq(th_write(bad, buf, n), 0);
	free(buf);
	st = run(NULL, &err, "import --from trace-cmd --fs-block-size 4096 --ext4-blocks-per-group 32768 fault.dat "
			     "-o fault.tsim");
	cr_assert(st == 0 || st == 1, "exit %d: %s", st, err);
	if (st == 1) {
		cr_assert_eq(th_lines(err), 1, "one line: %s", err);
		cr_assert(strstr(err, "fault.dat: "), "%s", err);
		cr_assert_eq(nfiles(), 1, "fault.dat only");
	}
	free(err);
}

/*
 * A trace.dat whose one byte makes libtracecmd ask malloc() for 2^57 bytes
 * (found by fuzz_import_tracecmd: the seed with byte 55723 changed from 0x89
 * to 0x29). glibc returns NULL and the library gives up, so the import ends
 * with one line and leaves nothing. Run with the plain binary ($TRIMSIM_PLAIN):
 * AddressSanitizer aborts on such a request instead of returning NULL (the
 * fuzz harness makes it answer as glibc does).
 */
Test(impexp_cli, tracecmd_huge_allocation_is_an_error)
{
	char seed[512], bad[512], cmd[2048], *buf, *err = NULL;
	const char *plain = getenv("TRIMSIM_PLAIN");
	size_t n = 0;
	int st;

	cr_assert(plain, "TRIMSIM_PLAIN is not set (run through make)");
	snprintf(seed, sizeof(seed), "%s/tests/fuzz/seeds/fuzz_import_tracecmd/ext4_loop.dat", th_src());
	buf = th_slurp(seed, &n);
	cr_assert(buf && n == 1174120, "%s: %zu bytes", seed, n);
	cr_assert_eq((unsigned char)buf[55723], 0x89, "the seed changed: find the byte again");
	buf[55723] = 0x29;
	snprintf(bad, sizeof(bad), "%s/huge.dat", th_dir());
	cr_assert_eq(th_write(bad, buf, n), 0);
	free(buf);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' import --from trace-cmd --fs-block-size 4096 huge.dat -o huge.tsim",
		 th_dir(), plain);
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 1, "exit %d: %s", st, err);
	cr_expect_str_eq(err, "trimsim import: huge.dat: not a readable trace-cmd trace.dat file\n");
	cr_expect_eq(nfiles(), 1, "huge.dat only");
	free(err);
}

/*
 * The small real trace.dat seeds of fuzz_import_tracecmd (tests/fuzz/mkseed_tracecmd.sh)
 * import, and the inputs on which libtracecmd or libtraceevent fault, or which made the
 * importer read a field past its record (SIGSEGV; found by the harness's trace.dat-aware
 * mutator), end with one line and leave nothing. Run with the
 * sanitized binary: the v6 seed failed on libtracecmd's leaked clock name, and the
 * reads past a string's block ended the probe's child with AddressSanitizer's exit code,
 * which tc_probe() took for success before the parent then read past the block itself.
 * (libtracecmd now runs only in the child that reads the file: tc_import_child().)
 */
struct tcfile {
	char path[96];		/* under tests/fuzz/ */
	uint64_t issues;	/* ISSUE records when it imports */
	char msg[96];		/* in the one-line error when it does not */
};

/* The sanitized build's child ends with AddressSanitizer's code, a plain build's open fails. */
#define TC_OVERREAD "trace.dat"

ParameterizedTestParameters(impexp_cli, tracecmd_small_files)
{
	static struct tcfile t[] = {
		{ .path = "seeds/fuzz_import_tracecmd/block-v6.dat", .issues = 110 },
		{ .path = "seeds/fuzz_import_tracecmd/block-v7.dat", .issues = 110 },
		{ .path = "seeds/fuzz_import_tracecmd/block-v7-zstd.dat", .issues = 110 },
		{ .path = "regress/fuzz_import_tracecmd/libtracecmd-strdup-past-string.dat", .msg = TC_OVERREAD },
		{ .path = "regress/fuzz_import_tracecmd/libtraceevent-printk-strcmp-past-string.dat", .msg = TC_OVERREAD },
		{ .path = "regress/fuzz_import_tracecmd/libtracecmd-close-null-read.dat", .msg = "malformed trace.dat" },
		{ .path = "regress/fuzz_import_tracecmd/libtracecmd-open-segv.dat", .msg = "malformed trace.dat" },
		{ .path = "regress/fuzz_import_tracecmd/libtraceevent-kbuffer-past-page.dat", .msg = "malformed trace.dat" },
		{ .path = "regress/fuzz_import_tracecmd/field-offset-past-record.dat",
		  .msg = "record 1 (block:block_rq_issue): field 'sector' lies past the record's 68 bytes" },
		{ .path = "regress/fuzz_import_tracecmd/common-type-past-record.dat",
		  .msg = "record 1: field 'common_type' lies past the record's 68 bytes" },
		{ .path = "regress/fuzz_import_tracecmd/v6-format-read-fails-leak.dat", .msg = "not a readable trace-cmd trace.dat file" },
		/*
		 * an event length word below 4: libtracecmd returned the same record forever (the import
		 * hung); the probe that walked the file first said so, the import now stops at the first
		 * record that runs past its page, before the loop
		 */
		{ .path = "regress/fuzz_import_tracecmd/kbuffer-length-below-4-loops.dat",
		  .msg = "record 48 (byte 43976): its 1050688 bytes run past its 4096-byte ring-buffer page" },
		/* a printk size of 0xffffffff: libtracecmd read the file into malloc(0) (a heap overflow) */
		{ .path = "regress/fuzz_import_tracecmd/printk-size-wraps.dat", .msg = TC_OVERREAD },
		/* a length word of 1.9 GB: libtraceevent read common_type 39 MB past the page (SIGSEGV) */
		{ .path = "regress/fuzz_import_tracecmd/record-past-its-page.dat",
		  .msg = "record 1 (byte 40976): its 1929379912 bytes run past its 4096-byte ring-buffer page" },
	};

	return cr_make_param_array(struct tcfile, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct tcfile *p, impexp_cli, tracecmd_small_files, .timeout = 120)
{
	char *err = NULL;
	int st = run(NULL, &err, "import --from trace-cmd '%s/tests/fuzz/%s' -o out.tsim", th_src(), p->path);

	if (!p->msg[0]) {
		json_t *j;

		cr_assert_eq(st, 0, "%s: exit %d: %s", p->path, st, err);
		j = info("out.tsim");
		cr_expect_eq(kind_records(j, "ISSUE"), p->issues, "%s", p->path);
		json_decref(j);
	} else {
		cr_assert_eq(st, 1, "%s: exit %d: %s", p->path, st, err);
		cr_expect_eq(th_lines(err), 1, "one line: %s", err);
		cr_expect(strstr(err, p->msg), "%s", err);
		cr_expect_eq(nfiles(), 0, "nothing left");
	}
	free(err);
}

/*
 * libtracecmd and libtraceevent never run in the importing process: a malformed trace.dat
 * corrupts the heap of the child that reads it, not trimsim's (traces/import/tcfile.c). A
 * printk size of 0xffffffff made libtracecmd read the rest of the file into malloc(0); the
 * forked probe that walked the file first came back clean and the import then did the same
 * in its own process (glibc abort in the fuzz harness 4,142 inputs into a run). An
 * LD_PRELOAD shim, compiled here, aborts when tracecmd_open() is called by the process that
 * started: the plain binary of the tree before this test was written died with SIGABRT on
 * the seed; it imports now.
 */
Test(impexp_cli, tracecmd_runs_only_in_a_child, .timeout = 120)
{
	static const char shim[] =
		"#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
		"static pid_t first;\n"
		"__attribute__((constructor)) static void init(void) { first = getpid(); }\n"
		"void *tracecmd_open(const char *file, int flags)\n"
		"{\n\tvoid *(*real)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, \"tracecmd_open\");\n"
		"\tif (getpid() == first || !real)\n\t\tabort();\n\treturn real(file, flags);\n}\n";
	const char *plain = getenv("TRIMSIM_PLAIN"), *cc = getenv("CC");
	char path[512], cmd[2048], *err = NULL;
	int st;

	cr_assert(plain, "TRIMSIM_PLAIN is not set (run through make)");
	snprintf(path, sizeof(path), "%s/shim.c", th_dir());
	cr_assert_eq(th_write(path, shim, sizeof(shim) - 1), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s -shared -fPIC -o shim.so shim.c -ldl", th_dir(), cc && *cc ? cc : "cc");
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "compiling the shim: exit %d: %s", st, err);
	free(err);
	err = NULL;
	snprintf(cmd, sizeof(cmd), "cd '%s' && LD_PRELOAD=./shim.so '%s' import --from trace-cmd "
		 "'%s/tests/fuzz/seeds/fuzz_import_tracecmd/block-v6.dat' -o out.tsim", th_dir(), plain, th_src());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	cr_expect(strstr(err, "110 ISSUE"), "%s", err);
	free(err);
}
