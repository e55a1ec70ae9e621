// SPDX-License-Identifier: GPL-2.0
/* A plan's cells run (`trimsim cell`) and merged into compare's report (`compare --merge`): plan.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/util.h"
#include "replay/report/cellid.h"
#include "replay/report/plan_int.h"
#include "replay/report/report.h"

/* "cell 3 (0123456789abcdef: rm.tsim, xfs, nvme)": how every message names a cell. */
static const char *cell_name(const struct plan *p, size_t i, char *buf, size_t len)
{
	const struct plan_cell *c = &p->cells[i];

	snprintf(buf, len, "cell %zu (%016llx: %s, %s, %s)", i, (unsigned long long)c->id,
		 p->traces[c->trace].name, c->policy, p->profiles[c->profile].name);
	return buf;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The input's digest against the plan's, once per input and process. */
static int check_input(struct plan *p, size_t i, bool trace, const char *path, char *err, size_t errlen)
{
	const struct plan_cell *c = &p->cells[i];
	size_t k = trace ? c->trace : p->nt + c->profile;
	uint64_t want = trace ? p->traces[c->trace].digest : p->profiles[c->profile].digest, got;
	char name[700], msg[400];
	int e;

	if (p->checked[k])
		return 0;
	e = trace ? cell_trace_digest(path, &got, msg, sizeof(msg)) : cell_profile_digest(path, &got, msg, sizeof(msg));
	if (e)
		return ts_errf(err, errlen, e, "%s: %s", cell_name(p, i, name, sizeof(name)), msg);
	if (got != want)
		return ts_errf(err, errlen, -EBADMSG, "%s: %s %s: digest %016llx, the plan's %016llx (changed since "
			       "the plan was made)", cell_name(p, i, name, sizeof(name)), trace ? "trace" : "profile",
			       path, (unsigned long long)got, (unsigned long long)want);
	p->checked[k] = true;
	return 0;
}

/* One cell: replayed and its result stored. 1 when it failed (stored all the same), 0, or -errno. */
static int run_cell(struct plan *p, size_t i, const char *stage, FILE *log, char *err, size_t errlen)
{
	const struct plan_cell *pc = &p->cells[i];
	const char *trace = p->traces[pc->trace].name;
	struct matrix_opts mo = { .jobs = 1, .runs = p->runs, .qd = p->qd, .seed = p->seed };
	char staged[PATH_MAX + 300], res[PATH_MAX + 64], name[700], msg[300];
	struct report_cell *c = malloc(sizeof(*c));
	int e;

	if (!c)
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	if (stage) {
		snprintf(staged, sizeof(staged), "%s/%s", stage, base_name(trace));
		trace = staged;
	}
	snprintf(res, sizeof(res), "%s/cells", p->dir);
	if (!(e = check_input(p, i, true, trace, err, errlen)) &&
	    !(e = check_input(p, i, false, p->profiles[pc->profile].name, err, errlen))) {
		report_cell__init(c, trace, pc->policy, p->profiles[pc->profile].name, (uint32_t)i);
		report_run_one(c, &mo, msg, sizeof(msg));
		/* the identity is the plan's (the merge sets it again) */
		snprintf(c->trace, sizeof(c->trace), "%s", p->traces[pc->trace].name);
		if (trimsim_stop)
			e = -EINTR;
		else if (!(e = cell_result_store(res, pc->id, c, err, errlen)))
			e = c->status ? 1 : 0;
	}
	if (e > 0 || (!e && log))	/* a failure is told even without a log */
		fprintf(log ? log : stderr, "trimsim cell: %s: %s%s\n", cell_name(p, i, name, sizeof(name)),
			e ? "failed: " : "done", e ? c->error : "");
	free(c);
	return e;
}

int plan__run(struct plan *p, size_t first, size_t last, const char *stage, FILE *log, char *err, size_t errlen)
{
	struct report_cell *c = malloc(sizeof(*c));
	char dir[PATH_MAX + 64], path[PATH_MAX + 100], name[700], msg[300];
	int failed = 0, e = 0;

	if (!c)
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	snprintf(dir, sizeof(dir), "%s/cells", p->dir);
	for (size_t i = first; i <= last && i < p->n && !e; i++) {
		cell_result_path(dir, p->cells[i].id, path, sizeof(path));
		if (!cell_result_load(path, p->cells[i].id, c, msg, sizeof(msg)) && !c->status) {
			if (log)
				fprintf(log, "trimsim cell: %s: done before\n", cell_name(p, i, name, sizeof(name)));
			continue;
		}
		if ((e = run_cell(p, i, stage, log, err, errlen)) == 1) {
			failed = 1;
			e = 0;
		}
	}
	free(c);
	return e ? e : failed;
}

/* ---- merge ---- */

struct found {
	uint64_t id;
	char *path;
};

struct results {
	struct found *v;
	size_t n, cap;
};

static bool result_name(const char *s, uint64_t *id)
{
	char *end;

	if (strlen(s) != 21 || strcmp(s + 16, ".cell") || strspn(s, "0123456789abcdef") != 16)
		return false;
	*id = strtoull(s, &end, 16);
	return end == s + 16;
}

/* The results in dir, and (depth 0) in each folder below it: copies brought back from other hosts. */
static int scan(struct results *r, const char *dir, int depth)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), e = 0;

	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		const char *s = ents[i]->d_name;
		char path[PATH_MAX];
		uint64_t id;

		snprintf(path, sizeof(path), "%s/%s", dir, s);
		if (!e && result_name(s, &id)) {
			e = grow_array((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v));
			if (!e && !(r->v[r->n].path = strdup(path)))
				e = -ENOMEM;
			if (!e)
				r->v[r->n++].id = id;
		} else if (!e && !depth && s[0] != '.' && ents[i]->d_type == DT_DIR) {
			e = scan(r, path, 1);
		}
		free(ents[i]);
	}
	free(ents);
	return e;
}

/* Cell i's result file: 0 and *path (NULL: none), or -EEXIST (two of them) with err. */
static int find_result(const struct plan *p, const struct results *r, size_t i, const char **path, char *err,
		       size_t errlen)
{
	char name[700];

	*path = NULL;
	for (size_t k = 0; k < r->n; k++) {
		if (r->v[k].id != p->cells[i].id)
			continue;
		if (*path)
			return ts_errf(err, errlen, -EEXIST, "%s: two results, %s and %s (keep one)",
				       cell_name(p, i, name, sizeof(name)), *path, r->v[k].path);
		*path = r->v[k].path;
	}
	return 0;
}

/* Cell i from its result (identity kept: the report's); 1 when it has none. */
static int merge_cell(struct plan *p, const struct results *rs, struct report *r, size_t i, char *err,
		      size_t errlen)
{
	struct report_cell *c = report__cell(r, i), keep = *c;
	const char *path;
	char name[700], msg[400];
	int e = find_result(p, rs, i, &path, err, errlen);

	if (e || !path)
		return e ? e : 1;
	if ((e = cell_result_load(path, p->cells[i].id, c, msg, sizeof(msg)))) {
		*c = keep;
		return ts_errf(err, errlen, e, "%s: %s", cell_name(p, i, name, sizeof(name)), msg);
	}
	memcpy(c->trace, keep.trace, sizeof(c->trace));
	memcpy(c->policy, keep.policy, sizeof(c->policy));
	memcpy(c->profile, keep.profile, sizeof(c->profile));
	c->index = keep.index;
	return 0;
}

/* The plan's cells are compare's matrix, in report__at() order. */
static bool is_matrix(const struct plan *p, const struct report *r)
{
	if (strcmp(p->command, "compare") || report__ncells(r) != p->n)
		return false;
	for (size_t i = 0; i < p->n; i++) {
		const struct report_cell *c = report__cell_c(r, i);

		if (strcmp(c->trace, p->traces[p->cells[i].trace].name) || strcmp(c->policy, p->cells[i].policy) ||
		    strcmp(c->profile, p->profiles[p->cells[i].profile].name))
			return false;
	}
	return true;
}

static void missing_line(const struct plan *p, const size_t *miss, size_t nmiss, FILE *f)
{
	char name[700];

	fprintf(f, "%zu of %zu cells have no result:", nmiss, p->n);
	for (size_t k = 0; k < nmiss && k < 4; k++)
		fprintf(f, "%s %s", k ? "," : "", cell_name(p, miss[k], name, sizeof(name)));
	fprintf(f, "%s", nmiss > 4 ? ", ..." : "");
}

struct report *plan__merge(struct plan *p, bool partial, FILE *warn, char *err, size_t errlen)
{
	char **traces = calloc(p->nt + 1, sizeof(char *)), **profiles = calloc(p->nm + 1, sizeof(char *));
	size_t *miss = calloc(p->n, sizeof(*miss)), nmiss = 0;
	struct results rs = { 0 };
	struct report *r = NULL;
	char dir[PATH_MAX + 16];
	int e = -ENOMEM;

	if (!traces || !profiles || !miss)
		goto out;
	for (size_t i = 0; i < p->nt; i++)
		traces[i] = p->traces[i].name;
	for (size_t i = 0; i < p->nm; i++)
		profiles[i] = p->profiles[i].name;
	if (!(r = report__new(traces, p->nt, p->policies, p->np, profiles, p->nm, p->runs, p->seed)))
		goto out;
	if (!is_matrix(p, r)) {
		e = ts_errf(err, errlen, -EINVAL, "--merge %s: a %s plan, not compare's matrix (a recommend plan: "
			    "trimsim recommend --cache %s/cells)", p->dir, p->command, p->dir);
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/cells", p->dir);
	if ((e = scan(&rs, dir, 0))) {
		ts_errf(err, errlen, e, "%s: %s", dir, strerror(-e));
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		if ((e = merge_cell(p, &rs, r, i, err, errlen)) < 0)
			goto out;
		if (e)
			miss[nmiss++] = i;
	}
	e = 0;
	if (nmiss && !partial) {
		FILE *f = fmemopen(err, errlen, "w");

		if (f) {
			fprintf(f, "--merge %s: ", p->dir);
			missing_line(p, miss, nmiss, f);
			fputs(" (run them: trimsim cell DIR --range A-B; or --partial)", f);
			fclose(f);
		}
		err[errlen - 1] = 0;
		e = -ENOENT;
		goto out;
	}
	if (nmiss) {
		fputs("trimsim compare: warning: --partial: ", warn);
		missing_line(p, miss, nmiss, warn);
		fputs("; they are failed cells in the report\n", warn);
	}
	for (size_t k = 0; k < nmiss; k++) {
		struct report_cell *c = report__cell(r, miss[k]);

		c->status = -ENOENT;
		snprintf(c->error, sizeof(c->error), "no result (not run yet; --partial)");
	}
out:
	for (size_t k = 0; k < rs.n; k++)
		free(rs.v[k].path);
	free(rs.v);
	free(traces);
	free(profiles);
	free(miss);
	if (e) {
		if (e == -ENOMEM && !err[0])
			ts_errf(err, errlen, e, "out of memory");
		report__destroy(r);
		errno = -e;
		return NULL;
	}
	return r;
}
