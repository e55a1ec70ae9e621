// SPDX-License-Identifier: GPL-2.0
/* rwbs text of the block tracepoints to enum ts_op and TS_F_* (see rwbs.h). */
#include <string.h>

#include "traces/rwbs.h"
#include "traces/trace.h"

/* The op letters blk_fill_rwbs() writes, and the second letter that makes another op of some. */
static const struct {
	char letter, second;
	unsigned op, op2;
} op_letters[] = {
	{ 'W', 'Z', TS_OP_WRITE, TS_OP_WRITE_ZEROES },
	{ 'D', 'E', TS_OP_DISCARD, TS_OP_SECURE_ERASE },
	{ 'F', 0, TS_OP_FLUSH, 0 },
	{ 'R', 0, TS_OP_READ, 0 },
};

unsigned ts_rwbs_decode(const char *s, size_t n, uint64_t sectors, uint16_t *flags)
{
	unsigned op = TS_OP_NONE;
	size_t i = 0, k;

	*flags = 0;
	if (n > 1 && s[0] == 'F' && s[1] && strchr("WDFRNZ", s[1])) {
		*flags |= TS_F_PREFLUSH;
		i = 1;
	}
	if (i >= n || !s[i])
		return TS_OP_NONE;
	if (s[i] == 'N') {	/* no letter for the op: write-zeroes if it carries sectors */
		op = sectors ? TS_OP_WRITE_ZEROES : TS_OP_NONE;
		i++;
	} else {
		for (k = 0; k < sizeof(op_letters) / sizeof(op_letters[0]) && op_letters[k].letter != s[i]; k++)
			;
		if (k == sizeof(op_letters) / sizeof(op_letters[0]))
			return TS_OP_NONE;	/* 'Z' and a zone letter: no ts_op */
		op = op_letters[k].op;
		if (++i < n && op_letters[k].second && s[i] == op_letters[k].second) {
			op = op_letters[k].op2;
			i++;
		}
	}
	for (; i < n && s[i]; i++) {
		if (s[i] == 'F')
			*flags |= TS_F_FUA;
		else if (s[i] == 'S')
			*flags |= TS_F_SYNC;
		else if (s[i] == 'M')
			*flags |= TS_F_METADATA;
	}
	return op;
}
