"""The claims registry: every paper number or statement the book checks, written down once.

One YAML file per chapter, ``book/claims/<chapter>.yml``::

    chapter: 01_effective_dimensionality
    run:                       # the chapter's run parameters: the paper's protocol and quick mode
      scores: {paper: [ollm_v2, extended, livebench]}
      n_boot: {paper: 300, quick: 40}
    claims:
      - id: T1.deff.extended.frontier
        kind: value            # a number the paper prints
        quantity: d_eff (Pearson), Extended frontier
        where: Table 1
        paper: 4.80
        tol: 0.005
        data: {suite: extended}
      - id: T1.ci_lo.extended.frontier
        kind: value
        ...
        needs: [n_boot]        # only the paper's protocol reproduces it
      - id: T4a.submodular
        kind: statement        # something the paper asserts
        quantity: the coverage objective f is submodular
        where: Theorem 4(a)
        reading: f(T) = tr(P_T Sigma) / tr Sigma as Theorem 4 defines it; submodular in the usual sense
        data: {suite: extended}
      - id: C1.citation
        kind: statement
        about: paper           # about the paper's own text, tables or citations, not about a leaderboard
        ...
      - id: T4a.submodular
        headline: the coverage function is submodular   # a headline finding of the landing page (``true``: the quantity)
        ...
      - id: T2.nonvacuous.ollm_v2
        kind: statement
        general:               # how it reads on other data (optional: the rule below gives it)
          id: T2.nonvacuous
          quantity: delta_vis = 2 R omega_emp is an informative bound on your frontier

On a reader's own leaderboard a claim reads in the reader's terms: its ``general_id`` is its id without
the names of the paper's suites it is about (``T2.nonvacuous.ollm_v2`` -> ``T2.nonvacuous``), and its
``general_quantity`` the statement with those names replaced by "your leaderboard" / "your frontier"
(:func:`general_wording`); a ``general:`` entry overrides either. The claims the paper makes once per
suite then share one general id, and the your-data ledger holds one row for them.

A chapter never types a status: it reports the computed value (or, for a statement, the computed
fact that decides it) to :class:`blindspot.book.ledger.Ledger`, which looks the claim up here and
decides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

__all__ = [
    "ClaimSpec",
    "ChapterClaims",
    "Registry",
    "load_registry",
    "general_id",
    "general_wording",
    "REGISTRY_DIR",
    "ABOUT",
]

#: Where the registry lives, relative to the project root.
REGISTRY_DIR = Path("book") / "claims"

_CLAIM_KEYS = {
    "id",
    "kind",
    "quantity",
    "where",
    "paper",
    "tol",
    "data",
    "needs",
    "reading",
    "section",
    "explain",
    "unavailable",
    "about",
    "general",
    "headline",
    "basis",
}
_DATA_KEYS = {"suite"}
_GENERAL_KEYS = {"id", "quantity"}
#: What a claim is about: a leaderboard ('data', the default; judged on a reader's leaderboard too) or the
#: paper's own text, tables, printed constants or citations ('paper'; judged only in the paper's book).
ABOUT = ("data", "paper")

#: How the paper names its suites in a statement, longest first (a reader's file has none of these names).
_SUITE_NAMES = {
    "ollm_v2_full": (r"the [\d,]+-model OLLM v2 dump", r"the OLLM v2 dump", r"OLLM v2 dump"),
    "ollm_v2": (r"OLLM v2",),
    "extended": (r"Extended",),
    "livebench": (r"LiveBench sub-tasks", r"LiveBench"),
}


def general_id(claim_id: str, suites: tuple[str, ...]) -> str:
    """The id without the names of the suites the claim is about: ``T1.deff.ollm_v2.full`` -> ``T1.deff.full``.

    Only whole dot- or underscore-separated parts are removed (``S.monotone.ollm_v2_full`` -> ``S.monotone``);
    a claim about no suite keeps its id.
    """
    out = claim_id
    for suite in sorted(suites, key=len, reverse=True):
        out = re.sub(rf"(?<=[._]){re.escape(suite)}(?=$|[._])", "", out)
    out = re.sub(r"[._]{2,}", lambda m: m.group(0)[0], out).strip("._")
    return out or claim_id


def general_wording(quantity: str, suites: tuple[str, ...]) -> str:
    """The statement in a reader's terms: the paper's names of ``suites`` become "your leaderboard", and
    "the <suite> frontier" becomes "your frontier"."""
    names = [n for s in sorted(suites, key=len, reverse=True) for n in _SUITE_NAMES.get(s, ())]
    if not names:
        return quantity
    alt = "|".join(names)
    q = re.sub(rf"\bthe ({alt})(?: suite's)? frontier", "your frontier", quantity)
    q = re.sub(rf"\b({alt}) frontier", "your frontier", q)
    q = re.sub(rf"\bthe ({alt}) (?:suite|leaderboard)'s\b", "your leaderboard's", q)
    q = re.sub(rf"\bthe ({alt})(?: (?:suite|leaderboard|matrix))?\b", "your leaderboard", q)
    q = re.sub(rf"\b({alt})\b(?: (?:suite|leaderboard|matrix))?", "your leaderboard", q)
    return re.sub(r"your (leaderboard|frontier)(?:,? and your \1)+", r"your \1", q)


@dataclass(frozen=True)
class ClaimSpec:
    """One registered claim.

    Attributes
    ----------
    id : str
        Unique across the book (e.g. ``"T1.deff.extended.frontier"``).
    chapter : str
        The chapter (notebook stem) that checks it.
    kind : {'value', 'statement'}
        A number the paper prints (compared within ``tol``) or a statement the paper makes (decided
        by a computed fact).
    quantity : str
        What the number is, or the statement as the paper makes it.
    where : str
        Where the paper gives it (``"Table 1"``, ``"Theorem 4(a)"``, ``"App. H.21"``).
    paper : float, str or None
        The paper's value (a number for value claims; optional text for a statement).
    tol : float or None
        Tolerance of a value claim (usually half a unit of the last digit the paper prints).
    suites : tuple of str
        The named suites the claim is about (one, or several for a claim about the paper's
        leaderboards together); a run on any other data is "your data".
    needs : tuple of str
        Run parameters whose paper value the claim needs (e.g. ``("n_boot",)``).
    reading : str
        For a statement: which reading of the paper the check takes, and why it is the faithful one.
    section : str
        Anchor of the chapter section where the claim is computed.
    explain : str
        Shown with a value that differs: why it may differ.
    unavailable : str
        Why the paper's own protocol cannot be run at all (e.g. an unpublished pipeline): the claim is then
        "not reproducible here" on the paper's data, whatever the book computes beside it.
    about : {'data', 'paper'}
        'paper' for a claim about the paper's own text, tables, printed constants or citations: it is judged
        in the paper's book and listed apart, not judged, on a reader's leaderboard.
    general_id, general_quantity : str
        The claim on a reader's leaderboard: one id for the claims the paper makes once per suite, and the
        statement worded for the reader's data (:func:`general_id`, :func:`general_wording`, or the
        registry's ``general:`` entry).
    basis : {'exact', 'statistical'}
        What decides a statement (:mod:`blindspot.core.verdict`): a computation without sampling
        ('exact', the default: a counterexample, a closed form, a proof check) or a sample
        ('statistical'): the chapter must then record it with its test (interval or p-value), and it
        fails only where the test excludes the claim.
    headline : str
        When the claim is one of the book's headline findings, which the landing page opens with: the
        finding in a few words, without its numbers (the registry's ``headline:``, or its ``quantity``
        when that says ``true``); else ''.
    """

    id: str
    chapter: str
    kind: Literal["value", "statement"]
    quantity: str
    where: str
    paper: float | str | None = None
    tol: float | None = None
    suites: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    reading: str = ""
    section: str = "paper-vs-book"
    explain: str = ""
    unavailable: str = ""
    about: str = "data"
    general_id: str = ""
    general_quantity: str = ""
    headline: str = ""
    basis: str = "exact"


@dataclass(frozen=True)
class ChapterClaims:
    """The registry file of one chapter: its run parameters and its claims (in file order)."""

    chapter: str
    run: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    claims: Mapping[str, ClaimSpec] = field(default_factory=dict)


@dataclass(frozen=True)
class Registry:
    """Every chapter's claims; ``registry[id]`` is a :class:`ClaimSpec`."""

    chapters: Mapping[str, ChapterClaims]

    def __getitem__(self, claim_id: str) -> ClaimSpec:
        for ch in self.chapters.values():
            if claim_id in ch.claims:
                return ch.claims[claim_id]
        raise KeyError(f"claim {claim_id!r} is not in the registry ({REGISTRY_DIR}/*.yml); register it first")

    def chapter(self, stem: str) -> ChapterClaims:
        return self.chapters.get(stem, ChapterClaims(stem))

    def __len__(self) -> int:
        return sum(len(ch.claims) for ch in self.chapters.values())


def _fail(path: Path, msg: str) -> ValueError:
    return ValueError(f"{path}: {msg}")


def _spec(path: Path, chapter: str, raw: object) -> ClaimSpec:
    if not isinstance(raw, dict) or "id" not in raw:
        raise _fail(path, f"every claim is a mapping with an id; got {raw!r}")
    cid = str(raw["id"])
    extra = set(raw) - _CLAIM_KEYS
    if extra:
        raise _fail(path, f"claim {cid}: unknown keys {sorted(extra)}; allowed: {sorted(_CLAIM_KEYS)}")
    kind = raw.get("kind")
    if kind not in ("value", "statement"):
        raise _fail(path, f"claim {cid}: kind must be 'value' or 'statement', got {kind!r}")
    for key in ("quantity", "where"):
        if not str(raw.get(key, "")).strip():
            raise _fail(path, f"claim {cid}: '{key}' is required")
    paper, tol = raw.get("paper"), raw.get("tol")
    if kind == "value":
        if not isinstance(paper, (int, float)) or isinstance(paper, bool) or not math.isfinite(paper):
            raise _fail(path, f"claim {cid}: a value claim needs a finite number 'paper', got {paper!r}")
        if not isinstance(tol, (int, float)) or tol < 0:
            raise _fail(path, f"claim {cid}: a value claim needs a tolerance 'tol' >= 0, got {tol!r}")
        paper, tol = float(paper), float(tol)
    else:
        if tol is not None:
            raise _fail(path, f"claim {cid}: a statement has no tolerance")
        if not str(raw.get("reading", "")).strip():
            raise _fail(path, f"claim {cid}: a statement needs a 'reading' (which reading of the paper, and why)")
        paper = None if paper is None else str(paper)
    data = raw.get("data") or {}
    if not isinstance(data, dict) or set(data) - _DATA_KEYS:
        raise _fail(path, f"claim {cid}: 'data' is a mapping with keys {sorted(_DATA_KEYS)}, got {data!r}")
    needs = raw.get("needs") or []
    if isinstance(needs, str) or not all(isinstance(n, str) for n in needs):
        raise _fail(path, f"claim {cid}: 'needs' is a list of run parameter names, got {needs!r}")
    about = raw.get("about", "data")
    if about not in ABOUT:
        raise _fail(path, f"claim {cid}: 'about' is one of {list(ABOUT)}, got {about!r}")
    general = raw.get("general") or {}
    if not isinstance(general, dict) or set(general) - _GENERAL_KEYS:
        raise _fail(path, f"claim {cid}: 'general' is a mapping with keys {sorted(_GENERAL_KEYS)}, got {general!r}")
    headline = raw.get("headline", False)
    if headline is True:
        headline = str(raw["quantity"])
    if headline is not False and (not isinstance(headline, str) or not headline.strip()):
        raise _fail(path, f"claim {cid}: 'headline' is true or the finding in a few words, got {headline!r}")
    basis = raw.get("basis", "exact")
    if basis not in ("exact", "statistical"):
        raise _fail(path, f"claim {cid}: 'basis' is 'exact' or 'statistical', got {basis!r}")
    suites = (data["suite"],) if isinstance(data.get("suite"), str) else tuple(data.get("suite") or ())
    quantity = str(raw["quantity"]).strip()
    return ClaimSpec(
        id=cid,
        chapter=chapter,
        kind=kind,
        quantity=quantity,
        where=str(raw["where"]).strip(),
        paper=paper,
        tol=tol,
        suites=suites,
        needs=tuple(needs),
        reading=str(raw.get("reading", "")).strip(),
        section=str(raw.get("section", "paper-vs-book")),
        explain=str(raw.get("explain", "")).strip(),
        unavailable=str(raw.get("unavailable", "")).strip(),
        about=about,
        general_id=str(general.get("id") or general_id(cid, suites)),
        general_quantity=" ".join(str(general.get("quantity") or general_wording(quantity, suites)).split()),
        headline=" ".join(headline.split()) if headline else "",
        basis=basis,
    )


def _chapter(path: Path) -> ChapterClaims:
    doc = yaml.safe_load(path.read_text()) or {}
    chapter = doc.get("chapter")
    if chapter != path.stem:
        raise _fail(path, f"'chapter' must be the file's stem {path.stem!r}, got {chapter!r}")
    run = doc.get("run") or {}
    for name, spec in run.items():
        if not isinstance(spec, dict) or not set(spec) <= {"paper", "quick"} or "paper" not in spec:
            raise _fail(path, f"run parameter {name!r} needs a mapping {{paper: ..., quick: ...}}, got {spec!r}")
    claims: dict[str, ClaimSpec] = {}
    for raw in doc.get("claims") or []:
        spec = _spec(path, chapter, raw)
        if spec.id in claims:
            raise _fail(path, f"claim {spec.id} is registered twice")
        for need in spec.needs:
            if need not in run:
                raise _fail(path, f"claim {spec.id} needs run parameter {need!r}, which 'run' does not define")
        claims[spec.id] = spec
    kinds: dict[str, str] = {}
    for spec in claims.values():  # claims read as one on a reader's data must be one kind of claim
        if kinds.setdefault(spec.general_id, spec.kind) != spec.kind:
            raise _fail(
                path,
                f"claim {spec.id}: its general id {spec.general_id!r} is shared with a {kinds[spec.general_id]} "
                "claim; give it its own with general: {id: ...}",
            )
    return ChapterClaims(chapter, run, claims)


def load_registry(root: str | Path = ".") -> Registry:
    """Read every ``book/claims/*.yml`` under ``root``.

    Raises
    ------
    ValueError
        On a malformed file or a claim id registered in two chapters, naming the file.
    """
    chapters: dict[str, ChapterClaims] = {}
    seen: dict[str, str] = {}
    for path in sorted((Path(root) / REGISTRY_DIR).glob("*.yml")):
        ch = _chapter(path)
        for cid in ch.claims:
            if cid in seen:
                raise _fail(path, f"claim {cid} is also registered by {seen[cid]}")
            seen[cid] = ch.chapter
        chapters[ch.chapter] = ch
    return Registry(chapters)
