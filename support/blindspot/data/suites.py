"""The named suites: the paper's leaderboards in a data directory, and a chapter's ``scores`` parameter.

A suite is a file of the data directory with the way to read it (:class:`SuiteSpec`). Data directories
are never copied into the project: named suites resolve against a directory given as an argument, then
the environment variable ``BLINDSPOT_DATA``, then ``../shared/data`` beside the project when it exists,
then the directory ``blindspot data fetch`` writes into the user's cache (:func:`fetched_data_dir`). A
seeded synthetic suite (:mod:`blindspot.data.synthetic`) is always available and is flagged
``synthetic=True`` wherever it is used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import pandas as pd
import platformdirs

from blindspot.data.format_options import split_source
from blindspot.data.synthetic import synthetic_scores
from blindspot.data.tables import PAPER_RULE, STANDARDISED_RULE, MissingPolicy, ScoreTable, load_scores

__all__ = [
    "SuiteSpec",
    "SUITES",
    "EEE_SUITES",
    "LABELS",
    "suite_label",
    "PAPER_V1",
    "PAPER_V2",
    "OLLM_V1",
    "OLLM_V2",
    "CACHE_ENV",
    "cache_dir",
    "fetched_data_dir",
    "resolve_data_dir",
    "suite_folder",
    "synthetic_suite",
    "load_suite",
    "load",
    "load_many",
]


@dataclass(frozen=True)
class SuiteSpec:
    """Where a named suite lives inside a data directory and how to read it.

    ``path`` is a file or a folder of the data directory (read by :func:`blindspot.data.tables.load_scores`,
    any format of :mod:`blindspot.data.readers`). ``frontier_rule`` is how its frontier is chosen: the
    paper's suites keep the paper's rule (mean raw score), so the book reproduces the paper's numbers as its
    code computed them; every other suite takes the standardised rule (mean z-score), as a reader's file does.
    """

    path: str
    description: str
    models_col: str | None = None
    benchmarks: tuple[str, ...] | None = None
    missing: MissingPolicy = "error"
    duplicates: Literal["error", "first", "suffix"] = "error"
    frontier_rule: str = PAPER_RULE


PAPER_V2 = ("IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO")
PAPER_V1 = ("ARC", "HellaSwag", "MMLU", "TruthfulQA", "Winogrande", "GSM8K")
#: The benchmark columns of the Open LLM Leaderboard dumps (``ollm_v1``, ``ollm_v2`` and their join).
OLLM_V1 = ("mmlu", "hellaswag", "arc", "truthfulqa", "winogrande", "gsm8k")
OLLM_V2 = ("ifeval", "bbh", "math_lvl5", "gpqa", "musr", "mmlu_pro")

#: The paper's Arena matrix analyses all 27 columns, 'overall' (the rating on every battle) among them;
#: the automatic column detection would leave 'overall' out as an aggregate, so the suite names them.
ARENA_CATEGORIES = (
    "chinese",
    "coding",
    "creative_writing",
    "english",
    "exclude_ties",
    "expert",
    "french",
    "german",
    "hard_prompts",
    "hard_prompts_english",
    "industry_business_and_management_and_financial_operations",
    "industry_entertainment_and_sports_and_media",
    "industry_legal_and_government",
    "industry_life_and_physical_and_social_science",
    "industry_mathematical",
    "industry_medicine_and_healthcare",
    "industry_software_and_it_services",
    "industry_writing_and_literature_and_language",
    "instruction_following",
    "japanese",
    "korean",
    "longer_query",
    "math",
    "multi_turn",
    "overall",
    "russian",
    "spanish",
)

SUITES: dict[str, SuiteSpec] = {
    "ollm_v2": SuiteSpec(
        "paper/ollm_v2.csv",
        "the paper's Open LLM Leaderboard v2 matrix (458 x 6)",
        "model",
        PAPER_V2,
        duplicates="suffix",
    ),
    "extended": SuiteSpec(
        "paper/extended.csv",
        "the paper's Extended suite: v2 + v1 benchmarks (295 x 12)",
        "model",
        PAPER_V2 + PAPER_V1,
        duplicates="suffix",
    ),
    "extended_official": SuiteSpec(
        "paper/extended_official.csv",
        "Extended suite, official providers only (166 x 12)",
        "model",
        PAPER_V2 + PAPER_V1,
    ),
    "livebench": SuiteSpec(
        "paper/livebench.csv", "the paper's LiveBench matrix (37 x 7)", "model", duplicates="suffix"
    ),
    "ollm_v2_full": SuiteSpec(
        "ollm_v2/ollm_v2.csv",
        "Open LLM Leaderboard v2, every evaluation (4,576 x 6; rows keyed by evaluation id)",
        "eval_id",
        OLLM_V2,
    ),
    "ollm_v1_full": SuiteSpec(
        "ollm_v1/ollm_v1.csv",
        "Open LLM Leaderboard v1, every evaluation (first row per model name kept)",
        "model_name",
        ("arc", "hellaswag", "mmlu", "truthfulqa", "winogrande", "gsm8k"),
        missing="drop-rows",
        duplicates="first",
    ),
    "epoch": SuiteSpec(
        "paper/epoch_ai_merged.csv",
        "Epoch AI Benchmarking Hub as merged by the paper (sparse)",
        "model",
        missing="keep",
    ),
    "arena_categories": SuiteSpec(
        "paper/arena_categories.csv",
        "Chatbot Arena per-category Elo (sparse; the paper's 27 columns, the 'overall' rating included)",
        "model_name",
        ARENA_CATEGORIES,
        missing="keep",
    ),
    "ollm_v1v2_joined": SuiteSpec(
        "ollm_v1v2_joined/ollm_v1v2_joined.csv",
        "Open LLM Leaderboard v1 joined with v2 on the exact model name (397 x 12: v1's six, then v2's six)",
        "model_name",
        OLLM_V1 + OLLM_V2,
        frontier_rule=STANDARDISED_RULE,
    ),
    "epoch_hub": SuiteSpec(
        "epoch_hub/epoch_wide.csv",
        "Epoch AI Benchmarking Hub export (577 x 49, about 91% of cells missing; mixed scales)",
        "model_version",
        missing="keep",
        frontier_rule=STANDARDISED_RULE,
    ),
}

#: The Every Eval Ever aggregate leaderboards of the data directory (``eee_aggregate/<folder>``), one suite
#: each, read by :mod:`blindspot.data.eee_aggregate` (the newest run of each model; the leaderboard's own
#: aggregates left out; a score outside its declared range, HELM's -1 for a scenario not run, is a missing
#: cell, kept as NaN) with the standardised frontier rule.
EEE_SUITES: dict[str, SuiteSpec] = {
    f"eee_{folder.replace('-', '_')}": SuiteSpec(
        f"eee_aggregate/{folder}", f"Every Eval Ever: {what}", missing="keep", frontier_rule=STANDARDISED_RULE
    )
    for folder, what in (
        ("helm_lite", "HELM Lite (91 models x 9 scenarios)"),
        (
            "helm_classic",
            "HELM Classic (67 models x 14 scenarios; 17% of cells missing: HELM's -1 for a scenario not run)",
        ),
        ("helm_capabilities", "HELM Capabilities (68 models x 5 scenarios)"),
        ("helm_instruct", "HELM Instruct (4 models x 6 scenarios; too few models for most analyses)"),
        ("hfopenllm_v2", "Open LLM Leaderboard v2 (4,496 models x 6 benchmarks, the newest run of each)"),
        ("global-mmlu-lite", "Global MMLU Lite (24 models x 16 languages)"),
        ("livecodebenchpro", "LiveCodeBench Pro (27 models x 3 difficulty levels)"),
    )
}
SUITES.update(EEE_SUITES)

#: How a page names a suite in a table or a figure (a suite not listed is named by its key).
LABELS: dict[str, str] = {
    "ollm_v2": "OLLM v2 (paper)",
    "extended": "Extended (paper)",
    "extended_official": "Extended, official",
    "livebench": "LiveBench (paper)",
    "arena_categories": "Arena categories",
    "epoch": "Epoch (paper's merge)",
    "ollm_v2_full": "OLLM v2 dump",
    "ollm_v1_full": "OLLM v1 dump",
    "ollm_v1v2_joined": "OLLM v1 + v2",
    "epoch_hub": "Epoch hub",
    "eee_helm_lite": "HELM Lite",
    "eee_helm_classic": "HELM Classic",
    "eee_helm_capabilities": "HELM Capabilities",
    "eee_helm_instruct": "HELM Instruct",
    "eee_hfopenllm_v2": "OLLM v2 (EEE)",
    "eee_global_mmlu_lite": "Global-MMLU Lite",
    "eee_livecodebenchpro": "LiveCodeBench Pro",
}


def suite_label(name: str) -> str:
    """The label of a named suite (:data:`LABELS`), or ``name`` itself (a file, a suite without a label)."""
    return LABELS.get(str(name), str(name))


#: Environment variable naming the cache folder of ``blindspot data fetch`` (default: the user's cache).
CACHE_ENV = "BLINDSPOT_CACHE"


def cache_dir() -> Path:
    """The cache of ``blindspot data fetch``: ``$BLINDSPOT_CACHE``, else the user cache folder of the platform
    (``platformdirs.user_cache_dir("blindspot")``, which is ``pooch.os_cache("blindspot")``)
    (``~/.cache/blindspot`` on Linux). It holds the verified raw downloads (``raw/``) and the data
    directory built from them (``data/``)."""
    env = os.environ.get(CACHE_ENV)
    # platformdirs, not pooch: importing pooch imports tqdm.auto, which warns in every notebook kernel
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("blindspot"))


def fetched_data_dir() -> Path:
    """Where ``blindspot data fetch`` writes the data directory by default: ``cache_dir() / "data"``."""
    return cache_dir() / "data"


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path | None:
    """The data directory to read named suites from, or None when there is none.

    Order: the argument, then ``$BLINDSPOT_DATA``, then ``../shared/data`` beside the project
    (looked for next to the project root and next to the current directory), then the fetched
    data directory in the user's cache (:func:`fetched_data_dir`) when ``blindspot data fetch`` has
    written one.

    Raises
    ------
    ValueError
        If a directory is named explicitly (argument or environment) but does not exist.
    """
    if data_dir is not None and str(data_dir) != "":
        p = Path(data_dir).expanduser()
        if not p.is_dir():
            raise ValueError(f"data directory {str(p)!r} does not exist (given as data_dir)")
        return p.resolve()
    env = os.environ.get("BLINDSPOT_DATA")
    if env:
        p = Path(env).expanduser()
        if not p.is_dir():
            raise ValueError(f"data directory {env!r} from $BLINDSPOT_DATA does not exist")
        return p.resolve()
    project_root = Path(__file__).resolve().parents[3]  # <root>/support/blindspot/data/suites.py
    for base in (project_root, Path.cwd()):
        p = base.parent / "shared" / "data"
        if p.is_dir():
            return p.resolve()
    fetched = fetched_data_dir()
    if fetched.is_dir():
        return fetched.resolve()
    return None


def suite_folder(data_dir: str | os.PathLike | None, folder: str, marker: str) -> Path | None:
    """The folder of a suite of files: ``data_dir`` itself when it holds ``marker``, else ``folder`` under the
    data directory when that holds it, else None.

    Parameters
    ----------
    data_dir : path, optional
        The suite's folder itself, or the data directory holding it (None: :func:`resolve_data_dir`'s order).
    folder : str
        The suite's folder under the data directory (``alpaca_eval_responses``, ``arena_bench_v1``).
    marker : str
        A file every copy of the suite has (``responses.parquet``, ``question.jsonl``).

    Returns
    -------
    Path or None
        The folder, resolved; None when neither place holds ``marker``.

    Raises
    ------
    ValueError
        As :func:`resolve_data_dir`: a data directory named explicitly that does not exist.
    """
    if data_dir is not None and str(data_dir) != "" and (Path(data_dir) / marker).is_file():
        return Path(data_dir).resolve()
    root = resolve_data_dir(data_dir)
    if root is None:
        return None
    p = root / folder
    return p if (p / marker).is_file() else None


def synthetic_suite(
    n_models: int = 300, n_benchmarks: int = 12, n_factors: int = 3, seed: int = 0, name: str = "synthetic"
) -> ScoreTable:
    """A seeded latent-factor leaderboard (see :func:`blindspot.data.synthetic.synthetic_scores`)."""
    S, cols = synthetic_scores(n_models=n_models, n_benchmarks=n_benchmarks, n_factors=n_factors, seed=seed)
    index = pd.Index([f"model-{i:04d}" for i in range(n_models)], name="model")
    scores = pd.DataFrame(S, index=index, columns=cols)
    meta = pd.DataFrame(index=index)
    source = f"synthetic latent-factor suite (seed={seed}, factors={n_factors})"
    return ScoreTable(scores, meta, name, source, True, frontier_rule=PAPER_RULE)


def load_suite(
    name: str,
    data_dir: str | os.PathLike | None = None,
    fallback: bool = True,
    seed: int = 0,
    missing: MissingPolicy | None = None,
) -> ScoreTable:
    """Load a named suite from the data directory (see :data:`SUITES`).

    Parameters
    ----------
    name : str
        A key of :data:`SUITES`, or ``"synthetic"``.
    data_dir : path, optional
        The data directory; default :func:`resolve_data_dir`.
    fallback : bool
        When no data directory exists (or it lacks the suite's file), return the synthetic suite,
        shaped like the requested one where known, with ``synthetic=True``. With ``fallback=False``
        a missing file raises.
    seed : int
        Seed of the synthetic fallback.
    missing : {'error', 'drop-rows', 'keep'}, optional
        Override the suite's missing-cell policy.
    """
    if name == "synthetic":
        return synthetic_suite(seed=seed)
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; known suites: {sorted(SUITES) + ['synthetic']}")
    spec = SUITES[name]
    root = resolve_data_dir(data_dir)
    path = root / spec.path if root is not None else None
    if path is None or not path.exists():
        if not fallback:
            where = "no data directory was found" if root is None else f"{path} does not exist"
            raise ValueError(f"suite {name!r} is not available: {where}")
        k = len(spec.benchmarks) if spec.benchmarks else 12
        stand_in = synthetic_suite(n_benchmarks=k, seed=seed, name=f"synthetic stand-in for {name}")
        return replace(stand_in, frontier_rule=spec.frontier_rule)
    table = load_scores(
        path,
        models_col=spec.models_col,
        benchmarks=spec.benchmarks,
        missing=missing or spec.missing,
        name=name,
        duplicates=spec.duplicates,
        names_as_written=True,  # the paper's matrices as they spell their models (epoch's has 3 names twice in case)
    )
    return replace(table, frontier_rule=spec.frontier_rule)


def load(
    scores: str | os.PathLike | Mapping[str, object],
    data_dir: str | os.PathLike | None = None,
    seed: int = 0,
    missing: MissingPolicy = "drop-rows",
) -> ScoreTable:
    """A chapter's ``scores`` parameter as a score table: a named suite of the data directory
    (:data:`SUITES`, or ``"synthetic"``), or a score file of one's own, alone or with its reading options
    (``{"source": "runs.csv", "level": "tasks"}``: :func:`blindspot.data.format_options.split_source`; what
    ``blindspot book --data FILE --level tasks`` hands its chapters).

    A named suite without a data directory falls back to the synthetic stand-in (labelled as such);
    a file is read by :func:`load_scores` with the ``missing`` policy (default: drop incomplete rows,
    with a note).

    Raises
    ------
    ValueError
        If ``scores`` is neither a named suite nor an existing file, or the file is not a leaderboard.
    """
    source, options = split_source(scores)
    name = str(source)
    if name in SUITES or name == "synthetic":
        if options:
            raise ValueError(
                f"reading options ({', '.join(options)}) apply to a file or folder, not the suite {name!r}"
            )
        return load_suite(name, data_dir=data_dir, seed=seed)
    path = Path(name).expanduser()
    if not path.exists():
        raise ValueError(
            f"scores={name!r} is neither a named suite ({', '.join(sorted(SUITES))}) nor an existing file or folder"
        )
    return load_scores(path, missing=missing, **options)


def load_many(
    scores: str | os.PathLike | Mapping[str, object] | Sequence[str | os.PathLike],
    data_dir: str | os.PathLike | None = None,
    seed: int = 0,
    missing: MissingPolicy = "drop-rows",
) -> dict[str, ScoreTable]:
    """Several ``scores`` (suites or files; one is fine) as ``{name: table}``, in the order given.

    A chapter that compares the paper's leaderboards takes a list (its default); a reader's run passes
    one file, and the chapter's tables then have one entry.
    """
    items = [scores] if isinstance(scores, (str, os.PathLike, Mapping)) else list(scores)
    if not items:
        raise ValueError("scores is empty: give a named suite or a score file")
    tables = {}
    for item in items:
        t = load(item, data_dir=data_dir, seed=seed, missing=missing)
        source = str(split_source(item)[0])
        key = source if source in SUITES else t.name
        if key in tables:
            raise ValueError(f"scores names {key!r} twice")
        tables[key] = t
    return tables
