#!/usr/bin/python3
"""Reference values for tests/unit/test_stats*.c, computed independently of
the C code: scipy 1.10.1 / numpy / statsmodels 0.13.5 (Debian 12 packages
python3-scipy, python3-numpy, python3-statsmodels) and brute-force
enumeration for the exact distributions with ties (which scipy does not
offer). Run: /usr/bin/python3 tests/unit/test_stats_golden.py
The C tests hard-code what this prints."""
import itertools
import math

import numpy as np
import scipy
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

print("# scipy", scipy.__version__, "numpy", np.__version__)


def midranks(v):
    return st.rankdata(v)  # average ranks for ties


def brute_mw_two_sided(x, y):
    """Enumerate every split of the pooled midranks: exact with ties."""
    allv = list(x) + list(y)
    r = midranks(allv)
    n1 = len(x)
    obs = sum(r[:n1])
    le = ge = tot = 0
    for c in itertools.combinations(range(len(allv)), n1):
        s = sum(r[i] for i in c)
        tot += 1
        if s <= obs + 1e-9:
            le += 1
        if s >= obs - 1e-9:
            ge += 1
    return min(1.0, 2 * min(le, ge) / tot)


def brute_signed_rank_two_sided(d):
    d = [v for v in d if v != 0]
    r = midranks([abs(v) for v in d])
    obs = sum(ri for ri, v in zip(r, d) if v > 0)
    le = ge = tot = 0
    for signs in itertools.product((0, 1), repeat=len(d)):
        s = sum(ri for ri, b in zip(r, signs) if b)
        tot += 1
        if s <= obs + 1e-9:
            le += 1
        if s >= obs - 1e-9:
            ge += 1
    return min(1.0, 2 * min(le, ge) / tot)


# --- Mann-Whitney, no ties: scipy exact
MW = {
    "a": ([1.1, 2.3, 3.5, 4.2, 5.9], [3.1, 6.2, 7.4, 8.8, 9.1, 10.5]),
    "b": ([10.0, 11.0, 12.5, 13.0, 14.0, 15.0, 16.0, 17.0],
          [12.0, 13.5, 14.5, 15.5, 16.5, 18.0, 19.0, 20.0]),
}
rng = np.random.default_rng(12345)
MW["c"] = (list(np.round(rng.normal(100, 5, 20), 3)),
           list(np.round(rng.normal(104, 5, 20), 3)))
for k, (x, y) in MW.items():
    r = st.mannwhitneyu(x, y, alternative="two-sided", method="exact")
    print(f"mw_exact {k}: x={x} y={y} U={r.statistic} p={r.pvalue!r}")

# --- Mann-Whitney with ties: brute force
MWT = {
    "t1": ([1, 2, 2, 3, 3, 3, 5], [2, 3, 4, 4, 5, 6, 6, 7]),
    "t2": ([5, 5, 5, 6, 7, 7], [5, 6, 6, 7, 8, 8]),
    "t3": ([1.5, 1.5, 2.0, 2.0, 2.0], [2.0, 2.5, 2.5, 3.0, 3.0, 3.0]),
}
for k, (x, y) in MWT.items():
    u = st.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic").statistic
    print(f"mw_ties {k}: U={u} p={brute_mw_two_sided(x, y)!r}")

# --- Mann-Whitney normal approximation (ties, continuity): scipy asymptotic
xs = [float(v) for v in np.round(rng.normal(50, 3, 40))]
ys = [float(v) for v in np.round(rng.normal(51.5, 3, 40))]
r = st.mannwhitneyu(xs, ys, alternative="two-sided", method="asymptotic",
                    use_continuity=True)
print(f"mw_normal: x={xs} y={ys} U={r.statistic} p={r.pvalue!r}")

# --- Median CI orders, n = 6..30 at 95 %: largest l with
#     1 - 2 * binom.cdf(l - 1, n, 1/2) >= 0.95
rows = []
for n in range(6, 31):
    best = None
    for l in range(1, n // 2 + 1):
        cov = 1 - 2 * st.binom.cdf(l - 1, n, 0.5)
        if cov >= 0.95:
            best = (l, cov)
    rows.append(best)
print("median_ci_l n=6..30:", [b[0] for b in rows])
print("median_ci_cov n=6..30:", [f"{b[1]:.17g}" for b in rows])
print("n=5 [min,max] coverage:", 1 - 2 * st.binom.cdf(0, 5, 0.5))

# --- Hodges-Lehmann worked example: all pairwise differences, k from the
#     brute-force enumerated no-ties U distribution
hx = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
hy = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
# (Hollander & Wolfe's depression-scale data, used here only as numbers)
d = sorted(b - a for a in hx for b in hy)
est = float(np.median(d))
n1, n2 = len(hx), len(hy)
dist = {}
for c in itertools.combinations(range(n1 + n2), n1):
    u = sum(i + 1 for i in c) - n1 * (n1 + 1) // 2
    dist[u] = dist.get(u, 0) + 1
tot = sum(dist.values())
cdf = lambda k: sum(v for u, v in dist.items() if u <= k) / tot
k = 1
while 1 - 2 * cdf(k) >= 0.95:
    k += 1
print(f"hl: est={est!r} k={k} lo={d[k-1]!r} hi={d[n1*n2-k]!r} level={1-2*cdf(k-1)!r}")

# --- BH on Benjamini & Hochberg (1995)'s 15 p values: statsmodels
bhp = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
       0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000]
q = multipletests(bhp, method="fdr_bh")[1]
print("bh q:", [f"{v:.17g}" for v in q])
bhp2 = [0.04, 0.01, 0.03, 0.2, 0.01]
print("bh q2:", [f"{v:.17g}" for v in multipletests(bhp2, method="fdr_bh")[1]])

# --- Spearman drift
sx = [10.2, 10.4, 10.1, 10.8, 10.9, 11.0, 10.7, 11.3, 11.2, 11.6]
r = st.spearmanr(sx, list(range(len(sx))))
print(f"spearman: rho={r.correlation!r} p={r.pvalue!r}")
sx2 = [5, 3, 5, 4, 3, 5, 4, 2]
r = st.spearmanr(sx2, list(range(len(sx2))))
print(f"spearman ties: rho={r.correlation!r} p={r.pvalue!r}")

# --- Descriptive: numpy (type 7 quantiles = numpy's default 'linear')
dx = [12.0, 15.5, 11.2, 13.8, 14.1, 12.9, 40.0, 13.3]
a = np.array(dx)
med = np.median(a)
mad = np.median(np.abs(a - med))
print(f"desc: median={med!r} q1={np.percentile(a,25)!r} q3={np.percentile(a,75)!r} "
      f"mean={a.mean()!r} sd={a.std(ddof=1)!r} mad={mad!r} "
      f"modz={list(0.6745*(a-med)/mad)}")

# --- Wilcoxon signed-rank: scipy exact (no ties), brute force (ties)
wa = [100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 100.5, 97.0]
wb = [103.0, 104.5, 99.0, 104.0, 99.5, 107.0, 101.0, 99.0]
dd = [math.log(b / a) for a, b in zip(wa, wb)]
r = st.wilcoxon(dd, alternative="two-sided", mode="exact")
print(f"wilcoxon exact: W+={sum(r_ for r_, v in zip(midranks([abs(v) for v in dd]), dd) if v > 0)} "
      f"p={r.pvalue!r} median_ratio={math.exp(np.median(dd))!r}")
wa2 = [100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 100.5, 97.0, 101.5, 99.8]
wb2 = [103.0, 101.0, 99.0, 104.0, 98.1, 107.0, 101.0, 99.0, 100.2, 100.9]
r = st.wilcoxon([math.log(b / a) for a, b in zip(wa2, wb2)], mode="exact")
print(f"wilcoxon exact mixed signs: min(W+,W-)={r.statistic} p={r.pvalue!r}")
rw = np.random.default_rng(99)
la = [float(v) for v in np.round(rw.normal(100, 2, 60))]
lb = [float(v) for v in np.round(rw.normal(100.8, 2, 60))]
# log(b) - log(a), as the C code: then 99->101 and 101->99 tie exactly in
# |d|, while log(b / a) rounds them apart (p would be 0.3705...).
r = st.wilcoxon([math.log(b) - math.log(a) for a, b in zip(la, lb)], mode="approx",
                correction=True, zero_method="wilcox")
print(f"wilcoxon approx: a={la} b={lb} p={r.pvalue!r}")
ta = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0]
tb = [11.0, 9.0, 11.0, 12.0, 10.0, 11.0, 12.0]
dd = [math.log(b / a) for a, b in zip(ta, tb)]
print(f"wilcoxon ties: p={brute_signed_rank_two_sided(dd)!r}")

print("norm.ppf(0.975)", repr(st.norm.ppf(0.975)), "norm.ppf(1e-10)",
      repr(st.norm.ppf(1e-10)), "norm.ppf(0.3)", repr(st.norm.ppf(0.3)))

# --- Bootstrap interval of the ratio of medians: scipy.stats.bootstrap
#     (BCa and percentile, 10,000 resamples, its own RNG). The C engine
#     uses another RNG, so only agreement within Monte Carlo error is
#     expected; the spread over 5 scipy seeds sizes the tolerance.
ba = [float(v) for v in np.round(np.random.default_rng(7).lognormal(np.log(100), 0.03, 20), 3)]
bb = [float(v) for v in np.round(np.random.default_rng(8).lognormal(np.log(104), 0.03, 20), 3)]
print("boot a:", ba)
print("boot b:", bb)
for meth in ("BCa", "percentile"):
    los, his = [], []
    for seed in range(5):
        r = st.bootstrap((ba, bb), lambda a, b, axis=-1: np.median(b, axis=axis) / np.median(a, axis=axis),
                         n_resamples=10000, method=meth, random_state=seed, vectorized=True)
        los.append(r.confidence_interval.low)
        his.append(r.confidence_interval.high)
    print(f"boot {meth}: lo {np.mean(los):.6f} (sd {np.std(los):.6f}) hi {np.mean(his):.6f} (sd {np.std(his):.6f})")


# --- xoshiro256** seeded by splitmix64 (reference implementation of the
#     published algorithms, written from Vigna's C code)
M = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M


st_ = 42
s = []
for _ in range(4):
    st_, z = splitmix(st_)
    s.append(z)
out = []
for _ in range(3):
    res = (rotl((s[1] * 5) & M, 7) * 9) & M
    t = (s[1] << 17) & M
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
    s[3] = rotl(s[3], 45)
    out.append(res)
print("xoshiro256** seed 42:", [hex(v) for v in out])
print("splitmix64 state 0 first:", hex(splitmix(0)[1]))
