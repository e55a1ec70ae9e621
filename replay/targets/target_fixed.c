// SPDX-License-Identifier: GPL-2.0
/*
 * The "fixed" target: an ideal device where every command takes a fixed
 * time per op class plus a per-MiB cost, up to qd commands in parallel and
 * no interference between them. A yardstick (and the engine's test target),
 * not a model of any real device: use model:PROFILE for that.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/targets/target.h"
#include "traces/trace.h"
#include "traces/util.h"

struct fixed_cfg {
	uint64_t read, write, flush, discard;	/* ns */
	uint64_t per_mib;			/* ns per MiB transferred (read/write) */
	uint32_t qd;
};

static const struct opt_spec fixed_opts[] = {
	{ "read", OPT_DURATION, offsetof(struct fixed_cfg, read), 0, 0, "100us", "read latency" },
	{ "write", OPT_DURATION, offsetof(struct fixed_cfg, write), 0, 0, "50us", "write latency" },
	{ "flush", OPT_DURATION, offsetof(struct fixed_cfg, flush), 0, 0, "1ms", "flush latency" },
	{ "discard", OPT_DURATION, offsetof(struct fixed_cfg, discard), 0, 0, "1ms",
	  "discard latency, any size" },
	{ "per_mib", OPT_DURATION, offsetof(struct fixed_cfg, per_mib), 0, 0, "2ms",
	  "extra time per MiB read or written" },
	{ "qd", OPT_U32, offsetof(struct fixed_cfg, qd), 1, 65536, "32", "commands in parallel" },
	{ NULL },
};

struct fixed {
	struct fixed_cfg c;
	struct target_done *heap;	/* min-heap on (done_ns, tag) */
	size_t n, cap;
};

static bool before(const struct target_done *a, const struct target_done *b)
{
	return a->done_ns != b->done_ns ? a->done_ns < b->done_ns : a->tag < b->tag;
}

static void swap_done(struct target_done *a, struct target_done *b)
{
	struct target_done t = *a;

	*a = *b;
	*b = t;
}

static int fixed_open(const char *arg, const struct target_env *env, void **priv, char *err, size_t errlen)
{
	struct fixed *f = calloc(1, sizeof(*f));
	char msg[400];
	int ret;

	if (!f)
		return -ENOMEM;
	if ((ret = opts__defaults(fixed_opts, &f->c, msg, sizeof(msg))) ||
	    (ret = opts__parse_kv(fixed_opts, &f->c, arg ? arg : "", ',', msg, sizeof(msg)))) {
		snprintf(err, errlen, "target fixed: %s", msg);
		free(f);
		return ret;
	}
	if (env && env->qd)
		f->c.qd = env->qd;
	*priv = f;
	return 0;
}

static uint64_t latency(const struct fixed_cfg *c, const struct target_cmd *cmd)
{
	uint64_t xfer = (uint64_t)((double)cmd->length * (double)c->per_mib / 1048576.0);

	switch (cmd->op) {
	case TS_OP_READ: return c->read + xfer;
	case TS_OP_WRITE:
	case TS_OP_WRITE_ZEROES: return c->write + xfer;
	case TS_OP_FLUSH: return c->flush;
	default: return c->discard;
	}
}

static int fixed_submit(void *priv, const struct target_cmd *cmd)
{
	struct fixed *f = priv;
	struct target_done d = {
		.tag = cmd->tag, .submit_ns = cmd->submit_ns, .start_ns = cmd->submit_ns,
		.op = cmd->op, .klass = cmd->klass, .dev_cmds = 1,
	};
	size_t i;
	int ret;

	d.done_ns = cmd->submit_ns + latency(&f->c, cmd);
	d.bytes = cmd->length;
	for (uint32_t k = 1; k < cmd->nr_segs; k++)
		d.bytes += cmd->segs[k].length;
	d.freed = cmd->op == TS_OP_DISCARD ? d.bytes : 0;
	if ((ret = grow_array((void **)&f->heap, &f->cap, f->n + 1, sizeof(*f->heap))))
		return ret;
	i = f->n++;
	f->heap[i] = d;
	while (i && before(&f->heap[i], &f->heap[(i - 1) / 2])) {
		swap_done(&f->heap[i], &f->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

static int fixed_reap(void *priv, uint64_t until_ns, struct target_done *out)
{
	struct fixed *f = priv;
	size_t i = 0;

	if (!f->n || f->heap[0].done_ns > until_ns)
		return 0;
	*out = f->heap[0];
	f->heap[0] = f->heap[--f->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < f->n && before(&f->heap[l], &f->heap[m]))
			m = l;
		if (r < f->n && before(&f->heap[r], &f->heap[m]))
			m = r;
		if (m == i)
			break;
		swap_done(&f->heap[i], &f->heap[m]);
		i = m;
	}
	return 1;
}

static uint64_t fixed_next_done(void *priv)
{
	struct fixed *f = priv;

	return f->n ? f->heap[0].done_ns : UINT64_MAX;
}

static unsigned fixed_inflight(void *priv) { return (unsigned)((struct fixed *)priv)->n; }
static unsigned fixed_max_inflight(void *priv) { return ((struct fixed *)priv)->c.qd; }

static int fixed_report(void *priv, json_t *obj)
{
	json_t *o = opts__to_json(fixed_opts, &((struct fixed *)priv)->c);

	if (!o)
		return -ENOMEM;
	json_object_set_new(obj, "params", o);
	return 0;
}

static void fixed_close(void *priv)
{
	struct fixed *f = priv;

	if (f)
		free(f->heap);
	free(f);
}

const struct target_ops fixed_target_ops = {
	.name = "fixed",
	.help = "ideal device: fixed latency per op class, qd commands in parallel, no interference; "
		"fixed:discard=9ms,qd=1",
	.opts = fixed_opts,
	.realtime = false,
	.open = fixed_open,
	.submit = fixed_submit,
	.reap = fixed_reap,
	.next_done = fixed_next_done,
	.inflight = fixed_inflight,
	.max_inflight = fixed_max_inflight,
	.report = fixed_report,
	.close = fixed_close,
};
