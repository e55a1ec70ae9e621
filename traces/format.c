// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of the trace format every reader and writer shares: names of
 * kinds, ops, META subtypes and filesystems; byte-order conversion; the
 * checksum; the device table's JSON form. traces/FORMAT.md is the spec.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

static const char *const kind_names[] = {
	[TS_FREE] = "FREE", [TS_ALLOC] = "ALLOC", [TS_INTENT] = "INTENT", [TS_BIO] = "BIO",
	[TS_ISSUE] = "ISSUE", [TS_DONE] = "DONE", [TS_META] = "META",
};
static const char *const op_names[] = {
	[TS_OP_NONE] = "none", [TS_OP_READ] = "read", [TS_OP_WRITE] = "write",
	[TS_OP_FLUSH] = "flush", [TS_OP_DISCARD] = "discard",
	[TS_OP_SECURE_ERASE] = "secure-erase", [TS_OP_WRITE_ZEROES] = "write-zeroes",
};
static const char *const meta_names[] = {
	[TS_META_LOST] = "lost", [TS_META_MARK] = "mark", [TS_META_CMD_START] = "cmd-start",
	[TS_META_CMD_STOP] = "cmd-stop", [TS_META_FREESPACE] = "freespace",
	[TS_META_COMMIT] = "commit",
};
static const char *const fs_names[] = {
	[TS_FS_NONE] = "", [TS_FS_EXT4] = "ext4", [TS_FS_XFS] = "xfs", [TS_FS_BTRFS] = "btrfs",
	[TS_FS_UFS] = "ufs", [TS_FS_F2FS] = "f2fs",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const char *const *t, size_t n, unsigned v)
{
	return v < n ? t[v] : NULL;
}

static int from_name(const char *const *t, size_t n, size_t first, const char *s)
{
	for (size_t i = first; s && i < n; i++)
		if (t[i] && t[i][0] == s[0] && !strcmp(t[i], s))
			return (int)i;
	return -1;
}

const char *ts_kind_name(unsigned kind) { return name_of(kind_names, NELEM(kind_names), kind); }
const char *ts_op_name(unsigned op) { return name_of(op_names, NELEM(op_names), op); }
const char *ts_meta_name(unsigned meta) { return name_of(meta_names, NELEM(meta_names), meta); }
const char *ts_fs_name(unsigned fs) { return name_of(fs_names, NELEM(fs_names), fs); }
int ts_kind_from_name(const char *s) { return from_name(kind_names, NELEM(kind_names), 1, s); }
int ts_op_from_name(const char *s) { return from_name(op_names, NELEM(op_names), 0, s); }
int ts_meta_from_name(const char *s) { return from_name(meta_names, NELEM(meta_names), 1, s); }
int ts_fs_from_name(const char *s) { return from_name(fs_names, NELEM(fs_names), 1, s); }

unsigned ts_header_revision(const json_t *header)
{
	json_t *v = json_object_get(header, "revision");
	json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;

	return n > 0 && n < 1000 ? (unsigned)n : 0;
}

bool ts_header_records_sync(const json_t *header)
{
	const char *backend = json_string_value(json_object_get(header, "backend"));
	const char *kernel = json_string_value(json_object_get(header, "kernel"));

	return backend && backend[0] && kernel && kernel[0] >= '0' && kernel[0] <= '9' && strtoul(kernel, NULL, 10) >= 5;
}

uint64_t ts_header_start_ns(const json_t *header)
{
	json_t *v = json_object_get(header, "start_ns");

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* ---- byte order ---- */

static void record_swap(struct ts_record *r)
{
	r->time_ns = __builtin_bswap64(r->time_ns);
	r->offset = __builtin_bswap64(r->offset);
	r->length = __builtin_bswap64(r->length);
	r->ino = __builtin_bswap64(r->ino);
	r->latency_ns = __builtin_bswap64(r->latency_ns);
	r->dev = __builtin_bswap32(r->dev);
	r->flags = __builtin_bswap16(r->flags);
}

void ts_record_to_host(struct ts_record *r, bool file_is_big_endian)
{
	if (file_is_big_endian != TS_HOST_BIG_ENDIAN)
		record_swap(r);
}

void ts_record_to_le(struct ts_record *r)
{
	if (TS_HOST_BIG_ENDIAN)
		record_swap(r);
}

/*
 * ---- record check ----
 * ts_record_check()'s tests as one branch-free expression (ts_record_ok in
 * trace_int.h): ts_valid_ops[kind] has bit op set for each valid (kind, op):
 * ops 0..TS_OP_MAX for the event kinds, META subtypes 1..TS_META_MAX for
 * META, none otherwise (so the footer's kind fails). ts_valid_kind_op holds
 * the same a byte per (kind, op & 7), for the vector forms of the check + sum
 * (traces/checksum.c), which test op < 8 apart: both are made from VALID_OPS.
 */
#define OPS_UPTO(n) ((1u << ((n) + 1)) - 1)
#define VALID_OPS(X)                                                                                   \
	X(TS_FREE, OPS_UPTO(TS_OP_MAX)) X(TS_ALLOC, OPS_UPTO(TS_OP_MAX)) X(TS_INTENT, OPS_UPTO(TS_OP_MAX)) \
	X(TS_BIO, OPS_UPTO(TS_OP_MAX)) X(TS_ISSUE, OPS_UPTO(TS_OP_MAX)) X(TS_DONE, OPS_UPTO(TS_OP_MAX))    \
	X(TS_META, OPS_UPTO(TS_META_MAX) & ~1u)
#define BY_KIND(k, ops) [k] = (ops),
const uint8_t ts_valid_ops[256] = { VALID_OPS(BY_KIND) };
#define KIND_OP(k, ops, op) [(k) | (op) << 8] = ((ops) >> (op)) & 1
#define BY_KIND_OP(k, ops)                                                                             \
	KIND_OP(k, ops, 0), KIND_OP(k, ops, 1), KIND_OP(k, ops, 2), KIND_OP(k, ops, 3), KIND_OP(k, ops, 4), \
	KIND_OP(k, ops, 5), KIND_OP(k, ops, 6), KIND_OP(k, ops, 7),
const uint8_t ts_valid_kind_op[2048] __attribute__((aligned(64))) = { VALID_OPS(BY_KIND_OP) };
_Static_assert(TS_KIND_MAX == TS_META && TS_OP_MAX < 8 && TS_META_MAX < 8,
	       "ts_valid_ops holds kinds 1..7 and ops 0..7: update it with the kinds");

/* ---- device table ---- */

enum dfield { D_STR, D_U32, D_U64, D_BOOL, D_DEV };

static const struct dspec {
	const char *key;
	enum dfield type;
	size_t off;
	size_t size;
} dev_fields[] = {
	{ "name", D_STR, offsetof(struct ts_device, name), sizeof(((struct ts_device *)0)->name) },
	{ "dev", D_DEV, offsetof(struct ts_device, dev), 0 },
	{ "size", D_U64, offsetof(struct ts_device, size), 0 },
	{ "logical_block_size", D_U32, offsetof(struct ts_device, logical_block_size), 0 },
	{ "physical_block_size", D_U32, offsetof(struct ts_device, physical_block_size), 0 },
	{ "partition_start", D_U64, offsetof(struct ts_device, partition_start), 0 },
	{ "discard_granularity", D_U64, offsetof(struct ts_device, discard_granularity), 0 },
	{ "discard_max_bytes", D_U64, offsetof(struct ts_device, discard_max_bytes), 0 },
	{ "max_discard_segments", D_U32, offsetof(struct ts_device, max_discard_segments), 0 },
	{ "rotational", D_BOOL, offsetof(struct ts_device, rotational), 0 },
	{ "fs", D_STR, offsetof(struct ts_device, fs), sizeof(((struct ts_device *)0)->fs) },
	{ "fs_block_size", D_U32, offsetof(struct ts_device, fs_block_size), 0 },
	{ "xfs_agblocks", D_U64, offsetof(struct ts_device, xfs_agblocks), 0 },
	{ "mount", D_STR, offsetof(struct ts_device, mount), sizeof(((struct ts_device *)0)->mount) },
};

static int dev_field_from_json(const struct dspec *f, const json_t *v, struct ts_device *d,
			       char *err, size_t errlen)
{
	char *p = (char *)d + f->off;
	json_int_t i;

	switch (f->type) {
	case D_STR:
		if (!json_is_string(v))
			return ts_errf(err, errlen, -EINVAL, "device field \"%s\": expected a string", f->key);
		if (json_string_length(v) >= f->size)
			return ts_errf(err, errlen, -EINVAL, "device field \"%s\": longer than %zu bytes",
				       f->key, f->size - 1);
		if (strlen(json_string_value(v)) != json_string_length(v))
			return ts_errf(err, errlen, -EINVAL, "device field \"%s\": holds a NUL byte", f->key);
		memcpy(p, json_string_value(v), json_string_length(v) + 1);
		return 0;
	case D_DEV:
		if (!json_is_string(v) || ts_dev_parse(json_string_value(v), (uint32_t *)p))
			return ts_errf(err, errlen, -EINVAL,
				       "device field \"dev\": expected \"major:minor\"");
		return 0;
	case D_BOOL:
		if (!json_is_boolean(v))
			return ts_errf(err, errlen, -EINVAL, "device field \"%s\": expected true or false", f->key);
		*(bool *)p = json_is_true(v);
		return 0;
	case D_U32:
	case D_U64:
		if (!json_is_integer(v) || (i = json_integer_value(v)) < 0 ||
		    (f->type == D_U32 && i > (json_int_t)UINT32_MAX))
			return ts_errf(err, errlen, -EINVAL,
				       "device field \"%s\": expected a non-negative integer", f->key);
		if (f->type == D_U32)
			*(uint32_t *)p = (uint32_t)i;
		else
			*(uint64_t *)p = (uint64_t)i;
		return 0;
	}
	return -EINVAL;
}

int ts_device_from_json(const json_t *o, struct ts_device *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	if (!json_is_object(o))
		return ts_errf(err, errlen, -EINVAL, "device entry is not an object");
	for (size_t k = 0; k < NELEM(dev_fields); k++) {
		const json_t *v = json_object_get(o, dev_fields[k].key);
		int ret;

		if (!v) {
			if (dev_fields[k].type == D_DEV || k == 0)
				return ts_errf(err, errlen, -EINVAL, "device entry lacks \"%s\"",
					       dev_fields[k].key);
			continue;
		}
		ret = dev_field_from_json(&dev_fields[k], v, d, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

json_t *ts_device_to_json(const struct ts_device *d)
{
	json_t *o = json_object();
	char buf[32];

	for (size_t k = 0; o && k < NELEM(dev_fields); k++) {
		const char *p = (const char *)d + dev_fields[k].off;
		json_t *v = NULL;

		switch (dev_fields[k].type) {
		case D_STR: v = json_string(p); break;
		case D_DEV: v = json_string(ts_dev_str(*(const uint32_t *)p, buf, sizeof(buf))); break;
		case D_BOOL: v = json_boolean(*(const bool *)p); break;
		case D_U32: v = json_integer(*(const uint32_t *)p); break;
		case D_U64: v = json_integer((json_int_t)*(const uint64_t *)p); break;
		}
		if (!v || json_object_set_new(o, dev_fields[k].key, v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* ---- header ---- */

int ts_header_parse(const json_t *h, struct ts_device **devs, size_t *n, struct ts_devmap **map,
		    char *err, size_t errlen)
{
	struct ts_devmap *m = NULL;
	const json_t *arr, *v;
	size_t i;
	int ret;

	*devs = NULL;
	*n = 0;
	if (map)
		*map = NULL;
	if (!json_is_object(h))
		return ts_errf(err, errlen, -EBADMSG, "header is not a JSON object");
	v = json_object_get(h, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), "trimsim"))
		return ts_errf(err, errlen, -EBADMSG, "header field \"format\" is not \"trimsim\"");
	arr = json_object_get(h, "devices");
	if (arr && !json_is_array(arr))
		return ts_errf(err, errlen, -EBADMSG, "header field \"devices\" is not an array");
	if (json_array_size(arr) && !(*devs = calloc(json_array_size(arr), sizeof(**devs))))
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	json_array_foreach(arr, i, v) {
		char why[256];

		if ((ret = ts_device_from_json(v, &(*devs)[i], why, sizeof(why)))) {
			ts_errf(err, errlen, ret, "header devices[%zu]: %s", i, why);
			goto fail;
		}
	}
	if ((ret = ts_devices_check(*devs, json_array_size(arr), err, errlen)))
		goto fail;
	if (!(m = ts_devmap__new(*devs, json_array_size(arr), err, errlen))) {
		ret = -errno;
		goto fail;
	}
	*n = json_array_size(arr);
	if (map)
		*map = m;
	else
		ts_devmap__free(m);
	return 0;
fail:
	free(*devs);
	*devs = NULL;
	return ret;
}
