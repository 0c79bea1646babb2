"""Are two models really different? Paired item-level tests, per benchmark and overall.

Two models answered the same items; on benchmark j with n_j shared items the difference is the mean
of the per-item differences, :math:`\\hat\\Delta_j = \\frac1{n_j}\\sum_i (b_i - a_i)`. Pairing removes
the item difficulty both models share, which an unpaired comparison of two means counts as noise.

* **Binary scores** (every score 0 or 1): the exact McNemar test (McNemar 1947). Of the
  :math:`m = n_{10} + n_{01}` discordant items (B right and A wrong: :math:`n_{10}`), under
  :math:`H_0` :math:`n_{10} \\sim \\mathrm{Bin}(m, 1/2)`; the p-value is the two-sided binomial test
  (:func:`scipy.stats.binomtest`). Since :math:`\\hat\\Delta = (n_{10} - n_{01})/n = (2\\hat\\pi - 1)\\, m/n`
  with :math:`\\hat\\pi = n_{10}/m`, the interval is the Clopper–Pearson interval of :math:`\\pi` mapped
  through :math:`(2\\pi - 1)\\, m/n` (conditional on m; Agresti 2013, §11.1). With no discordant item
  the difference is 0 and the interval :math:`\\pm 3/n` (the rule of three: Hanley & Lippman-Hand 1983).
* **Other scores**: the paired bootstrap over items (Efron & Tibshirani 1993): the 2.5 and 97.5
  percentiles of the resampled mean difference, and the p-value of the difference studentised by the
  bootstrap standard error, :math:`2\\Phi(-|\\hat\\Delta|/\\widehat{se}^*)` (no floor at 1/(B + 1), which
  Holm's adjustment over many comparisons needs).
  Resampling items uniformly only changes how often each distinct difference value is drawn, so the
  resampled means are drawn as multinomial counts over the distinct values (exactly the same
  distribution, and fast for binary or graded scores); with many distinct values, as index arrays in
  chunks (no Python loop over resamples).
* **Minimum detectable effect** at 80% power and two-sided level alpha. McNemar (Connor 1987): with
  discordance :math:`\\psi = m/n`, the smallest :math:`\\delta` with
  :math:`\\delta\\sqrt n = z_{1-\\alpha/2}\\sqrt\\psi + z_{0.8}\\sqrt{\\psi - \\delta^2}`. Bootstrap:
  :math:`(z_{1-\\alpha/2} + z_{0.8})\\,\\widehat{se}`.
* **Across benchmarks**: Holm's step-down adjustment (Holm 1979) of the per-benchmark p-values, each
  benchmark then "better", "worse" or "not resolved"; the overall difference as the **macro** mean
  (each benchmark counts once) and the **micro** mean (each item counts once), both with stratified
  bootstrap intervals (items resampled within their benchmark); with binary scores the micro
  difference is the pooled McNemar test.
* **More than two models**: order by the micro mean; test each adjacent pair; Holm over the pairs
  (:func:`ranking`).
* **In the book's terms** (:func:`visible_split`): the pair's difference in the standardised units of a
  reference leaderboard, split into the part its visible directions (the top ``ceil(d_eff)``
  eigenvectors of its correlation matrix, Theorem 1) carry and the part they miss, beside Part II's
  indistinguishability radius :math:`2R\\omega` (Theorem 2, Table 2) in the same units.

References: McNemar (1947), *Psychometrika* 12; Connor (1987), *Biometrics* 43; Holm (1979),
*Scand. J. Statist.* 6; Efron & Tibshirani (1993), *An Introduction to the Bootstrap*;
Hanley & Lippman-Hand (1983), *JAMA* 249; Agresti (2013),
*Categorical Data Analysis*; the book's chapter "Your two models".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, stats

from blindspot.core.conventions import ArrayLike, as_matrix
from blindspot.core.spectrum import correlation, participation_ratio
from blindspot.core.verdict import StatTest
from blindspot.prognose.visible_radius import visible_radius

__all__ = [
    "MCNEMAR",
    "BOOTSTRAP",
    "PairedTest",
    "OverallDifference",
    "PairComparison",
    "RankingStep",
    "Ranking",
    "VisibleSplit",
    "UnpairedTest",
    "is_binary",
    "mcnemar_test",
    "bootstrap_means",
    "bootstrap_test",
    "mcnemar_detectable",
    "bootstrap_detectable",
    "holm",
    "paired_test",
    "compare_pair",
    "ranking",
    "unpaired_test",
    "visible_split",
    "items_needed",
    "PairwiseTests",
    "pairwise_tests",
    "resolution_by_size",
]

#: The method names a row carries.
MCNEMAR = "exact McNemar"
BOOTSTRAP = "paired bootstrap"
#: Power at which the minimum detectable effect is computed.
POWER = 0.8
#: Bytes of resample indices one chunk of the bootstrap may hold: about the size of a core's cache, so the
#: gather reads its indices from cache (64 MB chunks, streamed through memory, took twice as long on a busy
#: machine: benchmarks/compare_speed.py).
CHUNK_BYTES = 2**20
#: Above this many distinct difference values the bootstrap draws index arrays instead of counts.
MAX_DISTINCT = 512


@dataclass(frozen=True)
class PairedTest:
    """The paired difference B - A on one benchmark.

    Attributes
    ----------
    benchmark : str
    n_items : int
        Items both models answered (0: not compared; ``note`` says why).
    mean_a, mean_b : float or None
        The two models' means on those items.
    estimate : float or None
        Mean of b_i - a_i (positive: B scores higher).
    interval : (float, float) or None
        95% interval (``1 - alpha``) of the difference.
    p_value : float or None
        Two-sided p-value of "no difference".
    detectable : float or None
        Smallest difference the test resolves with 80% power, same units as ``estimate`` (None: no
        discordant item, or too few items to resolve any difference).
    method : str
        :data:`MCNEMAR` or :data:`BOOTSTRAP` ('—' when not compared).
    b_only, a_only : int or None
        Discordant items (binary scores): B right and A wrong, and the reverse.
    note : str
        Why a benchmark was not compared, or what was done (e.g. 'non-binary scores: bootstrap').
    """

    benchmark: str
    n_items: int
    mean_a: float | None
    mean_b: float | None
    estimate: float | None
    interval: tuple[float, float] | None
    p_value: float | None
    detectable: float | None
    method: str
    b_only: int | None = None
    a_only: int | None = None
    note: str = ""

    @property
    def compared(self) -> bool:
        """Whether the benchmark had shared items to compare."""
        return self.estimate is not None

    def stat_test(self) -> StatTest:
        """The test as the book's verdicts carry it (name, estimate, interval, p-value, detectable).

        Raises
        ------
        ValueError
            The benchmark was not compared.
        """
        if not self.compared:
            raise ValueError(f"{self.benchmark}: not compared ({self.note})")
        return StatTest(
            f"{self.method} over {self.n_items:,} paired items",
            self.estimate,
            self.interval,
            self.p_value,
            self.detectable,
        )

    @property
    def se(self) -> float | None:
        """The standard error implied by the interval, (hi - lo) / (2 * 1.96)."""
        if self.interval is None:
            return None
        return (self.interval[1] - self.interval[0]) / (2 * stats.norm.ppf(0.975))


@dataclass(frozen=True)
class OverallDifference:
    """The difference B - A across benchmarks: ``kind`` 'macro' (benchmarks weigh alike) or 'micro' (items do)."""

    kind: str
    estimate: float
    interval: tuple[float, float]
    p_value: float
    method: str
    n_items: int
    n_benchmarks: int
    detectable: float | None = None

    def describe(self) -> str:
        """'+0.0072 [+0.0041, +0.0103] per item (exact McNemar, p = 4.3e-06)'."""
        lo, hi = self.interval
        p = f"p = {self.p_value:.2g}" if self.p_value > 0 else "p < 1e-300"  # below the smallest double
        return f"{self.estimate:+.4f} [{lo:+.4f}, {hi:+.4f}] per item ({self.method}, {p})"

    def stat_test(self) -> StatTest:
        """The test as the book's verdicts carry it."""
        return StatTest(
            f"{self.method}, {self.kind} over {self.n_items:,} items in {self.n_benchmarks} benchmark(s)",
            self.estimate,
            self.interval,
            self.p_value,
            self.detectable,
        )


@dataclass(frozen=True)
class PairComparison:
    """Two models compared benchmark by benchmark (:func:`compare_pair`).

    Attributes
    ----------
    model_a, model_b : str
        The difference is B - A.
    tests : tuple of PairedTest
        One per benchmark, in the order given.
    p_holm : tuple of float or None
        Holm-adjusted p-values over the compared benchmarks (None where not compared).
    decisions : tuple of str
        'better' (B above A after Holm), 'worse', 'not resolved', or '—' (not compared).
    macro, micro : OverallDifference or None
        The overall differences (None when no benchmark was compared).
    alpha, n_boot, seed : the settings.
    notes : tuple of str
        What was done with the input (intersections, methods).
    """

    model_a: str
    model_b: str
    tests: tuple[PairedTest, ...]
    p_holm: tuple[float | None, ...]
    decisions: tuple[str, ...]
    macro: OverallDifference | None
    micro: OverallDifference | None
    alpha: float
    n_boot: int
    seed: int
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per benchmark: n items, the two means, the difference, its interval, p, Holm p, the
        minimum detectable effect, the decision, the method and the note (NaN where a number does not
        apply: the benchmark was not compared, or no difference is detectable; displays show '—')."""
        nan = float("nan")  # a benchmark not compared: shown as '—' by every display (its note says why)
        rows = []
        for t, ph, dec in zip(self.tests, self.p_holm, self.decisions):
            rows.append(
                {
                    "benchmark": t.benchmark,
                    "n items": t.n_items,
                    f"mean {self.model_a}": nan if t.mean_a is None else t.mean_a,
                    f"mean {self.model_b}": nan if t.mean_b is None else t.mean_b,
                    "difference": nan if t.estimate is None else t.estimate,
                    "low": nan if t.interval is None else t.interval[0],
                    "high": nan if t.interval is None else t.interval[1],
                    "p": nan if t.p_value is None else t.p_value,
                    "p (Holm)": nan if ph is None else ph,
                    "detectable": nan if t.detectable is None else t.detectable,
                    "decision": dec,
                    "method": t.method,
                    "note": t.note,
                }
            )
        return pd.DataFrame(rows).set_index("benchmark")

    def overall_frame(self) -> pd.DataFrame:
        """The macro and micro differences, one row each."""
        rows = [
            {
                "overall": o.kind,
                "difference": o.estimate,
                "low": o.interval[0],
                "high": o.interval[1],
                "p": o.p_value,
                "items": o.n_items,
                "benchmarks": o.n_benchmarks,
                "method": o.method,
            }
            for o in (self.macro, self.micro)
            if o is not None
        ]
        return pd.DataFrame(rows).set_index("overall") if rows else pd.DataFrame()


@dataclass(frozen=True)
class RankingStep:
    """One adjacent pair of the ranking: ``upper`` ranked just above ``lower`` by the micro mean."""

    rank: int
    upper: str
    lower: str
    estimate: float
    interval: tuple[float, float]
    p_value: float
    p_holm: float
    resolved: bool
    method: str


@dataclass(frozen=True)
class Ranking:
    """Models ordered by their micro mean, with each adjacent pair tested (Holm over the pairs).

    ``comparisons`` holds each adjacent pair's :class:`PairComparison` (lower ranked as A), per benchmark.
    """

    models: tuple[str, ...]
    means: tuple[float, ...]
    steps: tuple[RankingStep, ...]
    alpha: float
    comparisons: tuple[PairComparison, ...] = ()

    @property
    def n_resolved(self) -> int:
        """Adjacent pairs resolved after Holm's adjustment."""
        return sum(s.resolved for s in self.steps)

    def to_frame(self) -> pd.DataFrame:
        """Rank, model, micro mean, and the test against the model ranked next (— for the last)."""
        rows = []
        for i, (m, mu) in enumerate(zip(self.models, self.means)):
            s = self.steps[i] if i < len(self.steps) else None
            rows.append(
                {
                    "rank": i + 1,
                    "model": m,
                    "mean": mu,
                    "gap to next": float("nan") if s is None else s.estimate,
                    "low": float("nan") if s is None else s.interval[0],
                    "high": float("nan") if s is None else s.interval[1],
                    "p (Holm)": float("nan") if s is None else s.p_holm,
                    "order vs next": "—" if s is None else ("resolved" if s.resolved else "not resolved"),
                }
            )
        return pd.DataFrame(rows).set_index("rank")


@dataclass(frozen=True)
class VisibleSplit:
    """The pair's standardised difference vector split by a reference leaderboard's visible directions.

    Attributes
    ----------
    benchmarks : tuple of str
        The benchmarks shared by the comparison and the leaderboard (the coordinates).
    difference : ndarray (k,)
        B - A on each, divided by the leaderboard's standard deviation of that benchmark (ddof 0).
    total, visible, missed : float
        :math:`\\|v\\|`, :math:`\\|P v\\|` and :math:`\\|(I - P) v\\|`, P the projection on the top-d
        eigenvectors of the leaderboard's correlation matrix (total² = visible² + missed²).
    d, d_eff : int, float
        d = ceil(d_eff) visible directions.
    radius : float or None
        Part II's indistinguishability radius min(2 R omega, 2 R) of the leaderboard (z units);
        None when it cannot be computed (``radius_note`` says why).
    """

    benchmarks: tuple[str, ...]
    difference: np.ndarray
    total: float
    visible: float
    missed: float
    d: int
    d_eff: float
    radius: float | None
    radius_note: str = ""

    @property
    def share_visible(self) -> float:
        """visible² / total²: the share of the squared difference the leaderboard sees (nan if total is 0)."""
        return float(self.visible**2 / self.total**2) if self.total > 0 else float("nan")


@dataclass(frozen=True)
class UnpairedTest:
    """The two-proportion z-test that ignores the pairing: z = (mean_b - mean_a) / sqrt(se_a² + se_b²)."""

    estimate: float
    se: float
    z: float
    p_value: float


# -- the tests on one benchmark -----------------------------------------------------------------


def _pair_arrays(a: ArrayLike, b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"the two models' scores must be paired item by item: {a.size} vs {b.size} items")
    if a.size == 0:
        raise ValueError("no shared item to compare")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("scores hold NaN or infinite values; drop those items first")
    return a, b


def is_binary(*arrays: ArrayLike) -> bool:
    """Whether every value is 0 or 1 (the McNemar path)."""
    return all(np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all() for x in arrays)


def _z(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return float(stats.norm.ppf(1 - alpha / 2))


def mcnemar_detectable(n: int, discordance: float, alpha: float = 0.05, power: float = POWER) -> float | None:
    """Smallest |difference| the McNemar test resolves with ``power`` for n items at discordance psi.

    Solves :math:`\\delta\\sqrt n = z_{1-\\alpha/2}\\sqrt\\psi + z_{power}\\sqrt{\\psi - \\delta^2}` for
    :math:`0 < \\delta \\le \\psi` (Connor 1987, the normal approximation of the paired-proportions
    power). None when psi = 0 (no discordant item: no basis) or when even :math:`\\delta = \\psi` (every
    discordant item one way) falls short.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not 0 <= discordance <= 1:
        raise ValueError(f"discordance must be in [0, 1], got {discordance}")
    if discordance == 0:
        return None
    za, zb = _z(alpha), float(stats.norm.ppf(power))

    def gap(delta: float) -> float:
        return delta * math.sqrt(n) - za * math.sqrt(discordance) - zb * math.sqrt(max(discordance - delta**2, 0.0))

    hi = discordance  # |difference| <= discordance: every discordant item one way
    if gap(hi) < 0:
        return None
    return float(optimize.brentq(gap, 0.0, hi, xtol=1e-12))


def bootstrap_detectable(se: float, alpha: float = 0.05, power: float = POWER) -> float:
    """Smallest |difference| a two-sided level-alpha test with standard error ``se`` resolves with ``power``:
    :math:`(z_{1-\\alpha/2} + z_{power})\\, se` (the normal approximation)."""
    return float((_z(alpha) + stats.norm.ppf(power)) * se)


def mcnemar_test(a: ArrayLike, b: ArrayLike, alpha: float = 0.05, benchmark: str = "") -> PairedTest:
    """The exact McNemar test of B against A on paired binary scores (module docstring).

    Raises
    ------
    ValueError
        Unpaired or empty arrays, a value other than 0 or 1.
    """
    a, b = _pair_arrays(a, b)
    if not is_binary(a, b):
        raise ValueError("the McNemar test needs binary scores (0 or 1); use the paired bootstrap")
    n = a.size
    n10 = int(((b == 1) & (a == 0)).sum())
    n01 = int(((a == 1) & (b == 0)).sum())
    m = n10 + n01
    est = (n10 - n01) / n
    if m == 0:
        ci, p = (-3.0 / n, 3.0 / n), 1.0
    else:
        res = stats.binomtest(n10, m, 0.5)
        lo, hi = res.proportion_ci(confidence_level=1 - alpha, method="exact")
        ci, p = ((2 * lo - 1) * m / n, (2 * hi - 1) * m / n), float(res.pvalue)
    return PairedTest(
        benchmark,
        n,
        float(a.mean()),
        float(b.mean()),
        float(est),
        (float(ci[0]), float(ci[1])),
        min(p, 1.0),
        mcnemar_detectable(n, m / n, alpha),
        MCNEMAR,
        n10,
        n01,
    )


def bootstrap_means(x: ArrayLike, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_boot`` resamples (with replacement, n of n) of the values x, shape (n_boot,).

    Resampling n items uniformly draws each distinct value v with probability (its count)/n, so the
    resampled mean is :math:`\\sum_v c_v v / n` with :math:`c \\sim \\mathrm{Multinomial}(n, f/n)`: up to
    :data:`MAX_DISTINCT` distinct values (and at most n/8: a binomial draw costs about eight index
    draws) that is how it is drawn (one multinomial per resample, K categories). With more, index arrays are drawn and gathered in chunks of :data:`CHUNK_BYTES`.
    Both are vectorised over resamples.
    """
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    if n == 0:
        raise ValueError("no value to resample")
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 2:
        raise ValueError(f"n_boot must be an integer >= 2, got {n_boot!r}")
    values, counts = np.unique(x, return_counts=True)
    if values.size <= min(MAX_DISTINCT, n // 8):  # a binomial draw per category costs ~8 index draws
        c = rng.multinomial(n, counts / n, size=int(n_boot))
        return c @ values / n
    out = np.empty(int(n_boot))
    chunk = max(1, CHUNK_BYTES // (8 * n))
    for s in range(0, int(n_boot), chunk):
        m = min(chunk, int(n_boot) - s)
        idx = rng.integers(0, n, size=(m, n))
        out[s : s + m] = x[idx].mean(axis=1)
    return out


def _boot_p(boot: np.ndarray, est: float) -> float:
    """The two-sided p-value of the difference studentised by its bootstrap standard error,
    :math:`2\\Phi(-|\\hat\\Delta| / \\widehat{se}^*)` (Efron & Tibshirani 1993, §16.4's normal approximation).
    Unlike a count of resamples, it has no floor at 1/(B + 1), which Holm's adjustment over many
    comparisons would turn into an unresolvable 1/(B + 1) times their number."""
    if est == 0:
        return 1.0
    se = float(boot.std(ddof=1))
    if se == 0:
        return 0.0
    return float(2 * stats.norm.sf(abs(est) / se))


def _percentile(boot: np.ndarray, alpha: float) -> tuple[float, float]:
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def bootstrap_test(
    a: ArrayLike,
    b: ArrayLike,
    n_boot: int = 1000,
    seed: int | np.random.Generator = 0,
    alpha: float = 0.05,
    benchmark: str = "",
    note: str = "",
) -> PairedTest:
    """The paired bootstrap of B - A over items: percentile interval, null-shifted p-value, MDE from its se.

    Raises
    ------
    ValueError
        Unpaired or empty arrays, NaN scores, ``n_boot`` < 2.
    """
    return _bootstrap_test(a, b, n_boot, seed, alpha, benchmark, note)[0]


def _bootstrap_test(a, b, n_boot, seed, alpha, benchmark, note) -> tuple[PairedTest, np.ndarray]:
    a, b = _pair_arrays(a, b)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    x = b - a
    est = float(x.mean())
    boot = bootstrap_means(x, n_boot, rng)
    se = float(boot.std(ddof=1))
    t = PairedTest(
        benchmark,
        x.size,
        float(a.mean()),
        float(b.mean()),
        est,
        _percentile(boot, alpha),
        _boot_p(boot, est),
        bootstrap_detectable(se, alpha) if se > 0 else None,
        BOOTSTRAP,
        note=note,
    )
    return t, boot


def paired_test(
    a: ArrayLike,
    b: ArrayLike,
    n_boot: int = 1000,
    seed: int | np.random.Generator = 0,
    alpha: float = 0.05,
    benchmark: str = "",
) -> PairedTest:
    """McNemar when both models' scores are binary, else the paired bootstrap (said in the note)."""
    a, b = _pair_arrays(a, b)
    if is_binary(a, b):
        return mcnemar_test(a, b, alpha, benchmark)
    return bootstrap_test(a, b, n_boot, seed, alpha, benchmark, note="non-binary scores: paired bootstrap")


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979).

    With the p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`, the adjusted
    :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1)\\, p_{(j)})`; a hypothesis is rejected at
    level alpha when its adjusted p-value is at most alpha, which controls the family-wise error rate.
    """
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1:
        raise ValueError("holm takes a 1-D sequence of p-values")
    if p.size == 0:
        return p
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def _boot_detectable(boot: np.ndarray, alpha: float) -> float | None:
    se = float(boot.std(ddof=1))
    return bootstrap_detectable(se, alpha) if se > 0 else None


def _decision(t: PairedTest, ph: float | None, alpha: float) -> str:
    if ph is None or t.estimate is None:
        return "—"
    if ph <= alpha and t.estimate != 0:
        return "better" if t.estimate > 0 else "worse"
    return "not resolved"


def compare_pair(
    a: Mapping[str, ArrayLike],
    b: Mapping[str, ArrayLike],
    model_a: str = "A",
    model_b: str = "B",
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    reasons: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
) -> PairComparison:
    """Compare B with A benchmark by benchmark on paired item scores, then overall.

    Parameters
    ----------
    a, b : mapping benchmark -> array
        Each model's scores on the shared items of each benchmark, in the same item order (an empty
        array: no shared item; ``reasons`` may say why).
    model_a, model_b : str
        Names; every difference is B - A.
    n_boot, seed, alpha : the bootstrap's resamples and seed, the level (95% intervals for 0.05).
    reasons : mapping benchmark -> str, optional
        Why a benchmark has no shared item (shown in its row).
    notes : sequence of str
        Notes on the input, kept with the result.

    Returns
    -------
    PairComparison

    Raises
    ------
    ValueError
        Different benchmarks in a and b, unpaired arrays, or bad settings.
    """
    if list(a) != list(b):
        raise ValueError("a and b must hold the same benchmarks, in the same order")
    if not a:
        raise ValueError("no benchmark to compare")
    _z(alpha)
    rng = np.random.default_rng(seed)
    tests, boots, pooled = _benchmark_tests(a, b, n_boot, rng, alpha, dict(reasons or {}))
    p_holm = _holm_by_benchmark(tests)
    decisions = tuple(_decision(t, ph, alpha) for t, ph in zip(tests, p_holm))
    idx = [i for i, t in enumerate(tests) if t.compared]
    macro = micro = None
    if idx:
        compared = [tests[i] for i in idx]
        B = np.stack([boots[i] for i in idx])  # (k, n_boot)
        macro = _macro_difference(compared, B, alpha)
        micro = _micro_difference(compared, B, pooled, alpha)
    return PairComparison(
        model_a,
        model_b,
        tuple(tests),
        tuple(p_holm),
        decisions,
        macro,
        micro,
        alpha,
        int(n_boot),
        int(seed),
        tuple(notes),
    )


def _benchmark_tests(
    a: Mapping[str, ArrayLike],
    b: Mapping[str, ArrayLike],
    n_boot: int,
    rng: np.random.Generator,
    alpha: float,
    reasons: Mapping[str, str],
) -> tuple[list[PairedTest], list[np.ndarray | None], tuple[list[np.ndarray], list[np.ndarray]]]:
    """Step 1 of :func:`compare_pair`: each benchmark's paired test and bootstrap of B - A.

    McNemar's exact test for right/wrong scores, the paired bootstrap otherwise; every compared
    benchmark is also resampled (``n_boot`` means of B - A, one stream ``rng`` in benchmark order), since
    the overall intervals are stratified bootstraps. A benchmark without shared items gets an empty row
    and no bootstrap. Returns the tests, the bootstraps and the pooled (A, B) scores of the compared
    benchmarks.
    """
    tests: list[PairedTest] = []
    boots: list[np.ndarray | None] = []
    pooled_a: list[np.ndarray] = []
    pooled_b: list[np.ndarray] = []
    for name in a:
        xa = np.asarray(a[name], dtype=float).ravel()
        xb = np.asarray(b[name], dtype=float).ravel()
        if xa.size == 0 or xb.size == 0:
            why = reasons.get(name, "no item answered by both models")
            tests.append(PairedTest(name, 0, None, None, None, None, None, None, "—", note=why))
            boots.append(None)
            continue
        if is_binary(xa, xb):
            t = mcnemar_test(xa, xb, alpha, name)
            boots.append(bootstrap_means(xb - xa, n_boot, rng))
        else:
            t, boot = _bootstrap_test(xa, xb, n_boot, rng, alpha, name, "non-binary scores: paired bootstrap")
            boots.append(boot)
        tests.append(t)
        pooled_a.append(xa)
        pooled_b.append(xb)
    return tests, boots, (pooled_a, pooled_b)


def _holm_by_benchmark(tests: Sequence[PairedTest]) -> list[float | None]:
    """Step 2 of :func:`compare_pair`: Holm-adjusted p-values of the compared benchmarks (None elsewhere)."""
    idx = [i for i, t in enumerate(tests) if t.compared]
    p_holm: list[float | None] = [None] * len(tests)
    if idx:
        for i, ph in zip(idx, holm([tests[i].p_value for i in idx])):
            p_holm[i] = float(ph)
    return p_holm


def _boot_difference(
    kind: str, estimate: float, boot: np.ndarray, tests: Sequence[PairedTest], alpha: float
) -> OverallDifference:
    """An overall difference judged by its stratified bootstrap ``boot`` (percentile interval, p, detectable)."""
    return OverallDifference(
        kind,
        estimate,
        _percentile(boot, alpha),
        _boot_p(boot, estimate),
        "stratified bootstrap",
        int(sum(t.n_items for t in tests)),
        len(tests),
        _boot_detectable(boot, alpha),
    )


def _macro_difference(tests: Sequence[PairedTest], B: np.ndarray, alpha: float) -> OverallDifference:
    r"""Step 3 of :func:`compare_pair`: the macro difference, the mean over benchmarks of B - A.

    :math:`\hat\Delta_{macro} = \frac1k\sum_j \hat\Delta_j`, its bootstrap the same mean of the
    benchmarks' bootstraps ``B`` (k, n_boot).
    """
    estimate = float(np.array([t.estimate for t in tests]).mean())
    return _boot_difference("macro", estimate, B.mean(axis=0), tests, alpha)


def _micro_difference(
    tests: Sequence[PairedTest],
    B: np.ndarray,
    pooled: tuple[list[np.ndarray], list[np.ndarray]],
    alpha: float,
) -> OverallDifference:
    r"""Step 4 of :func:`compare_pair`: the micro difference, the mean over all items of B - A.

    On right/wrong scores everywhere, McNemar's exact test of the pooled items; otherwise the
    item-weighted mean :math:`\sum_j n_j \hat\Delta_j / \sum_j n_j` with the same weighting of the
    benchmarks' bootstraps ``B``.
    """
    if all(t.method == MCNEMAR for t in tests):
        mt = mcnemar_test(np.concatenate(pooled[0]), np.concatenate(pooled[1]), alpha)
        return OverallDifference(
            "micro", mt.estimate, mt.interval, mt.p_value, MCNEMAR, mt.n_items, len(tests), mt.detectable
        )
    ns = np.array([t.n_items for t in tests], dtype=float)
    ests = np.array([t.estimate for t in tests])
    return _boot_difference("micro", float(ns @ ests / ns.sum()), ns @ B / ns.sum(), tests, alpha)


def ranking(
    scores: Mapping[str, Mapping[str, ArrayLike]],
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> Ranking:
    """Order the models by their micro mean and test each adjacent pair (Holm over the pairs).

    ``scores[model][benchmark]`` are the model's scores on items shared by every model, in one item
    order per benchmark. Each adjacent pair's micro difference is tested as in :func:`compare_pair`
    (pooled McNemar for binary scores, stratified bootstrap otherwise); a pair is resolved when its
    Holm-adjusted p-value is at most alpha: the ranks one can trust.

    Raises
    ------
    ValueError
        Fewer than two models, or models with different benchmarks.
    """
    models = list(scores)
    if len(models) < 2:
        raise ValueError(f"a ranking needs at least two models, got {len(models)}")
    benches = list(scores[models[0]])
    if any(list(scores[m]) != benches for m in models):
        raise ValueError("every model must hold the same benchmarks, in the same order")
    means = {}
    for m in models:
        x = np.concatenate([np.asarray(scores[m][j], dtype=float).ravel() for j in benches])
        if x.size == 0:
            raise ValueError("no item shared by every model")
        means[m] = float(x.mean())
    order = sorted(models, key=lambda m: -means[m])
    comps = [
        compare_pair(scores[lo], scores[up], lo, up, n_boot=n_boot, seed=seed + i, alpha=alpha)
        for i, (up, lo) in enumerate(zip(order, order[1:]))
    ]
    ph = holm([c.micro.p_value for c in comps])
    steps = tuple(
        RankingStep(
            i + 1,
            c.model_b,
            c.model_a,
            c.micro.estimate,
            c.micro.interval,
            c.micro.p_value,
            float(p),
            bool(p <= alpha and c.micro.estimate > 0),
            c.micro.method,
        )
        for i, (c, p) in enumerate(zip(comps, ph))
    )
    return Ranking(tuple(order), tuple(means[m] for m in order), steps, alpha, tuple(comps))


def unpaired_test(a: ArrayLike, b: ArrayLike) -> UnpairedTest:
    """The unpaired z-test of two means (what lm-evaluation-harness's comparator does): each model's
    standard error :math:`s/\\sqrt n` (ddof 1) as if the items were independent samples,
    :math:`z = (\\bar b - \\bar a)/\\sqrt{se_a^2 + se_b^2}`, two-sided normal p-value."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.size < 2 or b.size < 2:
        raise ValueError("the unpaired test needs at least two items per model")
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    est = float(b.mean() - a.mean())
    if se == 0:
        return UnpairedTest(est, 0.0, math.inf if est else 0.0, 0.0 if est else 1.0)
    z = est / se
    return UnpairedTest(est, se, float(z), float(2 * stats.norm.sf(abs(z))))


def visible_split(
    difference: Mapping[str, float],
    reference: pd.DataFrame,
    seed: int = 0,
) -> VisibleSplit:
    """Split B - A, in a reference leaderboard's standardised units, into what its visible directions carry.

    Coordinates: the benchmarks of ``difference`` that are columns of ``reference`` (models x
    benchmarks, raw scores in the same units as the compared ones). :math:`v_j = \\Delta_j / sd_j`
    (sd over the leaderboard's models, ddof 0, as z-scores are computed); P projects on the top
    :math:`d = \\lceil d_{eff} \\rceil` eigenvectors of the leaderboard's correlation matrix restricted
    to those benchmarks (Theorem 1's participation ratio); visible = ||P v||, missed = ||(I - P) v||.
    The radius is :func:`blindspot.prognose.visible_radius.visible_radius`'s capped
    :math:`\\min(2R\\omega, 2R)` on the same columns (Theorem 2 and Table 2), in the same z units.

    Raises
    ------
    ValueError
        Fewer than two shared benchmarks, fewer than three models in the reference, a shared benchmark
        with no spread on the leaderboard, or a NaN cell.
    """
    shared = [j for j in difference if j in reference.columns]
    if len(shared) < 2:
        raise ValueError(
            f"the reference leaderboard shares {len(shared)} benchmark(s) with the comparison; the split needs at "
            f"least 2 (its benchmarks: {', '.join(map(str, reference.columns[:8]))})"
        )
    S = as_matrix(reference[shared].to_numpy(dtype=float), min_rows=3, min_cols=2)
    sd = S.std(axis=0)
    flat = [j for j, s in zip(shared, sd) if s < 1e-12]
    if flat:
        raise ValueError(f"benchmark(s) with the same score for every model of the reference: {', '.join(flat)}")
    v = np.array([difference[j] for j in shared], dtype=float) / sd
    lam, V = np.linalg.eigh(correlation(S))
    lam, V = lam[::-1], V[:, ::-1]
    deff = float(participation_ratio(lam))
    d = min(max(int(math.ceil(deff - 1e-12)), 1), len(shared))
    vis = V[:, :d] @ (V[:, :d].T @ v)
    radius, why = None, ""
    try:
        radius = float(visible_radius(S, seed=seed).delta_vis_capped)
    except ValueError as exc:
        why = f"the leaderboard's radius is not defined here: {exc}"
    return VisibleSplit(
        tuple(shared),
        v,
        float(np.linalg.norm(v)),
        float(np.linalg.norm(vis)),
        float(np.linalg.norm(v - vis)),
        d,
        deff,
        radius,
        why,
    )


def items_needed(difference: float, discordance: float, alpha: float = 0.05, power: float = POWER) -> int:
    """Items the McNemar test needs to resolve ``difference`` with ``power`` at that discordance.

    The closed form of :func:`mcnemar_detectable`'s equation solved for n (Connor 1987):
    :math:`n = \\lceil ((z_{1-\\alpha/2}\\sqrt\\psi + z_{power}\\sqrt{\\psi - \\delta^2}) / \\delta)^2 \\rceil`.

    Raises
    ------
    ValueError
        A difference of 0 or larger than the discordance (impossible: |difference| <= discordance).
    """
    d = abs(float(difference))
    if not 0 < d <= discordance <= 1:
        raise ValueError(f"need 0 < |difference| <= discordance <= 1, got {difference} and {discordance}")
    za, zb = _z(alpha), float(stats.norm.ppf(power))
    return int(math.ceil(((za * math.sqrt(discordance) + zb * math.sqrt(discordance - d * d)) / d) ** 2 - 1e-9))


@dataclass(frozen=True)
class PairwiseTests:
    """Every pair of models on one benchmark of binary scores, paired (McNemar) and unpaired (z-test).

    ``frame`` has one row per pair: lower (A), higher (B) by mean, difference (B - A), discordance,
    p paired, p unpaired, their Holm adjustments over the pairs, and whether each resolves the pair.
    """

    frame: pd.DataFrame
    n_items: int
    alpha: float

    @property
    def n_paired(self) -> int:
        """Pairs the paired test resolves after Holm."""
        return int(self.frame["paired resolves"].sum())

    @property
    def n_unpaired(self) -> int:
        """Pairs the unpaired test resolves after Holm."""
        return int(self.frame["unpaired resolves"].sum())

    @property
    def closest(self) -> pd.Series:
        """The pair whose means lie closest (smallest difference; the first such pair on a tie)."""
        return self.frame.loc[self.frame["difference"].abs().idxmin()]

    @property
    def furthest(self) -> pd.Series:
        """The pair whose means lie furthest apart."""
        return self.frame.loc[self.frame["difference"].abs().idxmax()]

    @property
    def missed(self) -> pd.DataFrame:
        """The pairs the paired test resolves and the unpaired one does not."""
        f = self.frame
        return f[f["paired resolves"] & ~f["unpaired resolves"]]


def pairwise_tests(scores: Mapping[str, ArrayLike], alpha: float = 0.05) -> PairwiseTests:
    """Test every pair of models, paired and unpaired, Holm over the pairs (each family apart).

    ``scores[model]`` are binary scores on the same items in the same order.

    Raises
    ------
    ValueError
        Fewer than two models, arrays of different lengths or non-binary scores.
    """
    names = list(scores)
    if len(names) < 2:
        raise ValueError(f"need at least two models, got {len(names)}")
    X = np.stack([np.asarray(scores[m], dtype=float).ravel() for m in names])
    if not is_binary(X):
        raise ValueError("pairwise_tests takes binary scores (0 or 1)")
    n = X.shape[1]
    means = X.mean(axis=1)
    # every pair at once: right[i, j] = items model j has right and model i wrong (one product)
    right = X @ (1.0 - X).T  # right[i, j] = #(i right, j wrong)
    i_idx, j_idx = np.triu_indices(len(names), k=1)
    swap = means[i_idx] > means[j_idx]
    lo = np.where(swap, j_idx, i_idx)
    hi = np.where(swap, i_idx, j_idx)
    n10 = right[hi, lo]  # B (higher) right, A wrong
    n01 = right[lo, hi]
    m = n10 + n01
    # the exact two-sided binomial test of Bin(m, 1/2) is symmetric: p = min(1, 2 P(X <= min(k, m - k)))
    p_paired = np.where(m > 0, np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(n10, n01), m, 0.5)), 1.0)
    var = X.var(axis=1, ddof=1) / n
    diff = means[hi] - means[lo]
    se = np.sqrt(var[hi] + var[lo])
    with np.errstate(divide="ignore", invalid="ignore"):
        p_unpaired = np.where(se > 0, 2 * stats.norm.sf(np.abs(diff) / se), np.where(diff != 0, 0.0, 1.0))
    rows = {
        "A": [names[k] for k in lo],
        "B": [names[k] for k in hi],
        "difference": (n10 - n01) / n,
        "discordance": m / n,
        "detectable": [mcnemar_detectable(n, float(psi), alpha) for psi in m / n],
        "p paired": p_paired,
        "p unpaired": p_unpaired,
    }
    f = pd.DataFrame(rows)
    f["p paired (Holm)"] = holm(f["p paired"].to_numpy())
    f["p unpaired (Holm)"] = holm(f["p unpaired"].to_numpy())
    f["paired resolves"] = (f["p paired (Holm)"] <= alpha) & (f["difference"] > 0)
    f["unpaired resolves"] = (f["p unpaired (Holm)"] <= alpha) & (f["difference"] > 0)
    return PairwiseTests(f, X.shape[1], alpha)


def resolution_by_size(
    scores: Mapping[str, ArrayLike],
    sizes: Sequence[int],
    n_draws: int = 20,
    seed: int = 0,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """How many pairs each test resolves on random subsets of the items (a benchmark's size).

    For each size and draw, ``size`` items drawn without replacement (``default_rng(seed)``, one
    stream), then :func:`pairwise_tests`. Returns one row per (size, draw): ``n paired``, ``n unpaired``
    and ``pairs``.

    Raises
    ------
    ValueError
        A size below 2 or above the number of items, fewer than one draw.
    """
    names = list(scores)
    X = np.stack([np.asarray(scores[m], dtype=float).ravel() for m in names])
    n = X.shape[1]
    if n_draws < 1 or any(not 2 <= int(k) <= n for k in sizes):
        raise ValueError(f"sizes must lie in [2, {n}] and n_draws >= 1, got {list(sizes)} and {n_draws}")
    rng = np.random.default_rng(seed)
    rows = []
    for k in sizes:
        for draw in range(n_draws):
            cols = rng.choice(n, size=int(k), replace=False)
            pt = pairwise_tests({m: X[i, cols] for i, m in enumerate(names)}, alpha)
            rows.append({"items": int(k), "draw": draw, "n paired": pt.n_paired, "n unpaired": pt.n_unpaired,
                         "pairs": len(pt.frame)})  # fmt: skip
    return pd.DataFrame(rows)
