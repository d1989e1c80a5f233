"""The synchronisation study's statistics (tools/sync-study report), in plain Python: the
regularised incomplete beta function and what is built on it (Student's t distribution, the
Clopper-Pearson interval of a binomial proportion), the paired t test, the two one-sided tests
of equivalence (TOST), Holm's step-down adjustment and the collapse criterion. No numpy, so that
tests/unit/test_sync_stats.py checks them against hand-computed values anywhere.
"""
import math


def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b) (Lentz's continued fraction)."""
    if x <= 0.0 or x >= 1.0:
        return max(0.0, min(1.0, x))
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betainc(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) +
                     b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-14:
            break
    return front * f


def beta_quantile(q, a, b):
    """The x with I_x(a, b) = q (bisection: I_x is increasing in x), to 1e-15."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if betainc(a, b, mid) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return 0.5 * (lo + hi)


def clopper_pearson(k, n, level=0.95):
    """The exact (Clopper-Pearson) interval of a binomial proportion: k successes in n trials.
    Its ends are quantiles of beta distributions: Beta(alpha/2; k, n - k + 1) (0 when k = 0) and
    Beta(1 - alpha/2; k + 1, n - k) (1 when k = n)."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"clopper_pearson: k = {k}, n = {n}")
    a = 1.0 - level
    lo = 0.0 if k == 0 else beta_quantile(a / 2, k, n - k + 1)
    hi = 1.0 if k == n else beta_quantile(1 - a / 2, k + 1, n - k)
    return lo, hi


def t_cdf(t, df):
    """P(T <= t) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def mean_sd(d):
    n = len(d)
    m = sum(d) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1)) if n > 1 else float("nan")
    return m, sd


def t_p(d):
    """Two-sided p-value of the paired t test of mean(d) = 0."""
    n = len(d)
    m, sd = mean_sd(d)
    if sd == 0:
        return 0.0 if m != 0 else 1.0
    t = m / (sd / math.sqrt(n))
    df = n - 1
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def tost_p(d, margin):
    """The two one-sided tests (Schuirmann) of equivalence of the paired differences d within
    (-margin, margin): the larger of the p-values of H0: mean <= -margin (t = (m + margin) / se,
    upper tail) and of H0: mean >= margin (t = (m - margin) / se, lower tail). Equivalence is
    shown at level alpha when it is below alpha (the 1 - 2 alpha interval lies inside the
    margin)."""
    n = len(d)
    m, sd = mean_sd(d)
    if margin <= 0 or n < 2:
        return 1.0
    if sd == 0:
        return 0.0 if abs(m) < margin else 1.0
    se = sd / math.sqrt(n)
    p_low = 1.0 - t_cdf((m + margin) / se, n - 1)
    p_high = t_cdf((m - margin) / se, n - 1)
    return max(p_low, p_high)


def holm(ps):
    """Holm-Bonferroni adjusted p-values, in the order given."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj = [0.0] * m
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * ps[i]))
        adj[i] = run
    return adj


def holm_families(ps, families):
    """Holm's adjustment within each family: ps[i] belongs to families[i]; returns the adjusted
    p-values in the order given."""
    out = [None] * len(ps)
    for fam in dict.fromkeys(families):
        idx = [i for i, f in enumerate(families) if f == fam]
        for i, a in zip(idx, holm([ps[i] for i in idx])):
            out[i] = a
    return out


def sign_test(b, c):
    """The exact one-sided sign test of b discordant pairs against c: P(X >= b) for X binomial
    with b + c trials and probability 1/2 (McNemar's exact test, one-sided); 1 without pairs."""
    n = b + c
    return sum(math.comb(n, k) for k in range(b, n + 1)) / 2.0 ** n if n else 1.0


def diverged(wnorm, ref_wnorm, factor):
    """Whether final weights diverged: their norm is infinite (weights that are not finite) or
    above factor x the reference's. NaN (no weights, or not known) is not a divergence."""
    if wnorm is None or math.isnan(wnorm):
        return False
    if math.isinf(wnorm):
        return True
    return ref_wnorm is not None and math.isfinite(ref_wnorm) and wnorm > factor * ref_wnorm


def collapsed(q, ref_q, higher, fraction, wnorm=None, ref_wnorm=None, factor=None):
    """Whether a run collapsed: its quality q beyond `fraction` of the reference's (below
    fraction x ref_q when larger is better, above ref_q / fraction otherwise), or (factor
    given) its final weights diverged (`diverged`)."""
    bad_q = q < fraction * ref_q if higher else q > ref_q / fraction
    return bad_q or (factor is not None and diverged(wnorm, ref_wnorm, factor))


def verdict(k, p_holm, p_tost_holm, loss, alpha=0.05):
    """A cell's verdict from its collapsed seeds k and its Holm-adjusted p-values: any collapse
    says so whatever the mean does; "no effect" only from the equivalence test (and no
    difference shown); else worse, better or inconclusive."""
    if k:
        return "collapses"
    if p_tost_holm < alpha:
        if p_holm < alpha:  # a difference, shown to lie within the margin
            return ("worse" if loss > 0 else "better") + " within the margin"
        return "no effect (equivalent)"
    if p_holm < alpha:
        return "worse" if loss > 0 else "better"
    return "inconclusive"


# the launch of a run a weak cell shares with the strong cell it coincides with (tools/sync-study
# table): the same run, counted once where runs are counted or timed
SHARED = "+strong"


def is_shared(r):
    return str(r.get("launch", "")).endswith(SHARED)


def launch_kind(r):
    """mpirun, smpi (simulated ranks), slurm or unknown, shared or not."""
    k = str(r.get("launch") or "mpirun")
    return k[:-len(SHARED)] if k.endswith(SHARED) else k
