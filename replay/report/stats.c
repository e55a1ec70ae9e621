// SPDX-License-Identifier: GPL-2.0
/* ministat-style statistics (see stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/report/stats.h"

void stat_acc__init(struct stat_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->min = INFINITY;
	a->max = -INFINITY;
}

void stat_acc__add(struct stat_acc *a, double x)
{
	a->n++;
	a->sum += x;
	a->sumsq += x * x;
	if (x < a->min)
		a->min = x;
	if (x > a->max)
		a->max = x;
}

double stat_var(const struct stat_acc *a)
{
	if (a->n < 2)
		return 0.0;
	double v = (a->sumsq - a->sum * a->sum / a->n) / (a->n - 1);

	return v > 0 ? v : 0.0;
}

double stat_stddev(const struct stat_acc *a)
{
	return sqrt(stat_var(a));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stat_median_inplace(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double stat_median(const double *v, size_t n)
{
	double c[64];

	if (n > 64)
		n = 64;
	if (n)
		memcpy(c, v, n * sizeof(*c));
	return stat_median_inplace(c, n);
}

/* Continued fraction for the regularized incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));

		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		double del = d * c;

		h *= del;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return h;
}

static double beta_inc(double a, double b, double x)
{
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);

	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lbt) * beta_cf(b, a, 1.0 - x) / b;
}

double stat_t_cdf(double t, unsigned df)
{
	double nu = df ? df : 1;
	double tail = 0.5 * beta_inc(nu / 2.0, 0.5, nu / (nu + t * t));

	return t >= 0 ? 1.0 - tail : tail;
}

double stat_t_crit(double conf, unsigned df)
{
	double target = 0.5 + conf / 2.0, lo = 0.0, hi = 1.0;

	if (!df)
		df = 1;
	while (stat_t_cdf(hi, df) < target)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2.0;

		if (stat_t_cdf(mid, df) < target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

void stat_compare(const struct stat_acc *a1, const struct stat_acc *a2, double conf, struct stat_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->conf = conf;
	if (a1->n < STAT_MIN_N || a2->n < STAT_MIN_N)
		return;
	unsigned df = a1->n + a2->n - 2;
	double s = sqrt(((a1->n - 1) * stat_var(a1) + (a2->n - 1) * stat_var(a2)) / df);

	d->valid = true;
	d->t = stat_t_crit(conf, df);
	d->pooled_s = s;
	d->diff = stat_mean(a2) - stat_mean(a1);
	d->plusminus = d->t * s * sqrt(1.0 / a1->n + 1.0 / a2->n);
	d->differ = fabs(d->diff) > d->plusminus;
	if (stat_mean(a1) != 0.0) {
		d->pct = d->diff * 100.0 / stat_mean(a1);
		d->pct_pm = d->plusminus * 100.0 / stat_mean(a1);
	} else {
		d->pct = d->pct_pm = NAN;
	}
}
