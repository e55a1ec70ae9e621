// SPDX-License-Identifier: GPL-2.0
/* A cell's identity and its result file (cellid.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "models/model.h"
#include "traces/output.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/report/cellid.h"
#include "replay/targets/target.h"

static uint64_t hash_bytes(const void *p, size_t n)
{
	struct ts_sum s;

	ts_sum_init(&s);
	ts_sum_update(&s, p, n);
	return ts_sum_final(&s);
}

uint64_t cell_id(const struct cell_ident *k)
{
	char buf[512], qd[24] = "";
	int n;

	if (k->qd)
		snprintf(qd, sizeof(qd), "\nqd=%u", k->qd);
	n = snprintf(buf, sizeof(buf), "trimsim %s\nresults %u\n%016llx\n%s\n%016llx\n%llu%s", TRIMSIM_VERSION,
		     CELL_RESULTS_REV, (unsigned long long)k->trace, k->policy, (unsigned long long)k->profile,
		     (unsigned long long)k->seed, qd);
	return hash_bytes(buf, n > 0 && (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf));
}

int cell_trace_digest(const char *path, uint64_t *d, char *err, size_t errlen)
{
	int fd = trace_reader__open_fd(path);	/* a pipe's copy too (trace_reader__spool()) */
	struct ts_sum s;
	char buf[1 << 16];
	size_t n;
	FILE *f;
	int e;

	if (fd < 0 || !(f = fdopen(fd, "rb"))) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return ts_errf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	ts_sum_init(&s);
	while ((n = fread(buf, 1, sizeof(buf), f)) == sizeof(buf))
		ts_sum_update(&s, buf, n);
	ts_sum_update(&s, buf, n);
	e = ferror(f);
	fclose(f);
	if (e)
		return ts_errf(err, errlen, -EIO, "%s: read error", path);
	*d = ts_sum_final(&s);
	return 0;
}

int cell_profile_digest(const char *profile, uint64_t *d, char *err, size_t errlen)
{
	const char *arg;
	const struct target_ops *t = target_spec_parse(profile, false, &arg, err, errlen);
	struct model_profile *m;
	json_t *o = NULL, *keep = NULL;
	char *s = NULL;
	int e = -ENOMEM;

	if (t != &model_target_ops) {
		*d = hash_bytes(profile, strlen(profile));
		return 0;
	}
	if (!(m = model_profile__load(arg, err, errlen)))
		return errno ? -errno : -EINVAL;
	/* what replays: the engine and its parameters, not the name, the path or the prose */
	if (!(o = model_profile__describe(m)) || !(keep = json_pack("{sOsO}", "model", json_object_get(o, "model"),
								    "params", json_object_get(o, "params"))) ||
	    !(s = json_dumps(keep, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17)))) {
		ts_errf(err, errlen, e, "%s: out of memory", profile);
		goto out;
	}
	*d = hash_bytes(s, strlen(s));
	e = 0;
out:
	free(s);
	json_decref(keep);
	json_decref(o);
	model_profile__free(m);
	return e;
}

#define CELL_MAGIC "TSCELL02"

struct cell_file {
	char magic[8];
	uint32_t cell_size;
	uint32_t pad;
	uint64_t id;
	uint64_t sum;		/* hash of the cell's bytes */
	char version[16];	/* TRIMSIM_VERSION */
};

void cell_result_path(const char *dir, uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%016llx.cell", dir, (unsigned long long)id);
}

int cell_result_store(const char *dir, uint64_t id, const struct report_cell *c, char *err, size_t errlen)
{
	struct cell_file h = { .cell_size = sizeof(*c), .id = id, .sum = hash_bytes(c, sizeof(*c)) };
	char path[4200];
	struct output *o;
	FILE *f;

	memcpy(h.magic, CELL_MAGIC, 8);
	snprintf(h.version, sizeof(h.version), "%s", TRIMSIM_VERSION);
	cell_result_path(dir, id, path, sizeof(path));
	if (!(o = output__open(path, OUTPUT_ATOMIC, err, errlen)))
		return errno ? -errno : -EIO;
	f = output__file(o);
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(c, sizeof(*c), 1, f) != 1) {
		int e = output__error(o) ? -output__error(o) : -ENOMEM;

		output__abort(o);
		return ts_errf(err, errlen, e, "%s: %s", path, strerror(-e));
	}
	return output__commit(o, err, errlen);
}

int cell_result_load(const char *path, uint64_t id, struct report_cell *c, char *err, size_t errlen)
{
	struct cell_file h;
	char extra;
	const char *why = NULL;
	FILE *f = fopen(path, "rb");

	if (!f)
		return errno == ENOENT ? -ENOENT : ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, CELL_MAGIC, 8))
		why = "not a trimsim cell result";
	else if (strncmp(h.version, TRIMSIM_VERSION, sizeof(h.version)) || h.cell_size != sizeof(*c))
		why = "written by another trimsim build";
	else if (h.id != id)
		why = "holds another cell's result";
	else if (fread(c, sizeof(*c), 1, f) != 1 || fread(&extra, 1, 1, f) == 1)
		why = "truncated or too long";
	else if (hash_bytes(c, sizeof(*c)) != h.sum)
		why = "checksum mismatch (damaged)";
	fclose(f);
	return why ? ts_errf(err, errlen, -EBADMSG, "%s: %s", path, why) : 0;
}
