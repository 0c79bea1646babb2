"""Every Eval Ever through the dkps adapter, as results: an instance record, the staged schema versions, and a
round trip of response records (``dkps.eee``).

* :func:`staged_folder` — where the staged EEE examples and their 0.3.0 schemas are (None without them);
* :func:`example_record` — one instance record, from the staged 0.3.0 demo or written by
  ``dkps.eee.write_records``;
* :func:`schema_survey` — what the adapter reads of each staged file, and how it rejects an unknown version;
* :func:`round_trip` — records written as EEE runs and read back: identical field for field, valid against the
  schemas, and aggregates that agree with the samples.

Each result gives its numbers and words by name (``quantities()``, glued as ``eee_<name>``) and its tables.

References
----------
Every Eval Ever (EvalEval coalition, schema 0.3.0, ``evaleval/EEE_datastore``).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from blindspot.data.suites import resolve_data_dir
from blindspot.perspective import verdicts
from dkps import SampleScore, eee

__all__ = [
    "DEMO_FILE",
    "staged_folder",
    "ExampleRecord",
    "example_record",
    "SchemaSurvey",
    "schema_survey",
    "RoundTrip",
    "round_trip",
]

#: The staged 0.3.0 demo's samples file (under the staged folder).
DEMO_FILE = Path("v0.3.0_demo") / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl"
#: The timestamp the book's EEE runs are written with (a fixed one: the files are the same at every build).
TIMESTAMP = 1750000000


def staged_folder(data_dir: str | Path | None = None) -> Path | None:
    """The folder ``eee_samples`` of the data directory (:func:`~blindspot.data.suites.resolve_data_dir`), or
    None when there is no data directory or it holds no staged examples."""
    root = resolve_data_dir(data_dir)
    return root / "eee_samples" if root is not None and (root / "eee_samples").is_dir() else None


def _schemas(staged: Path | None) -> Path | None:
    return staged / "schemas" if staged is not None else None


@dataclass(frozen=True)
class ExampleRecord:
    """One EEE instance record and where it comes from.

    Attributes
    ----------
    record : dict
        The instance record (one line of a samples file).
    where : str
        Where it comes from, in words.
    """

    record: dict
    where: str

    def text(self, limit: int = 1500) -> str:
        """The record as indented JSON, cut at ``limit`` characters."""
        return json.dumps(self.record, indent=1, ensure_ascii=False)[:limit]

    def quantities(self) -> dict[str, str]:
        """``example_where``: where the record comes from."""
        return {"example_where": self.where}


def example_record(staged: Path | None, records: pd.DataFrame) -> ExampleRecord:
    """The staged 0.3.0 demo's first instance, or (without the staged examples) the first of ``records`` written by
    ``dkps.eee.write_records`` in a temporary folder."""
    if staged is not None:
        record = json.loads((staged / DEMO_FILE).read_text())
        return ExampleRecord(record, "the staged 0.3.0 demo record")
    tmp = Path(tempfile.mkdtemp(prefix="eee-demo-"))
    eee.write_records(records.head(1), tmp, timestamp=TIMESTAMP)
    record = json.loads(next(tmp.rglob("*_samples.jsonl")).read_text().splitlines()[0])
    return ExampleRecord(record, "a record written by dkps.eee.write_records (the staged examples are not available)")


@dataclass(frozen=True)
class SchemaSurvey:
    """What the adapter reads of each staged file, and its answer to an unknown schema version.

    Attributes
    ----------
    survey : DataFrame or None
        ``dkps.eee.survey_files`` of the staged folder (None without it).
    rejection : str
        The error a record of schema version 1.0.0 gets ("accepted" if it were read).
    """

    survey: pd.DataFrame | None
    rejection: str

    def table(self) -> pd.DataFrame:
        """The survey (one row per staged file), or a one-cell frame saying the examples are not available."""
        if self.survey is None:
            return pd.DataFrame({"file": ["(the staged EEE examples are not available here)"]})
        return self.survey

    def quantities(self) -> dict[str, str]:
        """``rejection``, and the survey in words (:func:`~blindspot.perspective.verdicts.survey_words`):
        ``survey_sentence``, ``layouts`` (the staged versions), ``all_read``."""
        words = verdicts.survey_words(self.survey)
        return {"rejection": self.rejection} | {k.removeprefix("eee_"): v for k, v in words.items()}


def schema_survey(staged: Path | None) -> SchemaSurvey:
    """Survey the staged files against the 0.3.0 schemas (``dkps.eee.survey_files``) and ask the adapter to read a
    record of an unknown version (1.0.0)."""
    survey = eee.survey_files(staged, _schemas(staged)) if staged is not None else None
    try:
        eee.record_to_row({"schema_version": "1.0.0", "input": {"raw": "q"}, "output": {"raw": ["a"]}})
        rejection = "accepted"
    except ValueError as exc:
        rejection = str(exc)
    return SchemaSurvey(survey, rejection)


#: The columns a round trip must give back unchanged.
ROUND_TRIP_COLUMNS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite"]


@dataclass(frozen=True)
class RoundTrip:
    """Response records written as EEE 0.3.0 runs and read back.

    Attributes
    ----------
    records : DataFrame
        The records written.
    back : DataFrame
        ``dkps.eee.load_records`` of the written folder.
    folder : Path
        Where the runs were written.
    written : list of Path
        The files written.
    errors : dict of str to list, or None
        Schema errors per written file (None without the schemas).
    synthetic : bool
        Whether the records are the synthetic placeholder.
    """

    records: pd.DataFrame
    back: pd.DataFrame
    folder: Path
    written: list[Path]
    errors: dict | None
    synthetic: bool = False

    @property
    def identical(self) -> bool:
        """Whether the records read back equal those written, field for field (sorted by model, task, query)."""
        key = ["model_id", "task_id", "query_id"]
        a = self.back[ROUND_TRIP_COLUMNS].sort_values(key).reset_index(drop=True)
        b = self.records[ROUND_TRIP_COLUMNS].sort_values(key).reset_index(drop=True)
        return bool(a.equals(b))

    def written_table(self, head: int = 4) -> pd.DataFrame:
        """The first ``head`` files written, relative to the folder (``written file``)."""
        return pd.DataFrame({"written file": [str(p.relative_to(self.folder)) for p in self.written[:head]]})

    def aggregates(self) -> pd.DataFrame:
        """Per (model, task): ``aggregate JSON`` (the aggregate record's score) and ``dkps SampleScore`` (the
        cell's mean score computed from the records read back)."""
        agg = eee.load_aggregates(self.folder).set_index(["model_id", "evaluation_result_id"])["score"]
        cells = SampleScore().fit(self.back).sample_scores_.stack()
        return pd.DataFrame({"aggregate JSON": agg, "dkps SampleScore": cells.reindex(agg.index)})

    @property
    def agg_maxdiff(self) -> float:
        """The largest |aggregate - SampleScore| over the cells."""
        both = self.aggregates()
        return float((both.iloc[:, 0] - both.iloc[:, 1]).abs().max())

    def quantities(self) -> dict[str, int | float | str]:
        """``source`` (AlpacaEval or the placeholder), ``n_records``, ``n_back``, ``n_models``, ``n_files``,
        ``identical`` ('identical'/'NOT identical'), ``valid`` (files passing the schemas), ``agg_maxdiff`` and
        ``agg_word`` ('agree'/'do not agree')."""
        n_invalid = None if self.errors is None else sum(bool(e) for e in self.errors.values())
        d = self.agg_maxdiff
        return {
            "source": verdicts.source_name(self.synthetic), "n_records": len(self.records), "n_back": len(self.back),
            "n_models": int(self.records.model_id.nunique()), "n_files": len(self.written),
            "identical": verdicts.identical_word(self.identical),
            "valid": verdicts.validity_text(self.errors, len(self.written), n_invalid),
            "agg_maxdiff": d, "agg_word": verdicts.agree_within(d),
        }  # fmt: skip


def round_trip(records: pd.DataFrame, staged: Path | None = None, synthetic: bool = False, **source: str) -> RoundTrip:
    """Write ``records`` as EEE 0.3.0 runs in a temporary folder (``dkps.eee.write_records``, one run per
    (suite, model), a fixed timestamp, ``source`` as the source metadata), read them back with the model ids of
    the records (``dkps.eee.load_records``, every query), and validate each file against the staged schemas
    when there are any."""
    folder = Path(tempfile.mkdtemp(prefix="eee-roundtrip-"))
    written = eee.write_records(records, folder, timestamp=TIMESTAMP, **source)
    back = eee.load_records(folder, model_from="record", max_queries_per_cell=None)
    schemas = _schemas(staged)
    errors = {p.name: eee.validate_file(p, schemas) for p in written} if schemas is not None else None
    return RoundTrip(records, back, folder, list(written), errors, synthetic)
