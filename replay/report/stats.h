/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small statistics for repeated runs, in the spirit of FreeBSD's ministat:
 * a running-sum accumulator with one-line accessors, and Student's t
 * difference test with a pooled standard deviation.
 *
 * ministat (usr.bin/ministat/ministat.c, Relative()) declares a difference
 * when |mean2 - mean1| > t(conf, n1 + n2 - 2) * s * sqrt(1/n1 + 1/n2), with
 * s the pooled stddev sqrt(((n1-1) var1 + (n2-1) var2) / (n1 + n2 - 2)).
 * ministat reads t from a table (df 1..100, then the normal value); here the
 * table for the confidence levels ministat offers is computed once from the
 * Student t distribution (regularized incomplete beta, bisection), so df > 100
 * uses the exact value rather than 1.960.
 */
#ifndef TRIMSIM_REPORT_STATS_H
#define TRIMSIM_REPORT_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stat_acc {
	size_t n;
	double sum, sumsq;
	double min, max;
};

void stat_acc__init(struct stat_acc *a);
void stat_acc__add(struct stat_acc *a, double x);
static inline double stat_mean(const struct stat_acc *a) { return a->n ? a->sum / a->n : 0.0; }
double stat_var(const struct stat_acc *a);	/* sample variance (n - 1) */
double stat_stddev(const struct stat_acc *a);
/* Median of v[0..n) (sorts a copy; n <= 64 for the runs we keep). NAN if n == 0. */
double stat_median(const double *v, size_t n);
/* The same, sorting v itself (any n). */
double stat_median_inplace(double *v, size_t n);

/* Two-sided Student t critical value: P(|T| <= t) = conf for df degrees of freedom. */
double stat_t_crit(double conf, unsigned df);
/* Student t CDF, P(T <= t). */
double stat_t_cdf(double t, unsigned df);

/* ministat refuses samples of fewer than 3 points; so do we. */
#define STAT_MIN_N 3

struct stat_diff {
	bool valid;		/* both samples have n >= STAT_MIN_N */
	bool differ;		/* difference proven at conf */
	double conf;		/* 0.95 */
	double diff;		/* mean2 - mean1 */
	double plusminus;	/* t * s * sqrt(1/n1 + 1/n2) */
	double pct, pct_pm;	/* both as a share of mean1, in % */
	double pooled_s;
	double t;		/* the critical value used */
};

/* ministat's comparison of sample 2 against sample 1. */
void stat_compare(const struct stat_acc *a1, const struct stat_acc *a2, double conf, struct stat_diff *d);

#endif
