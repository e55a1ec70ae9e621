// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzz smoke, inside `make test`: every libFuzzer harness (tests/fuzz/fuzz_*.c,
 * built by tests/fuzz/fuzz.mk into $TRIMSIM_BUILD/fuzz/) runs over its seeds and
 * its regression inputs, then mutates for SMOKE seconds (TRIMSIM_FUZZ_SMOKE_SECONDS,
 * default 10). Any crash, leak, sanitizer report or 10 s hang fails the test; the
 * input is left in $TRIMSIM_BUILD/fuzz/smoke/NAME/ for tests/fuzz/regress/.
 * Running it as a Criterion suite keeps `make test`'s closing line the only summary.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"

struct harness {
	char name[40];
};

ParameterizedTestParameters(fuzz, smoke)
{
	static struct harness t[] = {
		{ "fuzz_reader" }, { "fuzz_jsonl" }, { "fuzz_profile" }, { "fuzz_policy" },
		{ "fuzz_import_blktrace" }, { "fuzz_import_tracecmd" }, { "fuzz_import_dtrace" }, { "fuzz_replay" },
	};
	return cr_make_param_array(struct harness, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct harness *h, fuzz, smoke, .timeout = 300)
{
	const char *secs = getenv("TRIMSIM_FUZZ_SMOKE_SECONDS");
	char bin[512], cmd[4096], art[512], *out = NULL, *opts;
	size_t olen = 0;
	int rc;

	snprintf(bin, sizeof(bin), "%s/fuzz/%s", th_build(), h->name);
	cr_assert_eq(access(bin, X_OK), 0, "%s not built (make fuzz-bins; needs clang)", bin);
	snprintf(art, sizeof(art), "%s/fuzz/smoke/%s", th_build(), h->name);
	snprintf(cmd, sizeof(cmd), "%s/tests/fuzz/%s.options", th_src(), h->name);
	opts = th_slurp(cmd, &olen);
	if (opts)
		opts[strcspn(opts, "\n")] = 0;
	/* A fresh corpus dir each run: the seeds and regression inputs are the starting point. */
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %1$s && mkdir -p %1$s/corpus && d= && for x in seeds regress; do "
		 "[ -d %5$s/tests/fuzz/$x/%6$s ] && d=\"$d %5$s/tests/fuzz/$x/%6$s\"; done; "
		 "%2$s -max_total_time=%3$s -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 %4$s -artifact_prefix=%1$s/ "
		 "%1$s/corpus $d >%1$s.log 2>&1; st=$?; %5$s/tests/fuzz/summary.sh %6$s %1$s.log; exit $st",
		 art, bin, secs && *secs ? secs : "10", opts ? opts : "", th_src(), h->name);
	free(opts);
	rc = th_run(cmd, &out, NULL);
	cr_log_info("%s", out ? out : "");
	cr_expect_eq(rc, 0, "%s failed (exit %d): %s; log in %s.log", h->name, rc, out ? out : "", art);
	cr_expect(out && !strstr(out, "CRASH"), "%s: %s", h->name, out ? out : "");
	free(out);
}
