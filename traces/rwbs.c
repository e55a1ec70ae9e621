// SPDX-License-Identifier: GPL-2.0
/* rwbs text of the block tracepoints to enum ts_op and TS_F_* (see rwbs.h). */
#include <string.h>

#include "traces/rwbs.h"
#include "traces/trace.h"

unsigned ts_rwbs_decode(const char *s, size_t n, uint64_t sectors, uint16_t *flags)
{
	unsigned op = TS_OP_NONE;
	size_t i = 0;

	*flags = 0;
	if (n > 1 && s[0] == 'F' && s[1] && strchr("WDFRNZ", s[1])) {
		*flags |= TS_F_PREFLUSH;
		i = 1;
	}
	if (i >= n || !s[i])
		return TS_OP_NONE;
	switch (s[i++]) {
	case 'W':
		op = TS_OP_WRITE;
		if (i < n && s[i] == 'Z') {
			op = TS_OP_WRITE_ZEROES;
			i++;
		}
		break;
	case 'D':
		op = TS_OP_DISCARD;
		if (i < n && s[i] == 'E') {
			op = TS_OP_SECURE_ERASE;
			i++;
		}
		break;
	case 'F':
		op = TS_OP_FLUSH;
		break;
	case 'R':
		op = TS_OP_READ;
		break;
	case 'N':
		op = sectors ? TS_OP_WRITE_ZEROES : TS_OP_NONE;
		break;
	case 'Z':	/* zone ops: the zone letter follows, no ts_op */
	default:
		return TS_OP_NONE;
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
