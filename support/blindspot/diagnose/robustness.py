"""How robust d_eff is to the population and to the correlation method (App. H.6, H.16, H.44, H.50).

* :func:`deff_vs_q` — d_eff of the frontier at each threshold q (row mean >= q-quantile), with
  optional batched bootstrap bands, and the places where it *decreases* (the paper claims it is
  monotone non-decreasing in q).
* :func:`step_changes` — a paired bootstrap of each step of a threshold curve (the slice at the next
  threshold is a subset of the slice before it, so both are resampled together), with simultaneous
  (Bonferroni) intervals over the steps: whether a dip is larger than the resampling noise.
* :func:`top_fraction_sweep` — the same, indexed by the kept fraction 1 - q (H.44: all models ->
  top 10% of the 4,576-model OLLM v2 dump).
* :func:`method_agreement` — Pearson, Spearman, Kendall (sin-adjusted and raw) d_eff side by side,
  with each matrix's smallest eigenvalue and the largest gap to Pearson (App. H.6).
* :func:`imputed_submatrix` — the paper's cross-domain Epoch matrix: benchmarks with at least
  ``min_benchmark_obs`` observed models, then models with at least ``min_model_obs`` observed
  entries among them, missing cells filled with the column mean. With 30 and 10 this is the
  paper's 49 x 31 matrix (H.50); the function reports how much of it is imputed.
* :func:`residualize` and :func:`family_best` — two population controls of the paper (H.28: partial
  out log parameters; H.38: keep the best model of each family).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix, frontier_mask
from blindspot.core.spectrum import (
    METHODS,
    bootstrap_d_eff,
    d_eff,
    deff_methods,
    participation_ratio,
    resample_counts,
    spectrum,
)
from blindspot.data.tables import ScoreTable

__all__ = [
    "ThresholdCurve",
    "deff_vs_q",
    "top_fraction_sweep",
    "StepChanges",
    "step_changes",
    "crossing_fraction",
    "decreases",
    "MethodAgreement",
    "method_agreement",
    "method_gap_intervals",
    "ImputedMatrix",
    "imputed_submatrix",
    "imputation_inflation",
    "residualize",
    "family_key",
    "family_best",
]


@dataclass(frozen=True)
class ThresholdCurve:
    """d_eff of the frontier at each threshold q (the threshold sweep of App. H.16).

    Attributes
    ----------
    table : DataFrame
        Indexed by q, columns ``fraction`` (1 - q), ``n``, ``d_eff`` and, with a bootstrap,
        ``lo``/``hi`` (percentile band).
    decreases : list of (q_from, q_to, drop)
        Consecutive thresholds where d_eff goes down (empty when monotone non-decreasing).
    skipped : list of float
        Thresholds dropped because fewer than ``min_n`` models remained.
    """

    table: pd.DataFrame
    decreases: list = field(default_factory=list)
    skipped: list = field(default_factory=list)

    @property
    def monotone(self) -> bool:
        return not self.decreases

    def among(self, min_n: int) -> ThresholdCurve:
        """The curve on the thresholds whose slice keeps at least ``min_n`` models, its decreases
        recomputed there (App. H.16 discounts the slices of fewer than 20 models).

        Raises
        ------
        ValueError
            If no threshold keeps ``min_n`` models.
        """
        keep = self.table["n"] >= min_n
        if not keep.any():
            raise ValueError(
                f"no threshold of this curve keeps {min_n} models (the largest slice has {self.table['n'].max()})"
            )
        t = self.table.loc[keep]
        dropped = [float(q) for q in self.table.index[~keep]]
        return ThresholdCurve(t, decreases(t.index, t["d_eff"]), self.skipped + dropped)


def decreases(qs: Sequence[float], values: Sequence[float], tol: float = 0.0) -> list[tuple[float, float, float]]:
    """Consecutive pairs (q_i, q_{i+1}, drop) where values[i+1] < values[i] - tol."""
    qs, v = np.asarray(qs, float), np.asarray(values, float)
    return [
        (float(qs[i]), float(qs[i + 1]), float(v[i] - v[i + 1])) for i in range(len(v) - 1) if v[i + 1] < v[i] - tol
    ]


def deff_vs_q(
    S: ArrayLike,
    qs: Sequence[float] = tuple(np.round(np.arange(0, 1, 0.1), 10)),
    min_n: int = 8,
    n_boot: int = 0,
    seed: int = 0,
    level: float = 0.95,
) -> ThresholdCurve:
    """d_eff of the frontier {row mean >= q-quantile} for each q (App. H.16).

    Parameters
    ----------
    qs : thresholds in [0, 1), increasing.
    min_n : thresholds keeping fewer models are skipped (reported in ``skipped``).
    n_boot : bootstrap resamples per slice for a percentile band (0: no band). Each slice's
        bootstrap is one batched computation (:func:`blindspot.core.spectrum.bootstrap_d_eff`).

    Raises
    ------
    ValueError
        NaN scores, thresholds outside [0, 1) or not increasing, min_n < 3, or no threshold left.
    """
    X = as_matrix(S)
    qs = np.asarray(qs, dtype=float)
    if qs.ndim != 1 or qs.size == 0:
        raise ValueError("qs must be a non-empty 1-D sequence of thresholds")
    if np.any((qs < 0) | (qs >= 1)) or np.any(np.diff(qs) <= 0):
        raise ValueError(f"thresholds must be increasing and in [0, 1), got {qs.tolist()}")
    if min_n < 3:
        raise ValueError(f"min_n must be at least 3 (a correlation needs 3 models), got {min_n}")
    rows, skipped = [], []
    for q in qs:
        F = X[frontier_mask(S, q)]  # the table's own rule (a reader's file: the standardised one)
        flat = F.std(axis=0) <= 1e-12
        if flat.any():  # a benchmark saturated at this threshold has no correlation there: left out
            F = F[:, ~flat]
        if F.shape[0] < min_n or F.shape[1] < 2:
            skipped.append(float(q))
            continue
        row = {"q": float(q), "fraction": round(float(1 - q), 12), "n": int(F.shape[0]), "d_eff": d_eff(F)}
        if n_boot:
            b = bootstrap_d_eff(F, n_boot=n_boot, seed=seed, level=level)
            row.update(lo=b.lo, hi=b.hi)
        rows.append(row)
    if not rows:
        raise ValueError(f"every threshold leaves fewer than min_n = {min_n} models")
    table = pd.DataFrame(rows).set_index("q")
    return ThresholdCurve(table, decreases(table.index, table["d_eff"]), skipped)


@dataclass(frozen=True)
class StepChanges:
    """Each step of a threshold curve with a simultaneous 95% interval of its change.

    Attributes
    ----------
    table : DataFrame
        One row per step, columns ``q_from``, ``q_to``, ``n_from``, ``n_to``, ``change`` (d_eff at
        ``q_to`` minus at ``q_from``), ``lo``/``hi`` (the change's percentile interval at level
        ``1 - (1 - level) / steps``: simultaneous over the steps, Bonferroni), and ``resamples`` (those in
        which both slices kept at least 3 models).
    n_boot : int
        Paired resamples drawn per step.
    level : float
        The family-wise level of the intervals.
    """

    table: pd.DataFrame
    n_boot: int
    level: float

    @property
    def significant_decreases(self) -> pd.DataFrame:
        """The steps whose whole interval lies below zero: dips larger than the resampling noise."""
        return self.table[self.table["hi"] < 0]


def _weighted_deff(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """d_eff of the rows of X under row weights W (B, n): the participation ratio of each weighted
    Pearson correlation matrix; a column constant under a weighting is left out (zero row and column)."""
    total = W.sum(axis=1)
    Xc = X - X.mean(axis=0)
    mean = W @ Xc / total[:, None]
    k = X.shape[1]
    iu, ju = np.triu_indices(k)
    upper = W @ (Xc[:, iu] * Xc[:, ju]) / total[:, None]  # one GEMM: the raw second moments' upper triangle
    second = np.empty((W.shape[0], k, k))
    second[:, iu, ju] = upper
    second[:, ju, iu] = upper
    cov = second - mean[:, :, None] * mean[:, None, :]
    var = np.diagonal(cov, axis1=1, axis2=2)
    ok = var > 1e-12 * np.maximum(np.diagonal(second, axis1=1, axis2=2), 1e-300)
    sd = np.sqrt(np.where(ok, var, 1.0))
    C = cov / (sd[:, :, None] * sd[:, None, :]) * (ok[:, :, None] & ok[:, None, :])
    return np.asarray(participation_ratio(np.clip(np.linalg.eigvalsh(C), 0.0, None)), dtype=float)


def step_changes(
    S: ArrayLike,
    curve: ThresholdCurve,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> StepChanges:
    """A paired bootstrap of every step of a threshold curve, with simultaneous intervals.

    For consecutive thresholds q_a < q_b of ``curve``, the slice F_b = {mean >= q_b-quantile} is a subset
    of F_a. Each resample draws the models of F_a with replacement (``rng.integers`` per resample); the
    drawn models that lie in F_b are the paired resample of F_b, so the change
    Δ = d_eff(F_b) - d_eff(F_a) is recomputed on the same draw (Efron & Tibshirani, *An Introduction to
    the Bootstrap*, 1993, ch. 13: percentile intervals). Intervals are taken at level
    ``1 - (1 - level) / m`` for the m steps (Bonferroni), so "some step's interval lies below zero"
    is a test of monotonicity at family-wise level ``level``.

    Parameters
    ----------
    S : ScoreTable, DataFrame or ndarray
        The population the curve was computed on (complete).
    curve : ThresholdCurve
        Its threshold curve (:func:`deff_vs_q`), possibly restricted (:meth:`ThresholdCurve.among`).
    n_boot : int
        Paired resamples per step.
    seed : int
        Seed of the resampling.
    level : float
        Family-wise level of the intervals.

    Returns
    -------
    StepChanges

    Raises
    ------
    ValueError
        When the curve has fewer than two thresholds or n_boot < 100.
    """
    if n_boot < 100:
        raise ValueError(f"a step's interval needs at least 100 resamples, got n_boot = {n_boot}")
    qs = [float(q) for q in curve.table.index]
    if len(qs) < 2:
        raise ValueError("a threshold curve needs two thresholds to have a step")
    X = as_matrix(S)
    alpha = (1.0 - level) / (len(qs) - 1)
    rng = np.random.default_rng(seed)
    rows = []
    for qa, qb in zip(qs[:-1], qs[1:]):
        in_a = frontier_mask(S, qa)
        in_b = frontier_mask(S, qb)[in_a]
        Xa = X[in_a]
        W = resample_counts(rng, Xa.shape[0], n_boot).astype(float)
        keep = W[:, in_b].astype(bool).sum(axis=1) >= 3
        W = W[keep]
        change = _weighted_deff(Xa[in_b], W[:, in_b]) - _weighted_deff(Xa, W)
        change = change[np.isfinite(change)]
        point = float(curve.table.loc[qb, "d_eff"] - curve.table.loc[qa, "d_eff"])
        lo, hi = np.quantile(change, [alpha / 2, 1 - alpha / 2])
        rows.append(
            {
                "q_from": qa,
                "q_to": qb,
                "n_from": int(in_a.sum()),
                "n_to": int(in_b.sum()),
                "change": point,
                "lo": float(lo),
                "hi": float(hi),
                "resamples": int(change.size),
            }
        )
    return StepChanges(pd.DataFrame(rows), n_boot, level)


def _crossing(d: np.ndarray, fractions: np.ndarray, value: float) -> float:
    """The kept fraction at which a curve of d_eff against the fraction crosses ``value`` (linear
    interpolation of fraction on d_eff, the curve read from its smallest fraction up)."""
    order = np.argsort(d)
    return float(np.interp(value, d[order], fractions[order]))


def crossing_fraction(
    S: ArrayLike,
    curve: ThresholdCurve,
    value: float,
    reference: ArrayLike | None = None,
    min_fraction: float = 0.1,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Where a top-fraction curve crosses a d_eff value, with a bootstrap interval (App. H.44).

    The curve (``curve.table``: d_eff against the kept fraction, from :func:`deff_vs_q`) is read on the
    fractions of at least ``min_fraction``, and the fraction at which it equals ``value`` is found by
    linear interpolation. Each resample draws the population's models with replacement and recomputes
    every slice's d_eff on the same draw (each slice is the original top fraction: membership fixed,
    weights resampled); when ``reference`` is given (the leaderboard whose d_eff ``value`` is), its
    models are resampled too and the crossing is taken at its resampled d_eff, so the interval carries
    the uncertainty of both.

    Parameters
    ----------
    S : ScoreTable, DataFrame or ndarray
        The population (complete).
    curve : ThresholdCurve
        Its threshold curve.
    value : float
        The d_eff whose crossing is sought.
    reference : array-like, optional
        The matrix ``value`` was computed on.
    min_fraction : float
        Smallest kept fraction read (the curve's rising part).
    n_boot, seed, level
        Resamples, their seed, and the interval's level.

    Returns
    -------
    (estimate, lo, hi) : tuple of float
        The crossing on the data and its percentile interval.
    """
    if n_boot < 100:
        raise ValueError(f"an interval needs at least 100 resamples, got n_boot = {n_boot}")
    t = curve.table[curve.table["fraction"] >= min_fraction - 1e-12]
    if len(t) < 2:
        raise ValueError(f"the curve has fewer than two fractions of at least {min_fraction}")
    fractions = t["fraction"].to_numpy(float)
    X = as_matrix(S)
    rng = np.random.default_rng(seed)
    W = resample_counts(rng, X.shape[0], n_boot).astype(float)
    d = np.column_stack([_weighted_deff(X[m], W[:, m]) for m in (frontier_mask(S, q) for q in t.index)])
    if reference is None:
        targets = np.full(n_boot, float(value))
    else:
        R = as_matrix(reference)
        targets = _weighted_deff(R, resample_counts(rng, R.shape[0], n_boot).astype(float))
    cross = np.array([_crossing(d[b], fractions, targets[b]) for b in range(n_boot)])
    lo, hi = np.quantile(cross, [(1 - level) / 2, (1 + level) / 2])
    return _crossing(t["d_eff"].to_numpy(float), fractions, float(value)), float(lo), float(hi)


def top_fraction_sweep(
    S: ArrayLike,
    fractions: Sequence[float] = (1.0, 0.9, 0.8, 0.7, 0.5, 0.2, 0.1),
    n_boot: int = 0,
    seed: int = 0,
    min_n: int = 8,
) -> ThresholdCurve:
    """d_eff of the top ``fraction`` of models by mean score (H.44), largest fraction first."""
    fr = np.asarray(fractions, dtype=float)
    if np.any((fr <= 0) | (fr > 1)):
        raise ValueError(f"fractions must be in (0, 1], got {fr.tolist()}")
    order = np.argsort(-fr)
    qs = np.round(1.0 - fr[order], 12)
    return deff_vs_q(S, qs, min_n=min_n, n_boot=n_boot, seed=seed)


@dataclass(frozen=True)
class MethodAgreement:
    """d_eff under each correlation method (App. H.6)."""

    d_eff: dict[str, float]
    min_eigenvalue: dict[str, float]
    gap_to_pearson: dict[str, float]

    @property
    def max_gap(self) -> float:
        return max(self.gap_to_pearson.values())

    def worst(self) -> str:
        return max(self.gap_to_pearson, key=self.gap_to_pearson.get)

    def max_gap_among(self, methods: Sequence[str]) -> float:
        return max(self.gap_to_pearson[m] for m in methods)


def method_agreement(S: ArrayLike) -> MethodAgreement:
    """Pearson, Spearman, Kendall-sin and raw-Kendall d_eff, smallest eigenvalues and |d - d_Pearson|."""
    sp = deff_methods(S)
    d = {m: float(sp[m].d_eff) for m in METHODS}
    return MethodAgreement(
        d,
        {m: float(sp[m].min_eigenvalue) for m in METHODS},
        {m: abs(d[m] - d["pearson"]) for m in METHODS if m != "pearson"},
    )


def _gap(X: np.ndarray, methods: Sequence[str]) -> float:
    """max over ``methods`` of |d_eff under the method - Pearson's d_eff| on one matrix."""
    pearson = float(d_eff(X))
    return max(abs(float(spectrum(X, m).d_eff) - pearson) for m in methods)


def method_gap_intervals(
    slices: dict[str, ArrayLike],
    methods: Sequence[str] = ("spearman", "kendall_sin"),
    n_boot: int = 500,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """The largest gap between Pearson's d_eff and a rank method's, per slice, with simultaneous intervals.

    On each slice the statistic is ``g = max_m |d_eff^m - d_eff^Pearson|`` over ``methods`` (App. H.6);
    each bootstrap resample draws the slice's models with replacement and recomputes every method on
    the same draw (paired), and the percentile interval is taken at level ``1 - (1 - level) / s`` for
    the s slices (Bonferroni), so "some slice's interval lies above the threshold" is a test of "the
    methods agree within the threshold on every slice" at family-wise level ``level``. Resamples in
    which a benchmark is constant are redrawn from the stream (they have no correlation).

    Parameters
    ----------
    slices : dict
        {name: a complete score matrix}.
    methods : sequence of str
        The rank methods compared with Pearson (:data:`blindspot.core.spectrum.METHODS`).
    n_boot : int
        Resamples per slice (at least 100).
    seed : int
        Seed of the resampling.
    level : float
        Family-wise level of the intervals.

    Returns
    -------
    DataFrame
        Indexed by slice name: ``gap`` (on the data), ``lo``, ``hi``, ``resamples``.

    Raises
    ------
    ValueError
        When n_boot < 100, a method is unknown, or no slice is given.
    """
    if n_boot < 100:
        raise ValueError(f"an interval needs at least 100 resamples, got n_boot = {n_boot}")
    unknown = [m for m in methods if m not in METHODS or m == "pearson"]
    if unknown or not methods:
        raise ValueError(f"methods must be rank methods of {METHODS[1:]}, got {list(methods)}")
    if not slices:
        raise ValueError("no slice to compare the methods on")
    alpha = (1.0 - level) / len(slices)
    rng = np.random.default_rng(seed)
    rows = {}
    for name, S in slices.items():
        X = as_matrix(S)
        n = X.shape[0]
        draws: list[float] = []
        for _ in range(20 * n_boot):
            if len(draws) == n_boot:
                break
            Xb = X[rng.integers(0, n, n)]
            if (Xb.std(axis=0) < 1e-12).any():
                continue
            draws.append(_gap(Xb, methods))
        lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
        rows[name] = {"gap": _gap(X, methods), "lo": float(lo), "hi": float(hi), "resamples": len(draws)}
    return pd.DataFrame.from_dict(rows, orient="index")


@dataclass(frozen=True)
class ImputedMatrix:
    """A mean-imputed submatrix of a sparse score table (H.50).

    Attributes
    ----------
    scores : DataFrame
        Models x benchmarks after imputation (no NaN).
    observed : DataFrame of bool
        True where the cell was observed, False where it was filled with the column mean.
    rule : str
        How the rows and columns were chosen.
    """

    scores: pd.DataFrame
    observed: pd.DataFrame
    rule: str

    @property
    def imputed_fraction(self) -> float:
        return float(1.0 - self.observed.to_numpy().mean())

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.scores.shape)  # type: ignore[return-value]

    @property
    def max_observed_per_model(self) -> int:
        return int(self.observed.sum(axis=1).max())

    @property
    def min_observed_per_model(self) -> int:
        return int(self.observed.sum(axis=1).min())

    def complete_rows(self) -> int:
        """Models with every benchmark observed."""
        return int(self.observed.all(axis=1).sum())


def imputed_submatrix(
    table: ScoreTable | pd.DataFrame, min_benchmark_obs: int = 30, min_model_obs: int = 10
) -> ImputedMatrix:
    """Benchmarks observed for >= ``min_benchmark_obs`` models, then models observed on >=
    ``min_model_obs`` of them; missing cells get the column mean of the kept models (H.50).

    Raises
    ------
    ValueError
        Fewer than 2 benchmarks or 3 models survive, or a kept column has fewer than 2 observed values.
    """
    df = table.scores if isinstance(table, ScoreTable) else table
    df = df.apply(pd.to_numeric, errors="coerce")
    cnt = df.notna().sum(axis=0)
    cols = cnt[cnt >= min_benchmark_obs].index
    if len(cols) < 2:
        raise ValueError(f"only {len(cols)} benchmark(s) have >= {min_benchmark_obs} observed models; lower the bar")
    sub = df[cols]
    rows = sub.notna().sum(axis=1) >= min_model_obs
    sub = sub.loc[rows]
    if sub.shape[0] < 3:
        raise ValueError(f"only {sub.shape[0]} model(s) have >= {min_model_obs} observed benchmarks; lower the bar")
    obs = sub.notna()
    few = obs.sum(axis=0) < 2
    if few.any():
        raise ValueError(
            f"benchmark(s) {list(sub.columns[few])} have fewer than 2 observed values among the kept "
            f"models: their mean-imputed column is constant"
        )
    filled = sub.fillna(sub.mean(axis=0))
    rule = (
        f"benchmarks observed for >= {min_benchmark_obs} models ({len(cols)}), then models observed on >= "
        f"{min_model_obs} of them ({sub.shape[0]}); missing cells = column mean"
    )
    return ImputedMatrix(filled, obs, rule)


def residualize(S: ArrayLike, covariate: np.ndarray) -> np.ndarray:
    """Per-column OLS residuals of S on [1, covariate] (H.28 partials out log parameters this way).

    Raises
    ------
    ValueError
        Covariate of the wrong length, with NaN, or constant.
    """
    X = as_matrix(S)
    c = np.asarray(covariate, dtype=float).ravel()
    if c.size != X.shape[0]:
        raise ValueError(f"covariate has {c.size} values for {X.shape[0]} models")
    if not np.isfinite(c).all():
        raise ValueError("covariate has NaN or infinite values; drop those models first")
    if c.std() < 1e-12:
        raise ValueError("covariate is constant: nothing to partial out")
    A = np.c_[np.ones_like(c), c]
    beta, *_ = np.linalg.lstsq(A, X, rcond=None)
    return X - A @ beta


_DASH = re.compile(r"[-_]")


def family_key(model: str) -> str:
    """``org/first-dash-token-of-model-name`` (H.38's family rule), e.g. 'Qwen/Qwen2.5-72B' -> 'Qwen/Qwen2.5'."""
    org, _, name = model.rpartition("/")
    token = name.split("-")[0]
    return f"{org}/{token}" if org else token


def family_best(table: ScoreTable, key: Callable[[str], str] = family_key) -> ScoreTable:
    """Keep the model with the highest mean raw score in each family (H.38)."""
    keys = pd.Series([key(str(m)) for m in table.scores.index], index=table.scores.index)
    mean = table.scores.mean(axis=1)
    best = mean.groupby(keys.to_numpy()).idxmax()
    mask = table.scores.index.isin(best.to_numpy())
    return table.rows(
        mask,
        name=f"{table.name} (best per family)",
        note=f"best model of each of {best.size} families (org/first-dash-token rule)",
    )


def imputation_inflation(S: ArrayLike, missing_fraction: float, reps: int = 20, seed: int = 0) -> np.ndarray:
    """d_eff after hiding a random ``missing_fraction`` of the cells of a dense matrix and mean-imputing them.

    Mean imputation pulls hidden cells to the column mean, which shrinks every correlation and so
    inflates d_eff; comparing with d_eff(S) measures by how much at a given missingness (H.50).
    Each column keeps at least two observed cells.

    Returns
    -------
    ndarray (reps,)
        d_eff of each imputed copy.
    """
    X = as_matrix(S)
    if not 0 <= missing_fraction < 1:
        raise ValueError(f"missing_fraction must be in [0, 1), got {missing_fraction}")
    if reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    n, k = X.shape
    rng = np.random.default_rng(seed)
    out = np.empty(reps)
    for r in range(reps):
        hide = rng.random((n, k)) < missing_fraction
        for j in np.flatnonzero(hide.sum(axis=0) > n - 2):  # keep two observed cells per column
            keep = rng.choice(n, 2, replace=False)
            hide[keep, j] = False
        Y = np.where(hide, np.nan, X)
        Y = np.where(hide, np.nanmean(Y, axis=0), Y)
        out[r] = d_eff(Y)
    return out
