/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trimsim trace: one record type for all three layers of the story
 * (what the filesystem freed, what it asked to discard, what the device did).
 * traces/FORMAT.md is the specification; this header is its C form.
 */
#ifndef TRIMSIM_TRACE_H
#define TRIMSIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

/*
 * Format version (the magic's low byte): 2 is what writers write; a reader reads
 * 1 and 2, which differ only in the footer's checksum (FORMAT.md, "Checksum").
 */
#define TS_VERSION		2u
#define TS_VERSION_MIN		1u
#define TS_MAGIC_BASE		0x54524d00u	/* "TRM" + version byte */
#define TS_MAGIC		(TS_MAGIC_BASE | TS_VERSION)
/* The header JSON's "version": its layout and the records', the same in format versions 1 and 2. */
#define TS_HEADER_VERSION	1
#define TS_RECORD_SIZE		48u
#define TS_FOOTER_MAGIC		0x524554464d525454ull	/* "TTRMFTER" */
#define TS_KIND_FOOTER		0xffu

/* Record kinds (DESIGN.md, "The trace: three layers of one story"). */
enum ts_kind {
	TS_FREE = 1,	/* fs freed an extent */
	TS_ALLOC = 2,	/* fs allocated an extent */
	TS_INTENT = 3,	/* fs asked to discard (online or FITRIM) */
	TS_BIO = 4,	/* a discard bio entered the block layer */
	TS_ISSUE = 5,	/* device command issued (any op) */
	TS_DONE = 6,	/* device command completed; latency_ns set */
	TS_META = 7,	/* recorder annotations; op holds enum ts_meta */
	TS_KIND_MAX = 7,
};

/* Operation classes, from request flags (never from the rwbs string). */
enum ts_op {
	TS_OP_NONE = 0,
	TS_OP_READ = 1,
	TS_OP_WRITE = 2,
	TS_OP_FLUSH = 3,
	TS_OP_DISCARD = 4,
	TS_OP_SECURE_ERASE = 5,
	TS_OP_WRITE_ZEROES = 6,
	TS_OP_MAX = 6,
};

/* META subtypes, stored in the op field of a TS_META record. */
enum ts_meta {
	TS_META_LOST = 1,	/* length = events lost, ino = cpu */
	TS_META_MARK = 2,	/* user marker; ino = marker id */
	TS_META_CMD_START = 3,	/* ino = pid of the traced command */
	TS_META_CMD_STOP = 4,	/* ino = pid, latency_ns = exit status */
	TS_META_FREESPACE = 5,	/* offset/length: a free extent (GETFSMAP); TS_F_SNAP_END for the end snapshot */
	TS_META_COMMIT = 6,	/* fs transaction / log commit; ino = tid or lsn */
	TS_META_MAX = 6,
};

/* Flags. The low nibble names the filesystem that produced a FREE/ALLOC/INTENT. */
enum ts_fs {
	TS_FS_NONE = 0,
	TS_FS_EXT4 = 1,
	TS_FS_XFS = 2,
	TS_FS_BTRFS = 3,
	TS_FS_UFS = 4,
	TS_FS_F2FS = 5,
	TS_FS_MAX = 5,
};
#define TS_F_FS_MASK	0x000fu
#define TS_F_FITRIM	0x0010u	/* INTENT came from FITRIM, not online discard */
#define TS_F_SYNC	0x0020u
#define TS_F_FUA	0x0040u
#define TS_F_PREFLUSH	0x0080u
#define TS_F_ERROR	0x0100u	/* DONE with an error status */
#define TS_F_METADATA	0x0200u
#define TS_F_SNAP_END	0x0400u	/* META_FREESPACE: end-of-recording snapshot */
#define TS_F_PREALLOC	0x0800u	/* FREE: unused preallocation given back (ext4_mballoc_discard); no discard in ext4 */
#define TS_F_WORKLOAD	0x1000u	/* BIO: submitted by a task of the recorded command (revision 2) */
#define TS_F_KNOWN	0x1fffu

/*
 * Header "revision": additive changes in what records mean, within format version 1
 * (FORMAT.md, "Revisions"). 0 (absent): before TS_F_PREALLOC existed.
 */
#define TS_REVISION		2u
#define TS_REV_PREALLOC		1u	/* FREE records of unused preallocations carry TS_F_PREALLOC */
#define TS_REV_WORKLOAD		2u	/* with a cmd-start record: BIOs of the command's tasks carry TS_F_WORKLOAD */

/*
 * One record, 48 bytes, little-endian on disk, in this field order.
 * In memory the same layout in host order.
 */
struct ts_record {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint64_t offset;	/* bytes on the whole device */
	uint64_t length;	/* bytes */
	uint64_t ino;		/* inode (FREE/ALLOC/INTENT), pid (BIO/ISSUE/DONE), META value */
	uint64_t latency_ns;	/* DONE: completion - issue; else 0 */
	uint32_t dev;		/* kernel dev_t: major << 20 | minor */
	uint8_t kind;
	uint8_t op;
	uint16_t flags;
};
_Static_assert(sizeof(struct ts_record) == TS_RECORD_SIZE, "ts_record must be 48 bytes");

/* The footer has the record size; byte 44 (kind) is TS_KIND_FOOTER. */
struct ts_footer {
	uint64_t records;
	uint64_t lost;
	uint64_t checksum;	/* ts_sum over the header bytes and all records (by the format version) */
	uint64_t end_ns;
	uint64_t magic;		/* TS_FOOTER_MAGIC */
	uint32_t reserved;
	uint8_t kind;		/* TS_KIND_FOOTER */
	uint8_t pad;
	uint16_t pad2;
};
_Static_assert(sizeof(struct ts_footer) == TS_RECORD_SIZE, "ts_footer must be 48 bytes");

#define TS_DEV_MAJOR(d)	((uint32_t)(d) >> 20)
#define TS_DEV_MINOR(d)	((uint32_t)(d) & 0xfffffu)
#define TS_DEV_MK(ma, mi) ((uint32_t)(((ma) << 20) | ((mi) & 0xfffffu)))

/* Names: "FREE", "discard", "lost", "ext4". NULL for unknown values. */
const char *ts_kind_name(unsigned kind);
const char *ts_op_name(unsigned op);
const char *ts_meta_name(unsigned meta);
const char *ts_fs_name(unsigned fs);
int ts_kind_from_name(const char *s);	/* -1 if unknown */
int ts_op_from_name(const char *s);
int ts_meta_from_name(const char *s);
int ts_fs_from_name(const char *s);

/* The header's "revision" (0 when absent or not a small non-negative integer). */
unsigned ts_header_revision(const json_t *header);
/* The header's "start_ns" (CLOCK_MONOTONIC at the start of the recording), 0 when absent. */
uint64_t ts_header_start_ns(const json_t *header);
/*
 * The records carry REQ_SYNC as the kernel set it (flag sync): `trimsim record` wrote the trace
 * (a "backend" in the header) on Linux 5.0 or later, where blkdev_issue_discard() ends in
 * submit_bio_wait(), which sets REQ_SYNC (block/blk-lib.c, block/bio.c): a discard its submitter
 * waited for that way is flagged. Imports and hand-made traces say nothing of it (seed 001's
 * Linux 3.2 waited without the flag).
 */
bool ts_header_records_sync(const json_t *header);
/*
 * A FREE that gave back an unused preallocation (the kernel did not discard it): TS_F_PREALLOC, or,
 * in a trace older than TS_REV_PREALLOC (legacy), an ext4 FREE without an inode: ext4_free_blocks
 * always names one, ext4_mballoc_discard never does (FORMAT.md, "Revisions").
 */
static inline bool ts_free_is_prealloc(const struct ts_record *r, bool legacy)
{
	return r->kind == TS_FREE && ((r->flags & TS_F_PREALLOC) ||
				      (legacy && !r->ino && (r->flags & TS_F_FS_MASK) == TS_FS_EXT4));
}

/* Convert a record read from a file of the given byte order to host order, in place. */
void ts_record_to_host(struct ts_record *r, bool file_is_big_endian);
/*
 * Streaming checksum of a trace, over its bytes as written (FORMAT.md, "Checksum"):
 * format version 1's four multiply chains over header and records, or version 2's
 * block sums over the records, chained with a hash of the header.
 */
#define TS_SUM_LANES 4
struct ts_sum {
	uint64_t lane[TS_SUM_LANES];	/* v1: the four lanes; v2: the product sums P */
	uint64_t n;			/* v1: bytes summed; v2: records summed */
	uint64_t word[TS_SUM_LANES];	/* v2: the word sums W */
	uint64_t head;			/* v2: the header's hash */
	unsigned version;
};
/* Version 1 over the bytes to come (the header first). */
void ts_sum_init(struct ts_sum *s);
/* Version 1 or 2 of a trace whose header is the hlen bytes at hdr, as they stand in the file. */
void ts_sum_start(struct ts_sum *s, unsigned version, const void *hdr, size_t hlen);
/*
 * v1: any bytes, len a multiple of 8 except on the last call. v2: whole records
 * (a partial one at the end of buf is not summed).
 */
void ts_sum_update(struct ts_sum *s, const void *buf, size_t len);
uint64_t ts_sum_final(const struct ts_sum *s);

/* Device table entries from the JSON header ("devices" array). */
struct ts_device {
	char name[32];
	uint32_t dev;
	uint64_t size;			/* bytes */
	uint32_t logical_block_size;
	uint32_t physical_block_size;
	uint64_t partition_start;	/* bytes from the start of the whole disk */
	uint64_t discard_granularity;
	uint64_t discard_max_bytes;
	uint32_t max_discard_segments;
	bool rotational;
	char fs[16];			/* "xfs", "ext4", "btrfs", "" */
	uint32_t fs_block_size;
	uint64_t xfs_agblocks;
	char mount[4096];		/* PATH_MAX: a mount point is kept whole */
};
int ts_device_from_json(const json_t *o, struct ts_device *d, char *err, size_t errlen);
json_t *ts_device_to_json(const struct ts_device *d);

/*
 * Bounds every trace value lies in (traces/bounds.c, FORMAT.md "Bounds"): what
 * a Linux kernel can report, checked once where a trace is read or written, so
 * that policies, models and exporters compute only with values in range.
 */
#define TS_MAX_BYTES	((uint64_t)INT64_MAX)	/* loff_t: offsets, lengths, sizes, offset + length */
#define TS_MAX_NS	((uint64_t)INT64_MAX)	/* ktime_t: record times and latencies */
/* A work bound, not a kernel one: the most pieces one request is cut into (blocks, groups, commands). */
#define TS_MAX_PIECES	(1u << 20)
/* 0 if the device's geometry is in range and consistent (FORMAT.md "Bounds"); else -EINVAL, why names the field. */
int ts_device_check(const struct ts_device *d, char *why, size_t len);

/* ---- Reader: binary or JSON Lines, chosen by the first bytes ---- */
struct trace_reader;

struct trace_status {
	uint64_t records;	/* whole records returned so far */
	uint64_t lost;		/* footer's lost count (0 until the footer is read) */
	bool footer;		/* footer seen */
	bool truncated;		/* file ended before a footer (or mid-record) */
	bool checksum_ok;	/* footer checksum matched (binary) */
	bool big_endian;	/* file byte order */
	bool jsonl;		/* JSON Lines input */
	unsigned version;	/* binary: the format version (the checksum it carries); 0 for JSON Lines */
	uint64_t end_ns;	/* footer's end time (0 until the footer is read) */
};

/*
 * NULL on error with errno set and a one-line message (naming path and offset) in err.
 * "-" is standard input (named "stdin" in messages). A path given to trace_reader__spool()
 * opens its copy.
 */
struct trace_reader *trace_reader__open(const char *path, char *err, size_t errlen);
/*
 * For a command that reads a trace more than once (compare's cells, export's survey,
 * replay's extent pass before a real target): a pipe, a FIFO or "-" can be read only
 * once, so its bytes are copied here, once, to an unlinked temporary file in $TMPDIR
 * (else /tmp); every later trace_reader__open(path) in this process, and in the workers
 * it forks, reads that copy, its messages still naming path. Nothing is done for a
 * regular file. Call it before any reader of path opens and before forking: the table
 * it fills is written only then. 0, or -errno with a one-line message in err
 * (-EINTR on SIGINT/SIGTERM while copying).
 */
int trace_reader__spool(const char *path, char *err, size_t errlen);
/* A new read-only fd on path's bytes from their start (its copy if spooled; "-" is stdin): -1 with errno. */
int trace_reader__open_fd(const char *path);
const json_t *trace_reader__header(const struct trace_reader *r);
/* Devices parsed from the header; valid until close. */
const struct ts_device *trace_reader__devices(const struct trace_reader *r, size_t *n);
/* The device a replay takes by default: the header's only device, else its first with a filesystem; or NULL. */
const struct ts_device *trace_reader__replay_device(const struct trace_reader *r);
/* 1: a record was stored in *rec; 0: end of trace; -errno: error, see trace_reader__error(). */
int trace_reader__next(struct trace_reader *r, struct ts_record *rec);
/* Zero-copy: up to max records in host order in the reader's buffer; returns count, 0 at end, -errno. */
ssize_t trace_reader__batch(struct trace_reader *r, const struct ts_record **recs, size_t max);
const struct trace_status *trace_reader__status(const struct trace_reader *r);
const char *trace_reader__error(const struct trace_reader *r);
const char *trace_reader__path(const struct trace_reader *r);
void trace_reader__close(struct trace_reader *r);

/* ---- Writer ---- */
struct trace_writer;

/* How path is written: traces/output.h (pipes, character devices and "-" are written directly in both). */
enum trace_writer_mode {
	TW_ATOMIC = 0,	/* a file: a temporary beside it, renamed on close, unlinked on abort */
	TW_STREAM = 1,	/* a file: written in place, every whole record readable after a crash (recorder) */
};
/* TW_BINARY writes format version TS_VERSION; TW_BINARY_V1 version 1, for readers older than version 2. */
enum trace_writer_format { TW_BINARY = 0, TW_JSONL = 1, TW_BINARY_V1 = 2 };

/* header: the JSON header object (copied). NULL on error with errno and err set. */
struct trace_writer *trace_writer__open(const char *path, const json_t *header,
					enum trace_writer_format fmt, enum trace_writer_mode mode,
					char *err, size_t errlen);
int trace_writer__write(struct trace_writer *w, const struct ts_record *rec);
int trace_writer__add_lost(struct trace_writer *w, uint64_t n);
int trace_writer__flush(struct trace_writer *w);
/* Writes the footer and finishes the file; 0 or -errno (message in trace_writer__error). Frees w. */
int trace_writer__close(struct trace_writer *w, uint64_t end_ns, char *err, size_t errlen);
/* Removes what was written (TW_ATOMIC) and frees w. Accepts NULL. */
void trace_writer__abort(struct trace_writer *w);
const char *trace_writer__error(const struct trace_writer *w);
/* The descriptor records are written to (the recorder hands a growing file to writeback). */
int trace_writer__fd(const struct trace_writer *w);

/* A header object with the fields every trace carries (format, version, recorder, host, kernel, start time). */
json_t *trace_header__new(int argc, char **argv);

#endif
