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

A chapter never types a status: it reports the computed value (or, for a statement, the computed
fact that decides it) to :class:`blindspot.book.ledger.Ledger`, which looks the claim up here and
decides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

__all__ = ["ClaimSpec", "ChapterClaims", "Registry", "load_registry", "REGISTRY_DIR"]

#: Where the registry lives, relative to the project root.
REGISTRY_DIR = Path("book") / "claims"

_CLAIM_KEYS = {
    "id", "kind", "quantity", "where", "paper", "tol", "data", "needs", "reading", "section", "explain", "unavailable",
}
_DATA_KEYS = {"suite"}


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
    return ClaimSpec(
        id=cid,
        chapter=chapter,
        kind=kind,
        quantity=str(raw["quantity"]).strip(),
        where=str(raw["where"]).strip(),
        paper=paper,
        tol=tol,
        suites=(data["suite"],) if isinstance(data.get("suite"), str) else tuple(data.get("suite") or ()),
        needs=tuple(needs),
        reading=str(raw.get("reading", "")).strip(),
        section=str(raw.get("section", "paper-vs-book")),
        explain=str(raw.get("explain", "")).strip(),
        unavailable=str(raw.get("unavailable", "")).strip(),
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
