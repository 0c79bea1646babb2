"""Where do models that game the judge land in the perspective space? (book Part V, real data)

Adversarial entries (``NullModel``, ``gpt4_gamed``), the concise/verbose prompt variants and the
judge's reference are kept out of the win-rate regression (:data:`blindspot.perspective.alpaca.EXCLUSION_REASONS`).
Here they join the population in one PKPS fit — the geometry reads only responses and queries,
never a score — while only population models carry targets. For every model the space then gives

- its **predicted win rate from its responses**: the kNN prediction from the population's
  leaderboard scores (leave-one-model-out; an excluded model has no target, so it is never a
  neighbour and never predicts itself);
- the **gap** leaderboard − predicted: how much more (or less) the judge gives the model than
  models that answer like it get; for the population the gaps measure the method's own error,
  so an excluded model's gap is also given in units of the population's gap sd;
- its **nearest population neighbours** and its **isolation**: the distance to the nearest
  population model over the median such distance within the population (1 = typical, ≫ 1 = an
  answer style no population model shares);
- for a concise/verbose **length variant** whose base model (the id without the suffix) is in the
  population, the base model's rank among the variant's population neighbours (1 = nearest);
- a 2-D **quality view**: axis 1 is the projection on the direction of the coordinates that best
  predicts the population's target (least squares on the population; the book's choice), axis 2 the
  leading direction of what is left; excluded models are projected with the same axes.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.perspective.synthetic_studies import _single_threaded
from blindspot.perspective.winrate import aggregate_models, check_target_and_models
from dkps.pkps import PKPS

__all__ = ["AdversarialPicture", "adversarial_picture", "quality_view"]

_VARIANT = re.compile(r"_(concise|verbose)$")


def quality_view(coords: np.ndarray, y: np.ndarray, fit_mask: np.ndarray) -> tuple[np.ndarray, float]:
    r"""2-D view of ``coords`` fitted on the rows in ``fit_mask`` and applied to every row.

    With :math:`\bar x` the mean of the fitted rows and :math:`\hat b` the least-squares slope of
    ``y`` on :math:`x-\bar x` over those rows, axis 1 is :math:`(x-\bar x)^\top \hat b/\|\hat b\|`;
    axis 2 is the projection on the leading right-singular vector of the fitted rows' residual
    :math:`(x-\bar x) - \text{axis}_1\,\hat b/\|\hat b\|`. Returns the ``(n, 2)`` view and the
    in-sample :math:`R^2` of the regression on the fitted rows.
    """
    X = np.asarray(coords, dtype=float)
    fit = np.asarray(fit_mask, dtype=bool)
    yy = np.asarray(y, dtype=float)
    if X.ndim != 2 or len(X) != len(fit) or len(yy) != len(fit):
        raise ValueError("coords (n, d), y (n,) and fit_mask (n,) must have the same n")
    if fit.sum() < 3 or not np.isfinite(yy[fit]).all():
        raise ValueError("quality_view needs at least 3 fitted rows with finite y")
    mu = X[fit].mean(axis=0)
    Xc = X - mu
    a = yy[fit] - yy[fit].mean()
    b, *_ = np.linalg.lstsq(Xc[fit], a, rcond=None)
    nb = np.linalg.norm(b)
    if nb == 0:
        raise ValueError("y is not linearly related to the coordinates")
    u = b / nb
    x1 = Xc @ u
    R = Xc - np.outer(x1, u)
    _, _, Vt = np.linalg.svd(R[fit], full_matrices=False)
    x2 = R @ Vt[0]
    r2 = 1.0 - float(((a - Xc[fit] @ b) ** 2).sum() / (a**2).sum())
    return np.column_stack([x1, x2]), r2


@dataclass(frozen=True)
class AdversarialPicture:
    """One perspective space of the population and the excluded models (see the module docstring).

    ``models``: index model_id; columns ``kind, y`` (leaderboard target, points), ``y_hat``
    (predicted from responses, points), ``gap`` (y − y_hat), ``gap_z`` (gap / population gap sd),
    ``isolation``, ``neighbours`` (the 3 nearest population models), ``base_rank`` (length variants
    only), ``view1, view2``, ``mds1, mds2``.
    ``population_mae``: MAE (points) of the population's leave-one-model-out predictions.
    """

    models: pd.DataFrame
    target: str
    view_r2: float
    population_mae: float
    gap_sd: float
    mds_dim: int

    @property
    def excluded(self) -> pd.DataFrame:
        return self.models[self.models.kind != "population"]

    def length_variant_gaps(self) -> pd.DataFrame:
        """Per suffix ('concise', 'verbose'): number of variants and their mean ``gap`` and ``gap_z``."""
        v = self.models[self.models.kind == "length variant"]
        suffix = [(_VARIANT.search(m).group(1) if _VARIANT.search(m) else "other") for m in v.index]
        return (
            v.assign(suffix=suffix)
            .groupby("suffix")
            .agg(n=("gap", "size"), gap=("gap", "mean"), gap_z=("gap_z", "mean"))
        )


@_single_threaded
def adversarial_picture(
    records: pd.DataFrame, models: pd.DataFrame, weights: pd.Series, target: str = "win_rate", k: int = 5
) -> AdversarialPicture:
    """Fit PKPS on the vector ``records`` of population and excluded models; see the module docstring.

    ``models`` is the model table (``kind`` and the target, 0–100); only ``kind == 'population'``
    models get a ``reference_score``.
    """
    ids = check_target_and_models(records, models, target)
    kind = models.kind.reindex(ids)
    pop = set(kind.index[kind == "population"])
    if len(pop) < k + 1:
        raise ValueError(f"the picture needs at least {k + 1} population models, got {len(pop)}")
    if len(pop) == len(ids):
        raise ValueError("records hold no excluded model: nothing to place")
    y = models[target].astype(float)
    recs = records.copy()
    is_pop = recs.model_id.isin(pop).to_numpy()
    recs["reference_score"] = np.where(is_pop, (y / 100.0).reindex(recs.model_id).to_numpy(), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = PKPS().fit(recs)
        cells = pd.DataFrame({"model_id": est.model_names_})
        pred = est.predict(cells, holdout="model", k=k, as_frame=True)
    y_hat = 100 * aggregate_models(pred, weights).reindex(est.model_names_)
    names = np.array(est.model_names_, dtype=object)
    in_pop = np.array([m in pop for m in names])
    D = est.distance_matrix_
    Dp = np.where(in_pop[None, :], D, np.inf)
    np.fill_diagonal(Dp, np.inf)
    nn = Dp.min(axis=1)
    ref = float(np.median(nn[in_pop]))
    order = np.argsort(Dp, axis=1, kind="stable")[:, :3]
    yv = y.reindex(names).to_numpy(dtype=float)
    view, r2 = quality_view(est.coords_, np.where(in_pop, yv, np.nan), in_pop)
    out = pd.DataFrame(index=pd.Index(names, name="model_id"))
    out["kind"] = kind.reindex(names).to_numpy()
    out["y"] = yv
    out["y_hat"] = y_hat.to_numpy()
    out["gap"] = out.y - out.y_hat
    sd = float(out.gap[in_pop].std(ddof=1))
    out["gap_z"] = out.gap / sd
    out["isolation"] = nn / ref if ref > 0 else np.nan
    out["neighbours"] = [", ".join(names[j] for j in row) for row in order]
    pos = {m: i for i, m in enumerate(names)}
    ranks = []
    for i, (m, kd) in enumerate(zip(names, out.kind)):
        base = _VARIANT.sub("", m)
        if kd != "length variant" or base not in pop:
            ranks.append(np.nan)
            continue
        ranks.append(float(1 + np.sum(Dp[i] < Dp[i, pos[base]])))
    out["base_rank"] = ranks
    out["view1"], out["view2"] = view[:, 0], view[:, 1]
    out["mds1"], out["mds2"] = est.coords_[:, 0], est.coords_[:, 1]
    mae = float(out.gap[in_pop].abs().mean())
    return AdversarialPicture(out, target, r2, mae, sd, int(est.mds_dim_))
