"""What each column of a score file is: a benchmark, metadata, a row number, or an aggregate.

The loader (:mod:`blindspot.data.tables`) asks this module, column by column, before it builds a
score table. Every decision that changes what counts as a benchmark comes back with a reason, so
the loader can say it in the table's notes instead of acting silently:

* **numbers written as text** are parsed once, by :mod:`blindspot.data.profile` (each column's
  :class:`~blindspot.data.profile.ColumnProfile`, which every rule here reads; :func:`parse_number_column` and
  :data:`NA_TOKENS` are handed on from there);
* **row numbers and ids** (pandas' ``Unnamed: 0``, columns named ``id``/``index``/``rank``,
  integers that are a permutation of a consecutive range, dates) are not benchmarks
  (:func:`index_like_reason`);
* **aggregates** (a column named ``mean``/``average``/``overall``..., one whose name carries such a
  word with a qualifier, ``overall_hard`` or ``avg_chat``, or one that the other columns reproduce
  almost exactly with non-negative weights, i.e. a weighted mean of them) and **copies** of another
  column (|r| = 1, or |r| >= 0.999 on at least 20 rows: a rounded, offset or rescaled copy) are not
  benchmarks either (:func:`name_is_aggregate`, :func:`aggregate_word`, :func:`dependent_columns`);
* **integer or 0/1 metadata** (a year, a release number, a flag such as ``is_open``, a shot count):
  integers with few distinct values, years, or only 0 and 1 (:func:`metadata_values_reason`).

What each row is (a model, or a summary row) and which cells cannot be scores: :mod:`blindspot.data.rows`.

A near-exact fit is judged by the coefficient of determination of one standardised column on
the others, R^2_j = 1 - 1 / (C^-1)_jj for the correlation matrix C (the classical identity for
the squared multiple correlation; e.g. Johnson & Wichern, *Applied Multivariate Statistical
Analysis*, 6th ed., sec. 7.8), with the regression weights beta_j = C_{-j,-j}^-1 C_{-j,j}.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.data.profile import (
    NA_TOKENS,
    ColumnProfile,
    NumberColumn,
    is_number_column,
    parse_number_column,
    profile_columns,
)

__all__ = [
    "MODEL_COLUMN_NAMES",
    "META_NAMES",
    "UNCERTAINTY_WORDS",
    "uncertainty_of",
    "raw_twin_of",
    "classify_columns",
    "ColumnRule",
    "ColumnFacts",
    "COLUMN_RULES",
    "column_rule",
    "resolve_names",
    "orientation_warning",
    "find_models_column",
    "long_format_hint",
    "is_meta_name",
    "is_text_column",
    "AGGREGATE_NAMES",
    "INDEX_NAMES",
    "NA_TOKENS",
    "NumberColumn",
    "parse_number_column",
    "is_number_column",
    "index_like_reason",
    "name_is_aggregate",
    "aggregate_word",
    "metadata_values_reason",
    "Dependent",
    "dependent_columns",
    "name_list",
    "name_words",
]

#: Candidate names of the model column, in order of preference.
MODEL_COLUMN_NAMES = ("model", "model_name", "model_version", "name", "model_id", "unnamed: 0")

#: Column names treated as metadata (never as benchmarks), compared case-insensitively.
META_NAMES = frozenset(
    {
        "params",
        "params_b",
        "parameters",
        "n_params",
        "type",
        "model_type",
        "arch",
        "architecture",
        "date",
        "release_date",
        "upload_date",
        "submission_date",
        "submission_datetime",
        "organization",
        "precision",
        "weight_type",
        "type_symbol",
        "coverage",
        "average",
        "mean",
        "rank",
        "eval_id",
        "model_sha",
        "hub_hearts",
        "hub_license",
        "co2_cost_kg",
        "generation",
        "base_model",
        "fullname",
        "url",
        "merged",
        "moe",
        "flagged",
        "is_merged",
        "is_moe",
        "is_flagged",
        "is_official_provider",
        "has_chat_template",
        "is_not_available_on_hub",
        "available_on_the_hub",
        "battles",
        "n_total",
        "standard_error",
        "n_wins",
        "n_wins_base",
        "n_draws",
        "avg_length",
        "mode",
        "year",
        "timestamp",
        "datetime",
    }
)

#: Words that make a column name an aggregate of the others (``mean_win_rate``, ``Average``,
#: ``overall score``, Epoch's capabilities index ``eci_score``) when the rest of the name is generic.
AGGREGATE_WORDS = frozenset(
    {"mean", "average", "avg", "overall", "aggregate", "total", "composite", "eci", "median", "sum"}
)
_GENERIC_WORDS = frozenset({"score", "scores", "rate", "win", "winrate", "rating", "elo", "value", "all", "of", "the"})
AGGREGATE_NAMES = frozenset(
    {"mean", "average", "avg", "overall", "aggregate", "total", "median", "mean_win_rate", "eci_score"}
)

#: Names of row-number / id / rank columns, compared case-insensitively.
INDEX_NAMES = frozenset(
    {"", "id", "idx", "index", "rank", "ranking", "row", "row_id", "rownum", "position", "pos", "no", "num", "#"}
)


def name_words(name: str) -> list[str]:
    """The lower-case words of a name (split at every character that is not a letter or a digit)."""
    return [w for w in re.split(r"[^0-9a-z]+", name.lower()) if w]


def index_like_reason(name: str, col: pd.Series, values: np.ndarray | None = None) -> str | None:
    """Why a column is a row number, id, rank or date rather than a benchmark, or None.

    By name: empty, pandas' ``Unnamed: N``, :data:`INDEX_NAMES`, or ending in ``_id``. By type:
    dates and time spans. By value: integers that are a permutation of a consecutive range
    (0..n-1, 1..n, ...), at least 5 of them.
    """
    low = name.strip().lower()
    if low in INDEX_NAMES or re.fullmatch(r"unnamed: ?\d+", low) or low.endswith("_id") or low.endswith(" id"):
        return "its name marks a row number, id or rank"
    if pd.api.types.is_datetime64_any_dtype(col.dtype) or pd.api.types.is_timedelta64_dtype(col.dtype):
        return "it holds dates or times"
    v = values if values is not None else pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    if v.size >= 5 and v.size == len(col) and np.all(v == np.round(v)):
        u = np.unique(v)
        if u.size == v.size and u[-1] - u[0] == v.size - 1:
            return f"it counts rows ({int(u[0])}..{int(u[-1])}, every integer once)"
    return None


#: Names a leaderboard gives its own overall score without an aggregate word (RewardBench's ``Score``).
OVERALL_NAMES = frozenset({"score", "scores", "overall score", "total score", "final score"})
#: Words that, after ``all``, say a column covers every part of a benchmark (HELM's ``MMLU All Subjects``).
_ALL_OF = frozenset({"subjects", "tasks", "categories", "scenarios", "domains", "languages", "subsets", "splits"})


def name_is_aggregate(name: str) -> bool:
    """True for the name of a summary column: one of :data:`AGGREGATE_NAMES` or :data:`OVERALL_NAMES`, aggregate
    words (mean, average, overall, ...) with nothing but generic words (score, rate, win, ...), or ``all``
    followed by a word for a benchmark's parts (``MMLU All Subjects``)."""
    low = name.strip().lower()
    if low in AGGREGATE_NAMES or " ".join(name_words(low)) in OVERALL_NAMES:
        return True
    w = name_words(low)
    if any(a == "all" and b in _ALL_OF for a, b in zip(w, w[1:])):
        return True
    return bool(w) and any(x in AGGREGATE_WORDS for x in w) and all(x in AGGREGATE_WORDS | _GENERIC_WORDS for x in w)


def aggregate_word(name: str) -> str | None:
    """The aggregate word (mean, average, overall, median, total, ...) that a column name carries beside
    a qualifier (``overall_hard``, ``avg_chat``, ``mean (norm)``), or None.

    Such a column summarises several others (a category's mean, a normalised average); it is left out
    like a plain aggregate, with the word in the note, and ``--benchmarks`` keeps it.
    """
    return next((x for x in name_words(name) if x in AGGREGATE_WORDS), None)


#: Integers with at most this many distinct values (and at most a third as many as rows) are settings or
#: categories (a shot count, a release number), not scores.
MAX_LEVELS = 10


def metadata_values_reason(values: np.ndarray) -> str | None:
    """Why a numeric column holds metadata rather than scores, judged by its values, or None.

    Integers only, and one of: only 0 and 1 (a flag such as ``is_open``); years (every value in
    1950..2100, spanning at most 50); at most :data:`MAX_LEVELS` distinct values and at most a third as
    many as there are values (a shot count, a release number, a size class). A benchmark with such
    values is kept when named in ``benchmarks=`` (``--benchmarks``).
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size < 3:
        return None
    magnitude = _magnitude_reason(v)
    if magnitude is not None:
        return magnitude
    if not np.all(v == np.round(v)):
        return None
    u = np.unique(v)
    if u.size < 2:
        return None  # a constant column is refused as such, by name
    if set(u.tolist()) <= {0.0, 1.0}:
        return "only 0/1 values: a flag"
    if u[0] >= 1950 and u[-1] <= 2100 and u[-1] - u[0] <= 50:
        return f"years {int(u[0])}..{int(u[-1])}"
    if u.size <= MAX_LEVELS and 3 * u.size <= v.size:
        shown = ", ".join(str(int(x)) for x in u[:6]) + (", ..." if u.size > 6 else "")
        return f"integers with {u.size} distinct values ({shown}): a setting or a category"
    return None


def _skew(v: np.ndarray) -> float:
    """The sample skewness ``mean((v - mean)^3) / std^3`` (scipy.stats.skew, bias=True), computed on ``v`` divided by
    its largest magnitude: skewness does not change with the scale, and a value near 1e103 no longer overflows the
    cube."""
    scale = float(np.max(np.abs(v))) if v.size else 0.0
    if not np.isfinite(scale) or scale == 0.0:
        return 0.0
    w = v / scale
    sd = w.std()
    return float(((w - w.mean()) ** 3).mean() / sd**3) if sd > 0 else 0.0


def _magnitude_reason(v: np.ndarray) -> str | None:
    """Why a numeric column holds sizes, counts, costs or times rather than scores, judged by its values.

    * times: every value a Unix time (seconds or milliseconds between 2001 and 2039) or a calendar date written
      as an integer ``yyyymmdd``;
    * counts: non-negative integers reaching 100 or more, with a heavy right tail (skewness above 2 and a
      maximum at least 10 times the median): likes, downloads, votes;
    * sizes and costs: positive values spanning two orders of magnitude or more, with a heavy right tail
      that the logarithm makes symmetric (skewness above 2, at most half of it left on the log scale):
      parameter counts, CO2 costs, prices. Scores of a benchmark are bounded and rarely span orders of magnitude.
    """
    if v.size < 10:
        return None
    if (v.min() >= 978_307_200 and v.max() <= 2_200_000_000) or (v.min() >= 978_307_200_000 and v.max() <= 2.2e12):
        return "Unix times, not scores"
    ints = bool(np.all(v == np.round(v)))
    if ints and v.min() >= 19000101 and v.max() <= 21001231:
        md = v % 10000
        if np.all((md // 100 >= 1) & (md // 100 <= 12) & (md % 100 >= 1) & (md % 100 <= 31)):
            return "dates written as yyyymmdd, not scores"
    sk = _skew(v)
    if sk <= 2:
        return None
    med = float(np.median(v))
    if ints and v.min() >= 0 and v.max() >= 100 and v.max() >= 10 * max(med, 1.0):
        return f"counts {int(v.min())}..{int(v.max())} with a long tail (median {med:g}): a count, not a score"
    if v.min() > 0 and v.max() / v.min() >= 100 and abs(_skew(np.log(v))) <= sk / 2:
        return f"sizes or costs {v.min():.3g}..{v.max():.3g}, spread over orders of magnitude: not a score"
    return None


@dataclass(frozen=True)
class Dependent:
    """A column the others reproduce: a copy of one column, or an aggregate (weighted mean) of several."""

    column: int
    kind: str  # "copy" or "aggregate"
    r2: float
    of: tuple[int, ...]


#: R^2 from which a column counts as reproduced by the others; |r| from which two are copies, and near-copies
#: (a rounded, offset or rescaled copy; a raw and a normalised version of one benchmark) when there are at least
#: NEAR_COPY_ROWS complete rows to judge by.
AGGREGATE_R2 = 0.999
#: From this R^2 (below :data:`AGGREGATE_R2`) a column is an aggregate when it also stands out: its unexplained share
#: 1 - R^2 is at most :data:`STANDOUT` times the median of the other columns' (each fitted without it). A leaderboard's
#: overall score (RewardBench's ``Score``, a rounded or re-weighted mean) reaches 0.99 while its categories, fitted on
#: one another, stay far below; benchmarks that measure one thing all fit equally well and none stands out.
AGGREGATE_R2_STANDOUT = 0.99
STANDOUT = 0.1
COPY_R = 1.0 - 1e-9
NEAR_COPY_R = 0.999
NEAR_COPY_ROWS = 20


def _stands_out(C: np.ndarray, pos: int, rest: list[int], r2: float) -> bool:
    """Whether column ``pos``'s 1 - R^2 is at most :data:`STANDOUT` times the median 1 - R^2 of the columns
    ``rest`` fitted on one another (without ``pos``), from their correlation matrix ``C``."""
    if len(rest) < 2:
        return False
    Cr = C[np.ix_(rest, rest)]
    others = 1.0 / np.diag(np.linalg.inv(Cr + 1e-10 * np.eye(len(rest))))  # 1 - R^2 of each
    return 1.0 - r2 <= STANDOUT * float(np.median(others))


def dependent_columns(X: np.ndarray, min_extra_rows: int = 20) -> list[Dependent]:
    """Copies and aggregates among the columns of a complete matrix X (n, k), in order of removal.

    A *copy*: |corr(x_i, x_j)| >= 1 - 1e-9 with an earlier column i (the later one is flagged), or
    |corr| >= 0.999 (:data:`NEAR_COPY_R`) when X has at least :data:`NEAR_COPY_ROWS` rows and the pair
    stands out (1 - |r| at most a tenth of either column's to any third column): a rounded or offset copy,
    or a raw and a normalised version of one benchmark, which would count one benchmark twice.
    An *aggregate*: R^2 >= 0.999 on the remaining columns (or R^2 >= 0.99 standing out: :data:`STANDOUT`) with
    standardised weights that are all non-negative (none below -5% of the largest) and at least two of them
    material (>= 5% of the sum), i.e. a weighted mean of other columns. A column that merely correlates
    strongly with the rest (as every column does when the benchmarks measure one thing) has weights of both
    signs, R^2 below the bar, or does not stand out. Needs n >= k + ``min_extra_rows`` complete rows, else returns [].
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    if k < 2 or n < 3:
        return []
    sd = X.std(axis=0)
    keep = list(np.flatnonzero(sd > 1e-12))
    Z = (X[:, keep] - X[:, keep].mean(axis=0)) / sd[keep]
    C = (Z.T @ Z) / n
    out: list[Dependent] = []
    iu, ju = np.triu_indices(len(keep), 1)
    hit = np.abs(C[iu, ju]) >= COPY_R
    if n >= NEAR_COPY_ROWS and len(keep) >= 2:
        # a near-copy stands out from the other pairs: ten times closer (in 1 - |r|) than either column is to
        # any third one; when every benchmark measures one thing, all pairs are that close and none is a copy
        gap = 1.0 - np.abs(C)
        np.fill_diagonal(gap, np.inf)
        near = np.zeros_like(hit)
        for t in np.flatnonzero(~hit & (gap[iu, ju] <= 1.0 - NEAR_COPY_R)):
            a, b = iu[t], ju[t]
            third = np.delete(np.minimum(gap[a], gap[b]), [a, b])
            near[t] = third.size == 0 or gap[a, b] <= 0.1 * third.min()
        hit |= near
    dropped: set[int] = set()
    for b in np.unique(ju[hit]):  # later column of each copy pair, in column order
        partners = [a for a in iu[hit & (ju == b)] if a not in dropped]
        if partners:
            dropped.add(int(b))
            r = float(abs(C[partners[0], b]))
            out.append(Dependent(int(keep[b]), "copy", r, (int(keep[partners[0]]),)))
    alive = [a for a in range(len(keep)) if a not in dropped]
    if n < len(alive) + min_extra_rows or len(alive) < 3:
        return out
    while len(alive) >= 3:
        Ca = C[np.ix_(alive, alive)]
        inv = np.linalg.inv(Ca + 1e-10 * np.eye(len(alive)))
        r2 = 1.0 - 1.0 / np.diag(inv)
        found = None
        for pos in np.argsort(-r2, kind="stable"):
            if r2[pos] < AGGREGATE_R2_STANDOUT:
                break
            rest = [p for p in range(len(alive)) if p != pos]
            if r2[pos] < AGGREGATE_R2 and not _stands_out(Ca, pos, rest, float(r2[pos])):
                continue
            beta, *_ = np.linalg.lstsq(Ca[np.ix_(rest, rest)], Ca[rest, pos], rcond=None)
            big = float(beta.max())
            if big <= 0:
                continue
            material = beta >= 0.05 * float(np.abs(beta).sum())
            if beta.min() >= -0.05 * big and material.sum() >= 2:
                of = tuple(int(keep[alive[rest[i]]]) for i in np.flatnonzero(material))
                found = Dependent(int(keep[alive[pos]]), "aggregate", float(r2[pos]), of)
                break
        if found is None:
            break
        out.append(found)
        alive = [a for a in alive if keep[a] != found.column]
    return out


def name_list(names: Sequence[str], limit: int = 8) -> str:
    """'a, b, c' (or 'a, b, ... and 5 more') for notes."""
    names = [str(x) for x in names]
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def is_text_column(col: pd.Series) -> bool:
    """A column of text: neither numbers, booleans nor dates (:attr:`blindspot.data.profile.ColumnProfile.is_text`)."""
    if pd.api.types.is_bool_dtype(col.dtype) or pd.api.types.is_datetime64_any_dtype(col.dtype):
        return False
    return not is_number_column(col)


def find_models_column(df: pd.DataFrame, name: str, profiles: Mapping[str, ColumnProfile] | None = None) -> str:
    """The first of MODEL_COLUMN_NAMES that holds text, else the first text column (judged on the columns'
    ``profiles`` when given: :func:`blindspot.data.profile.profile_columns`)."""

    def text(c: str) -> bool:
        return profiles[c].is_text if profiles is not None else is_text_column(df[c])

    lower: dict[str, str] = {}
    for c in df.columns:
        lower.setdefault(c.strip().lower(), c)
    for cand in MODEL_COLUMN_NAMES:
        if cand in lower and text(lower[cand]):
            return lower[cand]
    found = next((c for c in df.columns if text(c)), None)
    if found is None:
        raise ValueError(f"{name!r} has no column of model names (a text column); name it with models_col=")
    return found


def long_format_hint(df: pd.DataFrame, models_col: str, profiles: Mapping[str, ColumnProfile] | None = None) -> str:
    """A hint for duplicate model names: long format, or another column that keys the rows.

    Long format: most model names repeat, and some text column whose values repeat across models
    (at most half as many distinct values as rows) identifies each row together with the name. The columns are
    judged on their ``profiles`` when given (one per column of ``df``).
    """
    others = [c for c in df.columns if c != models_col]
    numeric = [c for c in others if (profiles[c].is_number if profiles is not None else is_number_column(df[c], c))]
    unique = next((c for c in others if c not in numeric and df[c].notna().all() and df[c].is_unique), None)
    if not numeric or df[models_col].duplicated(keep=False).mean() < 0.5:
        if unique is not None:
            return f"; column {unique!r} is unique per row: name it with models_col= (--models-col) to key rows by it"
        return "; if they are separate evaluations of one model, make the names unique (e.g. add the date or precision)"
    value = next((c for c in numeric if c.strip().lower() in ("score", "value", "result", "accuracy")), numeric[0])
    for c in others:
        if c in numeric or not 2 <= df[c].nunique(dropna=True) <= len(df) // 2:
            continue
        if df.groupby(c, dropna=True)[models_col].nunique().min() < 2:
            continue  # a long format's key repeats across models
        repeats = int(df.duplicated([models_col, c]).sum())
        hint = (
            f"; the file looks like long format (one row per model and {c!r}): make it wide, one row per model and "
            f"one column per {c!r}, e.g. with pandas df.pivot_table(index={models_col!r}, columns={c!r}, "
            f"values={value!r}).reset_index()"
        )
        if repeats:
            hint += (
                f" ({repeats} (model, {c}) pair(s) occur more than once: pivot_table averages them; keep one run of "
                f"each first if they are separate runs)"
            )
        return hint
    return ""


#: Name endings that mark metadata in prefixed names (``v1_params_b``, ``hf_release_date``).
META_SUFFIXES = ("_params", "_params_b", "_parameters", "_date", "_datetime", "_timestamp")


#: Words that make a column metadata wherever they stand in its name: sizes, counts, costs, popularity, licences
#: and times (a leaderboard's display names: ``#Params (B)``, ``Hub ❤️``, ``CO₂ cost (kg)``, ``likes``).
META_WORDS = frozenset(
    {"params", "parameters", "param", "likes", "hearts", "hub", "downloads", "cost", "costs", "co2", "price"}
    | {"usd", "license", "licence", "size", "date", "datetime", "timestamp", "year", "released", "votes"}
    | {"tokens", "seconds", "kg"}
)
#: ``time`` marks metadata beside one of these words (``end_time``, ``total evaluation time``), not alone: a
#: benchmark can measure a time (METR's time horizons).
_CLOCK_WORDS = frozenset({"start", "end", "total", "elapsed", "evaluation", "eval", "run", "wall", "inference"})


def is_meta_name(col: str) -> bool:
    """Metadata by name: :data:`META_NAMES`, a word of :data:`META_WORDS` (``#Params (B)``, ``Hub ❤️``,
    ``CO₂ cost (kg)``, ``end_time``), a prefixed parameter count or date, or a count (``n_*``, ``#...``)."""
    low = col.strip().lower()
    words = set(name_words(low))
    return (
        low in META_NAMES
        or bool(words & META_WORDS)
        or ("time" in words and bool(words & _CLOCK_WORDS))
        or low.endswith(META_SUFFIXES)
        or low.startswith(("n_", "#", "num_", "number of"))
    )


#: Words that make a column an uncertainty of a score (``mmlu_stderr``, ``acc_stderr,none``, ``stderr``).
UNCERTAINTY_WORDS = frozenset({"stderr", "sem", "standarderror"})


def uncertainty_of(name: str, columns: Sequence[str] = ()) -> str | None:
    """The score column whose uncertainty ``name`` holds (``mmlu_stderr`` -> ``mmlu``; ``acc_stderr,none`` ->
    ``acc,none``; ``mmlu ±`` -> ``mmlu``), ``name`` itself when it is an uncertainty of no named column
    (``stderr``), or None when it is no uncertainty.

    An uncertainty by its name: a word ``stderr`` / ``sem`` / ``standard error`` / ``std err``, or a ``±`` or
    ``+/-`` in it.
    """
    low = name.strip().lower()
    words = name_words(low)
    joined = [a + b for a, b in zip(words, words[1:])]
    if not ("±" in low or "+/-" in low or set(words) & UNCERTAINTY_WORDS or {"standarderror", "stderr"} & set(joined)):
        return None
    bare = re.sub(r"(?i)([ _]?std[ _]?err(or)?|[ _]?standard[ _]error|[ _]?\bsem\b|\s*±\s*|\s*\+/-\s*)", "", name)
    bare = bare.strip(" _-")
    for c in columns:
        if c != name and (c == bare or c.strip().lower() == bare.lower()):
            return c
    return name


def raw_twin_of(name: str, columns: Sequence[str]) -> str | None:
    """The displayed score whose raw twin ``name`` is (``bbh_raw``, ``BBH Raw``, ``raw BBH``, ``BBH (raw)`` ->
    ``BBH``), or None: its words are another column's words and ``raw``."""
    words = name_words(name)
    if "raw" not in words or len(words) < 2:
        return None
    rest = [w for w in words if w != "raw"]
    return next((c for c in columns if c != name and name_words(c) == rest), None)


def resolve_names(values: Sequence[str], columns: Sequence[str], split_commas: bool) -> list[str]:
    """Column names as a user gave them: each value is a name; with ``split_commas`` (the command's
    ``--benchmarks a,b``, a string in Python) a value holding commas that is not itself a column is split into
    the names between them. A value that is a column and whose parts are columns too is ambiguous.

    Raises
    ------
    ValueError
        An ambiguous value (name it in a list, or repeat the flag).
    """
    out: list[str] = []
    have = set(columns)
    for v in values:
        v = str(v).strip()
        parts = [p.strip() for p in v.split(",") if p.strip()]
        if not split_commas or len(parts) < 2:
            out.append(v)
        elif v in have and all(p in have for p in parts):
            raise ValueError(
                f"{v!r} is both a column and a list of columns ({', '.join(map(repr, parts))}); name each in a list "
                f"(benchmarks=[...]) or repeat --benchmarks once per name"
            )
        elif v in have:
            out.append(v)
        else:
            out.extend(parts)
    return out


@dataclass(frozen=True)
class ColumnFacts:
    """What the rules of :data:`COLUMN_RULES` look at: a column, its profile, and what the source declares."""

    name: str
    col: pd.Series
    profile: ColumnProfile
    columns: Sequence[str]
    declared: Mapping[str, str]
    uncertainties: Collection[str]

    @property
    def values(self) -> np.ndarray:
        """Its numbers (the profile's; a refused notation is raised here, naming the column)."""
        return self.profile.numbers().values


def _uncertainty(f: ColumnFacts) -> str | None:
    of = uncertainty_of(f.name, f.columns)
    if f.name not in f.uncertainties and of is None:
        return None
    return f" (of {of!r})" if of and of != f.name else ""


def _dates(f: ColumnFacts) -> str | None:
    if f.profile.is_number:
        return None
    reason = index_like_reason(f.name, f.col, f.profile.number.values if f.profile.number is not None else None)
    return reason if reason and "dates" in reason else None


def _word_with_qualifier(f: ColumnFacts) -> str | None:
    word = aggregate_word(f.name)
    return None if word is None else f"its name carries {word!r} with a qualifier: a summary of a group of scores"


@dataclass(frozen=True)
class ColumnRule:
    """One rule of the column roles: the first rule of :data:`COLUMN_RULES` whose test holds gives a column its role.

    Attributes
    ----------
    name : str
        What the rule finds.
    test : callable
        ``test(facts: ColumnFacts) -> str | None``: why the rule holds (the text of its note), None when it does not.
    role : str
        The role it gives: ``benchmark``, ``aggregate``, ``index``, ``uncertainty``, ``raw twin``, ``metadata``,
        ``text`` (metadata written as text) or ``ignored`` (a flag or an empty column, said nowhere).
    note : str
        The column's entry in its role's note, a format of ``{col}`` and ``{why}``.
    """

    name: str
    test: Callable[[ColumnFacts], str | None]
    role: str
    note: str


#: The rules of the column roles, in the order they are tried (the first that holds decides).
COLUMN_RULES: tuple[ColumnRule, ...] = (
    ColumnRule("uncertainty of a score", _uncertainty, "uncertainty", "{col!r}{why}"),
    ColumnRule("aggregate the source declares", lambda f: f.declared.get(f.name), "aggregate", "{col!r} ({why})"),
    ColumnRule(
        "raw twin of a displayed score", lambda f: raw_twin_of(f.name, f.columns), "raw twin", "{col!r} (of {why!r})"
    ),
    ColumnRule("dates", _dates, "index", "{col!r} ({why})"),
    ColumnRule(
        "flag or empty column",
        lambda f: "" if not f.profile.is_number and (f.profile.is_bool or not f.profile.present.any()) else None,
        "ignored",
        "",
    ),
    ColumnRule("text", lambda f: "" if not f.profile.is_number else None, "text", "{col}"),
    ColumnRule(
        "aggregate by its name",
        lambda f: "its name says it summarises the others" if name_is_aggregate(f.name) else None,
        "aggregate",
        "{col!r} ({why})",
    ),
    ColumnRule(
        "row number, id or rank", lambda f: index_like_reason(f.name, f.col, f.values), "index", "{col!r} ({why})"
    ),
    ColumnRule(
        "metadata by its name", lambda f: "by its name" if is_meta_name(f.name) else None, "metadata", "{col} ({why})"
    ),
    ColumnRule("aggregate word with a qualifier", _word_with_qualifier, "aggregate", "{col!r} ({why})"),
    ColumnRule("metadata by its values", lambda f: metadata_values_reason(f.values), "metadata", "{col} ({why})"),
    ColumnRule("benchmark", lambda f: "", "benchmark", "{col}"),
)


def column_rule(facts: ColumnFacts) -> tuple[ColumnRule, str]:
    """The first rule of :data:`COLUMN_RULES` that holds for a column, and why (the last rule always holds).

    Raises
    ------
    ValueError
        A numeric column whose notation is refused (:func:`blindspot.data.profile.parse_number_column`).
    """
    for rule in COLUMN_RULES:
        why = rule.test(facts)
        if why is not None:
            return rule, why
    raise AssertionError("the last rule of COLUMN_RULES holds for every column")  # pragma: no cover


_NOTATION_NOTES = {
    "percent": "percent strings (61.2% read as 61.2)",
    "thousands": "numbers with thousands separators (1,234.5 read as 1234.5)",
    "decimal comma": "numbers with decimal commas (61,2 read as 61.2)",
}


def _fitted_dependents(
    candidates: list[str], parsed: Mapping[str, NumberColumn], min_benchmarks: int
) -> tuple[list[str], list[str], set[str]]:
    """Copies and aggregates found by fit, on the rows where every candidate is present: their entries in the
    aggregates' note, a note when every column repeats the others (then kept), and the columns left out."""
    if len(candidates) < 2:
        return [], [], set()
    X = np.column_stack([parsed[c].values for c in candidates])
    deps = dependent_columns(X[np.isfinite(X).all(axis=1)])
    notes = []
    if len(candidates) - len(deps) < min_benchmarks and deps:
        # every column repeats the others (e.g. rows that are multiples of one another): keep them, since leaving
        # them out would leave nothing to analyse, and say so
        same = name_list([candidates[d.column] for d in deps])
        notes.append(
            f"column(s) {same} are exact copies or weighted means of the others: the benchmarks measure one "
            f"thing; they are kept because leaving them out would leave fewer than {min_benchmarks} benchmarks"
        )
        deps = []
    entries = []
    for dep in deps:
        c = candidates[dep.column]
        of = [candidates[j] for j in dep.of]
        if dep.kind == "copy" and dep.r2 >= 1 - 1e-9:
            entries.append(f"{c!r} (an exact copy, up to scale, of {of[0]!r})")
        elif dep.kind == "copy":
            entries.append(f"{c!r} (a near-copy of {of[0]!r}: |r| = {dep.r2:.6g})")
        else:
            entries.append(f"{c!r} (a weighted mean of {name_list(of)}: they reproduce it with R^2 = {dep.r2:.4f})")
    return entries, notes, {candidates[d.column] for d in deps}


def _role_notes(by_role: Mapping[str, list[str]], notations: Mapping[str, list[str]]) -> list[str]:
    """The notes of the roles, one per role that some column has (and one per notation of numbers written as
    text)."""
    notes = [
        f"column(s) {name_list(cols)} hold {_NOTATION_NOTES[kind]}: parsed as numbers"
        for kind, cols in notations.items()
    ]
    anyway = "; name a column in benchmarks= (--benchmarks) to analyse it anyway"
    if by_role["index"]:
        notes.append(f"left out as row numbers, ids or dates, not benchmarks: {name_list(by_role['index'])}{anyway}")
    if by_role["aggregate"]:
        notes.append(
            f"left out as aggregates or copies of other columns, not benchmarks: {name_list(by_role['aggregate'])}"
            f"{anyway}"
        )
    if by_role["uncertainty"]:
        notes.append(
            f"kept apart as uncertainties (standard errors, ± columns) of a score, never benchmarks: "
            f"{name_list(by_role['uncertainty'], limit=12)}"
        )
    if by_role["raw twin"]:
        notes.append(
            f"left out as raw-score twins of a displayed score (one benchmark counted twice otherwise): "
            f"{name_list(by_role['raw twin'])}; name a column in benchmarks= (--benchmarks) to use it instead"
        )
    kept = by_role["metadata"] + by_role["text"]
    if kept:
        by_values = any(not m.endswith("(by its name)") for m in by_role["metadata"])
        notes.append(f"kept apart as metadata, not scores: {name_list(kept, limit=12)}" + (anyway if by_values else ""))
    return notes


def classify_columns(
    df: pd.DataFrame,
    name: str,
    aggregates_declared: Mapping[str, str] | None = None,
    uncertainties: Collection[str] = (),
    min_benchmarks: int = 2,
    profiles: Mapping[str, ColumnProfile] | None = None,
) -> tuple[list[str], dict[str, NumberColumn], list[str]]:
    """Benchmarks among the columns of ``df`` (model column removed), their parsed values, and notes.

    Each column takes the role of the first rule of :data:`COLUMN_RULES` that holds for it, judged on its
    profile (``profiles``, one per column of ``df`` on its rows; made here when not given); then copies and
    aggregates are found by fit among the benchmarks (:func:`dependent_columns`). Every column that is numeric but
    left out (metadata by name, a row number, id or date, an aggregate, a copy) and every text column kept apart is
    said in a note.
    """
    profiles = profiles if profiles is not None else profile_columns(df)
    columns = [str(x) for x in df.columns]
    declared = dict(aggregates_declared or {})
    by_role: dict[str, list[str]] = {r.role: [] for r in COLUMN_RULES}
    for c in df.columns:
        rule, why = column_rule(ColumnFacts(c, df[c], profiles[c], columns, declared, uncertainties))
        by_role[rule.role].append(c if rule.role == "benchmark" else rule.note.format(col=c, why=why))
    candidates = by_role["benchmark"]
    parsed = {c: profiles[c].numbers() for c in candidates}
    fitted, notes, drop = _fitted_dependents(candidates, parsed, min_benchmarks)
    by_role["aggregate"] += fitted
    notations: dict[str, list[str]] = {}
    for c in candidates:
        if parsed[c].notation:
            notations.setdefault(parsed[c].notation, []).append(c)
    notes += _role_notes(by_role, notations)
    return [c for c in candidates if c not in drop], {c: parsed[c] for c in candidates}, notes


_MODEL_LIKE = re.compile(
    r"/|\b\d+(\.\d+)?[bm]\b|gpt|llama|claude|mistral|mixtral|qwen|gemma|phi-?\d|falcon|deepseek|vicuna|olmo|"
    r"pythia|bloom|opt-\d|t5|gemini|command|grok|yi-|internlm|baichuan|chatglm|zephyr|hermes|solar",
    re.IGNORECASE,
)
_BENCHMARK_LIKE = re.compile(
    r"mmlu|hellaswag|arc|gsm8k|truthful|winogrande|bbh|gpqa|math|ifeval|humaneval|mbpp|musr|drop|squad|boolq|"
    r"piqa|lambada|openbook|race|triviaqa|naturalq|narrativeqa|legalbench|medqa|wmt|xsum|imdb|quac|mt-?bench|"
    r"alpaca|arena|swe|livebench|aime|bench|eval|qa$",
    re.IGNORECASE,
)


def orientation_warning(rows: Sequence[str], columns: Sequence[str]) -> str | None:
    """A warning when the table looks transposed (models as columns): the row names look like benchmarks and the
    column names like models, or there are far more benchmarks than models and the columns look like models.

    A name looks like a model's when it holds a ``/`` (``org/name``), a size (``7b``) or a model family's name;
    like a benchmark's when it holds a common benchmark's name. Only a warning: the numbers are analysed as given.
    """
    if not rows or not columns:
        return None
    n_rows, rows = len(rows), list(rows)[:500]  # names judged on a sample (a file of 10^5 models)
    col_models = np.mean([bool(_MODEL_LIKE.search(str(c))) for c in columns])
    row_models = np.mean([bool(_MODEL_LIKE.search(str(r))) for r in rows])
    row_benches = np.mean([bool(_BENCHMARK_LIKE.search(str(r))) and not _MODEL_LIKE.search(str(r)) for r in rows])
    flipped_names = col_models >= 0.5 and row_benches >= 0.5
    flipped_counts = len(columns) >= 3 * n_rows and col_models >= 0.5 and row_models < 0.2
    if not (flipped_names or flipped_counts):
        return None
    return (
        f"the table may be transposed: its {n_rows} rows are named like benchmarks ({name_list([repr(str(r)) for r in rows], 3)}) "
        f"and its {len(columns)} columns like models ({name_list([repr(str(c)) for c in columns], 3)}); if the models "
        f"are the columns, transpose it (df.T, or one row per model in the file): the analysis below takes rows as models"
    )
