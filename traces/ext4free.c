// SPDX-License-Identifier: GPL-2.0
/* ext4 bigalloc frees: see ext4free.h. */
#include "traces/ext4free.h"

bool ts_ext4_free_clusters(uint64_t cluster, uint32_t nofree_first, uint32_t nofree_last, uint32_t flags,
			   uint64_t *off, uint64_t *len)
{
	uint64_t over = *off & (cluster - 1);

	if (over) {
		if (nofree_first && (flags & nofree_first)) {
			if (*len <= cluster - over)
				return false;
			*off += cluster - over;
			*len -= cluster - over;
		} else {
			*off -= over;
			*len += over;
		}
	}
	over = *len & (cluster - 1);
	if (over) {
		if (nofree_last && (flags & nofree_last)) {
			if (*len <= over)
				return false;
			*len -= over;
		} else {
			*len += cluster - over;
		}
	}
	return true;
}
