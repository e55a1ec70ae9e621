/* SPDX-License-Identifier: GPL-2.0 */
/* Policy string parser (parse.c): a list of stage kinds with their configs. */
#ifndef TRIMSIM_POLICY_PARSE_H
#define TRIMSIM_POLICY_PARSE_H

#include "replay/policies/policy.h"

struct parsed_stage {
	const struct policy_stage_ops *ops;
	void *cfg;	/* calloc'd, defaults and user options applied */
};

struct parsed {
	struct parsed_stage *st;
	size_t n, cap;
	enum policy_waiter waiter;	/* the last expanded preset that names its submitter */
};

/* 0, or -EINVAL with a message (caret line, valid names) in err; free with parsed_free either way. */
int policy_parse(const char *spec, struct parsed *out, char *err, size_t errlen);
void parsed_free(struct parsed *p);
int grow_parsed(struct parsed *p);
/* The preset's pipeline parses, and its positional keys and aliases reach an option; 0 or -EINVAL with err. */
int policy_preset_check(const struct policy_preset *pr, char *err, size_t errlen);

#endif
