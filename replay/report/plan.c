// SPDX-License-Identifier: GPL-2.0
/* A sweep's plan: making it, writing it, reading it back (plan.h). Running and merging: plan_run.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "traces/output.h"
#include "traces/util.h"
#include "replay/report/cell.h"
#include "replay/report/cellid.h"
#include "replay/report/plan_int.h"

struct plan *plan__new(const char *command, const struct matrix_opts *o)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	snprintf(p->command, sizeof(p->command), "%s", command);
	p->seed = o->seed;
	p->qd = o->qd;
	p->runs = o->runs ? o->runs : 1;
	return p;
}

static void free_inputs(struct plan_input *v, size_t n)
{
	while (n--)
		free(v[n].name);
	free(v);
}

void plan__destroy(struct plan *p)
{
	if (!p)
		return;
	free_inputs(p->traces, p->nt);
	free_inputs(p->profiles, p->nm);
	while (p->np--)
		free(p->policies[p->np]);
	while (p->n--)
		free(p->cells[p->n].policy);
	free(p->policies);
	free(p->cells);
	free(p->checked);
	free(p);
}

/* The input named name in v (adding it, with its digest, when new): its index, or -errno. */
static int input_at(struct plan_input **v, size_t *n, const char *name, bool trace, char *err, size_t errlen)
{
	struct plan_input *nv;
	uint64_t d;
	int e;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			return (int)i;
	if (trace) {
		struct stat st;

		if (stat(name, &st) || !S_ISREG(st.st_mode))
			return ts_errf(err, errlen, -EINVAL, "%s: --plan takes trace files (the cells read them "
				       "later, elsewhere), not - or a pipe", name);
	}
	if ((e = trace ? cell_trace_digest(name, &d, err, errlen) : cell_profile_digest(name, &d, err, errlen)))
		return e;
	if (!(nv = realloc(*v, (*n + 1) * sizeof(**v))))
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n].name = strdup(name)))
		return -ENOMEM;
	nv[*n].digest = d;
	return (int)(*n)++;
}

/* The cell's id from its inputs' digests. */
static uint64_t id_of(const struct plan *p, const struct plan_cell *c)
{
	return cell_id(&(struct cell_ident){ .trace = p->traces[c->trace].digest, .policy = c->policy,
					     .profile = p->profiles[c->profile].digest, .seed = p->seed,
					     .qd = p->qd });
}

static int push_cell(struct plan *p, int t, const char *policy, int m)
{
	struct plan_cell *c;

	if (grow_array((void **)&p->cells, &p->cap, p->n + 1, sizeof(*c)))
		return -ENOMEM;
	c = &p->cells[p->n];
	*c = (struct plan_cell){ .trace = (uint32_t)t, .profile = (uint32_t)m };
	if (!(c->policy = strdup(policy)))
		return -ENOMEM;
	c->id = id_of(p, c);
	p->n++;
	return 0;
}

int plan__add(struct plan *p, const char *trace, const char *policy, const char *profile, char *err,
	      size_t errlen)
{
	int t = input_at(&p->traces, &p->nt, trace, true, err, errlen);
	int m = t < 0 ? t : input_at(&p->profiles, &p->nm, profile, false, err, errlen);

	if (t < 0 || m < 0)
		return t < 0 ? t : m;
	return push_cell(p, t, policy, m);
}

int plan__set_axes(struct plan *p, char *const *policies, size_t np)
{
	if (!(p->policies = calloc(np ? np : 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < np; i++) {
		if (!(p->policies[i] = strdup(policies[i])))
			return -ENOMEM;
		p->np++;
	}
	return 0;
}

size_t plan__ncells(const struct plan *p) { return p->n; }

const char *plan__base(const struct plan *p)
{
	for (size_t i = 0; i < p->nt; i++)
		if (p->traces[i].name[0] != '/')
			return p->base[0] ? p->base : NULL;
	return NULL;
}

size_t plan__ntasks(const struct plan *p)
{
	return p->per_task ? (p->n + p->per_task - 1) / p->per_task : 0;
}

int plan__task(const struct plan *p, size_t t, size_t *first, size_t *last, char *err, size_t errlen)
{
	if (t >= plan__ntasks(p))
		return ts_errf(err, errlen, -ERANGE, "--index %zu: the plan has tasks 0..%zu (%zu cells, %u a task)", t,
			       plan__ntasks(p) - 1, p->n, p->per_task);
	*first = t * p->per_task;
	*last = *first + p->per_task - 1 < p->n - 1 ? *first + p->per_task - 1 : p->n - 1;
	return 0;
}

/* ---- writing ---- */

static json_t *inputs_json(const struct plan_input *v, size_t n, const char *key)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		char hex[24];

		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)v[i].digest);
		if (json_array_append_new(a, json_pack("{ssss}", key, v[i].name, "digest", hex))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *plan_json(const struct plan *p)
{
	json_t *pol = json_array();
	json_t *o;

	for (size_t i = 0; pol && i < p->np; i++)
		if (json_array_append_new(pol, json_string(p->policies[i]))) {
			json_decref(pol);
			return NULL;
		}
	o = json_pack("{sssssIsssIsIsIsIsIsIsosososo}", "schema", PLAN_SCHEMA, "trimsim_version", TRIMSIM_VERSION,
		      "cell_size", (json_int_t)sizeof(struct report_cell), "command", p->command, "seed",
		      (json_int_t)p->seed, "qd", (json_int_t)p->qd, "runs", (json_int_t)p->runs, "per_task",
		      (json_int_t)p->per_task, "tasks", (json_int_t)plan__ntasks(p), "cells", (json_int_t)p->n,
		      "base", json_string(p->base), "traces", inputs_json(p->traces, p->nt, "path"), "profiles",
		      inputs_json(p->profiles, p->nm, "spec"), "policies", pol);
	return o;
}

static json_t *cell_json(const struct plan *p, size_t i)
{
	const struct plan_cell *c = &p->cells[i];
	char id[24];
	json_t *o;

	snprintf(id, sizeof(id), "%016llx", (unsigned long long)c->id);
	o = json_pack("{sIsssssssssI}", "index", (json_int_t)i, "id", id, "trace", p->traces[c->trace].name,
		      "policy", c->policy, "profile", p->profiles[c->profile].name, "seed", (json_int_t)p->seed);
	if (o && p->qd)
		json_object_set_new(o, "qd", json_integer(p->qd));
	return o;
}

/* One file of the plan, written whole or not at all. */
static int write_text(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct output *o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(o = output__open(path, OUTPUT_ATOMIC, err, errlen)))
		return errno ? -errno : -EIO;
	if (!(f = output__file(o)) || fputs(text, f) == EOF) {
		output__abort(o);
		return ts_errf(err, errlen, -EIO, "%s: write error", path);
	}
	return output__commit(o, err, errlen);
}

/* The text of cells.jsonl and of tasks, in a memory stream. */
static int lists_text(const struct plan *p, char **cells, char **tasks)
{
	size_t lc, lt;
	FILE *fc = open_memstream(cells, &lc), *ft = open_memstream(tasks, &lt);
	int e = fc && ft ? 0 : -ENOMEM;

	for (size_t i = 0; !e && i < p->n; i++) {
		json_t *o = cell_json(p, i);

		if (!o || json_dumpf(o, fc, JSON_COMPACT | JSON_PRESERVE_ORDER) || fputc('\n', fc) == EOF)
			e = -ENOMEM;
		json_decref(o);
	}
	for (size_t t = 0; !e && t < plan__ntasks(p); t++)
		if (fprintf(ft, "%zu\n", t) < 0)
			e = -ENOMEM;
	if (fc && fclose(fc))
		e = -ENOMEM;
	if (ft && fclose(ft))
		e = -ENOMEM;
	return e;
}

/* 'it'\''s': a word for sh. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static char *slurm_text(const struct plan *p, const char *dir, const char *self)
{
	size_t len, tasks = plan__ntasks(p);
	char *s = NULL;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fprintf(f, "#!/bin/sh\n"
		   "# trimsim %s plan: %zu cells, %u a task, in %zu array tasks (at most %zu at once).\n"
		   "# Submit as is: sbatch %s/trimsim.sbatch; then: trimsim compare --merge %s\n"
		   "#SBATCH --job-name=trimsim-cells\n"
		   "#SBATCH --array=0-%zu%%%zu\n"
		   "#SBATCH --ntasks=1\n"
		   "#SBATCH --cpus-per-task=1\n"
		   "#SBATCH --output=%s/logs/task-%%a.log\n"
		   "exec ",
		p->command, p->n, p->per_task, tasks, tasks < PLAN_THROTTLE ? tasks : PLAN_THROTTLE, dir, dir,
		tasks - 1, tasks < PLAN_THROTTLE ? tasks : PLAN_THROTTLE, dir);
	sh_quote(f, self);
	fputs(" cell ", f);
	sh_quote(f, dir);
	fputs(" --index \"$SLURM_ARRAY_TASK_ID\"\n", f);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static int make_dir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	return 0;
}

/* dir/plan.json holds another plan than text: refused (its results are another sweep's). */
static int same_plan(const char *dir, const char *text, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], *old = NULL;
	size_t len = 0;
	FILE *f;
	bool same;

	snprintf(path, sizeof(path), "%s/plan.json", dir);
	if (!(f = fopen(path, "r")))
		return 0;
	same = getdelim(&old, &len, 0, f) >= 0 && !strcmp(old, text);
	fclose(f);
	free(old);
	return same ? 0 : ts_errf(err, errlen, -EEXIST, "--plan %s: holds another plan (remove it or choose "
				  "another directory)", dir);
}

int plan__write(struct plan *p, const char *dir, unsigned per_task, bool slurm, char *err, size_t errlen)
{
	char *text = NULL, *cells = NULL, *tasks = NULL, *sb = NULL, sub[PATH_MAX + 64], self[PATH_MAX], *adir;
	json_t *o = NULL;
	ssize_t n;
	int e;

	if (!p->n)
		return ts_errf(err, errlen, -EINVAL, "--plan %s: no cells", dir);
	p->per_task = per_task ? per_task : (unsigned)((p->n + PLAN_MAX_TASKS - 1) / PLAN_MAX_TASKS);
	if ((e = make_dir(dir, err, errlen)))
		return e;
	if (!(adir = realpath(dir, NULL)) || !getcwd(p->base, sizeof(p->base))) {
		e = ts_errf(err, errlen, -errno, "--plan %s: %s", dir, strerror(errno));
		goto out;
	}
	e = -ENOMEM;
	if (!(o = plan_json(p)) || !(text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) ||
	    lists_text(p, &cells, &tasks))
		goto nomem;
	if (slurm) {
		if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0) {
			e = ts_errf(err, errlen, -errno, "/proc/self/exe: %s", strerror(errno));
			goto out;
		}
		self[n] = 0;
		if (!(sb = slurm_text(p, adir, self)))
			goto nomem;
	}
	snprintf(sub, sizeof(sub), "%s/cells", dir);
	if ((e = same_plan(dir, text, err, errlen)) || (e = make_dir(sub, err, errlen)))
		goto out;
	snprintf(sub, sizeof(sub), "%s/logs", dir);
	if ((slurm && (e = make_dir(sub, err, errlen))) || (e = write_text(dir, "cells.jsonl", cells, err, errlen)) ||
	    (e = write_text(dir, "tasks", tasks, err, errlen)) ||
	    (slurm && (e = write_text(dir, "trimsim.sbatch", sb, err, errlen))) ||
	    (e = write_text(dir, "plan.json", text, err, errlen)))	/* last: a plan.json means a whole plan */
		goto out;
	goto out;
nomem:
	e = ts_errf(err, errlen, -ENOMEM, "--plan %s: out of memory", dir);
out:
	json_decref(o);
	free(text);
	free(cells);
	free(tasks);
	free(sb);
	free(adir);
	return e;
}

/* ---- reading ---- */

static int bad(char *err, size_t errlen, const char *file, size_t line, const char *why)
{
	if (line)
		return ts_errf(err, errlen, -EBADMSG, "%s:%zu: %s", file, line, why);
	return ts_errf(err, errlen, -EBADMSG, "%s: %s", file, why);
}

static int load_inputs(json_t *a, const char *key, struct plan_input **v, size_t *n)
{
	size_t i;
	json_t *x;

	if (!json_is_array(a) || !(*v = calloc(json_array_size(a) + 1, sizeof(**v))))
		return -EBADMSG;
	json_array_foreach(a, i, x) {
		const char *name = json_string_value(json_object_get(x, key));
		const char *hex = json_string_value(json_object_get(x, "digest"));
		char *end;

		if (!name || !hex || strlen(hex) != 16)
			return -EBADMSG;
		(*v)[i].digest = strtoull(hex, &end, 16);
		if (*end || !((*v)[i].name = strdup(name)))
			return -EBADMSG;
		(*n)++;
	}
	return 0;
}

static const char *str_at(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static int load_head(struct plan *p, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je), *pol;
	int e = 0;

	if (!o)
		return access(path, F_OK) ? ts_errf(err, errlen, -ENOENT, "%s: no plan here (trimsim compare ... "
						    "--plan DIR writes one)", path)
					  : ts_errf(err, errlen, -EBADMSG, "%s:%d: %s", path, je.line, je.text);
	if (strcmp(str_at(o, "schema"), PLAN_SCHEMA) || strcmp(str_at(o, "trimsim_version"), TRIMSIM_VERSION) ||
	    json_integer_value(json_object_get(o, "cell_size")) != (json_int_t)sizeof(struct report_cell)) {
		e = ts_errf(err, errlen, -EPROTO, "%s: a plan of trimsim %s (%s), this is trimsim %s (%s): make the "
			    "plan again with this trimsim", path, str_at(o, "trimsim_version"), str_at(o, "schema"),
			    TRIMSIM_VERSION, PLAN_SCHEMA);
		goto out;
	}
	snprintf(p->command, sizeof(p->command), "%s", str_at(o, "command"));
	p->seed = (uint64_t)json_integer_value(json_object_get(o, "seed"));
	p->qd = (unsigned)json_integer_value(json_object_get(o, "qd"));
	p->runs = (unsigned)json_integer_value(json_object_get(o, "runs"));
	p->per_task = (unsigned)json_integer_value(json_object_get(o, "per_task"));
	pol = json_object_get(o, "policies");
	snprintf(p->base, sizeof(p->base), "%s", str_at(o, "base"));
	if (!p->per_task || !json_is_array(pol) ||
	    !(p->policies = calloc(json_array_size(pol) + 1, sizeof(char *))) ||
	    load_inputs(json_object_get(o, "traces"), "path", &p->traces, &p->nt) ||
	    load_inputs(json_object_get(o, "profiles"), "spec", &p->profiles, &p->nm)) {
		e = bad(err, errlen, path, 0, "damaged (per_task, policies, traces or profiles)");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(pol); i++) {
		const char *s = json_string_value(json_array_get(pol, i));

		if (!s || !(p->policies[p->np] = strdup(s))) {
			e = bad(err, errlen, path, 0, "damaged (policies)");
			goto out;
		}
		p->np++;
	}
out:
	json_decref(o);
	return e;
}

static int index_of(const struct plan_input *v, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(v[i].name, name))
			return (int)i;
	return -1;
}

/* One line of cells.jsonl: the cell the plan's inputs make, with the id they give. */
static int load_cell(struct plan *p, const char *line, const char *path, size_t ln, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);
	const char *id = o ? json_string_value(json_object_get(o, "id")) : NULL;
	int t = o ? index_of(p->traces, p->nt, json_string_value(json_object_get(o, "trace"))) : -1;
	int m = o ? index_of(p->profiles, p->nm, json_string_value(json_object_get(o, "profile"))) : -1;
	const char *policy = o ? json_string_value(json_object_get(o, "policy")) : NULL;
	char want[24];
	int e;

	if (!o || !id || t < 0 || m < 0 || !policy ||
	    json_integer_value(json_object_get(o, "index")) != (json_int_t)p->n) {
		json_decref(o);
		return bad(err, errlen, path, ln, "not a cell of this plan (index, id, trace, policy, profile)");
	}
	if ((e = push_cell(p, t, policy, m))) {
		json_decref(o);
		return ts_errf(err, errlen, e, "%s:%zu: out of memory", path, ln);
	}
	snprintf(want, sizeof(want), "%016llx", (unsigned long long)p->cells[p->n - 1].id);
	e = strcmp(id, want) ? bad(err, errlen, path, ln, "the id does not match the cell's inputs (edited?)") : 0;
	json_decref(o);
	return e;
}

struct plan *plan__load(const char *dir, char *err, size_t errlen)
{
	struct plan *p = calloc(1, sizeof(*p));
	char path[PATH_MAX + 64], *line = NULL;
	size_t cap = 0, ln = 0;
	FILE *f = NULL;
	int e = -ENOMEM;

	if (!p)
		goto fail;
	if (!realpath(dir, p->dir)) {
		e = ts_errf(err, errlen, -errno, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	if ((e = load_head(p, path, err, errlen)))
		goto fail;
	snprintf(path, sizeof(path), "%s/cells.jsonl", dir);
	if (!(f = fopen(path, "r"))) {
		e = ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	while (getline(&line, &cap, f) > 0)
		if ((e = load_cell(p, line, path, ++ln, err, errlen)))
			goto fail;
	if (!p->n) {
		e = bad(err, errlen, path, 0, "no cells");
		goto fail;
	}
	if (!(p->checked = calloc(p->nt + p->nm, sizeof(*p->checked)))) {
		e = -ENOMEM;
		goto fail;
	}
	fclose(f);
	free(line);
	return p;
fail:
	if (f)
		fclose(f);
	free(line);
	plan__destroy(p);
	errno = -e;
	return NULL;
}
