// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "traces/opts.h"

struct cfg {
	uint64_t base;
	uint64_t max;
	uint32_t qd;
	bool queued;
	double jitter;
	unsigned gc;
	char name[16];
};

static const char *const gc_choices[] = { "greedy", "cost-benefit", NULL };

static const struct opt_spec cfg_opts[] = {
	{ "trim_base", OPT_DURATION, offsetof(struct cfg, base), 0, 10e9, "9ms", "base" },
	{ "discard_max_bytes", OPT_BYTES, offsetof(struct cfg, max), 512, 1ull << 40, "2G", "max" },
	{ "qd", OPT_U32, offsetof(struct cfg, qd), 1, 1024, "32", "queue depth" },
	{ "queued_trim", OPT_BOOL, offsetof(struct cfg, queued), 0, 0, "false", "queued" },
	{ "jitter", OPT_DOUBLE, offsetof(struct cfg, jitter), 0, 1, "0.05", "jitter" },
	{ "gc", OPT_ENUM, offsetof(struct cfg, gc), 0, 0, "greedy", "gc", gc_choices },
	{ "name", OPT_STR, offsetof(struct cfg, name), 0, 0, "x", "name", NULL, 16 },
	{ 0 },
};

Test(opts, defaults_and_validate)
{
	struct cfg c = { 0 };
	char err[256];

	cr_assert_eq(opts__validate(cfg_opts, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(opts__defaults(cfg_opts, &c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.base, 9000000);
	cr_assert_eq(c.max, 2ull << 30);
	cr_assert_eq(c.qd, 32);
	cr_assert_not(c.queued);
	cr_assert_float_eq(c.jitter, 0.05, 1e-12);
	cr_assert_str_eq(c.name, "x");
}

Test(opts, kv_list)
{
	struct cfg c = { 0 };
	char err[256];

	cr_assert_eq(opts__parse_kv(cfg_opts, &c, "trim_base=5ms,qd=1,queued_trim=yes,gc=cost-benefit", ',',
				    err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.base, 5000000);
	cr_assert_eq(c.qd, 1);
	cr_assert(c.queued);
	cr_assert_eq(c.gc, 1);
}

/* Criterion re-executes the binary per test (ASLR): parameters hold arrays, never pointers. */
struct bad { char kv[64]; char msg[160]; };

ParameterizedTestParameters(opts, bad_values)
{
	static struct bad b[] = {
		{ .kv = "nope=1", .msg = "unknown option 'nope' (known: trim_base, discard_max_bytes, qd, queued_trim, jitter, gc, name)" },
		{ .kv = "qd=0", .msg = "option 'qd': 0 is out of range [1, 1024]" },
		/* bytes and durations: the range in units too, for every module's tables */
		{ .kv = "trim_base=20", .msg = "option 'trim_base': 20 is out of range [0, 10000000000] (0 .. 10 s)" },
		{ .kv = "discard_max_bytes=100", .msg = "option 'discard_max_bytes': 100 is out of range [512, "
			"1099511627776] (512 B .. 1 TiB)" },
		{ .kv = "trim_base=5x", .msg = "option 'trim_base': '5x' is not a valid duration (e.g. 500us, 5ms, 2s, 1w)" },
		{ .kv = "gc=fifo", .msg = "option 'gc': 'fifo' is not one of: greedy, cost-benefit" },
		{ .kv = "qd", .msg = "option 'qd': expected key=value" },
		{ .kv = "name=aaaaaaaaaaaaaaaaaaaa", .msg = "option 'name': value longer than 15 characters" },
	};
	return cr_make_param_array(struct bad, b, sizeof(b) / sizeof(b[0]));
}

ParameterizedTest(struct bad *b, opts, bad_values)
{
	struct cfg c = { 0 };
	char err[256] = "";

	cr_assert_neq(opts__parse_kv(cfg_opts, &c, b->kv, ',', err, sizeof(err)), 0);
	cr_assert_str_eq(err, b->msg);
}

/* A floor the range cannot hold (0 = auto): opts__below() says it in the option's units. */
/* char arrays, not pointers: Criterion hands parameters to another process (as struct bad). */
struct below { char key[24]; uint64_t v, min; char why[16], msg[96]; };

ParameterizedTestParameters(opts, below)
{
	static struct below b[] = {
		{ .key = "discard_max_bytes", .v = 4096, .min = 256 << 10, .why = "a group",
		  .msg = "option 'discard_max_bytes': 4096 is below 256 KiB (a group)" },
		{ .key = "trim_base", .v = 5, .min = 1000000,
		  .msg = "option 'trim_base': 5 is below 1 ms" },
		{ .key = "qd", .v = 1, .min = 4, .why = "four lanes", .msg = "option 'qd': 1 is below 4 (four lanes)" },
		{ .key = "nope", .v = 1, .min = 4, .msg = "option 'nope': 1 is below 4" },
	};
	return cr_make_param_array(struct below, b, sizeof(b) / sizeof(b[0]));
}

ParameterizedTest(struct below *b, opts, below)
{
	char err[256] = "";

	cr_assert_eq(opts__below(cfg_opts, b->key, b->v, b->min, b->why[0] ? b->why : NULL, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, b->msg);
}

Test(opts, json)
{
	struct cfg c = { 0 };
	char err[256];
	json_error_t je;
	json_t *o = json_loads("{\"trim_base\": 0.009, \"qd\": 4, \"source\": \"x\", \"discard_max_bytes\": \"64K\"}", 0, &je);
	static const char *const ign[] = { "source", NULL };

	cr_assert_not_null(o);
	cr_assert_eq(opts__apply_json(cfg_opts, &c, o, ign, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.base, 9000000);
	cr_assert_eq(c.qd, 4);
	cr_assert_eq(c.max, 65536);
	json_decref(o);
}

Test(opts, formats)
{
	char b[32];
	uint64_t v;

	cr_assert_str_eq(fmt_bytes(13517, b, sizeof(b)), "13.2 KiB");
	cr_assert_str_eq(fmt_bytes(21ull << 20, b, sizeof(b)), "21 MiB");
	cr_assert_str_eq(fmt_duration(372000000000ull, b, sizeof(b)), "6.2 min");
	cr_assert_eq(parse_bytes("13.2K", &v), 0);
	cr_assert_eq(v, 13517);
	cr_assert_eq(parse_duration("1w", &v), 0);
	cr_assert_eq(v, 604800ull * 1000000000ull);
	cr_assert_neq(parse_bytes("-1", &v), 0);
}

/* One formatter for every listing: IEC sizes, humanised durations, one zero, one boolean spelling. */
struct fmt_case {
	char key[24];
	char val[24];	/* set first; "" = the default */
	char want[24];
};

static struct fmt_case fmts[] = {
	{ .key = "discard_max_bytes", .val = "1536", .want = "1.5 KiB" },
	{ .key = "discard_max_bytes", .val = "21M", .want = "21 MiB" },
	{ .key = "discard_max_bytes", .val = "", .want = "2 GiB" },
	{ .key = "discard_max_bytes", .val = "512", .want = "512 B" },
	{ .key = "trim_base", .val = "0", .want = "0" },
	{ .key = "trim_base", .val = "1500us", .want = "1.5 ms" },
	{ .key = "trim_base", .val = "", .want = "9 ms" },
	{ .key = "trim_base", .val = "6s", .want = "6 s" },
	{ .key = "queued_trim", .val = "1", .want = "true" },
	{ .key = "queued_trim", .val = "off", .want = "false" },
	{ .key = "queued_trim", .val = "", .want = "false" },
	{ .key = "qd", .val = "", .want = "32" },
	{ .key = "jitter", .val = "0.25", .want = "0.25" },
	{ .key = "gc", .val = "cost-benefit", .want = "cost-benefit" },
	{ .key = "name", .val = "", .want = "x" },
};

ParameterizedTestParameters(opts, format)
{
	return cr_make_param_array(struct fmt_case, fmts, sizeof(fmts) / sizeof(fmts[0]));
}

ParameterizedTest(struct fmt_case *c, opts, format)
{
	struct cfg v = { 0 };
	char err[256], buf[64];
	const struct opt_spec *o = opts__find(cfg_opts, c->key);

	cr_assert_not_null(o);
	if (!c->val[0]) {
		cr_expect_str_eq(opts__format_default(o, buf, sizeof(buf)), c->want, "%s default", c->key);
		return;
	}
	cr_assert_eq(opts__set(cfg_opts, &v, c->key, c->val, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(opts__format(o, &v, true, buf, sizeof(buf)), c->want, "%s=%s", c->key, c->val);
}

/* A default left out is zero, and zero is "0" whatever the unit; an empty string is "-". */
Test(opts, format_default_none_is_zero)
{
	static const struct opt_spec t[] = {
		{ "len", OPT_BYTES, 0, 0, 1e9, NULL, "len" },
		{ "t", OPT_DURATION, 0, 0, 1e9, NULL, "t" },
		{ "on", OPT_BOOL, 0, 0, 0, NULL, "on" },
		{ "s", OPT_STR, 0, 0, 0, NULL, "s", NULL, 8 },
		{ 0 },
	};
	char buf[32];

	cr_expect_str_eq(opts__format_default(&t[0], buf, sizeof(buf)), "0");
	cr_expect_str_eq(opts__format_default(&t[1], buf, sizeof(buf)), "0");
	cr_expect_str_eq(opts__format_default(&t[2], buf, sizeof(buf)), "false");
	cr_expect_str_eq(opts__format_default(&t[3], buf, sizeof(buf)), "-");
}
