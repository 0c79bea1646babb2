"""AlpacaEval's query efficiency as results that name their numbers: the population, the embedding's cost, the
win-rate sweeps and the models that game the judge.

The chapter on AlpacaEval (after the PKPS paper's Table 1, on win rates instead of HELM scores) computes with
:mod:`blindspot.perspective.alpaca`, :mod:`~blindspot.perspective.pool_embedding`,
:mod:`~blindspot.perspective.response_variance`, :mod:`~blindspot.perspective.winrate` and
:mod:`~blindspot.perspective.adversarial`; this module reads their results as the chapter does:

* :class:`AlpacaPopulation` — who is in the data and in the regression (:func:`alpaca_population`);
* :class:`EmbeddingCost` — the pool's embedding, its rates cold and warm, and the projected cold cost of other
  settings (:func:`embed_pool_timed`);
* :func:`share_quantities` / :func:`shares_table` — the sum-of-squares split of the response vectors;
* :class:`WinRateView` — the paired and unpaired m-sweeps: every MAE the prose names, the comparison with the
  paper, the ledger's values and verdicts;
* :class:`JudgeGaming` — the excluded models placed in the perspective space, and their gaps.

References
----------
The PKPS paper (Table 1, §4); AlpacaEval 2 (Dubois et al., 2024, length-controlled win rates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.claim_value import ClaimValue
from blindspot.core.verdict import Verdict
from blindspot.data.tables import ScoreTable
from blindspot.perspective import alpaca, pool_embedding, verdicts, winrate
from blindspot.perspective.adversarial import AdversarialPicture
from blindspot.perspective.response_variance import VarianceShares

__all__ = [
    "AlpacaPopulation",
    "alpaca_population",
    "EmbeddingCost",
    "embed_pool_timed",
    "STATUS_CLAIMS",
    "protocol_tables",
    "share_quantities",
    "shares_table",
    "WinRateView",
    "JudgeGaming",
    "judge_gaming",
]


#: The claims whose status the chapter's prose names, by the name it glues them under.
STATUS_CLAIMS = {
    "order": "AE.T1.ordering.m1",
    "ratio": "AE.T1.ratio.m1",
    "gain": "AE.T1.pkps_gain.m1",
    "unpaired": "AE.PKPS.unpaired",
}


# -- the population ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AlpacaPopulation:
    """The AlpacaEval data of a chapter and the models it embeds.

    Attributes
    ----------
    ae : AlpacaEvalData
        The responses and the model table.
    keep : list of str
        The models embedded (population models and the excluded models with responses and a score).
    pool_size : int
        Instructions per task in the shared pool.
    ms : tuple of int
        The responses per task of the sweep (1, 2, 4, ... up to the pool).
    """

    ae: alpaca.AlpacaEvalData
    keep: Sequence[str]
    pool_size: int
    ms: tuple[int, ...]

    @property
    def population(self) -> list[str]:
        """The embedded models of the regression's population."""
        pop = set(self.ae.population)
        return [m for m in self.keep if m in pop]

    @property
    def n_scored(self) -> int:
        """Population models with per-response judge scores."""
        return int((self.ae.models.loc[self.population, "n_scored"] > 0).sum())

    def kinds_table(self) -> pd.DataFrame:
        """One row per kind of model (population first): ``models`` (how many) and ``reason`` (why excluded)."""
        kinds = self.ae.models.groupby("kind").agg(models=("family", "size"), reason=("reason", "first"))
        return kinds.loc[["population"] + [k for k in kinds.index if k != "population"]]

    def quantities(self) -> dict[str, int | str]:
        """``n_population``, ``n_scored`` (of them with judge scores), ``n_families``, ``n_embedded_models``,
        ``pool_size``, ``pool2`` (twice it), ``ms_text`` (the sweep's m), ``n_tasks``, ``n_with_responses``,
        ``n_queries``, ``n_scored_all``, ``n_leaderboard`` (models with a win rate), ``n_no_responses``,
        ``n_aliases`` (the family aliases)."""
        models, pop = self.ae.models, self.population
        return {
            "n_population": len(pop), "n_scored": self.n_scored,
            "n_families": int(models.loc[pop, "family"].nunique()), "n_embedded_models": len(self.keep),
            "pool_size": self.pool_size, "pool2": 2 * self.pool_size, "ms_text": ", ".join(str(m) for m in self.ms),
            "n_tasks": int(self.ae.queries.task_id.nunique()), "n_with_responses": int(models.has_responses.sum()),
            "n_queries": len(self.ae.queries), "n_scored_all": verdicts.n_scored_models(models),
            "n_leaderboard": int(models.win_rate.notna().sum()),
            "n_no_responses": int((models.kind == "no responses").sum()), "n_aliases": len(alpaca.FAMILY_ALIASES),
        }  # fmt: skip


def alpaca_population(ae: alpaca.AlpacaEvalData, n_population: int | str | None, pool_size: int) -> AlpacaPopulation:
    """The models a chapter embeds (:func:`~blindspot.perspective.alpaca.model_subset`: every population model
    with ``n_population`` None or ``"all"``, else that many) and the sweep's m = 1, 2, 4, ... up to ``pool_size``.

    Raises
    ------
    ValueError
        ``pool_size`` below 1.
    """
    if pool_size < 1:
        raise ValueError(f"the pool needs at least one instruction per task, got pool_size = {pool_size}")
    keep = alpaca.model_subset(ae.models, None if n_population == "all" else n_population)
    ms = tuple(2**k for k in range(int(np.log2(pool_size)) + 1))
    return AlpacaPopulation(ae, keep, pool_size, ms)


# -- the embedding and its cost ------------------------------------------------------------------------------
@dataclass(frozen=True)
class EmbeddingCost:
    """The pool's embedding: this build, a rerun from the cache, and cold rates measured on a sample.

    Attributes
    ----------
    provider : str
        The embedding provider.
    emb, warm : EmbeddingReport
        This build's embedding and the rerun that reads every vector from the cache.
    calib : dict of int to EmbeddingReport
        Cold embeddings of one sample in throw-away caches, by truncation (``max_tokens`` and twice it); empty
        when the stand-in carried its own vectors.
    max_tokens, pool_size : int
        The truncation and the pool.
    """

    provider: str
    emb: pool_embedding.EmbeddingReport
    warm: pool_embedding.EmbeddingReport
    calib: Mapping[int, pool_embedding.EmbeddingReport]
    max_tokens: int
    pool_size: int

    @property
    def measured(self) -> bool:
        """Whether anything was embedded (the synthetic stand-in carries precomputed vectors)."""
        return self.emb.provider != "precomputed"

    @property
    def cold(self) -> pool_embedding.EmbeddingReport:
        """The cold run the rate is read from: this build when it embedded, else the sample at ``max_tokens``."""
        return self.emb if (self.emb.cold or not self.measured) else self.calib[self.max_tokens]

    def runs_table(self) -> pd.DataFrame:
        """One column per run: ``texts``, ``distinct texts``, ``embedded``, ``seconds``, ``texts per second``."""
        runs = {"this build": self.emb, "rerun from the cache": self.warm}
        runs.update({f"cold sample, {t} tokens": r for t, r in self.calib.items()})
        return pd.DataFrame(
            {k: [r.n_texts, r.n_unique, r.n_embedded, r.seconds, r.texts_per_second] for k, r in runs.items()},
            index=["texts", "distinct texts", "embedded", "seconds", "texts per second"],
        )

    def options(self) -> dict[str, tuple[int, float]]:
        """The settings compared, by name: (texts to embed, cold texts per second); empty when not measured."""
        if not self.measured:
            return {}
        n, rate, t, big = self.emb.n_unique, self.calib, self.max_tokens, 2 * self.pool_size
        return {
            f"pool {self.pool_size}, {t} tokens (chosen)": (n, rate[t].texts_per_second),
            f"pool {self.pool_size}, {2 * t} tokens": (n, rate[2 * t].texts_per_second),
            f"pool {big} (m up to {big}), {t} tokens": (2 * n, rate[t].texts_per_second),
        }

    def options_table(self) -> pd.DataFrame:
        """One row per setting: ``texts``, ``cold texts per second``, ``projected cold minutes`` (texts / rate)."""
        opts = self.options()
        return pd.DataFrame(
            {"texts": {k: v[0] for k, v in opts.items()}, "cold texts per second": {k: v[1] for k, v in opts.items()},
             "projected cold minutes": {k: v[0] / v[1] / 60 for k, v in opts.items()}}
        )  # fmt: skip

    def quantities(self) -> dict[str, int | str]:
        """The run in words (:func:`~blindspot.perspective.verdicts.embedding_words`: ``provider``,
        ``embed_state``, ``cold_rate``, ``warm_rate``), ``n_texts``, ``embed_seconds``, ``cold_n``, ``max_tokens``,
        ``max_tokens2``, the cold rates ``rate_lo`` and ``rate_hi`` (at the truncation and twice it) and the
        projected cold minutes ``proj_chosen``, ``proj_long``, ``proj_pool`` ("not measured" on the stand-in)."""
        out = dict(verdicts.embedding_words(self.emb, self.cold, self.warm, self.measured, self.provider))
        out |= {"n_texts": self.emb.n_unique, "embed_seconds": f"{self.emb.seconds:.1f}",
                "cold_n": self.cold.n_embedded, "max_tokens": self.max_tokens, "max_tokens2": 2 * self.max_tokens}  # fmt: skip
        keys = ("rate_lo", "rate_hi", "proj_chosen", "proj_long", "proj_pool")
        if not self.measured:
            return out | dict.fromkeys(keys, "not measured")
        rates = [self.calib[t].texts_per_second for t in (self.max_tokens, 2 * self.max_tokens)]
        proj = [n / r / 60 for n, r in self.options().values()]
        return out | dict(zip(keys, [f"{x:.0f}" for x in rates] + [f"{x:.1f}" for x in proj]))


def embed_pool_timed(
    text_rows: pd.DataFrame,
    provider: str,
    max_tokens: int,
    pool_size: int,
    cache_dir: str | None = None,
    sample_size: int = 200,
    seed: int = 0,
) -> tuple[pd.DataFrame, EmbeddingCost]:
    """Embed the pool (:func:`~blindspot.perspective.pool_embedding.embed_pool`), again from the cache, and, when
    something is embedded, a random sample of ``sample_size`` responses cold at ``max_tokens`` and twice it
    (:func:`~blindspot.perspective.pool_embedding.cold_throughput`, throw-away caches).

    Returns
    -------
    (records, EmbeddingCost)
        The vector records of the pool and the cost of embedding them.
    """
    kw = dict(provider=provider, max_tokens=max_tokens, cache_dir=cache_dir)
    records, emb = pool_embedding.embed_pool(text_rows, **kw)
    _, warm = pool_embedding.embed_pool(text_rows, **kw, progress=False)
    calib = {}
    if emb.provider != "precomputed":
        sample = text_rows.response.sample(sample_size, random_state=seed)
        calib = {
            t: pool_embedding.cold_throughput(sample, provider=provider, max_tokens=t)
            for t in (max_tokens, 2 * max_tokens)
        }
    return records, EmbeddingCost(provider, emb, warm, calib, max_tokens, pool_size)


# -- what a response embedding is about ---------------------------------------------------------------
def share_quantities(shares: VarianceShares) -> dict[str, float]:
    """The shares of the response vectors' sum of squares in percent: ``query`` (between instructions), ``model``
    (between models), ``resid`` (model x instruction and noise)."""
    return {"query": 100 * shares.query, "model": 100 * shares.model, "resid": 100 * shares.residual}


def shares_table(shares: VarianceShares) -> pd.Series:
    """The three shares (fractions), named as a reader reads them."""
    return pd.Series(
        {"instruction (between queries)": shares.query, "model (between models)": shares.model,
         "model x instruction and noise": shares.residual},
        name="share of the sum of squares",
    )  # fmt: skip


# -- the win-rate sweeps ----------------------------------------------------------------------------------
def protocol_tables(study: winrate.WinRateStudy, eval_set: str = "scored") -> pd.DataFrame:
    """'MAE ± se' by method and m (:meth:`~blindspot.perspective.winrate.WinRateStudy.table`) for each target
    and holdout, stacked under ``"<target>, holdout <holdout>"``, on the ``eval_set`` models."""
    tables = {f"{t}, holdout {h}": study.table(t, h, eval_set=eval_set) for t in winrate.TARGETS for h in ("model", "family")}  # fmt: skip
    return pd.concat(tables, axis=0)


@dataclass(frozen=True)
class WinRateView:
    """The paired and unpaired m-sweeps of the win-rate estimators, read as the chapter reads them.

    Attributes
    ----------
    study : WinRateStudy
        The paired sweep (every model answers the same m instructions per task).
    unpaired : WinRateStudy
        DKPS and PKPS when each model answers its own m instructions.
    ms : tuple of int
        The paired sweep's m.
    n_trials : int
        Seeds of the sweeps.
    n_scored, n_population : int
        Scored models and population models (the two evaluation sets).
    query_share : float
        The instruction's share of the response vectors' sum of squares (for the unpaired verdict).
    """

    study: winrate.WinRateStudy
    unpaired: winrate.WinRateStudy
    ms: tuple[int, ...]
    n_trials: int
    n_scored: int
    n_population: int
    query_share: float

    def unpaired_table(self) -> pd.DataFrame:
        """The unpaired sweep on every population model, family held out, for each target."""
        return pd.concat({t: self.unpaired.table(t, "family", eval_set="all") for t in winrate.TARGETS}, axis=0)

    def timings_table(self) -> pd.DataFrame:
        """Fit and predict seconds (``fit_s``, ``predict_s``) per (method, holdout) of the paired sweep."""
        return self.study.timings.set_index(["method", "holdout"])[["fit_s", "predict_s"]].round(3)

    def _sweep(self) -> dict[str, float]:
        s, m_hi = self.study, max(self.ms)
        out = {}
        for meth in winrate.METHODS:
            for h in ("model", "family"):
                out[f"mae1_{meth}_{h}"] = s.mae(meth, 1, holdout=h)
                out[f"maehi_{meth}_{h}"] = s.mae(meth, m_hi, holdout=h)
        out |= {"lc1_SampleScore": s.mae("SampleScore", 1, target="lc_win_rate"),
                "lchi_SampleScore": s.mae("SampleScore", m_hi, target="lc_win_rate"),
                "mae1_PKPS_all": s.mae("PKPS", 1, eval_set="all"), "mae1_LRMC_all": s.mae("LRMC", 1, eval_set="all")}  # fmt: skip
        return out

    def _unpaired(self) -> dict[str, float | str]:
        s, u = self.study, self.unpaired
        diff, se = u.difference("PKPS", "DKPS", 1, eval_set="all")
        lrmc = s.mae("LRMC", 1, eval_set="all")
        out = {"unconnected_m1": 100 * u.connectivity.groupby("m").dkps_unconnected.mean().loc[1]}
        for meth in ("DKPS", "PKPS"):
            out |= {f"un1_{meth}": u.mae(meth, 1, eval_set="all"), f"pa1_{meth}": s.mae(meth, 1, eval_set="all")}
        return out | {
            "un1_LRMC": lrmc, "un_diff": diff, "un_se": se, "un_verdict": verdicts.beats_text(diff, se),
            "adv_paired": lrmc - s.mae("PKPS", 1, eval_set="all"), "adv_unpaired": lrmc - u.mae("PKPS", 1, eval_set="all"),
        }  # fmt: skip

    def best(self) -> dict[int, str]:
        """The method of lowest MAE at each m (win rate, family held out, scored models)."""
        return {m: min(winrate.METHODS, key=lambda k: self.study.mae(k, m)) for m in self.ms}

    def _paper(self) -> dict[str, float | str]:
        p = {k: self.study.mae(k, 1) for k in ("SampleScore", "DKPS", "PKPS")}
        dd, dse = self.study.difference("DKPS", "PKPS", 1)
        best = self.best()
        return {
            "ratio": p["SampleScore"] / p["DKPS"], "gain": (p["DKPS"] - p["PKPS"]) / p["DKPS"],
            "dp_diff": dd, "dp_se": dse, "dp_verdict": verdicts.paired_text(dd, dse),
            "ens_best_at": ", ".join(str(m) for m, b in best.items() if b == "Ensemble") or "none", "best_m1": best[1],
        }  # fmt: skip

    def quantities(self) -> dict[str, float | int | str]:
        """``n_trials``, ``m_hi``; ``mae1_<method>_<holdout>`` and ``maehi_<method>_<holdout>`` (MAE in points at
        m = 1 and the largest m, win rate, scored models), ``lc1_SampleScore``/``lchi_SampleScore`` (LC target),
        ``mae1_PKPS_all``/``mae1_LRMC_all`` (every population model); unpaired: ``unconnected_m1`` (% of pairs
        without a common instruction), ``un1_<method>`` and ``pa1_<method>``, ``un1_LRMC``, ``un_diff``/``un_se``
        (PKPS - DKPS) and ``un_verdict``, ``adv_paired``/``adv_unpaired`` (PKPS's advantage over the mean); the
        paper's comparison: ``ratio`` (SampleScore / DKPS), ``gain`` ((DKPS - PKPS) / DKPS), ``dp_diff``/``dp_se``
        (DKPS - PKPS) and ``dp_verdict``, ``ens_best_at`` and ``best_m1``; the cost: ``time_m``, ``pkps_fit``,
        ``ens_fit`` (seconds), ``worker_mb``."""
        tm = self.timings_table()
        cost = {"time_m": int(self.study.timings.m.iloc[0]), "pkps_fit": tm.loc[("PKPS", "model"), "fit_s"],
                "ens_fit": tm.loc[("Ensemble", "model"), "fit_s"],
                "worker_mb": f"{max(self.study.peak_mb, self.unpaired.peak_mb):.0f}"}  # fmt: skip
        head = {"n_trials": self.n_trials, "m_hi": max(self.ms)}
        return head | self._sweep() | self._unpaired() | self._paper() | cost

    def paper_table(self, helm: Mapping[str, float]) -> pd.DataFrame:
        """The paper's HELM MAE at m = 1 (0-1 scale, ``helm`` by method) beside the book's AlpacaEval MAE (points)."""
        book = pd.Series({k: self.study.mae(k, 1) for k in winrate.METHODS})
        t = pd.DataFrame(
            {"paper (HELM, m = 1, 0-1 scale)": pd.Series(helm), "book (AlpacaEval win rate, m = 1, points)": book}
        )
        return t.reindex(list(winrate.METHODS) + ["IRT"])

    def ordering(self) -> Verdict:
        """The PKPS paper's ordering at m = 1 (:func:`~blindspot.perspective.verdicts.alpaca_ordering`)."""
        p = {k: self.study.mae(k, 1) for k in ("SampleScore", "DKPS", "PKPS", "Ensemble")}
        dd, dse = self.study.difference("DKPS", "PKPS", 1)
        return verdicts.alpaca_ordering(p, self.n_trials, self.n_scored, dd, dse)

    def unpaired_verdict(self) -> Verdict:
        """PKPS beats DKPS on unpaired responses (:func:`~blindspot.perspective.verdicts.unpaired_beats`)."""
        un = {k: self.unpaired.mae(k, 1, eval_set="all") for k in ("PKPS", "DKPS")}
        diff, se = self.unpaired.difference("PKPS", "DKPS", 1, eval_set="all")
        lrmc = self.study.mae("LRMC", 1, eval_set="all")
        return verdicts.unpaired_beats(un, diff, se, self.n_population, lrmc, self.query_share)

    def claims(self, data: ScoreTable | Sequence[ScoreTable] | None) -> dict[str, ClaimValue]:
        """``AE.T1.ratio.m1`` (SampleScore / DKPS) and ``AE.T1.pkps_gain.m1`` ((DKPS - PKPS) / DKPS) at m = 1, on
        ``data`` (a synthetic stand-in, or None)."""
        p = {k: self.study.mae(k, 1) for k in ("SampleScore", "DKPS", "PKPS")}
        dd, dse = self.study.difference("DKPS", "PKPS", 1)
        q = self._paper()
        gain_ev = (
            f"DKPS {p['DKPS']:.2f}, PKPS {p['PKPS']:.2f} points at m = 1; DKPS - PKPS = {dd:+.2f} ± {dse:.2f} points, "
            "paired over models"
        )
        return {
            "AE.T1.ratio.m1": ClaimValue(q["ratio"], data, f"SampleScore {p['SampleScore']:.2f} / DKPS {p['DKPS']:.2f} points at m = 1"),
            "AE.T1.pkps_gain.m1": ClaimValue(q["gain"], data, gain_ev),
        }  # fmt: skip


# -- models that game the judge ------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeGaming:
    """The excluded models in the population's perspective space, against their leaderboard win rates.

    Attributes
    ----------
    pic : AdversarialPicture
        :func:`~blindspot.perspective.adversarial.adversarial_picture` of every embedded model.
    median_win_rate : float
        The population's median leaderboard win rate (where NullModel's prediction is read against).
    max_tokens : int
        The embedding's truncation (named in the length variants' sentence).
    """

    pic: AdversarialPicture
    median_win_rate: float
    max_tokens: int

    def table(self) -> pd.DataFrame:
        """The excluded models by decreasing gap: ``kind``, ``y``, ``y_hat``, ``gap``, ``gap_z``, ``isolation``,
        ``neighbours`` (see :class:`~blindspot.perspective.adversarial.AdversarialPicture`)."""
        cols = ["kind", "y", "y_hat", "gap", "gap_z", "isolation", "neighbours"]
        return self.pic.excluded[cols].sort_values("gap_z", ascending=False)

    def quantities(self) -> dict[str, float | str]:
        """``mae`` and ``gap_sd`` (the population's), ``view_r2``; NullModel's ``null_y``, ``null_hat``, ``null_z``,
        ``null_iso``, ``null_nb`` and ``null_where`` ('weak'/'strong'); gpt4_gamed's ``gamed_y``, ``gamed_hat``,
        ``gamed_verdict``; ``variants_text`` and ``next_text`` (the length variants and the next-largest gap)."""
        ex = self.pic.excluded
        nm = (
            ex.loc["NullModel"]
            if "NullModel" in ex.index
            else pd.Series(np.nan, index=ex.columns).fillna({"neighbours": "none"})
        )
        gm = ex.loc["gpt4_gamed"] if "gpt4_gamed" in ex.index else None
        vg = self.pic.length_variant_gaps().reindex(["verbose", "concise"])
        gaps = " and ".join(
            f"the {k} variants {vg.loc[k, 'gap']:+.1f}" for k in vg.index if np.isfinite(vg.loc[k, "gap"])
        )
        others = ex.drop(index="NullModel", errors="ignore").sort_values("gap_z", ascending=False)
        return {
            "mae": self.pic.population_mae, "gap_sd": self.pic.gap_sd, "view_r2": self.pic.view_r2,
            "null_y": nm["y"], "null_hat": nm["y_hat"], "null_z": nm["gap_z"], "null_iso": nm["isolation"],
            "null_nb": nm["neighbours"], "null_where": verdicts.strength_word(nm["y_hat"], self.median_win_rate),
            "gamed_y": gm.y if gm is not None else np.nan, "gamed_hat": gm.y_hat if gm is not None else np.nan,
            "gamed_verdict": verdicts.gamed_text(None if gm is None else gm.gap_z),
            "variants_text": verdicts.variants_text(ex.base_rank.dropna(), gaps, self.max_tokens),
            "next_text": verdicts.next_text(others),
        }  # fmt: skip


def judge_gaming(pic: AdversarialPicture, board: ScoreTable, population: Sequence[str], max_tokens: int) -> JudgeGaming:
    """:class:`JudgeGaming` of ``pic``, with the median leaderboard win rate of the ``population`` models of
    ``board`` (:func:`~blindspot.perspective.alpaca.leaderboard`) as the line between weak and strong."""
    return JudgeGaming(pic, float(board.scores.loc[list(population), "win_rate"].median()), max_tokens)
