"""The reproduction ledger: what the book computed for each registered claim, and its status.

A chapter reports computed values; the ledger looks the claim up in the registry
(:mod:`blindspot.book.claims`) and decides the status. No chapter types a status.

On the paper's data
    reproduced             a value within its tolerance, or a statement that holds
    differs                a value outside its tolerance (the evidence says why)
    claim fails            a statement that is false as the paper states it (the evidence shows it):
                           an exact counterexample, or a statistical test whose 95% interval excludes
                           the claim and that could have detected the claimed effect
    not resolved at 95%    a statistical statement whose test neither supports nor excludes it at 95%
                           (the interval straddles the claim, or the test could not detect the claimed
                           effect); the same status on your data
    not reproducible here  the run lacks what the claim needs: the real data (the synthetic
                           stand-in ran) or the paper's protocol (e.g. fewer resamples in quick mode),
                           or a statement that does not hold where its premise is measured absent
                           (``statement(..., premise_absent=reason)``: the evidence starts "not
                           testable here:" and names the measurement)

On your data (a score table that is not the suite the claim is about)
    holds / fails          a statement, checked on your leaderboard
    not applicable         a number about the paper's own data (your value is shown beside it)
    about the paper        a statement about the paper's own text, tables, printed constants or citations
                           (``about: paper`` in the registry): judged in the paper's book, not on yours

On your data a claim reads in your terms: the claims the paper makes once per suite share one
general id in the registry, and the chapter's ledger holds one row for them, worded for your data
(:func:`for_reader`). Each row also says what it is ``about``: 'data' (a leaderboard), 'paper' (the
paper's text) or 'any data' (mathematics or a simulation, the same whatever the leaderboard).

Usage in a chapter (the build tells the ledger which chapter runs: :func:`current_chapter`)::

    ledger = Ledger(ledger_dir)
    run = ledger.run(quick=quick, n_boot=n_boot)      # None -> the paper's protocol (or quick mode's)
    ledger.value("T1.deff.extended.frontier", table.d_eff, data=front)
    ledger.statement("T4a.submodular", holds=v.n_violations == 0, data=front,
                     evidence=f"{v.n_violations} of {v.n_total} comparisons violate it")
    ledger.save()
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from blindspot.book.claim_tables import ClaimsFrame, value_text
from blindspot.book.claims import ClaimSpec, Registry, load_registry
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.verdict import EXACT, STATISTICAL, Robustness, StatTest, Verdict
from blindspot.data.format_options import split_source
from blindspot.data.suites import SUITES
from blindspot.data.tables import ScoreTable

__all__ = [
    "Claim",
    "Ledger",
    "Run",
    "gather",
    "ROW_FIELDS",
    "for_reader",
    "paper_suite_of",
    "STATUSES",
    "PAPER_STATUSES",
    "YOUR_STATUSES",
    "REPRODUCED",
    "DIFFERS",
    "FAILS",
    "NOT_HERE",
    "NOT_RESOLVED",
    "HOLDS",
    "FAILS_ON_YOURS",
    "NOT_APPLICABLE",
    "ABOUT_PAPER",
    "ANY_DATA",
    "row_about",
    "CHAPTER_ENV",
    "current_chapter",
    "edition_words",
]

REPRODUCED = "reproduced"
DIFFERS = "differs"
FAILS = "claim fails"
NOT_HERE = "not reproducible here"
#: A statistical statement that its test resolves neither way at 95% (both editions).
NOT_RESOLVED = "not resolved at 95%"
HOLDS = "holds"
FAILS_ON_YOURS = "fails"
NOT_APPLICABLE = "not applicable"
ABOUT_PAPER = "about the paper"
PAPER_STATUSES = (REPRODUCED, DIFFERS, FAILS, NOT_RESOLVED, NOT_HERE)
YOUR_STATUSES = (HOLDS, FAILS_ON_YOURS, NOT_APPLICABLE, ABOUT_PAPER)
#: ``Claim.about`` of a claim about no leaderboard (mathematics, a simulation): the same on any data.
ANY_DATA = "any data"
STATUSES = PAPER_STATUSES + YOUR_STATUSES

#: How a number about the paper's data computed on yours is introduced (``for_reader`` adds the paper's value).
YOURS_NOTE = "a number about the paper's data, computed on yours"
#: The environment variable through which the build tells a chapter's kernel which chapter it executes.
CHAPTER_ENV = "BLINDSPOT_CHAPTER"
SYNTHETIC_REASON = "the data directory was not available, so this page ran on the synthetic stand-in"


@dataclass(frozen=True)
class Claim:
    """One row of the ledger: a registered claim with what this run computed for it."""

    id: str
    chapter: str
    kind: str
    quantity: str
    where: str
    paper: float | str | None
    book: float | str | None
    tol: float | None
    dataset: str
    status: str
    evidence: str
    reading: str
    section: str
    about: str = "data"
    basis: str = EXACT
    test: str = ""
    interval: tuple[float, float] | None = None
    p_value: float | None = None
    detectable: float | None = None
    robustness: str = ""

    @classmethod
    def from_spec(
        cls,
        spec: ClaimSpec,
        chapter: str,
        status: str,
        evidence: str,
        *,
        paper: float | str | None,
        book: float | str | None = None,
        dataset: str = "",
        verdict: Verdict | None = None,
    ) -> Claim:
        """The row of a registered claim: what the registry says of it, and what this run found.

        Parameters
        ----------
        spec : ClaimSpec
            The claim as registered (its id, kind, quantity, where, tolerance, reading, section, about).
        chapter : str
            The chapter that records it.
        status, evidence : str
            The status decided and the computed values that decided it, in words.
        paper, book : float, str or None
            The paper's value and the book's (None: not computed).
        dataset : str
            The data the value was computed on ('' when none was).
        verdict : Verdict, optional
            The verdict that decided a statement: its basis, test and robustness fill the row's
            ``basis``, ``test``, ``interval``, ``p_value``, ``detectable`` and ``robustness`` (without one,
            the registry's basis and no test).

        Returns
        -------
        Claim
        """
        test: StatTest | None = verdict.test if verdict is not None else None
        robust: Robustness | None = verdict.robustness if verdict is not None else None
        return cls(
            spec.id,
            chapter,
            spec.kind,
            spec.quantity,
            spec.where,
            paper,
            book,
            spec.tol,
            dataset,
            status,
            evidence,
            spec.reading,
            spec.section,
            row_about(spec),
            verdict.basis if verdict is not None else spec.basis,
            test.words() if test is not None else "",
            test.interval if test is not None else None,
            None if test is None or test.p_value is None else float(test.p_value),
            None if test is None or test.detectable is None else float(test.detectable),
            robust.words() if robust is not None else "",
        )

    def as_row(self) -> dict:
        """The row as ``ledger.json`` holds it (the interval as a list)."""
        row = asdict(self)
        if row["interval"] is not None:
            row["interval"] = [float(x) for x in row["interval"]]
        return row


#: The fields of a ledger row, in ``ledger.json``'s order.
ROW_FIELDS = tuple(Claim.__dataclass_fields__)


def row_about(spec: ClaimSpec) -> str:
    """What a claim's row is about: 'paper' (the registry says so), 'data' (it names a suite), else 'any data'."""
    if spec.about == "paper":
        return "paper"
    return "data" if spec.suites else ANY_DATA


def _number(x: object) -> float | str | None:
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, bool):
        raise ValueError(f"ledger values must be numbers, strings or None, got the bool {x!r}")
    try:
        v = float(x)  # numpy scalars, ints
    except (TypeError, ValueError) as exc:
        raise ValueError(f"ledger values must be numbers, strings or None, got {x!r}") from exc
    if not math.isfinite(v):
        raise ValueError(f"ledger value {x!r} is not finite; record a string that says why instead")
    return v


def paper_suite_of(table: ScoreTable) -> str | None:
    """The named suite whose file ``table`` was read from (a slice keeps it), or None (your data, synthetic)."""
    if table.synthetic:
        return None
    source = Path(table.source).as_posix()
    for name, spec in SUITES.items():
        if source.endswith("/" + spec.path) and table.name.split(" ")[0] == name:
            return name
    return None


class Run:
    """The run parameters of one chapter, with None resolved to the paper's protocol (or quick mode's).

    Attribute access gives the resolved values (``run.n_boot``); :meth:`protocol_gap` says whether a
    claim's needs are met.
    """

    def __init__(self, chapter: str, spec: dict[str, dict[str, Any]], quick: bool, given: dict[str, Any]) -> None:
        unknown = set(given) - set(spec)
        if unknown:
            raise ValueError(
                f"{chapter}: run parameters {sorted(unknown)} are not in its registry file's 'run' section "
                f"(it defines {sorted(spec)})"
            )
        self.chapter, self.quick, self._spec = chapter, bool(quick), spec
        self._values: dict[str, Any] = {}
        for name, s in spec.items():
            v = given.get(name)
            if v is None:
                v = s.get("quick", s["paper"]) if quick else s["paper"]
            self._values[name] = v

    @property
    def on_your_data(self) -> bool:
        """True when the run's ``scores`` are not the paper's (a reader's own leaderboard)."""
        if "scores" not in self._spec:
            return False

        def norm(v: Any) -> list[str]:
            v = split_source(v)[0]  # a file given with its reading options is that file
            return [str(x) for x in ([v] if isinstance(v, (str, os.PathLike)) else v)]

        return norm(self._values["scores"]) != norm(self._spec["scores"]["paper"])

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"{self.__dict__.get('chapter')}: no run parameter {name!r}") from None

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def protocol_gap(self, needs: Iterable[str]) -> str:
        """'' when every needed parameter has the paper's value, else why not (for the evidence)."""
        gaps = []
        for name in needs:
            v, paper = self._values[name], self._spec[name]["paper"]
            if v != paper:
                how = "quick mode" if self.quick and self._spec[name].get("quick") == v else "a parameter"
                gaps.append(f"{name}={v} ({how}), not the paper's {paper}")
        return ("run with " + "; ".join(gaps)) if gaps else ""


def _tables(data: ScoreTable | Iterable[ScoreTable] | None) -> list[ScoreTable]:
    if data is None:
        return []
    if isinstance(data, ScoreTable):
        return [data]
    tables = list(data)
    if not all(isinstance(t, ScoreTable) for t in tables):
        raise ValueError("data= takes the ScoreTable(s) the value was computed from")
    return tables


def _fmt(v: object) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def edition_words(yours: bool) -> str:
    """Whose data the ledger's edition ran on, in words: 'on your leaderboard' or "on the paper's data"."""
    return "on your leaderboard" if yours else "on the paper's data"


def current_chapter(registry: Registry | None = None) -> str:
    """The stem of the chapter being executed (e.g. ``"01_effective_dimensionality"``).

    The build (and ``blindspot execute``) sets :data:`CHAPTER_ENV` in the chapter's kernel before its
    first cell, so a notebook never types its own file name. In a notebook opened by hand in Jupyter,
    the notebook's file name (the server's ``JPY_SESSION_NAME``) is used when the registry knows it.

    Parameters
    ----------
    registry : Registry, optional
        The claims registry that must know the chapter (default: none checked for the build's name).

    Returns
    -------
    str
        The chapter's notebook stem.

    Raises
    ------
    ValueError
        When neither the build nor Jupyter names a chapter: the message says how to run it.
    """
    name = os.environ.get(CHAPTER_ENV, "").strip()
    if name:
        return name
    session = os.environ.get("JPY_SESSION_NAME", "").strip()
    if session:
        stem = Path(session).name.split(".", 1)[0]
        if registry is None or stem in registry.chapters:
            return stem
    raise ValueError(
        f"the ledger does not know which chapter runs: execute it with `blindspot execute notebooks/<chapter>.md` "
        f"(or the book's build), set {CHAPTER_ENV}=<chapter stem>, or pass Ledger(..., chapter='<chapter stem>')"
    )


class Ledger:
    """The claims of one chapter.

    Parameters
    ----------
    out_dir : path
        Where :meth:`save` writes ``<chapter>.json`` (the build passes ``ledger_dir``).
    registry : Registry, optional
        Default: :func:`~blindspot.book.claims.load_registry` of the working directory (the build runs
        chapters from the project root).
    chapter : str, optional
        The chapter's notebook stem (e.g. ``"01_effective_dimensionality"``); default: the chapter being
        executed, as the build names it (:func:`current_chapter`).

    Raises
    ------
    ValueError
        When no chapter is given and none is being executed by the build.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike = "_build/ledger",
        registry: Registry | None = None,
        *,
        chapter: str | None = None,
    ) -> None:
        self.registry = registry if registry is not None else load_registry(".")
        self.chapter = chapter if chapter is not None else current_chapter(self.registry)
        self.out_dir = Path(out_dir)
        self.claims: list[Claim] = []
        self._run: Run | None = None
        self._stand_in = False  # some claim was computed on the synthetic stand-in (no data directory)
        self._recorded: set[str] = set()  # the ids the chapter computed (save() adds the others)

    # -- the run --------------------------------------------------------------------------------
    def run(self, quick: bool = False, **params: Any) -> Run:
        """Resolve the chapter's run parameters: a given value is kept; None becomes the paper's
        protocol, or in quick mode the registry's quick value. The ledger then knows which claims
        ran under the paper's protocol."""
        self._run = Run(self.chapter, dict(self.registry.chapter(self.chapter).run), quick, params)
        return self._run

    def run_of(self, chapter: str, quick: bool = False) -> Run:
        """Another chapter's run parameters as that chapter resolves them with no value given (the paper's
        protocol, or in quick mode the registry's quick value): for a chapter that reuses another's pool
        or cache and must know its size. This ledger's own run is not touched.

        Raises
        ------
        ValueError
            When ``chapter`` has no registry file (a typo in its stem).
        """
        if chapter not in self.registry.chapters:
            raise ValueError(
                f"no registry file for chapter {chapter!r} (book/claims/<stem>.yml); "
                f"name a chapter by its notebook stem, e.g. {next(iter(self.registry.chapters), '01_...')!r}"
            )
        return Run(chapter, dict(self.registry.chapters[chapter].run), quick, {})

    # -- recording ------------------------------------------------------------------------------
    def _spec(self, claim_id: str, kind: str) -> ClaimSpec:
        if any(c.id == claim_id for c in self.claims):
            raise ValueError(f"claim {claim_id!r} recorded twice in {self.chapter}")
        spec = self.registry[claim_id]
        if spec.chapter != self.chapter:
            raise ValueError(f"claim {claim_id!r} is registered for {spec.chapter}, not {self.chapter}")
        if spec.kind != kind:
            raise ValueError(f"claim {claim_id!r} is a {spec.kind} claim; record it with ledger.{spec.kind}()")
        return spec

    def _context(self, spec: ClaimSpec, tables: list[ScoreTable]) -> tuple[str, str]:
        """('paper' | 'yours' | 'synthetic' | 'protocol', reason)."""
        if any(t.synthetic for t in tables):
            self._stand_in = True
            return "synthetic", SYNTHETIC_REASON
        if spec.suites:
            if not tables:
                raise ValueError(f"claim {spec.id!r} is about {', '.join(spec.suites)}: pass data= (the table used)")
            if any(paper_suite_of(t) not in spec.suites for t in tables):
                names = ", ".join(t.name for t in tables)
                return "yours", f"this run used {names}, not the paper's {', '.join(spec.suites)}"
        elif tables:
            raise ValueError(f"claim {spec.id!r} has no suite in the registry, but data= was given")
        if spec.unavailable:
            return "protocol", f"the paper's protocol is not available: {spec.unavailable}"
        if spec.needs:
            if self._run is None:
                raise ValueError(f"claim {spec.id!r} needs {list(spec.needs)}: call ledger.run(...) first")
            gap = self._run.protocol_gap(spec.needs)
            if gap:
                return "protocol", gap
        return "paper", ""

    def _add(
        self,
        spec: ClaimSpec,
        book: object,
        paper: object,
        tables: list[ScoreTable],
        dataset: str | None,
        status: str,
        evidence: str,
        verdict: Verdict | None = None,
    ) -> Claim:
        if status not in (REPRODUCED, HOLDS) and not evidence.strip():
            raise ValueError(f"claim {spec.id!r} came out {status!r}: pass evidence= built from the computed values")
        where = dataset if dataset is not None else "; ".join(f"{t.name}, n = {t.n_models}" for t in tables)
        c = Claim.from_spec(
            spec,
            self.chapter,
            status,
            evidence.strip(),
            paper=_number(paper),
            book=_number(book),
            dataset=where,
            verdict=verdict,
        )
        self.claims.append(c)
        self._recorded.add(spec.id)
        return c

    def value(
        self,
        claim_id: str,
        book: float,
        data: ScoreTable | Iterable[ScoreTable] | None = None,
        evidence: str = "",
        dataset: str | None = None,
    ) -> Claim:
        """Record a number the paper prints, computed by the book; the status follows from the registry's
        paper value and tolerance, the data and the run's protocol."""
        spec = self._spec(claim_id, "value")
        book_v = _number(book)
        if not isinstance(book_v, float):
            raise ValueError(f"claim {claim_id!r}: a value claim needs a finite number, got {book!r}")
        tables = _tables(data)
        ctx, reason = self._context(spec, tables)
        if ctx == "paper":
            ok = abs(book_v - spec.paper) <= spec.tol + 1e-12
            status = REPRODUCED if ok else DIFFERS
            if not ok:
                gap = f"book {_fmt(book_v)} vs paper {_fmt(spec.paper)} (tolerance {_fmt(spec.tol)})"
                evidence = "; ".join(x for x in (gap, evidence, spec.explain) if x)
        elif ctx == "yours":
            status = NOT_APPLICABLE
            evidence = "; ".join(x for x in (YOURS_NOTE, evidence) if x)
        else:
            status = NOT_HERE
            evidence = "; ".join(x for x in (reason, evidence) if x)
        return self._add(spec, book_v, spec.paper, tables, dataset, status, evidence)

    def record(self, claims: Mapping[str, ClaimValue | ClaimStatement]) -> dict[str, Claim]:
        """Record what a result hands the ledger (``study.claims()``), in the mapping's order: each
        :class:`~blindspot.core.claim_value.ClaimValue` as :meth:`value`, each
        :class:`~blindspot.core.claim_value.ClaimStatement` as :meth:`verdict`, on the tables it carries.

        Returns
        -------
        dict
            Claim id -> the ledger row (its ``status`` for the page's words).

        Raises
        ------
        ValueError
            An item that is neither, or one :meth:`value` or :meth:`verdict` refuses.
        """
        rows = {}
        for claim_id, c in claims.items():
            if isinstance(c, ClaimValue):
                rows[claim_id] = self.value(claim_id, c.value, data=c.data, evidence=c.evidence, dataset=c.dataset)
            elif isinstance(c, ClaimStatement):
                rows[claim_id] = self.verdict(claim_id, c.verdict, data=c.data)
            else:
                raise ValueError(
                    f"claim {claim_id!r}: record() takes ClaimValue or ClaimStatement items, got {type(c).__name__}"
                )
        return rows

    def statement(
        self,
        claim_id: str,
        holds: bool | None,
        evidence: str,
        data: ScoreTable | Iterable[ScoreTable] | None = None,
        book: float | str | None = None,
        paper: float | str | None = None,
        dataset: str | None = None,
        premise_absent: str = "",
        *,
        basis: str | None = None,
        test: StatTest | None = None,
        robustness: Robustness | None = None,
    ) -> Claim:
        """Record a statement of the paper and the computed fact that decides it.

        ``holds`` is the computed truth of the statement under the registry's reading; ``evidence`` is
        built from the computed values (a count, a counterexample, a measurement). ``book``/``paper``
        are optional values to show beside it. ``premise_absent``, when not empty, is the measured
        reason the statement cannot be tested on this data (what it presupposes is absent): a statement
        that then does not hold is "not reproducible here" (on your data "not applicable"), with the
        evidence starting "not testable here: <reason>", not a failure; one that holds is judged as usual.

        A statement decided on a sample has ``basis='statistical'`` (the registry's ``basis:``, or given
        here) and names its ``test`` (:class:`~blindspot.core.verdict.StatTest`); ``holds=None`` is the
        calibrated rule's "neither supported nor excluded at 95%" (:func:`~blindspot.core.verdict.judge`)
        and gives the status "not resolved at 95%". ``robustness`` says in how many of the protocol's
        alternatives it holds. :meth:`verdict` records a :class:`~blindspot.core.verdict.Verdict` in one call.

        Raises
        ------
        ValueError
            When ``holds`` is not a bool (or None for a statistical statement), a statistical statement has
            no test, or the basis is not the registry's.
        """
        spec = self._spec(claim_id, "statement")
        basis = basis if basis is not None else (STATISTICAL if test is not None else spec.basis)
        if spec.basis == STATISTICAL and (basis != STATISTICAL or test is None):
            raise ValueError(f"claim {claim_id!r} is registered as statistical: record it with its test (test=...)")
        if holds is None and basis != STATISTICAL:
            raise ValueError(f"claim {claim_id!r}: only a statistical statement may be unresolved (holds=None)")
        if holds is not None and not isinstance(holds, (bool, np.bool_)):
            raise ValueError(f"claim {claim_id!r}: holds= must be a bool computed from the data, got {holds!r}")
        if not isinstance(premise_absent, str):
            raise ValueError(
                f"claim {claim_id!r}: premise_absent= must be a str (the measured reason), got {premise_absent!r}"
            )
        verdict = Verdict(holds, evidence, book, basis=basis, test=test, robustness=robustness)
        tables = _tables(data)
        ctx, reason = self._context(spec, tables)
        untestable = holds is False and bool(premise_absent.strip())
        if robustness is not None and robustness.flips:
            evidence = f"{evidence}; robustness: {robustness.words()}"
        if untestable and ctx in ("paper", "yours"):
            status = NOT_HERE if ctx == "paper" else NOT_APPLICABLE
            evidence = f"not testable here: {premise_absent.strip()}; {evidence}"
        elif ctx in ("paper", "yours") and holds is None:
            status = NOT_RESOLVED
        elif ctx == "paper":
            status = REPRODUCED if holds else FAILS
        elif ctx == "yours":
            status = HOLDS if holds else FAILS_ON_YOURS
        else:
            status = NOT_HERE
            evidence = "; ".join(x for x in (reason, evidence) if x)
        paper_v = paper if paper is not None else spec.paper
        return self._add(spec, book, paper_v, tables, dataset, status, evidence, verdict)

    def verdict(
        self,
        claim_id: str,
        verdict: Verdict,
        data: ScoreTable | Iterable[ScoreTable] | None = None,
        paper: float | str | None = None,
        dataset: str | None = None,
        premise_absent: str = "",
    ) -> Claim:
        """Record a statement decided by a part's :class:`~blindspot.core.verdict.Verdict` (its holds,
        evidence, book value, basis, test and robustness); see :meth:`statement`.

        Returns
        -------
        Claim
            The ledger row.
        """
        if not isinstance(verdict, Verdict):
            raise ValueError(f"claim {claim_id!r}: verdict= takes a Verdict, got {type(verdict).__name__}")
        return self.statement(
            claim_id,
            verdict.holds,
            verdict.evidence,
            data=data,
            book=verdict.book,
            paper=paper,
            dataset=dataset,
            premise_absent=premise_absent,
            basis=verdict.basis,
            test=verdict.test,
            robustness=verdict.robustness,
        )

    # -- output ---------------------------------------------------------------------------------
    def frame(self) -> ClaimsFrame:
        """The claims as the chapter's Paper-vs-book table, indexed by claim id: the paper's value beside the
        book's (four significant figures, "—" where there is none), the status, and where the paper gives
        it, the data, the evidence and the reading, which the page folds under each claim
        (:class:`~blindspot.book.claim_tables.ClaimsFrame`). On your data, one row per statement, in your
        terms (:func:`for_reader`)."""
        claims = self.claims
        yours = self._run is not None and self._run.on_your_data
        if yours:
            claims = for_reader(claims, self.registry, self._recorded)
        rows = pd.DataFrame([c.as_row() for c in claims], columns=list(Claim.__dataclass_fields__))
        for col in ("paper", "book"):
            rows[col] = rows[col].map(value_text)
        columns = ["quantity", "where", "paper", "book", "status", "evidence", "dataset", "reading"]
        columns += ["basis", "test", "robustness"]
        out = ClaimsFrame(rows.set_index("id")[columns])
        out.yours = yours
        return out

    def save(self) -> Path:
        """Write ``<out_dir>/<chapter>.json`` and return its path.

        Every registered claim of the chapter must have been recorded. On a reader's own data (the
        run's ``scores`` are not the paper's) a claim the chapter could not compute is written as
        not applicable; on the synthetic stand-in (no data directory: some claim of the chapter was
        computed on it) as not reproducible here, since the stand-in lacks what the claim needs.

        Raises
        ------
        ValueError
            On the paper's data, naming the registered claims that were not recorded.
        """
        registered = self.registry.chapter(self.chapter).claims
        done = {c.id for c in self.claims}
        missing = [cid for cid in registered if cid not in done]
        yours = self._run is not None and self._run.on_your_data
        if missing and not (yours or self._stand_in):
            raise ValueError(f"{self.chapter}: registered claims were not recorded: {missing}")
        for cid in missing:
            spec = registered[cid]
            about = f"the paper's {', '.join(spec.suites) or 'setting'}"
            if yours:
                status, why = NOT_APPLICABLE, f"not computed on your data: the claim is about {about}"
            else:
                status, why = (
                    NOT_HERE,
                    f"{SYNTHETIC_REASON}, which has nothing to compute this claim on (it needs {about})",
                )
            self.claims.append(Claim.from_spec(spec, self.chapter, status, why, paper=spec.paper))
        rows = for_reader(self.claims, self.registry, done) if yours else self.claims
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"{self.chapter}.json"
        path.write_text(json.dumps([c.as_row() for c in rows], indent=1))
        return path


def _paper_values(specs: list[ClaimSpec]) -> float | str | None:
    """The paper's value of a group of claims read as one: the number when they agree, else each with its suite."""
    vals = [(s.paper, ", ".join(s.suites)) for s in specs if s.paper is not None]
    if len({v for v, _ in vals}) <= 1:
        return vals[0][0] if vals else None
    return "; ".join(f"{_fmt(v)} ({where})" for v, where in vals)


def for_reader(claims: list[Claim], registry: Registry, recorded: set[str] | None = None) -> list[Claim]:
    """A chapter's claims as they read on a reader's own leaderboard: one row per statement.

    Claims sharing a general id (the paper makes the statement once per suite, see
    :func:`blindspot.book.claims.general_id`) become one row, worded for your data, with the paper's
    value of each suite; they are one row when what was computed for them is one judgment (the same
    value and status), which is what happens when your file stands in for each of the paper's suites.
    Claims about the paper's own text (``about: paper``) are listed as "about the paper", not judged.

    Parameters
    ----------
    claims : list of Claim
        The chapter's rows, in recording order (claims it did not compute included, as not applicable).
    registry : Registry
        Where each claim's general id and wording are found.
    recorded : set of str, optional
        The ids the chapter computed; the others are only kept when no claim of their group was computed.
        Default: every claim.
    """
    recorded = {c.id for c in claims} if recorded is None else recorded
    groups: dict[str, list[Claim]] = {}
    for c in claims:
        groups.setdefault(registry[c.id].general_id, []).append(c)
    out: list[Claim] = []
    for gid, members in groups.items():
        specs = [registry[c.id] for c in members]
        done = [c for c in members if c.id in recorded] or members[:1]
        judgments: dict[tuple, list[Claim]] = {}
        for c in done:
            judgments.setdefault((c.status, repr(c.book), c.evidence), []).append(c)
        one = len(judgments) == 1
        for same in judgments.values():
            c, spec = same[0], registry[same[0].id]
            group_specs = specs if one else [registry[x.id] for x in same]
            status, evidence, book = c.status, c.evidence, c.book
            if spec.about == "paper":
                status, book = ABOUT_PAPER, None
                evidence = "a statement about the paper's own text, tables or citations: judged in the paper's book"
            elif c.id not in recorded:
                suites = sorted({s for x in group_specs for s in x.suites})
                evidence = f"not computed on your data: the claim is about the paper's {', '.join(suites) or 'setting'}"
            paper = _paper_values(group_specs) if c.kind == "value" else c.paper
            if c.kind == "value" and status == NOT_APPLICABLE and evidence.startswith(YOURS_NOTE):
                theirs = ", ".join(f"{x.id} = {_fmt(x.paper)}" for x in group_specs)
                evidence = evidence.replace(YOURS_NOTE, f"the paper's {theirs} (about its own data); this is yours", 1)
            where = "; ".join(dict.fromkeys(x.where for x in group_specs))
            out.append(
                replace(
                    c,
                    id=gid if one else c.id,
                    quantity=spec.general_quantity or spec.quantity,
                    where=where,
                    paper=paper,
                    book=book,
                    status=status,
                    evidence=evidence,
                )
            )
    return out


def gather(ledger_dir: str | os.PathLike, out_file: str | os.PathLike) -> list[dict]:
    """Collect every ``<chapter>.json`` of ``ledger_dir`` into one JSON list at ``out_file``."""
    rows: list[dict] = []
    for f in sorted(Path(ledger_dir).glob("*.json")):
        rows.extend(json.loads(f.read_text()))
    Path(out_file).parent.mkdir(parents=True, exist_ok=True)
    Path(out_file).write_text(json.dumps(rows, indent=1))
    return rows
