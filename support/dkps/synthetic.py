"""``generate_benchmark_data``: synthetic models answering queries.

Two generative models, both seeded by one ``np.random.default_rng(random_state)`` stream with a
fixed draw order:

``generative_model='original'`` (default; the original package's model, so a seed reproduces its
data). In order: model latents :math:`Z\\sim N(0,I)`; task vectors
:math:`\\tau_t\\sim N(0,s_\\tau^2 I)`; score noise; logit scores
:math:`S = Z\\tau^\\top + \\sigma_s\\,\\varepsilon`; observation uniforms (``< obs_prob``) with
fix-ups (a model without a task gets a random task, then a task without a model a random model);
per task, queries :math:`u_{tq} = \\tau_t + s_q\\xi`; per observed cell (model-major), its optional
query-answer uniforms (``query_obs_prob``) and then, per answered query, the response
:math:`[u_{tq} + Z_i + \\sigma_r\\eta,\\ \\text{filler}]` (``d_latent`` + ``d_obs - d_latent`` values).

``generative_model='factor'`` (a factor model, opt-in): a general ability factor
(``general_factor``), per-task response maps, families, replicates, a fixed number of queries per
cell and binary per-response scores with the realised full-pool reference score.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = ["generate_benchmark_data", "BenchmarkData", "score_records", "latent_r2"]


class _BenchmarkData(NamedTuple):
    data: pd.DataFrame
    scores: np.ndarray
    observed: np.ndarray
    latent: np.ndarray
    task_vectors: np.ndarray


class BenchmarkData(_BenchmarkData):
    """What :func:`generate_benchmark_data` draws: ``(data, scores, observed, latent, task_vectors)``.

    A named tuple; ``.params`` holds every other draw of the generator.

    Parameters
    ----------
    data : DataFrame
        The records, rows only for observed cells: ids ``model_00``, ``task_000``, ``task000_q0000``; response
        vectors in ``embedding``, queries in ``query_embedding`` (:func:`score_records` adds the scores).
    scores : ndarray of shape (n_models, n_tasks)
        The true scores, on the logit scale.
    observed : ndarray of bool, shape (n_models, n_tasks)
        Which cells have records.
    latent : ndarray of shape (n_models, d_latent)
        The model latents :math:`Z`.
    task_vectors : ndarray
        The task vectors (or the factor model's task loadings).

    References
    ----------
    .. [1] The original ``dkps`` package's ``generate_benchmark_data``, whose draws the default model repeats.
    .. [2] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).
    """

    params: dict


def _pos_int(name, v, minimum=1):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {v!r}")
    return int(v)


def _nonneg(name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    return float(v)


def _ids(n_models, n_tasks, nq):
    wm = max(2, len(str(n_models - 1)))
    wt = max(3, len(str(n_tasks - 1)))
    wq = max(4, len(str(nq - 1)))
    models = [f"model_{i:0{wm}d}" for i in range(n_models)]
    tasks = [f"task_{t:0{wt}d}" for t in range(n_tasks)]
    queries = [[f"task{t:0{wt}d}_q{q:0{wq}d}" for q in range(nq)] for t in range(n_tasks)]
    return models, tasks, queries


def generate_benchmark_data(
    d_latent: int = 5,
    d_obs: int = 20,
    n_models: int = 40,
    n_tasks: int = 8,
    n_queries_per_task: int = 16,
    obs_prob: float = 0.6,
    random_state=None,
    *,
    generative_model: str = "original",
    query_obs_prob: float = 1.0,
    score_noise: float = 0.1,
    response_noise: float | None = None,
    task_spread: float = 1.0,
    query_spread: float = 0.5,
    noise: float | None = None,
    general_factor: float = 1.0,
    n_replicates: int = 1,
    queries_per_cell: int | None = None,
    n_families: int | None = None,
    family_spread: float = 0.5,
    binary_scores: bool = False,
) -> BenchmarkData:
    r"""Synthetic benchmark records with known latent abilities and scores.

    The default generative model is the original dkps's (a seed reproduces its data): model latents
    :math:`Z \sim N(0, I)`, task vectors :math:`\tau_t \sim N(0, s_\tau^2 I)`, logit scores
    :math:`S = Z\tau^\top + \sigma_s \varepsilon`, queries :math:`u_{tq} = \tau_t + s_q \xi` and responses
    :math:`[u_{tq} + Z_i + \sigma_r \eta,\ \text{filler}]` (see the module docstring for the draw order).
    ``generative_model='factor'`` is a factor model with a general ability, families, replicates and binary
    per-response scores.

    Parameters
    ----------
    d_latent : int, default 5
        Latent dimension.
    d_obs : int, default 20
        Response-embedding dimension (>= ``d_latent`` for the original model).
    n_models : int, default 40
        Models (>= 2).
    n_tasks : int, default 8
        Tasks.
    n_queries_per_task : int, default 16
        Queries per task.
    obs_prob : float, default 0.6
        Probability that a (model, task) cell is observed, in (0, 1].
    random_state : int, optional
        Seed of ``np.random.default_rng``.
    generative_model : {'original', 'factor'}, default 'original'
        The original package's model or the factor model.
    query_obs_prob : float, default 1.0
        Probability that an observed cell's model answered a query ('original' only).
    score_noise : float, default 0.1
        Score noise sd :math:`\sigma_s` ('original' only).
    response_noise : float, optional
        Response noise sd :math:`\sigma_r` (default 0.5), both models.
    task_spread : float, default 1.0
        Task vector sd :math:`s_\tau` ('original' only).
    query_spread : float, default 0.5
        Query spread around the task :math:`s_q` (both models).
    noise : float, optional
        Alias of ``response_noise`` (the original's name).
    general_factor : float, default 1.0
        Weight of the general ability ('factor' only).
    n_replicates : int, default 1
        Responses per (model, query) ('factor' only).
    queries_per_cell : int, optional
        Queries each observed cell answers ('factor' only; default all).
    n_families : int, optional
        Model families ('factor' only).
    family_spread : float, default 0.5
        Spread of models around their family ('factor' only).
    binary_scores : bool, default False
        0/1 per-response scores with the realised full-pool reference score ('factor' only).

    Returns
    -------
    BenchmarkData
        ``data``, ``scores``, ``observed``, ``latent``, ``task_vectors`` and ``.params``.

    Raises
    ------
    ValueError
        A size, probability or spread out of range, ``noise`` and ``response_noise`` that disagree, or a
        setting given to the generative model it does not belong to.

    References
    ----------
    .. [1] The original ``dkps`` package's ``generate_benchmark_data``.
    .. [2] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).

    Examples
    --------
    >>> from dkps import generate_benchmark_data
    >>> bd = generate_benchmark_data(n_models=6, n_tasks=3, n_queries_per_task=4, random_state=0)
    >>> bd.scores.shape, bd.observed.shape, list(bd.data.columns)
    ((6, 3), (6, 3), ['model_id', 'task_id', 'query_id', 'query_embedding', 'embedding'])
    """
    d_latent = _pos_int("d_latent", d_latent)
    d_obs = _pos_int("d_obs", d_obs)
    n_models = _pos_int("n_models", n_models, 2)
    n_tasks = _pos_int("n_tasks", n_tasks)
    nq = _pos_int("n_queries_per_task", n_queries_per_task)
    if isinstance(obs_prob, bool) or not isinstance(obs_prob, numbers.Real) or not 0 < obs_prob <= 1:
        raise ValueError(f"obs_prob must be in (0, 1], got {obs_prob!r}")
    if noise is not None and response_noise is not None and noise != response_noise:
        raise ValueError("give the response noise once: noise and response_noise are aliases")
    rn = _nonneg(
        "response_noise",
        0.5 if (noise is None and response_noise is None) else (noise if noise is not None else response_noise),
    )
    query_spread = _nonneg("query_spread", query_spread)
    if generative_model == "original":
        factor_only = dict(
            general_factor=(general_factor, 1.0),
            n_replicates=(n_replicates, 1),
            queries_per_cell=(queries_per_cell, None),
            n_families=(n_families, None),
            family_spread=(family_spread, 0.5),
            binary_scores=(binary_scores, False),
        )
        bad = [k for k, (v, d) in factor_only.items() if v != d]
        if bad:
            raise ValueError(f"{bad} belong to generative_model='factor'; pass generative_model='factor' to use them")
        if d_obs < d_latent:
            raise ValueError(f"d_obs ({d_obs}) must be >= d_latent ({d_latent}) for the original model")
        if (
            isinstance(query_obs_prob, bool)
            or not isinstance(query_obs_prob, numbers.Real)
            or not 0 < query_obs_prob <= 1
        ):
            raise ValueError(f"query_obs_prob must be in (0, 1], got {query_obs_prob!r}")
        return _original(
            d_latent,
            d_obs,
            n_models,
            n_tasks,
            nq,
            float(obs_prob),
            random_state,
            float(query_obs_prob),
            _nonneg("score_noise", score_noise),
            rn,
            _nonneg("task_spread", task_spread),
            query_spread,
        )
    if generative_model != "factor":
        raise ValueError(f"generative_model must be 'original' or 'factor', got {generative_model!r}")
    if (query_obs_prob, score_noise, task_spread) != (1.0, 0.1, 1.0):
        raise ValueError("query_obs_prob, score_noise and task_spread belong to generative_model='original'")
    n_rep = _pos_int("n_replicates", n_replicates)
    if queries_per_cell is not None:
        queries_per_cell = _pos_int("queries_per_cell", queries_per_cell)
        if queries_per_cell > nq:
            raise ValueError(f"queries_per_cell ({queries_per_cell}) must be <= n_queries_per_task ({nq})")
    if n_families is not None:
        n_families = _pos_int("n_families", n_families)
    if not isinstance(binary_scores, (bool, np.bool_)):
        raise ValueError("binary_scores must be True or False")
    return _factor(
        d_latent,
        d_obs,
        n_models,
        n_tasks,
        nq,
        float(obs_prob),
        random_state,
        rn,
        query_spread,
        _nonneg("general_factor", general_factor),
        n_rep,
        queries_per_cell,
        n_families,
        _nonneg("family_spread", family_spread),
        bool(binary_scores),
    )


def _frame(rows_m, rows_t, rows_q, models, tasks, queries, Qvec, Xvec, extra=None) -> pd.DataFrame:
    cols = {
        "model_id": [models[i] for i in rows_m],
        "task_id": [tasks[t] for t in rows_t],
        "query_id": [queries[t][q] for t, q in zip(rows_t, rows_q)],
        "query_embedding": list(Qvec),
        "embedding": list(Xvec),
    }
    if extra:
        cols.update(extra)
    return pd.DataFrame(cols)


def _original(dl, do, n, T, nq, obs_prob, seed, qprob, s_noise, r_noise, t_spread, q_spread) -> BenchmarkData:
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, dl))
    tau = rng.normal(0.0, t_spread, size=(T, dl))
    eps = rng.standard_normal((n, T))
    scores = Z @ tau.T + s_noise * eps
    observed = rng.random((n, T)) < obs_prob
    for i in range(n):
        if not observed[i].any():
            observed[i, rng.integers(T)] = True
    for t in range(T):
        if not observed[:, t].any():
            observed[rng.integers(n), t] = True
    Q = np.stack([tau[t] + q_spread * rng.standard_normal((nq, dl)) for t in range(T)])  # (T, nq, dl)
    cells = np.argwhere(observed)  # model-major, then task
    if qprob < 1:
        # cell by cell: the cell's query mask, then its responses, before the next cell
        answered, parts = np.zeros((len(cells), nq), dtype=bool), []
        for c in range(len(cells)):
            a = rng.random(nq) < qprob
            if not a.any():
                a[rng.integers(nq)] = True
            answered[c] = a
            parts.append(rng.standard_normal((int(a.sum()), do)))
        draws = np.concatenate(parts)
    else:
        answered = np.ones((len(cells), nq), dtype=bool)
    cc, qq = np.nonzero(answered)
    rm, rt = cells[cc, 0], cells[cc, 1]
    if qprob >= 1:
        draws = rng.standard_normal((len(cc), do))  # per row: d_latent noise, then the filler
    X = np.empty((len(cc), do))
    X[:, :dl] = Q[rt, qq] + Z[rm] + r_noise * draws[:, :dl]
    X[:, dl:] = draws[:, dl:]
    models, tasks, queries = _ids(n, T, nq)
    data = _frame(rm, rt, qq, models, tasks, queries, Q[rt, qq], X)
    out = BenchmarkData(data, scores, observed, Z, tau)
    out.params = dict(
        task_vectors=tau,
        query_embeddings=Q,
        score_noise=eps,
        answered=answered,
        model_ids=models,
        task_ids=tasks,
        generative_model="original",
    )
    return out


def _factor(dl, do, n, T, nq, obs_prob, seed, r_noise, q_spread, gfac, n_rep, qpc, n_fam, f_spread, binary):
    rng = np.random.default_rng(seed)
    if n_fam is not None:
        C = rng.standard_normal((n_fam, dl))
        e = rng.standard_normal((n, dl))
        fam = np.arange(n) % n_fam
        Z = C[fam] + f_spread * e
    else:
        fam = None
        Z = rng.standard_normal((n, dl))
    W = rng.normal(0.0, np.sqrt(1.0 / dl), size=(T, dl))
    W[:, 0] += gfac
    b = rng.normal(0.0, 0.5, size=T)
    scores = Z @ W.T + b
    P = rng.normal(0.0, np.sqrt(1.0 / dl), size=(T, do, dl))
    c = rng.standard_normal((T, do))
    U = c[:, None, :] + q_spread * rng.standard_normal((T, nq, do))
    E = rng.standard_normal((n, T, nq, n_rep, do))
    O = rng.random((n, T))
    observed = O < obs_prob
    for i in range(n):
        if not observed[i].any():
            observed[i, int(np.argmin(O[i]))] = True
    for t in range(T):
        order = np.argsort(O[:, t], kind="stable")
        j = 0
        while observed[:, t].sum() < min(2, n):
            observed[order[j], t] = True
            j += 1
    K = rng.random((n, T, nq))
    if binary:
        delta = rng.standard_normal((T, nq))
        V = rng.random((n, T, nq))
        outcome = (V < 1.0 / (1.0 + np.exp(-(scores[:, :, None] - delta[None])))).astype(float)
    used = np.ones((n, T, nq), dtype=bool)
    if qpc is not None:
        rank = np.argsort(np.argsort(K, axis=2, kind="stable"), axis=2, kind="stable")
        used = rank < qpc
    sel = observed[:, :, None] & used  # (n, T, nq)
    mi, ti, qi = np.nonzero(sel)
    mi = np.repeat(mi, n_rep)
    ti = np.repeat(ti, n_rep)
    qi = np.repeat(qi, n_rep)
    ri = np.tile(np.arange(n_rep), int(sel.sum()))
    X = U[ti, qi] + np.einsum("rdk,rk->rd", P[ti], Z[mi]) + r_noise * E[mi, ti, qi, ri]
    models, tasks, queries = _ids(n, T, nq)
    extra = {}
    if fam is not None:
        extra["family"] = [f"family_{f}" for f in fam[mi]]
    params = dict(
        task_loadings=W,
        task_offsets=b,
        response_maps=P,
        task_centres=c,
        query_embeddings=U,
        families=fam,
        generative_model="factor",
        model_ids=models,
        task_ids=tasks,
    )
    if binary:
        ref = outcome.mean(axis=2)
        extra["score"] = outcome[mi, ti, qi]
        extra["reference_score"] = ref[mi, ti]
        params["item_difficulty"] = delta
        params["reference"] = ref
    data = _frame(mi, ti, qi, models, tasks, queries, U[ti, qi], X, extra)
    out = BenchmarkData(data, scores, observed, Z, W)
    out.params = params
    return out


def score_records(bd: BenchmarkData) -> pd.DataFrame:
    r"""The generator's records with a per-response ``score`` column: :math:`\sigma(s_{it})`, the
    logistic of the cell's true score (the same value for every response of a cell).

    The generator returns scores per (model, task) cell, not per response; this attaches them so
    that the estimators can be fitted and compared with the truth.
    """
    data = bd.data.copy()
    mi = pd.Index(bd.params["model_ids"]).get_indexer(data.model_id)
    ti = pd.Index(bd.params["task_ids"]).get_indexer(data.task_id)
    data["score"] = 1.0 / (1.0 + np.exp(-bd.scores[mi, ti]))
    return data


def latent_r2(coords: np.ndarray, latent: np.ndarray) -> float:
    r"""How much of the models' latent vectors a geometry recovers linearly.

    The mean over latent dimensions :math:`k` of the least-squares :math:`R^2` of ``latent[:, k]``
    on ``[1, coords]``; 1 means the coordinates determine the latents by an affine map.
    """
    X = np.column_stack([np.ones(len(coords)), np.asarray(coords, dtype=float)])
    Z = np.asarray(latent, dtype=float)
    beta, *_ = np.linalg.lstsq(X, Z, rcond=None)
    res = Z - X @ beta
    tot = ((Z - Z.mean(0)) ** 2).sum(0)
    return float(np.mean(1.0 - (res**2).sum(0) / tot))
