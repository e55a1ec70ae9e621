/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by recommend.c (the search), rec_pick.c (the choice) and rec_out.c (the renderers). */
#ifndef TRIMSIM_REPORT_REC_INT_H
#define TRIMSIM_REPORT_REC_INT_H

#include "replay/report/cell.h"
#include "replay/report/recommend.h"
#include "replay/report/report.h"

#define REC_SPEC	256
#define REC_MAX_TRACES	256

struct rec_cached {
	uint64_t key;
	struct report_cell cell;	/* as replayed, before report__finish */
};

enum rec_why {
	RW_REJECTED,	/* the device rejects discard */
	RW_MATTERS,	/* least added time, ties by reclaim delay */
	RW_NOT,		/* discard does not matter: least reclaim delay */
	RW_UNTOLD,	/* the trace cannot tell: least device time in TRIM, ties by reclaim delay */
	RW_NOTHING,	/* no setting replayed */
	RW_UNWEIGHED,	/* no setting that discards could be weighed: the trace holds nothing one acts on */
};

/* One trace x profile. */
struct rec_result {
	char trace[256], profile[96];
	char fs[16];			/* the families' filesystem ("" unknown, "any") */
	char dev[32], mount[4096];	/* from the trace header, for the settings' paths */
	char trace_fs[16];		/* the header's filesystem of the replayed device ("" unknown) */
	char online_fs[16];		/* the header's filesystem when recorded with its online discard, else "" */
	struct report *r;		/* the last round: one cell per setting tried */
	struct rec_cand *cands;
	size_t n, cap;
	struct rec_obj *obj;		/* per setting, after the last round */
	bool *front;
	bool *weigh;			/* per setting: the rule may weigh it (rec_pick.c weighable()) */
	size_t pick, next, recorded;	/* settings; SIZE_MAX: none */
	struct report_judgement j;
	enum rec_why why;
	bool fstrim_na;			/* fstrim could not be replayed (no FREE records) */
	char fs_na[256];		/* the filesystem's own family could not be replayed: which and why; "" */
	uint32_t inert;			/* bit f: family f's commit knob changed no figure (rec_evaluate()) */
	unsigned rounds;
	size_t ran;
};

struct rec_run {
	struct rec_opts o;
	struct rec_cached *cache;
	size_t ncache, cache_cap;
	struct {
		char path[4096];
		uint64_t hash;
	} traces[REC_MAX_TRACES];
	size_t ntraces;
	struct rec_result *res;
	size_t nres;

};

unsigned rec_nvals(const struct rec_knob *k);
/* Objectives of every setting, the front and the pick, from res->r (rec_pick.c). */
void rec_evaluate(struct rec_result *res);
/* A knob's value in a setting ("commit" -> "30s"); NULL if the family has no such knob. */
const char *rec_knob_value(const struct rec_cand *c, const char *key);
/* The index of family f's knob key, or -1. */
int rec_knob_index(const struct rec_family *f, const char *key);

/*
 * What rec_out.c says about a result, for the HTML writer (rec_html.c): whether it has a
 * pick, a setting's spec, the reason and the verdict in one line, the comparison with
 * what was recorded, the pick's settings (JSON object: mount, sysfs, sysctl, commands,
 * note; new reference), the reclaim delay and a duration as the text shows them.
 */
bool rec_result_picked(const struct rec_result *res);
const char *rec_result_spec(const struct rec_result *res, size_t i);
void rec_result_reason(const struct rec_result *res, char *buf, size_t len);
void rec_result_judgement(const struct rec_result *res, char *buf, size_t len);
void rec_result_versus(const struct rec_result *res, char *buf, size_t len);
struct json_t *rec_result_settings(const struct rec_result *res);
char *rec_obj_reclaim(const struct rec_obj *o, char *buf, size_t len);
const char *rec_reclaim_note(const struct rec_result *res);
char *rec_ns(double ns, char *buf, size_t len);

#endif
