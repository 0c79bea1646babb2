"""Rank equivalence classes at P(swap) > 0.40 (paper App. H.47) and the H.40 calibration behind sigma_h.

Two models with aggregate scores a_i, a_j are called indistinguishable when their swap probability

    P_ij = Phi(-|a_i - a_j| / (2 sigma_h))  exceeds  thr (0.40),
    i.e. |a_i - a_j| < 2 sigma_h Phi^{-1}(1 - thr)  (= 0.5082 for sigma_h = 1.003).

Classes are built greedily in rank order. Under the correct ("clique") rule a candidate joins the
current class iff it is indistinguishable from every member; for sorted scores this is the same
as being within the gap threshold of the class leader ("leader"). The paper's code tests P[seed, m]
for the members m instead of P[candidate, m], so a candidate joins iff the *previous* member is
within the threshold of the seed ("author_bug"): each class then takes one model too many.

sigma_h = 1.003 comes from H.40 (:func:`anisotropic_calibration`): sqrt(tr Sigma_hid / 6) of six
z-scored (ddof 0) columns with a ddof-1 covariance, i.e. exactly sqrt(n / (n - 1)).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from blindspot.core.conventions import ArrayLike, as_matrix, zscore

__all__ = [
    "RULES",
    "gap_threshold",
    "pairwise_swap",
    "rank_classes",
    "class_sizes",
    "RuleComparison",
    "compare_rules",
    "AnisoCalibration",
    "anisotropic_calibration",
    "families_present",
]

RULES: tuple[str, ...] = ("clique", "leader", "author_bug")


def _check(sigma_h: float, thr: float) -> None:
    if not np.isfinite(sigma_h) or sigma_h <= 0:
        raise ValueError(f"sigma_h must be a positive number, got {sigma_h}")
    if not 0.0 < thr < 0.5:
        raise ValueError(
            f"the swap threshold thr must lie in (0, 0.5), got {thr}: P(swap) never exceeds 0.5 for a gap >= 0"
        )


def _scores(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(scores, dtype=float).ravel()
    if a.size < 2:
        raise ValueError(f"rank classes need the scores of at least 2 models, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise ValueError("scores must be finite (drop or complete missing models first)")
    return a


def gap_threshold(sigma_h: float, thr: float = 0.40) -> float:
    """The aggregate gap below which P(swap) > thr: 2 sigma_h Phi^{-1}(1 - thr) (App. H.47)."""
    _check(sigma_h, thr)
    return float(2.0 * sigma_h * stats.norm.ppf(1.0 - thr))


def pairwise_swap(scores: Sequence[float] | np.ndarray, sigma_h: float) -> np.ndarray:
    """P_ij = Phi(-|a_i - a_j| / (2 sigma_h)) for every pair (diagonal 0.5, as in the paper's code)."""
    a = _scores(scores)
    _check(sigma_h, 0.4)
    return stats.norm.cdf(-np.abs(a[:, None] - a[None, :]) / (2.0 * sigma_h))


def rank_classes(
    scores: Sequence[float] | np.ndarray, sigma_h: float, thr: float = 0.40, rule: str = "clique"
) -> list[list[int]]:
    """Greedy rank equivalence classes (App. H.47): lists of indices into ``scores``, best class first.

    Parameters
    ----------
    scores : array (m,)
        Aggregate scores (any order; they are ranked best first, ties by position).
    sigma_h : float
        Hidden-noise scale of the swap probability.
    thr : float
        A pair with P(swap) > thr is indistinguishable.
    rule : {'clique', 'leader', 'author_bug'}
        ``clique``: join iff P(candidate, m) > thr for every member m (the stated rule).
        ``leader``: join iff P(candidate, leader) > thr (identical to clique for ranked scores).
        ``author_bug``: the paper's code, which tests P(leader, m) for the members m, so a candidate
        joins iff the previously admitted member is within the threshold of the leader.
    """
    a = _scores(scores)
    _check(sigma_h, thr)
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {RULES}")
    P = pairwise_swap(a, sigma_h)
    order = [int(i) for i in np.argsort(-a, kind="stable")]
    assigned: set[int] = set()
    classes: list[list[int]] = []
    for seed in order:
        if seed in assigned:
            continue
        cls = [seed]
        assigned.add(seed)
        for cand in order:
            if cand in assigned:
                continue
            if rule == "clique":
                ok = all(P[cand, m] > thr for m in cls)
            elif rule == "leader":
                ok = P[cand, seed] > thr
            else:
                ok = all(P[seed, m] > thr for m in cls)
            if ok:
                cls.append(cand)
                assigned.add(cand)
        classes.append(cls)
    return classes


def class_sizes(classes: Sequence[Sequence[int]]) -> list[int]:
    """The size of each class, best class first."""
    return [len(c) for c in classes]


@dataclass(frozen=True)
class RuleComparison:
    """Where the paper's rule and the stated rule part (the off-by-one in the paper's code for App. H.47).

    Attributes
    ----------
    correct, author : list of list of int
        Classes under the clique rule and under the paper's code.
    first_difference : int or None
        Index of the first class that differs (None when the partitions agree).
    extra_model : int or None
        The model the paper's rule admits to that class and the stated rule does not.
    p_with_leader : float or None
        Its swap probability with the class leader (below thr: it is distinguishable).
    min_p_within_author : float
        Smallest within-class swap probability under the paper's rule (< thr means a class holds
        a distinguishable pair).
    """

    correct: list[list[int]]
    author: list[list[int]]
    first_difference: int | None
    extra_model: int | None
    p_with_leader: float | None
    min_p_within_author: float


def compare_rules(scores: Sequence[float] | np.ndarray, sigma_h: float, thr: float = 0.40) -> RuleComparison:
    """Both partitions and the first model on which they disagree."""
    a = _scores(scores)
    good = rank_classes(a, sigma_h, thr, "clique")
    bad = rank_classes(a, sigma_h, thr, "author_bug")
    P = pairwise_swap(a, sigma_h)
    first = extra = None
    p_lead = None
    for i, (g, b) in enumerate(zip(good, bad)):
        if g != b:
            first = i
            diff = [m for m in b if m not in g]
            if diff:
                extra = diff[0]
                p_lead = float(P[extra, b[0]])
            break
    min_within = min(float(P[np.ix_(c, c)].min()) for c in bad)
    return RuleComparison(good, bad, first, extra, p_lead, min_within)


@dataclass(frozen=True)
class AnisoCalibration:
    """App. H.40: visible vs hidden benchmark blocks on one population.

    sigma_iso = sqrt(tr Sigma_hid / h), sigma_aniso = sqrt(tr Sigma_hid^2 / tr Sigma_hid), with
    Sigma_hid the ddof-1 covariance of the z-scored (ddof 0) hidden columns. Over the pairs of the
    top models by visible aggregate: ``empirical`` = fraction whose hidden-aggregate order
    disagrees with the visible one; ``iso_pred`` / ``aniso_pred`` = mean Phi(-|gap| / (2 sigma)).
    ``ddof_artifact`` = sqrt(n / (n - 1)), which sigma_iso equals exactly for z-scored columns.
    """

    sigma_iso: float
    sigma_aniso: float
    ddof_artifact: float
    empirical: float
    iso_pred: float
    aniso_pred: float
    n_pairs: int
    top: np.ndarray


def anisotropic_calibration(
    S: ArrayLike, visible: Sequence[int], hidden: Sequence[int], top: int = 20
) -> AnisoCalibration:
    """The H.40 anisotropic calibration (paper's code ``reviewer_fixes`` Q5)."""
    X = as_matrix(S)
    vis, hid = list(visible), list(hidden)
    if not vis or not hid:
        raise ValueError("need at least one visible and one hidden benchmark column")
    if set(vis) & set(hid):
        raise ValueError(f"visible and hidden columns overlap: {sorted(set(vis) & set(hid))}")
    if top < 2 or top > X.shape[0]:
        raise ValueError(f"top must be between 2 and the number of models ({X.shape[0]}), got {top}")
    Z = zscore(X)
    Zv, Zh = Z[:, vis], Z[:, hid]
    C = np.atleast_2d(np.cov(Zh, rowvar=False))
    s_iso = float(np.sqrt(np.trace(C) / len(hid)))
    s_aniso = float(np.sqrt(np.trace(C @ C) / np.trace(C)))
    av, ah = Zv.mean(axis=1), Zh.mean(axis=1)
    t = np.argsort(-av, kind="stable")[:top]
    i, j = np.triu_indices(top, 1)
    vg = av[t[i]] - av[t[j]]
    hg = ah[t[i]] - ah[t[j]]
    emp = float(np.mean(np.sign(vg) != np.sign(hg)))
    gaps = np.abs(vg)
    n = X.shape[0]
    return AnisoCalibration(
        s_iso,
        s_aniso,
        float(np.sqrt(n / (n - 1))),
        emp,
        float(stats.norm.cdf(-gaps / (2 * s_iso)).mean()),
        float(stats.norm.cdf(-gaps / (2 * s_aniso)).mean()),
        int(gaps.size),
        t,
    )


def families_present(names: Sequence[str], families: Sequence[str]) -> dict[str, bool]:
    """Which model families (e.g. "Qwen", "Yi") have a member among ``names`` (App. H.47's family list).

    A name belongs to a family when one of its tokens (the lower-cased name split at every character
    that is not a letter or digit) starts with the family's name: "01-ai/Yi-1.5-34B-Chat" is a Yi
    model and "Qwen/Qwen2-72B" a Qwen model; "MTSAIR/MultiVerse_70B" is neither.
    """
    tokens = [re.split(r"[^a-z0-9]+", str(n).lower()) for n in names]
    return {f: any(t.startswith(f.lower()) for toks in tokens for t in toks if t) for f in families}
