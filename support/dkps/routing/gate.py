r"""The tolerance gate: offload a query only where a calibrated confidence says its deviation stays within ε.

An operator serves a cheap substitute instead of the flagship on a query ``q`` and promises a
per-query contract ``(ε, α)``: among the offloaded queries, at most a share α deviate from the
flagship's answer by more than ε,

.. math::  P\bigl(\mathrm{dev}(q) > ε \mid q \text{ offloaded}\bigr) \le α,
           \qquad \mathrm{dev}(q) = \lVert x_{r(q),q} - x_{f,q} \rVert .

A policy attaches a confidence ``c(q)`` to each query (lower: offload first). The gate picks a
cutoff τ on a **calibration split** — queries held out of every geometry, whose realized
deviations were bought once — and offloads every new query with ``c(q) ≤ τ``. This is the
prefix ("conformal-style") gate of the routing paper's tolerance experiments:

1. sort the N calibration decisions by confidence, ``c_(1) ≤ … ≤ c_(N)`` (a stable sort, ties
   broken by a seeded random key), and let ``b_(k) = 1[dev_(k) > ε]``;
2. for each prefix length k, the criterion is the prefix's violation rate ``B_k / k``
   (``rule="emp"``) or its one-sided Clopper–Pearson upper ``1 − δ`` bound, the
   ``Beta(B_k + 1, k − B_k)`` quantile at ``1 − δ`` (1 when ``B_k = k``) (``rule="ucb"``;
   Clopper & Pearson 1934);
3. admissible prefixes have criterion ``≤ α`` and length ``≥ min_prefix``; τ is the confidence at
   the end of the **largest** admissible prefix, and −∞ (offload nothing) if there is none.

Non-finite confidences are never offloaded. A policy whose confidence is the same on every query
(serve the leaderboard's best cheap model; static DKPS) cannot select: its cutoff offloads all or
nothing, and its violation is the fixed population rate ``P(dev > ε)`` whatever the volume. The
gate reports it as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import sklearn.base
from scipy import stats
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "RULES",
    "ToleranceGate",
    "GateReport",
    "clopper_pearson_upper",
    "prefix_criterion",
    "required_calibration_size",
    "order_by_confidence",
    "evaluate_gate",
    "gate_grid",
]

RULES = ("emp", "ucb")


def _check_contract(eps: float, alpha: float, rule: str, delta: float, min_prefix: int) -> None:
    for name, v in (("eps", eps), ("alpha", alpha), ("delta", delta), ("min_prefix", min_prefix)):
        if isinstance(v, (bool, np.bool_)):
            raise ValueError(f"{name} must be a number, not the bool {v!r}")
    if not (isinstance(eps, (int, float, np.floating)) and math.isfinite(eps) and eps > 0):
        raise ValueError(f"the tolerance eps must be a finite number > 0, got {eps!r}")
    if not (isinstance(alpha, (int, float, np.floating)) and 0 < alpha < 1):
        raise ValueError(f"the violation budget alpha must lie strictly between 0 and 1, got {alpha!r}")
    if rule not in RULES:
        raise ValueError(f"unknown gate rule {rule!r}; choose one of {RULES}")
    if not (isinstance(delta, (int, float, np.floating)) and 0 < delta < 1):
        raise ValueError(f"the Clopper-Pearson level delta must lie strictly between 0 and 1, got {delta!r}")
    if not (isinstance(min_prefix, (int, np.integer)) and min_prefix >= 1):
        raise ValueError(f"min_prefix must be an integer >= 1, got {min_prefix!r}")


def _check_deviations(d: np.ndarray, side: str) -> None:
    """Realized deviations are distances: finite and ``>= 0`` on both splits."""
    if not np.all(np.isfinite(d)):
        raise ValueError(
            f"the {side} deviations contain NaN or inf; every {side} query needs a realized deviation "
            "(drop the queries whose deviation was not measured)"
        )
    if (d < 0).any():
        raise ValueError(
            f"the {side} deviations hold negative values (first {float(d[d < 0][0]):.4g}); a deviation is a "
            "distance between two answers and is >= 0"
        )


def _check_scores(score_sub, score_flag, q: int) -> tuple[np.ndarray, np.ndarray] | None:
    if score_sub is None or score_flag is None:
        return None
    ss = np.asarray(score_sub, dtype=float).ravel()
    sf = np.asarray(score_flag, dtype=float).ravel()
    if ss.size != q or sf.size != q:
        raise ValueError(
            f"give one score per evaluation query for the substitute and the flagship: {q} queries, "
            f"{ss.size} substitute and {sf.size} flagship scores"
        )
    return ss, sf


def clopper_pearson_upper(bad: np.ndarray, n: np.ndarray, delta: float = 0.10) -> np.ndarray:
    r"""One-sided Clopper–Pearson upper ``1 − δ`` confidence bound on a binomial proportion.

    .. math::  U(B, k) = \mathrm{Beta}^{-1}(1 - δ;\; B + 1,\; k - B) \quad (B < k), \qquad U(k, k) = 1

    (Clopper & Pearson 1934). ``bad`` and ``n`` broadcast; ``n ≥ 1``.
    """
    bad = np.asarray(bad, dtype=float)
    n = np.asarray(n, dtype=float)
    bad, n = np.broadcast_arrays(bad, n)
    out = np.ones(bad.shape)
    lt = bad < n
    out[lt] = stats.beta.ppf(1.0 - delta, bad[lt] + 1.0, n[lt] - bad[lt])
    return out


def prefix_criterion(bad_sorted: np.ndarray, rule: str = "emp", delta: float = 0.10) -> np.ndarray:
    """The criterion of every prefix ``k = 1..N`` of the sorted violation indicators.

    ``emp``: ``B_k / k``; ``ucb``: :func:`clopper_pearson_upper` of ``(B_k, k)``.
    """
    b = np.asarray(bad_sorted, dtype=float)
    k = np.arange(1, b.size + 1, dtype=float)
    cum = np.cumsum(b)
    if rule == "emp":
        return cum / k
    if rule == "ucb":
        return clopper_pearson_upper(cum, k, delta)
    raise ValueError(f"unknown gate rule {rule!r}; choose one of {RULES}")


def required_calibration_size(alpha: float, rule: str = "emp", delta: float = 0.10, min_prefix: int = 20) -> int:
    """The fewest calibration queries with which the rule can certify anything.

    ``emp`` needs ``min_prefix``. ``ucb`` also needs a clean prefix long enough for its bound to
    reach α: with no violation the bound is ``1 − δ^{1/k}``, which is ``≤ α`` from
    ``k = ⌈log δ / log(1 − α)⌉`` on (α = 0.05, δ = 0.10: 45 queries).
    """
    if rule == "emp":
        return int(min_prefix)
    k = math.ceil(math.log(delta) / math.log1p(-alpha) - 1e-12)
    while clopper_pearson_upper(0, k, delta)[()] > alpha:  # guard the float edge
        k += 1
    return max(int(min_prefix), k)


def order_by_confidence(conf: np.ndarray, seed: int = 0) -> np.ndarray:
    """Offload order: ascending confidence, non-finite last, ties broken by a seeded random key.

    A stable lexicographic sort on ``(confidence, random key)``; a constant confidence therefore
    gives a uniformly random order, the same for the same seed.
    """
    c = np.asarray(conf, dtype=float)
    key = np.random.default_rng(seed).random(c.size)
    c_sort = np.where(np.isfinite(c), c, np.inf)
    return np.lexsort((key, c_sort))


def _is_constant(conf: np.ndarray) -> bool:
    fin = conf[np.isfinite(conf)]
    return fin.size == 0 or bool(np.all(fin == fin[0]))


def _paired(conf: object, dev: object, split: str) -> tuple[np.ndarray, np.ndarray]:
    """Confidences and deviations as flat arrays, one of each per query: the same shape as given (a (20, 10)
    array beside a (10, 20) one holds 200 of each, but not paired query by query, and is refused)."""
    c, d = np.asarray(conf, dtype=float), np.asarray(dev, dtype=float)
    if c.shape != d.shape:
        raise ValueError(
            f"{split} confidence and deviation must have one entry per query, in the same shape; got shapes "
            f"{c.shape} and {d.shape}"
        )
    return c.ravel(), d.ravel()


class ToleranceGate(sklearn.base.BaseEstimator):
    r"""The prefix tolerance gate, fitted on a calibration split (a scikit-learn estimator).

    On calibration confidences sorted ascending, :math:`c_{(1)} \le \dots \le c_{(N)}`, with
    :math:`B_k = \sum_{i \le k} 1[\mathrm{dev}_{(i)} > \varepsilon]`, a prefix is admissible when
    :math:`k \ge k_{\min}` and its criterion is at most :math:`\alpha`,

    .. math::  \frac{B_k}{k}\ \text{(emp)} \qquad\text{or}\qquad
               \mathrm{Beta}^{-1}(1 - \delta;\, B_k + 1,\, k - B_k)\ \text{(ucb)},

    and the cutoff :math:`\tau = c_{(k^*)}` ends the longest admissible prefix (:math:`-\infty`, offload
    nothing, when there is none). A new query is offloaded when its confidence is finite and
    :math:`\le \tau`.

    Parameters
    ----------
    eps : float
        The tolerance :math:`\varepsilon > 0` on the deviation from the flagship's answer.
    alpha : float
        The violation budget :math:`\alpha \in (0, 1)`.
    rule : {'emp', 'ucb'}, default='emp'
        Empirical prefix violation, or its one-sided Clopper–Pearson upper bound.
    delta : float, default=0.10
        ``1 - delta`` is the level of the Clopper–Pearson bound (``ucb`` only).
    min_prefix : int, default=20
        The shortest prefix that may be certified.
    seed : int, default=0
        Seed of the random tie-breaking key (:func:`order_by_confidence`).

    Attributes
    ----------
    threshold_ : float
        The cutoff :math:`\tau` (``-inf``: offload nothing; ``+inf``: a constant confidence certified as a
        whole).
    k_ : int
        Length of the certified calibration prefix (0 if none).
    criterion_ : ndarray of shape (N,)
        The criterion of every calibration prefix.
    constant_ : bool
        True when every finite calibration confidence is the same: the gate can only offload all or
        nothing.
    n_cal_ : int
        Size of the calibration split.

    Raises
    ------
    ValueError
        From :meth:`fit`: a bad contract, calibration arrays of different sizes, NaN, inf or negative
        deviations, or too few calibration queries (see :meth:`fit`).
    dkps.NotFittedError
        From :meth:`offload` before :meth:`fit`.

    See Also
    --------
    evaluate_gate : Fit on a calibration split and report on held-out queries.
    gate_grid : The same over a grid of contracts.

    References
    ----------
    Clopper & Pearson (1934), *The use of confidence or fiducial limits illustrated in the case of the
    binomial*, Biometrika 26(4); the tolerance experiments of the query-aware routing README of the dkps
    repository; the book's chapter "Offloading under a contract".

    Examples
    --------
    >>> import numpy as np
    >>> from dkps.routing import ToleranceGate
    >>> conf = np.linspace(0.0, 1.0, 100)          # a confidence that orders the deviations
    >>> dev = conf.copy()                           # deviation grows with it
    >>> gate = ToleranceGate(eps=0.5, alpha=0.1).fit(conf, dev)
    >>> gate.k_, round(gate.threshold_, 3)          # 50 clean queries, then 5 violations allowed
    (55, 0.545)
    >>> gate.offload(np.array([0.2, 0.54, 0.9])).tolist()
    [True, True, False]
    """

    _parameter_constraints: dict = {
        "eps": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "rule": [StrOptions(set(RULES))],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "min_prefix": [Interval(Integral, 1, None, closed="left")],
        "seed": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        eps: float,
        alpha: float,
        rule: str = "emp",
        delta: float = 0.10,
        min_prefix: int = 20,
        seed: int = 0,
    ) -> None:
        self.eps = eps
        self.alpha = alpha
        self.rule = rule
        self.delta = delta
        self.min_prefix = min_prefix
        self.seed = seed

    @sklearn.base._fit_context(prefer_skip_nested_validation=True)
    def fit(self, conf: np.ndarray, dev: np.ndarray) -> ToleranceGate:
        """Choose the cutoff from the calibration confidences and realized deviations.

        Parameters
        ----------
        conf : array-like of shape (N,)
            Calibration confidences (lower: offload first; non-finite: never offloaded).
        dev : array-like of shape (N,)
            Their realized deviations from the flagship's answer (finite, ``>= 0``).

        Returns
        -------
        ToleranceGate
            The fitted gate (``self``).

        Raises
        ------
        ValueError
            A bad contract (scikit-learn's ``InvalidParameterError`` or a bool), sizes that differ, NaN,
            inf or negative deviations, or fewer calibration queries than the rule needs
            (:func:`required_calibration_size`).
        """
        _check_contract(self.eps, self.alpha, self.rule, self.delta, self.min_prefix)
        c, d = _paired(conf, dev, "calibration")
        _check_deviations(d, "calibration")
        need = required_calibration_size(self.alpha, self.rule, self.delta, self.min_prefix)
        if c.size < need:
            raise ValueError(
                f"the calibration split has {c.size} queries, but the {self.rule!r} rule at alpha={self.alpha} "
                f"(delta={self.delta}, min_prefix={self.min_prefix}) needs at least {need}; calibrate on more queries"
            )
        self.n_cal_ = c.size
        self.constant_ = _is_constant(c)
        order = order_by_confidence(c, self.seed)
        c_sorted = c[order]
        bad = d[order] > self.eps
        crit = prefix_criterion(bad, self.rule, self.delta)
        n_finite = int(np.isfinite(c).sum())
        k = np.arange(1, c.size + 1)
        ok = (crit <= self.alpha) & (k >= self.min_prefix) & (k <= n_finite)
        if self.constant_:
            # all or nothing: only the whole finite population can be certified
            ok = ok & (k == n_finite)
        self.criterion_ = crit
        if ok.any():
            self.k_ = int(k[ok].max())
            self.threshold_ = float(np.inf) if self.constant_ else float(c_sorted[self.k_ - 1])
        else:
            self.k_ = 0
            self.threshold_ = float(-np.inf)
        return self

    def offload(self, conf: np.ndarray) -> np.ndarray:
        """Which queries the gate offloads: a finite confidence at or below the cutoff.

        Parameters
        ----------
        conf : array-like of shape (Q,)
            Confidences of new queries.

        Returns
        -------
        ndarray of bool, shape (Q,)
            True where the query is offloaded: its confidence is finite and at most the fitted cutoff.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        """
        check_is_fitted(self, "threshold_", msg="this gate is not fitted yet; call fit(conf_cal, dev_cal) first")
        c = np.asarray(conf, dtype=float).ravel()
        return np.isfinite(c) & (c <= self.threshold_)


@dataclass(frozen=True)
class GateReport:
    """What a gate certified on the calibration split and what it delivered on held-out queries.

    ``volume`` is the share of evaluation queries offloaded, ``violation`` the share of those with
    ``dev > ε`` (0 when none is offloaded), ``retention`` the served score over the flagship's
    (NaN without per-query scores), ``spearman`` the rank correlation of confidence and deviation
    on the evaluation queries (NaN for a constant confidence). A constant-confidence policy has
    ``can_select = False``; its ``population_violation`` ``P(dev > ε)`` on the evaluation queries
    is the violation of any volume it could offload.
    """

    eps: float
    alpha: float
    rule: str
    threshold: float
    k_cal: int
    n_cal: int
    n_eval: int
    n_offloaded: int
    volume: float
    violation: float
    meets: bool
    retention: float
    spearman: float
    can_select: bool
    population_violation: float


def _check_disjoint(cal_ids, eval_ids) -> None:
    cal = np.asarray(cal_ids).ravel()
    ev = np.asarray(eval_ids).ravel()
    both = np.intersect1d(cal, ev)
    if both.size:
        raise ValueError(
            f"{both.size} queries are in both the calibration and the evaluation split (first: {both[0]!r}); "
            "the gate must be calibrated on queries held out of the evaluation"
        )


def evaluate_gate(
    conf_cal: np.ndarray,
    dev_cal: np.ndarray,
    conf_eval: np.ndarray,
    dev_eval: np.ndarray,
    eps: float,
    alpha: float,
    *,
    cal_ids: np.ndarray,
    eval_ids: np.ndarray,
    rule: str = "emp",
    delta: float = 0.10,
    min_prefix: int = 20,
    seed: int = 0,
    score_sub: np.ndarray | None = None,
    score_flag: np.ndarray | None = None,
) -> GateReport:
    """Fit a :class:`ToleranceGate` on the calibration split and report it on the evaluation split.

    Parameters
    ----------
    conf_cal, dev_cal : array (N,)
        Calibration confidences and realized deviations.
    conf_eval, dev_eval : array (Q,)
        The same on the evaluation queries (their deviations are the metric only).
    eps, alpha, rule, delta, min_prefix, seed
        As :class:`ToleranceGate`.
    cal_ids, eval_ids : array
        The query ids of the two splits; a query in both raises ``ValueError``.
    score_sub, score_flag : array (Q,), optional
        Per-query scores of the substitute and of the flagship, for retention
        ``mean(offloaded ? s_sub : s_flag) / mean(s_flag)``.
    """
    _check_disjoint(cal_ids, eval_ids)
    ce, de = _paired(conf_eval, dev_eval, "evaluation")
    if ce.size == 0:
        raise ValueError("no evaluation queries: the gate is reported on held-out queries; give at least one")
    if np.asarray(eval_ids).size != ce.size or np.asarray(cal_ids).size != np.asarray(conf_cal).size:
        raise ValueError("give one query id per calibration and per evaluation query")
    _check_deviations(de, "evaluation")
    scores = _check_scores(score_sub, score_flag, ce.size)
    gate = ToleranceGate(eps, alpha, rule=rule, delta=delta, min_prefix=min_prefix, seed=seed)
    gate.fit(conf_cal, dev_cal)
    mask = gate.offload(ce)
    n_off = int(mask.sum())
    viol = float((de[mask] > eps).mean()) if n_off else 0.0
    if scores is not None:
        ss, sf = scores
        served = np.where(mask, ss, sf)
        retention = float(served.mean() / sf.mean())
    else:
        retention = float("nan")
    constant = _is_constant(ce) or gate.constant_
    fin = np.isfinite(ce)
    if constant or fin.sum() < 3:
        rho = float("nan")
    else:
        rho = float(stats.spearmanr(ce[fin], de[fin]).statistic)
    return GateReport(
        eps=float(eps),
        alpha=float(alpha),
        rule=rule,
        threshold=gate.threshold_,
        k_cal=gate.k_,
        n_cal=gate.n_cal_,
        n_eval=int(ce.size),
        n_offloaded=n_off,
        volume=n_off / ce.size if ce.size else 0.0,
        violation=viol,
        meets=viol <= alpha,
        retention=retention,
        spearman=rho,
        can_select=not constant,
        population_violation=float((de > eps).mean()) if de.size else float("nan"),
    )


def gate_grid(
    conf_cal: np.ndarray,
    dev_cal: np.ndarray,
    conf_eval: np.ndarray,
    dev_eval: np.ndarray,
    eps: np.ndarray,
    alphas: np.ndarray,
    rules: tuple[str, ...] = RULES,
    *,
    cal_ids: np.ndarray,
    eval_ids: np.ndarray,
    delta: float = 0.10,
    min_prefix: int = 20,
    seed: int = 0,
    score_sub: np.ndarray | None = None,
    score_flag: np.ndarray | None = None,
) -> list[GateReport]:
    """:func:`evaluate_gate` for every (ε, α, rule) of a grid, sorting each split once.

    The same reports as the loop over :func:`evaluate_gate` (tested), in the order
    ``for rule: for eps: for alpha``; the calibration split is sorted once, the prefix criteria
    of all ε come from one cumulative sum, and each cutoff is applied to the sorted evaluation
    confidences by binary search.
    """
    _check_disjoint(cal_ids, eval_ids)
    for what, grid in (("tolerance eps", eps), ("budget alpha", alphas), ("rule", rules)):
        if np.asarray(grid, dtype=object).size == 0:
            raise ValueError(f"the grid needs at least one {what}")
        if any(isinstance(v, (bool, np.bool_)) for v in np.atleast_1d(np.asarray(grid, dtype=object))):
            raise ValueError(f"every {what} must be a number, not a bool")
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    for e in eps:
        for a in alphas:
            for r in rules:
                _check_contract(float(e), float(a), r, delta, min_prefix)
    cc, dc = _paired(conf_cal, dev_cal, "calibration")
    ce, de = _paired(conf_eval, dev_eval, "evaluation")
    if ce.size == 0:
        raise ValueError("no evaluation queries: the gate is reported on held-out queries; give at least one")
    if np.asarray(eval_ids).size != ce.size or np.asarray(cal_ids).size != cc.size:
        raise ValueError("give one query id per calibration and per evaluation query")
    _check_deviations(dc, "calibration")
    _check_deviations(de, "evaluation")
    scores = _check_scores(score_sub, score_flag, ce.size)
    for a in alphas:
        for r in rules:
            need = required_calibration_size(float(a), r, delta, min_prefix)
            if cc.size < need:
                raise ValueError(
                    f"the calibration split has {cc.size} queries, but the {r!r} rule at alpha={a} "
                    f"(delta={delta}, min_prefix={min_prefix}) needs at least {need}; calibrate on more queries"
                )
    n_cal, q = cc.size, ce.size
    const_cal = _is_constant(cc)
    constant = const_cal or _is_constant(ce)
    order = order_by_confidence(cc, seed)
    c_sorted = cc[order]
    bad = dc[order][None, :] > eps[:, None]  # (E, N)
    cum = np.cumsum(bad, axis=1).astype(float)
    k = np.arange(1, n_cal + 1, dtype=float)
    n_finite = int(np.isfinite(cc).sum())
    base_ok = (k >= min_prefix) & (k <= n_finite)
    if const_cal:
        base_ok &= k == n_finite
    # evaluation side: finite confidences sorted, cumulative violations and score gains
    fin = np.isfinite(ce)
    eo = np.argsort(np.where(fin, ce, np.inf), kind="stable")
    ce_sorted = ce[eo][: int(fin.sum())]
    bad_e = np.concatenate([np.zeros((eps.size, 1)), np.cumsum(de[eo][None, :] > eps[:, None], axis=1)], axis=1)
    has_scores = scores is not None
    if has_scores:
        ss, sf = scores
        gain = np.concatenate([[0.0], np.cumsum((ss - sf)[eo])])
    fin_e = fin.sum()
    rho = float("nan") if constant or fin_e < 3 else float(stats.spearmanr(ce[fin], de[fin]).statistic)
    pop = (de[None, :] > eps[:, None]).mean(axis=1) if q else np.full(eps.size, np.nan)
    reports = []
    for rule in rules:
        crit = cum / k if rule == "emp" else clopper_pearson_upper(cum, k[None, :], delta)
        for ei, e in enumerate(eps):
            for a in alphas:
                ok = base_ok & (crit[ei] <= a)
                if ok.any():
                    kk = int(k[ok].max())
                    tau = float(np.inf) if const_cal else float(c_sorted[kk - 1])
                else:
                    kk, tau = 0, float(-np.inf)
                n_off = int(np.searchsorted(ce_sorted, tau, side="right")) if tau > -np.inf else 0
                viol = float(bad_e[ei, n_off] / n_off) if n_off else 0.0
                ret = float((sf.sum() + gain[n_off]) / sf.sum()) if has_scores else float("nan")
                reports.append(
                    GateReport(
                        eps=float(e), alpha=float(a), rule=rule, threshold=tau, k_cal=kk, n_cal=n_cal,
                        n_eval=q, n_offloaded=n_off, volume=n_off / q if q else 0.0, violation=viol,
                        meets=viol <= a, retention=ret, spearman=rho, can_select=not constant,
                        population_violation=float(pop[ei]),
                    )
                )  # fmt: skip
    return reports
