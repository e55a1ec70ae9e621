// SPDX-License-Identifier: GPL-2.0
/* target_spec_parse(): the one target spec grammar of replay (-M, -t, --device, --file) and compare (-M). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "replay/targets/target.h"

struct spec_case {
	char spec[64];
	bool strict;
	char name[16];		/* "" = refused */
	char arg[64];		/* or, when refused, what the message says */
};

static struct spec_case cases[] = {
	{ .spec = "nvme", .name = "model", .arg = "nvme" },
	{ .spec = "sata-sf2281:trim_base=5ms", .name = "model", .arg = "sata-sf2281:trim_base=5ms" },
	{ .spec = "/p/a:b/prof.json:qd=4", .name = "model", .arg = "/p/a:b/prof.json:qd=4" },
	{ .spec = "model:nvme:qd=2", .name = "model", .arg = "nvme:qd=2" },
	{ .spec = "file:/tmp/x.img", .name = "file", .arg = "/tmp/x.img" },
	{ .spec = "device:/dev/loop7", .name = "device", .arg = "/dev/loop7" },
	{ .spec = "fixed:discard=9ms,qd=1", .name = "fixed", .arg = "discard=9ms,qd=1" },
	{ .spec = "fixed", .name = "model", .arg = "fixed" },	/* -M fixed: a profile named fixed */
	{ .spec = "fixed", .strict = true, .name = "fixed", .arg = "" },
	{ .spec = "file:/tmp/y", .strict = true, .name = "file", .arg = "/tmp/y" },
	{ .spec = "model:emmc", .strict = true, .name = "model", .arg = "emmc" },
	{ .spec = "nosuch:x", .strict = true, .arg = "target 'nosuch' is not built in (targets: model fixed" },
	{ .spec = "files:/tmp/x", .strict = true, .arg = "target 'files' is not built in" },
	{ .spec = "", .strict = true, .arg = "target '' is not built in" },
};

ParameterizedTestParameters(target_spec, forms)
{
	return cr_make_param_array(struct spec_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct spec_case *c, target_spec, forms)
{
	char err[256] = "";
	const char *arg = NULL;
	const struct target_ops *t = target_spec_parse(c->spec, c->strict, &arg, err, sizeof(err));

	if (!c->name[0]) {
		cr_assert_null(t, "'%s' strict %d: accepted as %s", c->spec, c->strict, t ? t->name : "");
		cr_assert(strstr(err, c->arg), "'%s': %s", c->spec, err);
		return;
	}
	cr_assert_not_null(t, "'%s': %s", c->spec, err);
	cr_assert_str_eq(t->name, c->name, "'%s'", c->spec);
	cr_assert_str_eq(arg, c->arg, "'%s'", c->spec);
	cr_assert_eq(t, target_find(c->name));
}
