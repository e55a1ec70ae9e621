/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structure-aware mutation of importer inputs (fuzz_mutate.h has the shared
 * parts): a blktrace file as its stream of struct blk_io_trace records (one
 * field changed, a record copied, dropped or moved, payload lengths included),
 * a DTrace text file as lines of space-separated tokens (a number, a name or
 * a line changed). One mutation in eight is libFuzzer's own.
 */
#ifndef TRIMSIM_FUZZ_MUTATE_IMPORT_H
#define TRIMSIM_FUZZ_MUTATE_IMPORT_H

#include "traces/import/blkio.h"
#include "tests/fuzz/fuzz_mutate.h"

/* ---- blktrace: records of 48 bytes, each followed by pdu_len payload bytes ---- */

/* Offsets of the records in data (the stream as the importer walks it); returns how many (<= max). */
static inline size_t fm_bt_index(const uint8_t *data, size_t size, size_t *at, size_t max)
{
	size_t n = 0, off = 0;

	while (n < max && off + sizeof(struct blkio_trace) <= size) {
		struct blkio_trace t;

		memcpy(&t, data + off, sizeof(t));
		at[n++] = off;
		off += sizeof(t) + t.pdu_len;
	}
	return n;
}

static inline void fm_bt_field(struct fm_rng *r, struct blkio_trace *t)
{
	static const uint32_t acts[] = { BLKIO_TA_QUEUE, BLKIO_TA_ISSUE, BLKIO_TA_COMPLETE, BLKIO_TA_REQUEUE,
					 BLKIO_TA_GETRQ, BLKIO_TA_INSERT };
	static const uint32_t cats[] = { BLKIO_TC_WRITE | BLKIO_TC_DISCARD, BLKIO_TC_READ, BLKIO_TC_WRITE,
					 BLKIO_TC_FLUSH, BLKIO_TC_WRITE | BLKIO_TC_FLUSH, BLKIO_TC_NOTIFY, BLKIO_TC_PC };

	switch (fm_below(r, 9)) {
	case 0: t->sector = fm_value(r, t->sector, 0); break;
	case 1: t->bytes = (uint32_t)fm_value(r, t->bytes, 0); break;
	case 2: t->time = fm_value(r, t->time, 0); break;
	case 3: t->pdu_len = (uint16_t)fm_value(r, t->pdu_len, 0); break;
	case 4: t->action = BLKIO_TC(cats[fm_below(r, FM_NELEM(cats))]) | acts[fm_below(r, FM_NELEM(acts))]; break;
	case 5: t->device = fm_below(r, 2) ? TS_DEV_MK(8, fm_below(r, 4)) : (uint32_t)fm_next(r); break;
	case 6: t->magic = BLKIO_MAGIC | (uint32_t)fm_below(r, 9); break;
	case 7: t->error = (uint16_t)fm_next(r); break;
	default: t->action ^= 1u << fm_below(r, 32); break;
	}
}

static inline size_t fm_blktrace_mutate(uint8_t *data, size_t size, size_t max, unsigned seed)
{
	struct fm_rng r;
	size_t at[512], n, i, len;
	struct blkio_trace t;

	fm_seed(&r, seed);
	n = fm_bt_index(data, size, at, 512);
	if (!n || fm_below(&r, 8) == 0)
		return LLVMFuzzerMutate(data, size, max);
	i = fm_below(&r, n);
	len = i + 1 < n ? at[i + 1] - at[i] : size - at[i];
	memcpy(&t, data + at[i], sizeof(t));
	switch (fm_below(&r, 6)) {
	case 0: case 1: case 2:	/* one field; the payload length may now run past the end */
		fm_bt_field(&r, &t);
		memcpy(data + at[i], &t, sizeof(t));
		return size;
	case 3:	/* drop the record and its payload */
		memmove(data + at[i], data + at[i] + len, size - at[i] - len);
		return size - len;
	case 4: {	/* a changed copy of it, after it */
		if (size + sizeof(t) > max)
			return LLVMFuzzerMutate(data, size, max);
		memmove(data + at[i] + len + sizeof(t), data + at[i] + len, size - at[i] - len);
		fm_bt_field(&r, &t);
		t.pdu_len = 0;
		memcpy(data + at[i] + len, &t, sizeof(t));
		return size + sizeof(t);
	}
	default: {	/* swap two records' headers (times out of order, a complete before its issue) */
		size_t j = fm_below(&r, n);
		struct blkio_trace u;

		memcpy(&u, data + at[j], sizeof(u));
		if (u.pdu_len != t.pdu_len)
			return size;
		memcpy(data + at[j], &t, sizeof(t));
		memcpy(data + at[i], &u, sizeof(u));
		return size;
	}
	}
}

/* ---- DTrace text: "free TIME DEV INO OFFSET BYTES", "start ...", "done ...", "fs DEV FSIZE BSIZE MOUNT" ---- */
static const char *const fm_dt_words[] = {
	"ada0", "ada0p2", "da1", "\xff\xfe", "ada\x1b[2J", "caf\xc3\xa9", "nvd0nvd0nvd0nvd0nvd0nvd0nvd0nvd0x",
	"delete", "write", "read", "flush", "zap", "",
};

static inline size_t fm_dtrace_mutate(uint8_t *data, size_t size, size_t max, unsigned seed)
{
	struct fm_rng r;
	char *text, *lines[256], *save = NULL, *out = NULL, *l;
	size_t n = 0, olen = 0, k;
	FILE *f;

	fm_seed(&r, seed);
	if (fm_below(&r, 8) == 0 || !(text = strndup((const char *)data, size)))
		return LLVMFuzzerMutate(data, size, max);
	for (l = strtok_r(text, "\n", &save); l && n < 256; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	f = open_memstream(&out, &olen);
	k = n ? fm_below(&r, n) : 0;
	for (size_t i = 0; f && i < n; i++) {
		char *tok[12], *s2 = NULL, *w;
		size_t nt = 0, which;

		if (i != k || !strchr(lines[i], ' ')) {
			fprintf(f, "%s\n", lines[i]);
			continue;
		}
		switch (fm_below(&r, 6)) {
		case 0:	/* the line twice */
			fprintf(f, "%s\n%s\n", lines[i], lines[i]);
			continue;
		case 1:	/* a mount point far longer than any (MNAMELEN is 1024) */
			if (!strncmp(lines[i], "fs ", 3)) {
				fprintf(f, "%s/", lines[i]);
				for (unsigned z = 0; z < 300 + fm_below(&r, 5000); z++)
					fputc('a' + (int)(z % 26), f);
				fputc('\n', f);
				continue;
			}
			break;
		default:
			break;
		}
		for (w = strtok_r(lines[i], " ", &s2); w && nt < 12; w = strtok_r(NULL, " ", &s2))
			tok[nt++] = w;
		which = 1 + fm_below(&r, nt > 1 ? nt - 1 : 1);
		for (size_t j = 0; j < nt; j++) {
			fputs(j ? " " : "", f);
			if (j != which) {
				fputs(tok[j], f);
			} else if (tok[j][0] >= '0' && tok[j][0] <= '9' && fm_below(&r, 4)) {
				fprintf(f, "%llu", (unsigned long long)fm_value(&r, strtoull(tok[j], NULL, 10), 0));
			} else {
				fputs(fm_dt_words[fm_below(&r, FM_NELEM(fm_dt_words))], f);
			}
		}
		fputc('\n', f);
	}
	if (f)
		fclose(f);
	free(text);
	if (!out || !olen || olen > max) {
		free(out);
		return LLVMFuzzerMutate(data, size, max);
	}
	memcpy(data, out, olen);
	free(out);
	return olen;
}

#endif
