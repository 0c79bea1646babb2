"""IRT: a 1PL (Rasch) model on binary per-response scores, fitted by MAP with L-BFGS-B.

The Rasch model (Rasch 1960) as used for query-efficient evaluation by Polo et al. (2024,
*tinyBenchmarks*); ``method='block'`` is the original dkps's per-task fit (:mod:`dkps.baselines`)."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from sklearn.utils._param_validation import StrOptions

from .base import RefitEstimator
from .baselines import irt_estimate_ability, irt_fit_difficulties, irt_predict, max_dense_block
from .records import mask_targets
from .settings import COUNT, POSITIVE
from .threads import single_blas_thread

__all__ = ["IRT", "fit_1pl"]


def fit_1pl(
    person: np.ndarray,
    task: np.ndarray,
    item: np.ndarray,
    y: np.ndarray,
    n_person: int,
    n_task: int,
    n_item: int,
    prior_sd_ability: float = 1.0,
    prior_sd_item: float = 1.0,
    prior_sd_task: float = 10.0,
    max_iter: int = 1000,
    tol: float = 1e-8,
):
    r"""MAP estimate of the 1PL model :math:`\mathrm{logit}\,P(y=1) = \theta_p - \beta_t - \delta_q`.

    Minimises :math:`\sum[\log(1+e^\eta) - y\eta] + \sum\theta^2/2s_a^2 + \sum\delta^2/2s_i^2
    + \sum\beta^2/2s_t^2` (Gaussian priors on every parameter) with the analytic gradient (``np.bincount`` sums),
    ``scipy.optimize.minimize(method='L-BFGS-B', jac=True)``, from zeros. The problem is convex.

    Returns
    -------
    theta (n_person,), beta (n_task,), delta (n_item,), scipy OptimizeResult
    """
    y = np.asarray(y, dtype=float)
    sa, si, st = prior_sd_ability**2, prior_sd_item**2, prior_sd_task**2

    def fg(x):
        th, be, de = x[:n_person], x[n_person : n_person + n_task], x[n_person + n_task :]
        eta = th[person] - be[task] - de[item]
        sp = np.logaddexp(0.0, eta)
        f = float(np.sum(sp - y * eta) + 0.5 * (th @ th / sa + de @ de / si + be @ be / st))
        g_eta = 1.0 / (1.0 + np.exp(-eta)) - y
        gt = np.bincount(person, g_eta, n_person) + th / sa
        gb = -np.bincount(task, g_eta, n_task) + be / st
        gd = -np.bincount(item, g_eta, n_item) + de / si
        return f, np.concatenate([gt, gb, gd])

    x0 = np.zeros(n_person + n_task + n_item)
    res = minimize(fg, x0, jac=True, method="L-BFGS-B", options=dict(maxiter=max_iter, gtol=tol, ftol=1e-15))
    x = res.x
    return x[:n_person], x[n_person : n_person + n_task], x[n_person + n_task :], res


class IRT(RefitEstimator):
    r"""One-parameter item response theory (Rasch) on binary tasks: abilities and difficulties from 0/1 scores.

    ``method='map'``: one joint MAP fit over every binary task and every response,

    .. math::
        \mathrm{logit}\, P(y = 1) = \theta - \beta_t - \delta_q,

    with Gaussian priors on :math:`\theta` (ability), :math:`\beta_t` (task) and :math:`\delta_q` (item),
    by L-BFGS-B; a cell is predicted by :math:`\hat s(i,t) = \mathrm{mean}_{q\in Q_t}\, \sigma(\theta_i -
    \beta_t - \delta_q)` over the distinct queries of ``t`` [1]_ [2]_. ``method='block'``: the original dkps's
    per-task fit (difficulties from the largest fully answered block), which leaves NaN where a model
    answered no block item. ``predict`` has no ``holdout``: a cell's own responses are the evidence IRT reads,
    not a target; ``predict()`` with no cells returns the cells that have a sample score, as in the original.

    Parameters
    ----------
    ability : {'model', 'cell'}, default 'model'
        One ability per model shared across binary tasks, or one per cell ('map').
    prior_sd_ability : float, default 1.0
        Prior standard deviation of :math:`\theta` ('map').
    prior_sd_item : float, default 1.0
        Prior standard deviation of :math:`\delta_q` ('map').
    prior_sd_task : float, default 10.0
        Prior standard deviation of :math:`\beta_t` ('map').
    max_iter : int, default 1000
        L-BFGS-B iterations ('map').
    tol : float, default 1e-8
        L-BFGS-B gradient tolerance ('map').
    binary_tasks : array-like of str, optional
        The task ids to model; default: every task whose non-NaN scores are all 0/1 (the others predict NaN,
        with a ``UserWarning``).
    method : {'map', 'block'}, default 'map'
        The joint MAP fit or the original's per-task block fit.

    Attributes
    ----------
    binary_mask_ : ndarray of bool, shape (n_tasks,)
        The tasks modelled.
    theta_ : ndarray
        Abilities, per model (or per cell under ``ability='cell'``), 'map'.
    beta_ : ndarray of shape (n_tasks,)
        Task difficulties, 'map'.
    delta_ : ndarray
        Item (query) difficulties, 'map'.
    converged_ : bool
        Whether L-BFGS-B converged, 'map'.
    block_scores_ : ndarray of shape (n_models, n_tasks)
        The per-task block fit's predictions, 'block'.
    %(catalog_attributes)s

    Raises
    ------
    ValueError
        From ``fit``: a parameter outside its constraints, ``binary_tasks`` naming an unknown or non-binary
        task, or records that :func:`dkps.records.validate` refuses.

    References
    ----------
    .. [1] G. Rasch, "Probabilistic Models for Some Intelligence and Attainment Tests", 1960.
    .. [2] F. M. Polo, L. Weber, L. Choshen, Y. Sun, G. Xu and M. Yurochkin, "tinyBenchmarks: evaluating LLMs
       with fewer examples", ICML 2024.
    .. [3] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).
    """

    _parameter_constraints: dict = {
        "ability": [StrOptions({"model", "cell"})],
        "prior_sd_ability": [POSITIVE],
        "prior_sd_item": [POSITIVE],
        "prior_sd_task": [POSITIVE],
        "max_iter": [COUNT],
        "tol": [POSITIVE],
        "binary_tasks": ["array-like", None],  # an iterable of task ids (a single string is not)
        "method": [StrOptions({"map", "block"})],
    }

    def __init__(
        self,
        ability: str = "model",
        prior_sd_ability: float = 1.0,
        prior_sd_item: float = 1.0,
        prior_sd_task: float = 10.0,
        max_iter: int = 1000,
        tol: float = 1e-8,
        binary_tasks=None,
        method: str = "map",
    ):
        self.ability = ability
        self.prior_sd_ability = prior_sd_ability
        self.prior_sd_item = prior_sd_item
        self.prior_sd_task = prior_sd_task
        self.max_iter = max_iter
        self.tol = tol
        self.binary_tasks = binary_tasks
        self.method = method

    def _refit(self, frame: pd.DataFrame) -> None:
        self._fit_frame(frame)

    def _binary_mask(self, frame: pd.DataFrame) -> np.ndarray:
        T = len(self.task_names_)
        sc = frame.score.to_numpy(dtype=float)
        ti = pd.Index(self.task_names_).get_indexer(frame.task_id)
        ok = ~np.isnan(sc)
        nonbin = np.bincount(ti[ok & (sc != 0) & (sc != 1)], minlength=T) > 0
        has = np.bincount(ti[ok], minlength=T) > 0
        if self.binary_tasks is None:
            skipped = [self.task_names_[j] for j in np.flatnonzero(has & nonbin)]
            if skipped:
                shown = ", ".join(repr(t) for t in skipped[:3]) + (" ..." if len(skipped) > 3 else "")
                warnings.warn(
                    f"IRT: {len(skipped)} task(s) have non-binary scores and are skipped (they predict NaN): "
                    f"{shown}; IRT models 0/1 scores only",
                    UserWarning,
                    stacklevel=5,
                )
            return has & ~nonbin
        mask = np.zeros(T, dtype=bool)
        for t in self.binary_tasks:
            if t not in self._task_index:
                raise ValueError(f"binary_tasks names task {t!r}, which is not in the records")
            j = self._task_index[t]
            if nonbin[j]:
                raise ValueError(f"binary_tasks names task {t!r}, but its scores are not all 0/1")
            mask[j] = True
        return mask

    def _fit_frame(self, frame: pd.DataFrame, drop_cells: np.ndarray | None = None) -> None:
        n, T = len(self.model_names_), len(self.task_names_)
        self.binary_mask_ = self._binary_mask(frame)
        if self.method == "block":
            self._fit_blocks(frame, drop_cells)
            return
        mi = pd.Index(self.model_names_).get_indexer(frame.model_id)
        ti = pd.Index(self.task_names_).get_indexer(frame.task_id)
        in_bin = self.binary_mask_[ti]
        keys = pd.MultiIndex.from_arrays([frame.task_id.to_numpy()[in_bin], frame.query_id.to_numpy()[in_bin]])
        item_codes, uniq = pd.factorize(keys)
        item_all = np.full(len(frame), -1)
        item_all[in_bin] = item_codes
        self._item_task = (
            pd.Index(self.task_names_).get_indexer(uniq.get_level_values(0)) if len(uniq) else np.zeros(0, int)
        )
        sc = frame.score.to_numpy(dtype=float)
        use = in_bin & ~np.isnan(sc)
        if drop_cells is not None:
            use &= ~drop_cells[mi, ti]
        n_item = len(uniq)
        if self.ability == "model":
            person, n_person = mi[use], n
        else:
            person, n_person = mi[use] * T + ti[use], n * T
        if use.sum() == 0:
            self.theta_ = np.zeros(n_person)
            self.beta_ = np.zeros(T)
            self.delta_ = np.zeros(n_item)
            self.converged_ = True
            return
        th, be, de, res = fit_1pl(
            person,
            ti[use],
            item_all[use],
            sc[use],
            n_person,
            T,
            n_item,
            self.prior_sd_ability,
            self.prior_sd_item,
            self.prior_sd_task,
            self.max_iter,
            self.tol,
        )
        self.theta_, self.beta_, self.delta_ = th, be, de
        self.converged_ = bool(res.success)

    def _fit_blocks(self, frame: pd.DataFrame, drop_cells: np.ndarray | None) -> None:
        """The original's per-task fit on the largest fully answered (model x query) block.

        Per binary task: the (models x queries) table of scores (replicates averaged), its
        :func:`~dkps.baselines.max_dense_block` ``F x Q``, difficulties of ``Q`` from ``F``'s scores
        (:func:`~dkps.baselines.irt_fit_difficulties`), then each model's ability from its answered
        block items and the mean predicted probability over ``Q``. No block item: NaN.
        """
        n, T = len(self.model_names_), len(self.task_names_)
        out = np.full((n, T), np.nan)
        sc = frame.score.to_numpy(dtype=float)
        mi = pd.Index(self.model_names_).get_indexer(frame.model_id)
        ti = pd.Index(self.task_names_).get_indexer(frame.task_id)
        use = ~np.isnan(sc)
        if drop_cells is not None:
            use &= ~drop_cells[mi, ti]
        sub_all = frame.assign(_m=mi, _t=ti)[use]
        for j in np.flatnonzero(self.binary_mask_):
            sub = sub_all[sub_all._t == j]
            if sub.empty:
                continue
            table = sub.groupby(["_m", "query_id"]).score.mean().unstack("query_id")
            S = table.to_numpy(dtype=float)
            amask = ~np.isnan(S)
            F, Q = max_dense_block(amask)
            if len(F) < 2 or len(Q) < 1:
                continue
            beta, _ = irt_fit_difficulties(np.nan_to_num(S[np.ix_(F, Q)], nan=0.0))
            for a, i in enumerate(table.index):
                ok = amask[a, Q]
                if ok.any():
                    out[i, j] = irt_predict(irt_estimate_ability(S[a, Q[ok]], beta[ok]), beta)
        self.block_scores_ = out

    def _with_masked_targets(self, mask: np.ndarray) -> IRT:
        """Hide targets: where a cell has no reference score its scores are the target, so they are
        dropped and the model refitted; reference-scored cells keep their scores as evidence."""
        other = copy.copy(self)
        tables = mask_targets(self._tables, mask)
        other._set_tables(tables)
        drop = np.asarray(mask, bool) & np.isnan(self._tables.reference)
        if drop.any():
            other._fit_frame(self._frame, drop_cells=drop)
        return other

    def _default_cells(self):
        return self._sampled_cells()

    @single_blas_thread
    def predict(self, records: Any = None, *, cells: Any = None, as_frame: bool = False):
        """IRT estimate of the full-benchmark score of each requested cell (NaN on non-binary tasks).

        There is no ``holdout``: a cell's own responses are the evidence IRT reads, not a target.

        %(cells_predict)s
        """
        self._check_fitted()
        rows, cols = self._cells_from_args(records, cells)
        return self._format(rows, cols, self._predict_arrays(rows, cols), as_frame)

    def _predict_arrays(self, rows, cols, **_ignored) -> np.ndarray:
        if self.method == "block":
            return self.block_scores_[rows, cols].astype(float)
        T = len(self.task_names_)
        out = np.full(len(rows), np.nan)
        for c, (i, t) in enumerate(zip(rows, cols)):
            if not self.binary_mask_[t]:
                continue
            items = np.flatnonzero(self._item_task == t)
            th = self.theta_[i] if self.ability == "model" else self.theta_[i * T + t]
            eta = th - self.beta_[t] - self.delta_[items]
            out[c] = float(np.mean(1.0 / (1.0 + np.exp(-eta))))
        return out
