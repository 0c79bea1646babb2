"""AlpacaEval per-response data as dkps records, with the model table (the book's Part V on real data).

The data folder ``alpaca_eval_responses/`` (see its PROVENANCE.md) holds 227 models' responses to
the same 805 AlpacaEval instructions in 5 tasks (the instruction's ``dataset``), the AlpacaEval 2
judge's per-response scores for 58 models, and each model's leaderboard win rate and
length-controlled (LC) win rate. :func:`alpaca_eval_data` builds from it (through the data floor's store)

- ``responses``: one row per (model, query) — ``model_id, task_id, query_id, query, response,
  score, family`` — ready for any dkps estimator (``query_id`` as str; the query key is the pair
  ``(task_id, query_id)``, as in :mod:`dkps.records`);
- ``models``: one row per model — family, kind (population or why it is kept out), leaderboard
  ``win_rate`` and ``lc_win_rate`` (0–100), coverage counts.

It resolves the data directory like :func:`blindspot.data.suites.resolve_data_dir` and falls back to a
labelled synthetic stand-in built with :func:`dkps.generate_benchmark_data` when the folder is absent.

Rules written down here (and tested):

- **family** (:func:`model_family`): the first run of letters of the lower-cased model id, with
  four aliases that join one vendor's names (``meta``→``llama``, ``mixtral``→``mistral``,
  ``text``→``gpt`` for ``text_davinci_*``, ``bedrock``→``claude``).
- **kind** (:func:`model_kind`): ``'adversarial'`` for ``NullModel`` and ``gpt4_gamed`` (entries
  built to game the judge), ``'length variant'`` for the ``*_concise`` / ``*_verbose`` prompt
  variants (leaderboard mode ``dev``), ``'reference'`` for ``gpt4_1106_preview`` (the judge's
  reference: its win rate is 50 by construction), ``'no responses'`` for leaderboard rows without
  responses, ``'no leaderboard score'`` for models without a win rate, else ``'population'``.
- **pool** (:func:`select_pool`): per task, the queries with the smallest
  ``sha1(task_id + "\\0" + query_id)`` — the deterministic shared subset of the 32-query cap of
  :func:`dkps.eee.load_records`, so every model answers the same pool and the pool does not depend
  on any seed.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.data.response_stores import ALPACA_DIR, AlpacaEvalStore, store_folder
from blindspot.data.tables import ScoreTable
from blindspot.perspective.response_data import ResponseData
from dkps.synthetic import generate_benchmark_data

__all__ = [
    "AlpacaEvalData",
    "leaderboard",
    "alpaca_eval_data",
    "synthetic_alpaca_eval",
    "model_family",
    "model_kind",
    "select_pool",
    "model_subset",
    "FAMILY_ALIASES",
    "ADVERSARIAL",
    "REFERENCE_MODEL",
    "EXCLUSION_REASONS",
    "SUITE_DIR",
]

#: The store's folder in the data directory (:data:`blindspot.data.response_stores.ALPACA_DIR`).
SUITE_DIR = ALPACA_DIR
#: First-word aliases that join one vendor's model names into one family.
FAMILY_ALIASES = {"meta": "llama", "mixtral": "mistral", "text": "gpt", "bedrock": "claude"}
#: Leaderboard entries built to exploit the judge (PROVENANCE.md: "adversarial and synthetic entries").
ADVERSARIAL = ("NullModel", "gpt4_gamed")
#: The AlpacaEval 2 judge's reference model (judged against itself: win rate 50 by construction).
REFERENCE_MODEL = "gpt4_1106_preview"
_VARIANT = re.compile(r"_(concise|verbose)$")
_FIRST_WORD = re.compile(r"[a-z]+")

#: Why a kind of model is kept out of the win-rate regression.
EXCLUSION_REASONS = {
    "adversarial": (
        "built to game the judge (NullModel answers every instruction with the same string, gpt4_gamed "
        "with a few words); its leaderboard score measures the judge's weakness, not its answers, so "
        "as a kNN target it would teach the regression that such answers are good"
    ),
    "length variant": (
        "a prompt variant (concise/verbose) of a model already in the population, made to probe the "
        "judge's length bias (leaderboard mode 'dev'); keeping it would count one model twice and put "
        "a near-copy of the held-out model among its neighbours"
    ),
    "reference": (
        "the judge's reference model: every comparison is against itself, so its win rate is 50 by "
        "construction rather than measured"
    ),
    "no responses": "on the leaderboard but without responses in the data: nothing to embed",
    "no leaderboard score": "has responses but no AlpacaEval 2 win rate: nothing to predict or learn from",
}


# ------------------------------------------------------------------------------------ rules
def model_family(model_id: str) -> str:
    """Family of an AlpacaEval model id: the first run of letters of the lower-cased id, aliased.

    ``'Meta-Llama-3-8B-Instruct'`` → ``'llama'``, ``'gpt4_0613'`` → ``'gpt'``,
    ``'Mixtral-8x7B-Instruct-v0.1'`` → ``'mistral'``, ``'tulu-2-dpo-70b-ExPO'`` → ``'tulu'``.
    An id without any letter is its own family.
    """
    if not isinstance(model_id, str) or not model_id.strip():
        raise ValueError(f"model_id must be a non-empty string, got {model_id!r}")
    m = _FIRST_WORD.search(model_id.lower())
    if m is None:
        return model_id
    word = m.group(0)
    return FAMILY_ALIASES.get(word, word)


def model_kind(model_id: str, has_responses: bool = True, win_rate: float | None = 1.0) -> str:
    """The model's role in the Part V experiments (see the module docstring for the rule)."""
    if not has_responses:
        return "no responses"
    if model_id in ADVERSARIAL:
        return "adversarial"
    if _VARIANT.search(model_id):
        return "length variant"
    if model_id == REFERENCE_MODEL:
        return "reference"
    if win_rate is None or not np.isfinite(win_rate):
        return "no leaderboard score"
    return "population"


def _pool_key(task_id: str, query_id: str) -> str:
    return hashlib.sha1(f"{task_id}\0{query_id}".encode()).hexdigest()


def select_pool(queries: pd.DataFrame, per_task: int) -> pd.DataFrame:
    """The shared query pool: per task, the ``per_task`` queries with the smallest
    ``sha1(task_id + "\\0" + query_id)`` (the deterministic shared subset of :func:`dkps.eee.load_records`).

    Parameters
    ----------
    queries : DataFrame with ``task_id`` and ``query_id`` (other columns are kept)
    per_task : int >= 1; a task with fewer queries keeps all of them

    Returns
    -------
    DataFrame sorted by task, then by the hash (the pool's order).
    """
    if isinstance(per_task, bool) or not isinstance(per_task, (int, np.integer)) or per_task < 1:
        raise ValueError(f"per_task must be an int >= 1, got {per_task!r}")
    missing = [c for c in ("task_id", "query_id") if c not in queries.columns]
    if missing:
        raise ValueError(f"queries need the columns {missing}")
    q = queries.copy()
    q["query_id"] = q["query_id"].astype(str)
    q["_h"] = [_pool_key(t, i) for t, i in zip(q.task_id, q.query_id)]
    q = q.sort_values(["task_id", "_h"], kind="stable").groupby("task_id", sort=True).head(int(per_task))
    return q.drop(columns="_h").reset_index(drop=True)


def model_subset(models: pd.DataFrame, n_population: int | None = None, excluded: bool = True) -> list[str]:
    """Models to embed: population models (all, or ``n_population`` of them) plus, with
    ``excluded=True``, the excluded models that have responses and a leaderboard score
    (adversarial, length variants, reference).

    A subset is deterministic and half scored: the ``ceil(n/2)`` scored and ``floor(n/2)`` unscored
    population models with the smallest ``sha1(model_id)`` (fewer of one kind are topped up with the
    other). With a subset only the adversarial models are added (not the variants).
    """
    need = [c for c in ("kind", "n_scored", "win_rate", "has_responses") if c not in models.columns]
    if need:
        raise ValueError(f"the model table needs the columns {need}")
    pop = models[models.kind == "population"]
    if n_population is None:
        chosen = pop.index.tolist()
        extra = models.kind.isin(["adversarial", "length variant", "reference"])
    else:
        if isinstance(n_population, bool) or not isinstance(n_population, (int, np.integer)) or n_population < 3:
            raise ValueError(f"n_population must be None or an int >= 3, got {n_population!r}")
        h = pd.Series([hashlib.sha1(m.encode("utf-8")).hexdigest() for m in pop.index], index=pop.index)
        scored = h[pop.n_scored > 0].sort_values().index.tolist()
        unscored = h[pop.n_scored == 0].sort_values().index.tolist()
        a = min(len(scored), (n_population + 1) // 2)
        b = min(len(unscored), n_population - a)
        a = min(len(scored), n_population - b)
        keep = set(scored[:a] + unscored[:b])
        chosen = [m for m in pop.index if m in keep]
        extra = models.kind == "adversarial"
    extra = models.index[extra & models.has_responses].tolist()
    return chosen + [m for m in extra if m not in chosen] if excluded else chosen


# ------------------------------------------------------------------------------------ container
@dataclass(frozen=True)
class AlpacaEvalData(ResponseData):
    """Responses and models of AlpacaEval (or its synthetic stand-in).

    Attributes
    ----------
    responses : DataFrame
        ``model_id, task_id, query_id (str), query, response, score, family`` (the synthetic
        stand-in has ``response_embedding``/``query_embedding`` vectors instead of text).
    models : DataFrame
        Index ``model_id``; columns ``family, kind, reason, win_rate, lc_win_rate`` (0–100, NaN when
        absent), ``has_responses, n_responses, n_scored, n_empty, avg_length, mode``.
    queries : DataFrame
        ``task_id, query_id, query`` — every query of the suite (not only the rows read).
    source, synthetic, notes, name
        Provenance, as in :class:`~blindspot.perspective.response_data.ResponseData`.
    """

    name: str = "alpaca_eval"

    @property
    def population(self) -> list[str]:
        """Models of the win-rate regression (kind ``'population'``), in table order."""
        return self.models.index[self.models.kind == "population"].tolist()

    @property
    def excluded(self) -> pd.DataFrame:
        """Models with responses kept out of the regression, with the reason."""
        m = self.models
        return m[(m.kind != "population") & m.has_responses][["kind", "reason", "win_rate", "lc_win_rate"]]

    @property
    def task_weights(self) -> pd.Series:
        """Share of the suite's queries in each task, :math:`w_t = n_t / \\sum_u n_u` (the weight of
        task t in the leaderboard's per-query mean)."""
        c = self.queries.groupby("task_id").size().sort_index()
        return c / c.sum()

    def describe(self) -> str:
        kind = "SYNTHETIC data" if self.synthetic else "data"
        n_resp = int(self.models.has_responses.sum())
        return (
            f"{self.name}: {n_resp} models with responses, {len(self.queries)} queries in "
            f"{self.queries.task_id.nunique()} tasks, {len(self.responses)} response rows read "
            f"({kind}; {self.source})"
        )


def leaderboard(ae: AlpacaEvalData) -> ScoreTable:
    """The AlpacaEval 2 leaderboard of ``ae`` as a score table: the win rate and the length-controlled win
    rate (0-100) of every population model that has both, with ``ae``'s name, source and synthetic flag.

    It is the target the chapters predict, and it carries the data's provenance to
    :mod:`blindspot.book.ledger` (a synthetic stand-in makes the claims computed from it "not reproducible
    here").

    Raises
    ------
    ValueError
        If fewer than 3 population models have both win rates.
    """
    m = ae.models.loc[ae.population, ["win_rate", "lc_win_rate"]].dropna()
    if len(m) < 3:
        raise ValueError(f"{ae.name}: only {len(m)} population model(s) have both win rates; a leaderboard needs 3")
    meta = ae.models.loc[m.index, ["family"]]
    return ScoreTable(m.astype(float), meta, ae.name, ae.source, ae.synthetic, tuple(ae.notes))


def _table(models: pd.DataFrame) -> pd.DataFrame:
    """Add family / kind / reason to a model table indexed by model_id."""
    models = models.copy()
    models["family"] = [model_family(m) for m in models.index]
    models["kind"] = [model_kind(m, bool(h), w) for m, h, w in zip(models.index, models.has_responses, models.win_rate)]
    models["reason"] = [EXCLUSION_REASONS.get(k, "") for k in models.kind]
    return models


# ------------------------------------------------------------------------------------ real data
def _check_text(df: pd.DataFrame, col: str) -> None:
    """Every value of ``col`` must be a str (as in :mod:`dkps.records`: text present but not a str is an error)."""
    vals = df[col].tolist()
    for pos, v in enumerate(vals):
        if isinstance(v, str):
            continue
        row = df.iloc[pos]
        where = f"model {row.model_id!r}, task {row.task_id!r}, query {row.query_id!r}"
        if v is None or (isinstance(v, float) and np.isnan(v)):
            raise ValueError(
                f"column '{col}': row {pos} ({where}) is missing; every response needs its text "
                "— drop the row or fill it"
            )
        raise ValueError(f"column '{col}': row {pos} ({where}) is a {type(v).__name__}, not a str; give the text")


def alpaca_eval_data(
    data_dir=None,
    *,
    queries_per_task: int | None = None,
    models: Sequence[str] | None = None,
    empty: str = "keep",
    fallback: bool = True,
    seed: int = 0,
) -> AlpacaEvalData:
    """The AlpacaEval responses and model table, read through the data floor's store (or its synthetic stand-in).

    Parameters
    ----------
    data_dir : path, optional
        The data directory holding ``alpaca_eval_responses/`` (or that folder itself); default:
        ``$BLINDSPOT_DATA``, then ``../shared/data`` (as :func:`blindspot.data.suites.resolve_data_dir`).
    queries_per_task : int, optional
        Read only the shared pool of :func:`select_pool` (``per_task`` queries per task); None
        reads every query. Reading only the pool keeps memory small (the full file is ~280 MB of text).
    models : sequence of str, optional
        Read only these models' rows (the model table keeps every model).
    empty : 'keep' | 'drop'
        An empty response is valid text (:mod:`dkps.records` rejects only missing text; :mod:`dkps.embed`
        embeds ``""``),
        and the judge scored it, so it is kept by default. ``'drop'`` removes such rows with one
        ``UserWarning`` giving the count, as the EEE adapter (:func:`dkps.eee.load_records`) does.
    fallback : bool
        When the folder is absent, return :func:`synthetic_alpaca_eval` (``synthetic=True``);
        with ``fallback=False`` raise ``FileNotFoundError``.
    seed : int
        Seed of the synthetic fallback.

    Raises
    ------
    ValueError
        A response or query that is missing or not a str (the row is named), a bad ``empty``.
    """
    if empty not in ("keep", "drop"):
        raise ValueError(f"empty must be 'keep' or 'drop', got {empty!r}")
    folder = store_folder("alpaca", data_dir)
    if folder is None:
        if not fallback:
            raise FileNotFoundError(
                f"no {SUITE_DIR}/ folder with responses.parquet under the data directory; pass data_dir "
                "or set BLINDSPOT_DATA"
            )
        return synthetic_alpaca_eval(seed=seed, queries_per_task=queries_per_task, models=models)
    store = AlpacaEvalStore(folder)
    notes = []
    queries = store.queries()
    pool = None
    if queries_per_task is not None:
        pool = select_pool(queries, queries_per_task)
        notes.append(f"read only the shared pool of {queries_per_task} queries per task ({len(pool)} queries)")
    resp = store.responses(None if pool is None else pool.query_id, None if models is None else list(models))
    if pool is not None:
        keys = set(zip(pool.task_id, pool.query_id))
        resp = resp[[k in keys for k in zip(resp.task_id, resp.query_id)]]
    resp = resp.sort_values(["model_id", "task_id", "query_id"], kind="stable").reset_index(drop=True)
    for col in ("response", "query"):
        _check_text(resp, col)
    if empty == "drop":
        is_empty = resp.response.str.len().to_numpy() == 0
        if is_empty.any():
            warnings.warn(f"dropped {int(is_empty.sum())} empty responses (empty='drop')", UserWarning, stacklevel=2)
            resp = resp[~is_empty].reset_index(drop=True)
            notes.append(f"dropped {int(is_empty.sum())} empty responses")
    raw = store.models().set_index("model_id")
    table = pd.DataFrame(index=raw.index)
    table["win_rate"] = raw["win_rate"].astype(float)
    table["lc_win_rate"] = raw["length_controlled_winrate"].astype(float)
    table["has_responses"] = raw["has_outputs"].astype(bool) & (raw["n_responses"] > 0)
    table["n_responses"] = raw["n_responses"].astype(int)
    table["n_scored"] = raw["n_scored"].astype(int)
    table["n_empty"] = raw["n_null_or_empty_response"].astype(int)
    table["avg_length"] = raw["avg_length"].astype(float)
    table["mode"] = raw["mode"]
    table = _table(table)
    resp["family"] = [table.family.get(m, model_family(m)) for m in resp.model_id]
    unknown = sorted(set(resp.model_id) - set(table.index))
    if unknown:
        raise ValueError(f"responses name models missing from models.csv: {unknown[:5]}")
    return AlpacaEvalData(resp, table, queries[["task_id", "query_id", "query"]], str(folder), False, tuple(notes))


# ------------------------------------------------------------------------------------ synthetic
def synthetic_alpaca_eval(
    seed: int = 0,
    n_models: int = 80,
    n_families: int = 20,
    n_tasks: int = 5,
    n_queries_per_task: int = 16,
    scored_share: float = 0.3,
    queries_per_task: int | None = None,
    models: Sequence[str] | None = None,
) -> AlpacaEvalData:
    """A labelled synthetic stand-in shaped like the AlpacaEval data (``synthetic=True``).

    :func:`dkps.generate_benchmark_data` (``generative_model='factor'``, binary per-response
    scores) gives every model all queries of ``n_tasks`` tasks. The "win rate" is 100 x the
    realised mean score over all queries (task-weighted like the leaderboard), the "LC win rate"
    100 x the mean noise-free score :math:`\\sigma(S_{it})`. Per-response scores are kept for a
    seeded ``scored_share`` of the models (the real data score 58 of 227). One extra model,
    ``NullModel``, answers every query with the same vector and gets a win rate of 77 (the real
    NullModel's 76.9): the adversarial case of the real data.
    """

    bd = generate_benchmark_data(
        n_models=n_models,
        n_families=n_families,
        n_tasks=n_tasks,
        n_queries_per_task=n_queries_per_task,
        obs_prob=1.0,
        binary_scores=True,
        random_state=seed,
        generative_model="factor",
    )
    data = bd.data.rename(columns={"embedding": "response_embedding"}).drop(columns=["reference_score"])
    ids = bd.params["model_ids"]
    rng = np.random.default_rng(seed)
    scored = set(np.asarray(ids)[rng.random(len(ids)) < scored_share])
    data.loc[~data.model_id.isin(scored), "score"] = np.nan
    ref = bd.params["reference"]  # realised per-task mean over all queries
    true = 1.0 / (1.0 + np.exp(-bd.scores))
    null = data[data.model_id == ids[0]].copy()
    null["model_id"] = "NullModel"
    null["family"] = "nullmodel"
    null["score"] = np.nan
    const = np.zeros_like(null.response_embedding.iloc[0])
    const[:] = rng.normal(size=const.size) * 3.0
    null["response_embedding"] = [const.copy() for _ in range(len(null))]
    data = pd.concat([data, null], ignore_index=True)
    data["query_id"] = data["query_id"].astype(str)
    queries = data.drop_duplicates(["task_id", "query_id"])[["task_id", "query_id"]].reset_index(drop=True)
    queries["query"] = [f"synthetic query {q}" for q in queries.query_id]
    table = pd.DataFrame(index=pd.Index(list(ids) + ["NullModel"], name="model_id"))
    table["win_rate"] = list(100 * ref.mean(axis=1)) + [77.0]
    table["lc_win_rate"] = list(100 * true.mean(axis=1)) + [86.0]
    table["has_responses"] = True
    table["n_responses"] = n_tasks * n_queries_per_task
    table["n_scored"] = [n_tasks * n_queries_per_task if m in scored else 0 for m in table.index]
    table["n_empty"] = 0
    table["avg_length"] = np.nan
    table["mode"] = "synthetic"
    fam = dict(zip(data.model_id, data.family))
    table["family"] = [fam[m] for m in table.index]
    table["kind"] = ["adversarial" if m == "NullModel" else "population" for m in table.index]
    table["reason"] = [EXCLUSION_REASONS.get(k, "") for k in table.kind]
    notes = []
    if queries_per_task is not None:
        pool = select_pool(queries, queries_per_task)
        keys = set(zip(pool.task_id, pool.query_id))
        data = data[[k in keys for k in zip(data.task_id, data.query_id)]]
        notes.append(f"kept the shared pool of {queries_per_task} queries per task")
    if models is not None:
        data = data[data.model_id.isin(list(models))]
    data = data.sort_values(["model_id", "task_id", "query_id"], kind="stable").reset_index(drop=True)
    cols = ["model_id", "task_id", "query_id", "response_embedding", "query_embedding", "score", "family"]
    return AlpacaEvalData(
        data[cols],
        table,
        queries,
        f"synthetic stand-in (generate_benchmark_data, seed={seed})",
        True,
        tuple(notes),
        name="synthetic stand-in for alpaca_eval",
    )
