"""Reference values for Tests/OnboardMetricsTests/SequentialStatisticsTests.swift.

Computed independently of the closed forms the Swift code uses:
- mixture SPRT: the e-value is integrated numerically (scipy.integrate.quad) as the N(0, rho^2)
  mixture of the Gaussian likelihood ratios exp(l*S - l^2*n/2), S = n*(d - d0)/s; the interval
  bounds are the d0 where that integral equals 1/alpha (scipy.optimize.brentq);
- Mann-Whitney: scipy.stats.mannwhitneyu(method="asymptotic", use_continuity=True).
Run: python3 scripts/reference/statistics_reference.py
"""
import math
from scipy import integrate, optimize, stats


def mixture_e(d0, d, s2, n, rho):
    s = math.sqrt(s2)
    S = n * (d - d0) / s
    f = lambda l: math.exp(l * S - l * l * n / 2) * stats.norm.pdf(l, 0, rho)
    peak = S / n
    width = 12 / math.sqrt(n)
    value, _ = integrate.quad(f, peak - width, peak + width, epsabs=0, epsrel=1e-12, limit=200)
    return value


def sequential(x1, n1, x2, n2, alpha, tuning):
    p1, p2 = x1 / n1, x2 / n2
    var = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
    n = n1 + n2
    s2 = var * n
    a = -2 * math.log(alpha)
    rho = math.sqrt((a + math.log(a + 1)) / tuning)
    d = p2 - p1
    e0 = mixture_e(0.0, d, s2, n, rho)
    g = lambda d0: math.log(mixture_e(d0, d, s2, n, rho)) - math.log(1 / alpha)
    span = 20 * math.sqrt(var)
    lower = optimize.brentq(g, d - span, d, xtol=1e-14)
    upper = optimize.brentq(g, d, d + span, xtol=1e-14)
    return rho, lower, upper, min(1.0, 1 / e0)


for case in [(500, 5000, 560, 5000, 0.05, 5000), (40, 200, 55, 210, 0.05, 5000),
             (3000, 20000, 3100, 20000, 0.05, 5000), (120, 1000, 150, 1000, 0.1, 1000),
             (500, 5000, 650, 5000, 0.05, 5000)]:
    rho, lo, hi, p = sequential(*case)
    print(case, "rho=%.12g lower=%.12g upper=%.12g p=%.12g" % (rho, lo, hi, p))

for x, y in [([1.5, 2.0, 2.0, 3.1, 4.2, 7.0, 9.5], [0.5, 1.0, 2.0, 2.2, 2.5, 3.0]),
             ([10, 12, 12, 15, 20, 30, 31, 45], [5, 6, 6, 7, 12, 13])]:
    r = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic", use_continuity=True)
    print(x, y, "U=%.12g p=%.12g" % (r.statistic, r.pvalue))
