"""What the chapters of Part V conclude from their results, decided here and tested, never in a notebook.

Each function takes computed results (query-efficiency studies, embedding runs, the Every Eval Ever round
trip, sparse-matrix completions) and returns either a :class:`~blindspot.core.verdict.Verdict` (does a
statement of the papers hold, with the evidence that decided it, for the chapter's ledger) or the words
and sentences the chapter shows. The comparisons and thresholds behind them live here, next to their tests
(``tests/perspective/test_perspective_verdicts.py``).

References
----------
The PKPS paper's Table 1 and §§4–5 (query efficiency; DKPS, Acharyya et al. 2024); the blind-spot paper's
App. H.50 (the Epoch AI matrix); Mazumder, Hastie and Tibshirani (2010) for the completion; the chapters
of Part V of the book.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
from scipy import stats

from blindspot.core.verdict import STATISTICAL, StatTest, Verdict, judge

__all__ = [
    "flat_word",
    "synthetic_ordering",
    "source_name",
    "survey_words",
    "identical_word",
    "validity_text",
    "agree_within",
    "n_scored_models",
    "provider_name",
    "embed_state",
    "embedding_words",
    "same_each_seed",
    "beats_text",
    "strength_word",
    "gamed_text",
    "variants_text",
    "next_text",
    "ordering_text",
    "alpaca_ordering",
    "unpaired_beats",
    "paired_text",
    "completion_text",
    "cv_text",
    "block_text",
    "calibration_text",
    "summary_bullets",
    "intervals_exclude",
    "exclusion_text",
]


# -- synthetic studies (chapters on perspective spaces and query efficiency) --------------------------
def flat_word(mae_hi: float, mae_1: float, share: float = 0.8) -> str:
    """'does not' when the error at many queries stays above ``share`` of the error at one, else 'does too'."""
    return "does not" if mae_hi > share * mae_1 else "does too"


def synthetic_ordering(mae: Mapping[str, float], n_trials: int) -> Verdict:
    """The PKPS paper's Table 1 ordering at m = 1: SampleScore >> DKPS > PKPS >= Ensemble, '>>' read as 1.5 times."""
    p = mae
    order = f"{p['SampleScore']:.3f} >> {p['DKPS']:.3f} > {p['PKPS']:.3f} >= {p['Ensemble']:.3f}"
    return Verdict(
        bool(p["SampleScore"] >= 1.5 * p["DKPS"] and p["DKPS"] > p["PKPS"] >= p["Ensemble"]),
        f"{order} at m = 1 ({n_trials} seeds); SampleScore / DKPS = {p['SampleScore'] / p['DKPS']:.2f}",
        book=f"{order} ({n_trials} seeds)",
    )


# -- Every Eval Ever ---------------------------------------------------------------------------------------
def source_name(synthetic: bool) -> str:
    """Where the records came from: 'AlpacaEval', or 'synthetic placeholder' for the stand-in."""
    return "synthetic placeholder" if synthetic else "AlpacaEval"


def survey_words(survey: pd.DataFrame | None) -> dict[str, str]:
    """The survey of the staged Every Eval Ever files in words (None: the examples are not available)."""
    if survey is None:
        return {
            "eee_survey_sentence": "The staged examples are not available here, so there is nothing to survey.",
            "eee_layouts": "none (the staged examples are not available here)",
            "eee_all_read": "no staged file could be read (the examples are not available here)",
        }
    n_full = int((survey.records_read == survey.rows).sum())
    return {
        "eee_survey_sentence": f"{n_full} of {len(survey)} staged files are read in full, and "
        f"{int((survey.schema_errors > 0).sum())} fail the 0.3.0 schema; those are read through the legacy rules.",
        "eee_layouts": ", ".join(sorted(survey.schema_version.astype(str).unique())),
        "eee_all_read": "every staged file is read in full"
        if n_full == len(survey)
        else f"{n_full} of {len(survey)} staged files are read in full",
    }


def identical_word(identical: bool) -> str:
    """'identical' or 'NOT identical' (a round trip)."""
    return "identical" if identical else "NOT identical"


def validity_text(errors: object | None, n_written: int, n_invalid: int) -> str:
    """How many written files pass the schema, or that the schemas were not available."""
    if errors is None:
        return "not checked (the schemas are not available here)"
    return f"{n_written - n_invalid} of {n_written} files valid"


def agree_within(maxdiff: float, tol: float = 1e-12) -> str:
    """'agree' when the largest difference is below ``tol``, else 'do not agree'."""
    return "agree" if maxdiff < tol else "do not agree"


# -- AlpacaEval ----------------------------------------------------------------------------------------------
def n_scored_models(models: pd.DataFrame) -> int:
    """Models with at least one judge-scored response (``n_scored > 0``)."""
    return int((models.n_scored > 0).sum())


def provider_name(local_available: bool) -> str:
    """The embedding provider a chapter uses: the local sentence-transformers model when it is installed, else
    the hash embedding (a stand-in that runs anywhere)."""
    return "sentence-transformers" if local_available else "hash"


def embed_state(emb: object) -> str:
    """The state of the embedding cache for one run: how many texts were embedded cold, or that every vector came
    from the cache."""
    return f"cold: {emb.n_embedded} texts embedded" if emb.cold else "warm: everything from the cache"


def embedding_words(
    emb: object, cold: object | None, warm: object | None, measured: bool, provider: str
) -> dict[str, str]:
    """The embedding run in words: provider, state of the cache, cold and warm rates ('not measured' when the
    synthetic stand-in carried its own vectors). With ``warm`` None (a chapter that times no warm rerun) there is
    no ``warm_rate``."""
    words = {
        "provider": provider if measured else "none (the synthetic stand-in carries vectors)",
        "embed_state": embed_state(emb),
        "cold_rate": f"{cold.texts_per_second:.0f}" if measured else "not measured",
    }
    if warm is not None:
        words["warm_rate"] = f"{warm.texts_per_second:.0f}" if measured else "not measured"
    return words


def same_each_seed(chosen: Mapping[object, str], what: str = "flagship") -> str:
    """Whether a choice made per seed (the flagship, from each seed's anchors) is the same in every seed, in words:
    'the same in every seed', or how many seeds chose the first seed's and what the others chose."""
    values = list(chosen.values())
    if not values:
        raise ValueError(f"no seed chose a {what}: pass {{seed: {what}}} with at least one seed")
    first = values[0]
    if all(v == first for v in values):
        return "the same in every seed"
    others = sorted({v for v in values if v != first})
    n_same = sum(v == first for v in values)
    return f"chosen by {n_same} of {len(values)} seeds (the others chose {', '.join(others)})"


def beats_text(diff: float, se: float, better: str = "PKPS", other: str = "DKPS") -> str:
    """Whether ``better`` beats ``other`` (diff = better - other, in error: negative is better) and by how many
    standard errors."""
    if diff >= 0:
        return f"{better} does not beat {other} here"
    size = "less than two standard errors" if -diff < 2 * se else "more than two standard errors"
    return f"{better} beats {other} here, by {size}"


def strength_word(value: float, median: float) -> str:
    """'weak' below the population median, else 'strong'."""
    return "weak" if value < median else "strong"


def gamed_text(gap_z: float | None) -> str:
    """What a gamed submission's gap (in standard deviations of the population's error) says, in words."""
    if gap_z is None:
        return "not in these data"
    if gap_z > 2:
        return "the judge rewards it far beyond its answers"
    if gap_z < -2:
        return "it scores far below the models that answer like it"
    return "within the population's usual error: its attempt did not pay on this judge"


def variants_text(ranks: pd.Series, gaps: str, max_tokens: int, near: int = 3) -> str:
    """How close the concise and verbose variants answer to their base model, and how far their win rates are."""
    if len(ranks) and gaps:
        return (
            f"Of the {len(ranks)} concise and verbose variants whose base model is in the population, "
            f"{int((ranks <= near).sum())} have it among their three nearest population models: at {max_tokens} word "
            f"pieces a variant's answers start much like its base model's. Their win rates do not: against the models "
            f"that answer like them, {gaps} points on average."
        )
    return (
        "None of the concise and verbose variants has its base model among these population models, so this run "
        "cannot compare them with it."
    )


def next_text(others: pd.DataFrame) -> str:
    """The excluded model with the largest gap after NullModel, and why (``others`` sorted by ``gap_z``)."""
    if not len(others):
        return "No other excluded model is in this run."
    nxt = others.iloc[0]
    why = (
        ": length the judge rewards and a truncated embedding cannot see."
        if nxt.kind == "length variant" and nxt.gap > 0
        else "."
    )
    return (
        f"After NullModel the largest gap belongs to {others.index[0]} ({nxt.y:.1f} on the leaderboard against "
        f"{nxt.y_hat:.1f} predicted, {nxt.gap_z:+.1f} standard deviations)" + why
    )


def ordering_text(mae: Mapping[str, float], unit: str = "points") -> str:
    """The four methods' errors in Table 1's order, each pair joined by '>' or '<='."""
    p = mae
    names = ("SampleScore", "DKPS", "PKPS", "Ensemble")
    parts = [f"{p[names[0]]:.1f}"]
    for a, b in zip(names, names[1:]):
        parts += [">" if p[a] > p[b] else "<=", f"{p[b]:.1f}"]
    return " ".join(parts) + f" {unit}"


def alpaca_ordering(mae: Mapping[str, float], n_trials: int, n_scored: int, dd: float, dse: float) -> Verdict:
    """The PKPS paper's ordering on AlpacaEval at m = 1: SampleScore above DKPS, Ensemble at most PKPS."""
    p = mae
    order = ordering_text(p)
    return Verdict(
        bool(p["SampleScore"] > p["DKPS"] and p["PKPS"] >= p["Ensemble"]),
        f"{order} at m = 1 ({n_trials} seeds; {n_scored} scored models, family held out); "
        f"DKPS - PKPS = {dd:+.2f} ± {dse:.2f} points, paired over models",
        book=f"{order} ({n_trials} seeds)",
    )


def unpaired_beats(
    un: Mapping[str, float], diff: float, se: float, n_models: int, lrmc: float, query_share: float
) -> Verdict:
    """PKPS beats DKPS on unpaired responses (PKPS - DKPS < 0 at m = 1), judged on a 95% interval.

    The difference is paired over the ``n_models`` models both methods predict (seed-averaged absolute
    errors); its interval is ``diff ± t_{0.975, n-1} se`` (Student's t). The statement holds where the
    interval lies below 0, fails where it lies at or above 0, and is otherwise not resolved at 95%
    (:func:`~blindspot.core.verdict.judge`).

    Parameters
    ----------
    un : mapping
        MAE (points) of 'PKPS' and 'DKPS'.
    diff, se : float
        PKPS - DKPS (points) and its standard error over models.
    n_models : int
        Models in the paired difference.
    lrmc : float
        The population mean's MAE (points), for the evidence.
    query_share : float
        Share of the answers' variation due to the instruction, for the evidence.

    Returns
    -------
    Verdict
        Statistical.
    """
    half = float(stats.t.ppf(0.975, n_models - 1)) * se
    test = StatTest(
        f"paired t interval over {n_models} models (seed-averaged errors)", diff, (diff - half, diff + half)
    )
    return Verdict(
        judge(test, "<", 0.0),
        f"unpaired m = 1, {n_models} models, family held out: PKPS {un['PKPS']:.1f} vs DKPS "
        f"{un['DKPS']:.1f} points (PKPS - DKPS {diff:+.2f} ± {se:.2f}, 95% interval "
        f"[{diff - half:+.2f}, {diff + half:+.2f}]), the population mean (LRMC) "
        f"{lrmc:.1f}; answers to different instructions differ mostly by "
        f"instruction ({100 * query_share:.0f}% of the variation)",
        book=f"PKPS {un['PKPS']:.1f} vs DKPS {un['DKPS']:.1f} points (difference {diff:+.2f} ± {se:.2f})",
        basis=STATISTICAL,
        test=test,
    )


def paired_text(dd: float, dse: float) -> str:
    """Paired responses: whether PKPS is better than DKPS (dd = DKPS - PKPS) and by how many standard errors."""
    if dd <= 0:
        return "the paired baseline is at least as good"
    return "PKPS is the better of the two, by " + (
        "less than two standard errors" if dd < 2 * dse else "more than two standard errors"
    )


# -- sparse leaderboards (Epoch AI, App. H.50) ---------------------------------------------------------------
def completion_text(board: object, comp_set: object, log_cols: Sequence[str]) -> str:
    """What the completable matrix keeps and how its columns are put on one scale."""
    dropped_b = (
        ("the benchmarks " + ", ".join(comp_set.dropped_benchmarks)) if comp_set.dropped_benchmarks else "no benchmark"
    )
    return (
        f"{board.name} has {100 * board.missing_fraction:.1f}% of its cells empty. The completable matrix keeps "
        f"{comp_set.shape[0]} models and {comp_set.shape[1]} benchmarks, of which "
        f"{100 * comp_set.observed_fraction:.1f}% of cells are observed; {len(comp_set.dropped_models)} models and "
        f"{dropped_b} are left out.\n\n"
        "**Scales.** Soft-Impute penalises the nuclear norm, which is not scale-invariant, and a leaderboard's "
        "columns may be accuracies in [0, 1], percentages, Elo ratings or minutes. So each column is put on "
        "z-scores of its observed values first (after a log10 for positive, right-skewed columns spanning two "
        f"decades or more: {', '.join(log_cols) or 'none'}), completed, and mapped back. Centring is refitted on "
        "every training set; the column's spread only sets the unit."
    )


def _additive_as_good(cv: object, slack: float = 1.05) -> bool:
    return bool(cv.mae["twoway"] <= slack * cv.mae["lrmc"])


def cv_text(cv: object, n_benchmarks: int) -> str:
    """The completion's cross-validation in words; the additive model counts as 'about as good' within 5%."""
    return (
        f"On {len(cv.cells)} held-out predictions the completion's mean absolute error is {cv.mae['lrmc']:.3f} "
        f"standard deviations, against {cv.mae['mean']:.3f} for the per-benchmark mean: a ratio of {cv.ratio:.2f} "
        f"(95% bootstrap over models [{cv.ratio_lo:.2f}, {cv.ratio_hi:.2f}]). It beats the mean on "
        f"{int((cv.per_benchmark.ratio < 1).sum())} of {n_benchmarks} benchmarks. The additive model's error is "
        f"{cv.mae['twoway']:.3f}: "
        + (
            "two numbers per cell (one for the model, one for the benchmark) predict about as well as the low-rank "
            "fit, so the observed cells say little about any direction beyond the general one. "
            if _additive_as_good(cv)
            else "the low-rank fit finds directions beyond a model's overall strength and a benchmark's difficulty. "
        )
        + f"The completion's $\\lambda$ varied between {cv.lambdas.min():.3f} and {cv.lambdas.max():.3f} over the folds."
    )


def block_text(im: object, same: pd.DataFrame, n_front: int, block_spec: object, block_cv: object) -> str:
    """The paper's rule's block: mean imputation against completion, on all its models and on its frontier."""
    front_ok = n_front >= 3  # a correlation matrix needs three models
    front_text = (
        f"frontier of {n_front} models by raw mean: {same.iloc[0, 1]:.2f}"
        if front_ok
        else f"its frontier by raw mean has {n_front} models, too few for a correlation matrix"
    )
    return (
        f"The block is {im.shape[0]} × {im.shape[1]} with {100 * im.imputed_fraction:.0f}% of its cells imputed. "
        f"Mean imputation gives $\\deff$ = {same.iloc[0, 0]:.2f} ({front_text}); completing the same cells gives "
        f"{block_spec.d_eff:.2f} [{block_spec.lo:.2f}, {block_spec.hi:.2f}]"
        + (f" ({same.iloc[1, 1]:.2f} on the same frontier rows)" if front_ok else "")
        + f". On this block, too, the completion's cross-validated error is {block_cv.ratio:.2f} of the mean's (the "
        f"additive model: {block_cv.mae['twoway'] / block_cv.mae['mean']:.2f})."
    )


def _error(cal: pd.DataFrame, est: str) -> float:
    return float((cal[f"d_eff_{est}"] - cal.d_eff_true).abs().mean())


def calibration_text(
    cal_block: pd.DataFrame | None, cal_hub: pd.DataFrame | None, mean_imputed: float, implied: float | None
) -> str:
    """What the calibrations on the two patterns of holes say about mean imputation and completion."""
    parts = []
    if cal_block is not None:
        c0 = cal_block.groupby("tau").mean()
        parts.append(
            f"Through the paper's rule's holes, a matrix whose true $\\deff$ is {c0.d_eff_true.iloc[0]:.1f} reads "
            f"{c0.d_eff_mean.iloc[0]:.1f} after mean imputation and {c0.d_eff_lrmc.iloc[0]:.1f} after completion. "
            f"Over this calibration the mean absolute error of the $\\deff$ estimate is {_error(cal_block, 'mean'):.1f} "
            f"for mean imputation and {_error(cal_block, 'lrmc'):.1f} for the completion. "
            + (
                f"A mean-imputed {mean_imputed:.2f} lies outside the range calibrated on this pattern."
                if implied is None
                else f"Read backwards, a mean-imputed {mean_imputed:.2f} on this pattern is what a true $\\deff$ of "
                f"about {implied:.1f} produces."
            )
        )
    if cal_hub is not None:
        parts.append(
            f"On the completable pattern the mean absolute errors are {_error(cal_hub, 'mean'):.1f} (mean "
            f"imputation) and {_error(cal_hub, 'lrmc'):.1f} (completion)."
        )
    parts.append(
        "The synthetic truths are Gaussian and their holes are placed independently of the values; a real "
        "leaderboard's holes are not random (new benchmarks are run on new models), so the calibration "
        "shows the direction and size of the bias, not its exact value."
    )
    return " ".join(parts)


def summary_bullets(
    board_name: str,
    cv: object | None,
    spec_all: object | None,
    paper_all: float | None,
    block: tuple[float, float] | None,
    cal_block: pd.DataFrame | None,
) -> list[str]:
    """The chapter's findings as bullets: the completion's worth, the completed d_eff (beside the paper's when
    given), the rule's block, and the calibrated bias of mean imputation."""
    bullets = []
    if cv is not None:
        bullets.append(
            f"The completion is worth doing when its error is well below the per-benchmark mean's: here the "
            f"ratio is {cv.ratio:.2f}, and an additive model does "
            + ("as well" if _additive_as_good(cv) else "worse")
            + f" ({cv.mae['twoway']:.3f} against {cv.mae['lrmc']:.3f})."
        )
        bullets.append(
            f"Completed, {board_name} has $\\deff$ ≈ {spec_all.d_eff:.1f} [{spec_all.lo:.1f}, {spec_all.hi:.1f}]"
            + ("" if paper_all is None else f" where the paper has {paper_all}")
            + "."
        )
    if block is not None:
        bullets.append(f"The paper's rule's block: {block[0]:.2f} mean-imputed, {block[1]:.2f} completed.")
    if cal_block is not None:
        bias = float((cal_block.d_eff_mean - cal_block.d_eff_true).mean())
        bullets.append(
            f"Through the block's pattern of holes mean imputation misstates a known $\\deff$ by {bias:+.1f} on "
            f"average; the completion by {float((cal_block.d_eff_lrmc - cal_block.d_eff_true).mean()):+.1f}."
        )
    return bullets


def _inside(x: float, spec: object) -> bool:
    return bool(spec.lo <= x <= spec.hi)


def intervals_exclude(
    paper_all: float, paper_front: float, spec_all: object, spec_front: object, block_spec: object | None
) -> bool:
    """Whether every completion-based interval excludes the paper's values (all models, frontier, the rule's block)."""
    excl = not _inside(paper_all, spec_all) and not _inside(paper_front, spec_front)
    if block_spec is not None:
        excl = excl and not _inside(paper_all, block_spec)
    return excl


def exclusion_text(excl: bool, paper_all: float, paper_front: float) -> str:
    """Whether the paper's mean-imputed measurement survives a better estimator, in words."""
    return (
        f"The completion-based intervals {'exclude' if excl else 'do not all exclude'} the paper's "
        f"{paper_all} and {paper_front}: its measurement "
        + ("does not survive a better estimator." if excl else "is within reach of a better estimator.")
    )
