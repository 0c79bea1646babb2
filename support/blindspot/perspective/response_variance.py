"""How much of a response embedding is about the query, and how much about the model?

Two-way decomposition (no interaction) of the response vectors :math:`x_{iq}\\in\\mathbb R^d` of
a complete design — every model i of M answers every query q of Q — summed over coordinates:

.. math::
    \\underbrace{\\sum_{i,q}\\|x_{iq}-\\bar x\\|^2}_{\\text{total}}
    = \\underbrace{M\\sum_q\\|\\bar x_{\\cdot q}-\\bar x\\|^2}_{\\text{query}}
    + \\underbrace{Q\\sum_i\\|\\bar x_{i\\cdot}-\\bar x\\|^2}_{\\text{model}}
    + \\underbrace{\\sum_{i,q}\\|x_{iq}-\\bar x_{i\\cdot}-\\bar x_{\\cdot q}+\\bar x\\|^2}_{\\text{residual}}

(the orthogonal decomposition of a balanced two-way layout). The model share is what a paired
comparison (DKPS: the same queries for both models) sees after the query effect cancels; an
unpaired comparison of answers to *different* queries also sees the query share, which PKPS's
query kernel can only remove when some queries are alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["VarianceShares", "response_variance"]


@dataclass(frozen=True)
class VarianceShares:
    """Shares of the total sum of squares (they add to 1) and the design used."""

    query: float
    model: float
    residual: float
    n_models: int
    n_queries: int
    dim: int


def response_variance(records: pd.DataFrame, column: str = "response_embedding") -> VarianceShares:
    """The decomposition above on the models that answered every query of ``records``.

    Repeated (model, task, query) rows are averaged first. Raises ValueError when fewer than 2
    models answered all queries, or there are fewer than 2 queries.
    """
    need = [c for c in ("model_id", "task_id", "query_id", column) if c not in records.columns]
    if need:
        raise ValueError(f"records need the columns {need}")
    keys = list(zip(records.task_id, records.query_id))
    qidx, qkeys = pd.factorize(pd.Series(keys, dtype=object))
    midx, mkeys = pd.factorize(records.model_id)
    X = np.stack([np.asarray(v, dtype=float) for v in records[column]])
    M, Q, d = len(mkeys), len(qkeys), X.shape[1]
    tot = np.zeros((M, Q, d))
    cnt = np.zeros((M, Q))
    np.add.at(tot, (midx, qidx), X)
    np.add.at(cnt, (midx, qidx), 1.0)
    full = (cnt > 0).all(axis=1)
    if full.sum() < 2 or Q < 2:
        raise ValueError(
            f"need at least 2 models that answered all {Q} queries (found {int(full.sum())}) and 2 queries"
        )
    Y = tot[full] / cnt[full][:, :, None]
    Mf = Y.shape[0]
    g = Y.mean(axis=(0, 1))
    qm = Y.mean(axis=0)
    mm = Y.mean(axis=1)
    ss_tot = float(((Y - g) ** 2).sum())
    ss_q = float(Mf * ((qm - g) ** 2).sum())
    ss_m = float(Q * ((mm - g) ** 2).sum())
    ss_r = float(((Y - mm[:, None, :] - qm[None, :, :] + g) ** 2).sum())
    if ss_tot <= 0:
        raise ValueError("all response vectors are equal: nothing to decompose")
    return VarianceShares(ss_q / ss_tot, ss_m / ss_tot, ss_r / ss_tot, int(Mf), int(Q), int(d))
