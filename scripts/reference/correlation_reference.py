"""Reference values for Tests/OnboardMetricsTests/FisherExactTestTests.swift and
Tests/OnboardMetricsTests/BenjaminiHochbergTests.swift.

Computed independently of the Swift code:
- Fisher's exact test, two-sided: scipy.stats.fisher_exact(table, alternative="two-sided");
- Benjamini-Hochberg adjusted p-values: statsmodels.stats.multitest.multipletests(method="fdr_bh"),
  on the 15 p-values of Benjamini & Hochberg (1995), section 4.2 (and on a small set with ties);
- Holm, the same function with method="holm", for the --correction holm path.
Run (in a venv with scipy and statsmodels): python3 scripts/reference/correlation_reference.py
"""
from scipy import stats
from statsmodels.stats.multitest import multipletests

TABLES = [
    [[3, 1], [1, 3]],          # Fisher's tea-tasting lady
    [[8, 2], [1, 5]],
    [[1000, 50], [900, 120]],  # large counts
    [[0, 10], [5, 5]],         # zero cells
    [[0, 5], [0, 7]],          # a zero column margin
    [[10, 0], [0, 10]],
    [[2, 7], [8, 2]],
    [[5, 5], [5, 5]],          # the observed table is the mode
    [[20000, 180000], [20600, 179400]],  # very large counts
    [[1, 99999], [9, 99991]],
]
for table in TABLES:
    _, p = stats.fisher_exact(table, alternative="two-sided")
    print(table, "p=%.15g" % p)

BH1995 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
          0.4262, 0.5719, 0.6528, 0.7590, 1.000]
TIES = [0.04, 0.01, 0.04, 0.03, 0.5]
for name, ps in [("BH1995", BH1995), ("ties", TIES)]:
    for method in ["fdr_bh", "holm"]:
        _, adjusted, _, _ = multipletests(ps, method=method)
        print(name, method, "[" + ", ".join("%.15g" % v for v in adjusted) + "]")
