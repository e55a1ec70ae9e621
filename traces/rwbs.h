/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACES_RWBS_H
#define TRACES_RWBS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The block tracepoints' rwbs text, decoded as kernel/trace/blktrace.c:blk_fill_rwbs()
 * writes it (Linux 6.18): 'F' if REQ_PREFLUSH, then the op ("W", "D", "DE", "F", "R",
 * "Z" and a zone letter, else "N"), then F (REQ_FUA), A (REQ_RAHEAD), S (REQ_SYNC),
 * M (REQ_META), U (REQ_ATOMIC). "N" is every op without a letter: with sectors, on a
 * device that is not zoned, that is REQ_OP_WRITE_ZEROES ("NS" for BLKZEROOUT on 6.18);
 * without sectors (zone management, driver-private ops) it is no op. "WZ", the letters
 * a proposed blktrace patch gives write-zeroes, is read as write-zeroes too.
 * The text is read up to n chars or its NUL; the discard op is 'D' wherever flags
 * follow ("DS" for ext4), never compared as a whole string.
 * Returns enum ts_op (TS_OP_NONE for what is not a ts_op) and sets *flags to TS_F_SYNC,
 * TS_F_FUA, TS_F_PREFLUSH, TS_F_METADATA.
 */
unsigned ts_rwbs_decode(const char *s, size_t n, uint64_t sectors, uint16_t *flags);

#endif
