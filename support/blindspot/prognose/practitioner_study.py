"""The practitioner formula and Table 2 on a set of leaderboards in one call (the paper's §4, App. H.11, H.23, H.41).

:func:`practitioner_study` takes the frontier of each leaderboard (at least 3 models), rebuilds Table 2 under
the formula as stated and as the paper's code computes it
(:func:`~blindspot.prognose.visible_radius.visible_radius_table`), decomposes the covering radius one
ingredient at a time (:data:`DECOMPOSITION`), caps the visible radius at the trivial 2R, computes the "Rogers
ratio" of App. H.11 and the two standardisation tables of App. H.23 and H.41
(:mod:`blindspot.prognose.standardisation`). The result gives its numbers by name
(:meth:`PractitionerStudy.quantities`), its tables as frames, and the values of the ledger's claims
(:meth:`PractitionerStudy.claims`).

References
----------
The paper's §4 (the practitioner formula), Table 2, App. H.11 (the Rogers ratio), H.23 and H.41.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core import conventions
from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable
from blindspot.prognose import indistinguishability as ind, standardisation as std, visible_radius as vr

__all__ = ["DECOMPOSITION", "PAPER_SUITES", "TABLE2_COLUMNS", "PractitionerStudy", "practitioner_study"]

#: The leaderboards of the paper's Table 2 (the ledger's claims name them).
PAPER_SUITES: tuple[str, ...] = ("ollm_v2", "extended", "livebench")

#: The columns of Table 2 a page shows (:func:`~blindspot.prognose.visible_radius.visible_radius`'s).
TABLE2_COLUMNS: tuple[str, ...] = (
    "n", "k", "d_eff", "d", "R", "omega", "delta_vis", "delta2", "ratio", "trivial_cap", "capped_ratio",
)  # fmt: skip

#: The stated formula to the paper's code, one ingredient at a time (keyword arguments of
#: :func:`~blindspot.prognose.visible_radius.visible_radius`), each radius exact but the last.
DECOMPOSITION: dict[str, dict] = {
    "stated: paper loadings, |.|, exact": dict(loading="paper", projective=True, d_round="ceil", radius="exact"),
    "paper loadings, signed, exact": dict(loading="paper", projective=False, d_round="ceil", radius="exact"),
    "code loadings, |.|, exact": dict(loading="code", projective=True, d_round="round", radius="exact"),
    "code loadings, signed, exact": dict(loading="code", projective=False, d_round="round", radius="exact"),
    "code: code loadings, signed, Monte Carlo (Table 2)": vr.VARIANTS["code"],
}

_LEDGER_FIELDS_T2 = ("R", "delta2", "omega", "delta_vis", "ratio")
_LEDGER_FIELDS_H23 = ("R", "omega", "delta_vis", "delta2", "ratio")
_METHOD_ID = {"z-score": "zscore", "min-max": "minmax", "rank": "rank", "raw": "raw"}


@dataclass(frozen=True)
class PractitionerStudy:
    """Table 2 under the stated formula and the paper's code, its decomposition, and App. H.23/H.41.

    Attributes
    ----------
    suites : dict of str to ScoreTable
        The leaderboards given.
    fronts : dict of str to ScoreTable
        Their frontiers of at least 3 models.
    too_small : dict of str to int
        The leaderboards left out, with the size of their frontier.
    featured : str
        The leaderboard the prose reads off (``extended`` when given, else the first).
    table : DataFrame
        Table 2: one :class:`~blindspot.prognose.visible_radius.VisibleRadius` row per (suite, variant).
    decomposition : DataFrame
        omega per :data:`DECOMPOSITION` row (index) and frontier (columns).
    ext_key, v2_key : str
        The frontiers standing for Extended and OLLM v2 in App. H.23/H.41 (``featured`` when absent).
    h23, h41_v2, h41_real : DataFrame
        :func:`~blindspot.prognose.standardisation.ratios_h23` on the Extended frontier,
        :func:`~blindspot.prognose.standardisation.ratios_h41` on the full OLLM v2 matrix and on the full
        Extended matrix (the script's logic on the real frontier).
    h41_ext : DataFrame or None
        H.41's script as run, on the Extended frontier (the frontier of the frontier); None when that keeps
        fewer than 3 models.
    stated : DataFrame
        :func:`~blindspot.prognose.standardisation.stated_ratios` on the Extended frontier.
    n_samples : int
        Monte Carlo query directions of the code variant.
    """

    suites: dict[str, ScoreTable]
    fronts: dict[str, ScoreTable]
    too_small: dict[str, int]
    featured: str
    table: pd.DataFrame
    decomposition: pd.DataFrame
    ext_key: str
    v2_key: str
    h23: pd.DataFrame
    h41_v2: pd.DataFrame
    h41_ext: pd.DataFrame | None
    h41_real: pd.DataFrame
    stated: pd.DataFrame
    n_samples: int

    @property
    def too_small_note(self) -> str:
        """Which leaderboards are skipped for a frontier under 3 models (else empty)."""
        if not self.too_small:
            return ""
        names = "; ".join(f"The frontier of {s} keeps {n} model(s)" for s, n in self.too_small.items())
        return (
            f":::{{important}}\n{names}: the formula needs a correlation matrix of at least 3 models, so it is "
            "skipped there.\n:::"
        )

    @property
    def twice_note(self) -> str:
        """Why H.41's Extended column is missing (else empty)."""
        if self.h41_ext is not None:
            return ""
        return (
            f":::{{important}}\nThe frontier of the {self.ext_key} frontier keeps fewer than 3 models, so H.41's "
            "Extended column (its script cuts the frontier twice) cannot be computed here.\n:::"
        )

    def sizes(self) -> pd.DataFrame:
        """One row per frontier: ``models``, ``benchmarks``."""
        return pd.DataFrame({s: {"models": t.n_models, "benchmarks": t.n_benchmarks} for s, t in self.fronts.items()}).T

    def table2(self) -> pd.DataFrame:
        """Table 2's columns (:data:`TABLE2_COLUMNS`) per (suite, variant)."""
        return self.table[list(TABLE2_COLUMNS)]

    def row(self, suite: str, variant: str) -> pd.Series:
        """One row of Table 2 (``variant``: ``stated`` or ``code``)."""
        return self.table.loc[(suite, variant)]

    def cap(self) -> pd.DataFrame:
        """Per frontier, the stated formula's ``R``, ``trivial_cap``, ``delta_vis``, ``delta2``, ``capped_ratio``
        beside the code's ``Table 2 delta_vis`` and ``Table 2 ratio``."""
        stated = self.table.xs("stated", level="variant")[["R", "trivial_cap", "delta_vis", "delta2", "capped_ratio"]]
        code = self.table.xs("code", level="variant")[["delta_vis", "ratio"]]
        return stated.join(code.rename(columns={"delta_vis": "Table 2 delta_vis", "ratio": "Table 2 ratio"}))

    def rogers(self) -> pd.Series:
        """On the featured frontier: the 'Rogers optimum' sqrt(d) m^(-1/(d-1)) at the code's d, the code's
        omega over it, and the stated omega over the optimum at the stated d (:func:`~blindspot.prognose.
        indistinguishability.rogers_estimate_sqrt_d`)."""
        code, stated = self.row(self.featured, "code"), self.row(self.featured, "stated")
        opt = ind.rogers_estimate_sqrt_d(int(code.d), int(code.k))
        return pd.Series(
            {
                "'Rogers optimum' sqrt(d) m^(-1/(d-1)), code d": opt,
                "code omega / optimum": float(code.omega) / opt,
                "stated omega / optimum (stated d)": float(stated.omega)
                / ind.rogers_estimate_sqrt_d(int(stated.d), int(stated.k)),
            },
            name=self.featured,
        )

    def standardisation(self) -> pd.DataFrame:
        """The ratio per representation (rows) under App. H.23's code, H.41's script (OLLM v2; Extended as run
        and on the real frontier) and the stated formula (plain and capped at 2R), one column each."""
        e, n = self.ext_key, (0 if self.h41_ext is None else self.h41_ext["n"].iloc[0])
        return pd.DataFrame(
            {
                f"H.23 ({e}, code)": self.h23["ratio"],
                f"H.41 {self.v2_key} (code, omega {std.H41_OMEGA})": self.h41_v2["ratio"],
                f"H.41 {e} as run (n = {n})": np.nan if self.h41_ext is None else self.h41_ext["ratio"],
                f"H.41 script on the {e} frontier": self.h41_real["ratio"],
                f"stated formula, {e}": self.stated["ratio"],
                f"stated, capped at 2R, {e}": self.stated["capped_ratio"],
            }
        )

    def capped_ratios(self) -> dict[tuple[str, str], float]:
        """The stated ratio capped at 2R per (frontier, representation), over every frontier."""
        return {(s, m): r for s, t in self.fronts.items() for m, r in std.stated_ratios(t)["capped_ratio"].items()}

    def table2_claims(self, suite: str) -> dict[str, ClaimValue]:
        """Table 2's claims ``T2.<field>.<suite>`` (the code variant), each on the frontier it is computed on; the
        featured frontier stands in for a suite not given."""
        key = suite if suite in self.fronts else self.featured
        return {f"T2.{f}.{suite}": ClaimValue(self.row(key, "code")[f], self.fronts[key]) for f in _LEDGER_FIELDS_T2}

    def appendix_claims(self) -> dict[str, ClaimValue]:
        """The appendix's claims, each on the table it is computed on: ``H11.rogers_ratio``, then per representation
        ``H23.<field>.<method>``, ``H41.ratio.ollm_v2.<method>`` and (when computed) ``H41.ratio.extended.<method>``."""
        out = {"H11.rogers_ratio": ClaimValue(float(self.rogers()["code omega / optimum"]), self.fronts[self.featured])}
        ext, v2 = self.fronts[self.ext_key], self.suites[self.v2_key]
        for m, mid in _METHOD_ID.items():
            out |= {f"H23.{f}.{mid}": ClaimValue(self.h23.loc[m, f], ext) for f in _LEDGER_FIELDS_H23}
            out[f"H41.ratio.ollm_v2.{mid}"] = ClaimValue(self.h41_v2.loc[m, "ratio"], v2)
            if self.h41_ext is not None:
                out[f"H41.ratio.extended.{mid}"] = ClaimValue(self.h41_ext.loc[m, "ratio"], ext)
        return out

    def claims(self) -> dict[str, ClaimValue]:
        """Every value claim of the chapter: :meth:`table2_claims` of each of :data:`PAPER_SUITES`, then
        :meth:`appendix_claims`."""
        out: dict[str, ClaimValue] = {}
        for s in PAPER_SUITES:
            out |= self.table2_claims(s)
        return out | self.appendix_claims()

    def quantities(self) -> dict[str, float | int | str]:
        """``featured``, ``n_fronts``, ``n_samples``; the featured frontier's ``R``, ``delta2``, ``two_R`` and
        ``capmax`` (2R / Delta_2), and per variant ``stated_`` / ``code_`` + ``omega``, ``delta_vis``, ``ratio``,
        ``trivial_cap``, ``capped_ratio``; ``signed_exact`` (the exact signed radius of the code's loadings);
        ``stated_om_lo``, ``stated_om_hi`` (the stated omega's range over the frontiers); ``n_vacuous`` (frontiers
        where 2R omega > 2R); ``capped_list``; ``rogers_ratio``; ``ext_key``, ``h41_omega``, ``h41_n``, and the
        z-score ratios ``table2_z``, ``h23_z``, ``h41_ext_z`` (NaN when not computed), ``h41_real_z``, ``z_stated``,
        ``rank_stated``."""
        f, nan = self.featured, float("nan")
        cap, stated_om = self.cap(), self.table.xs("stated", level="variant")["omega"]
        q: dict[str, float | int | str] = {
            "featured": f, "n_fronts": len(self.fronts), "n_samples": self.n_samples,
            "R": float(self.row(f, "stated").R), "delta2": float(self.row(f, "stated").delta2),
            "two_R": float(self.row(f, "stated").trivial_cap),
            "capmax": float(self.row(f, "stated").trivial_cap / self.row(f, "stated").delta2),
        }  # fmt: skip
        for v in ("stated", "code"):
            row = self.row(f, v)
            q |= {f"{v}_{c}": float(row[c]) for c in ("omega", "delta_vis", "ratio", "trivial_cap", "capped_ratio")}
        return q | {
            "signed_exact": float(self.decomposition.loc["code loadings, signed, exact", f]),
            "stated_om_lo": float(stated_om.min()), "stated_om_hi": float(stated_om.max()),
            "n_vacuous": int((cap["delta_vis"] > cap["trivial_cap"]).sum()),
            "capped_list": ", ".join(f"{cap.loc[s, 'capped_ratio']:.1f}× ({s})" for s in cap.index),
            "rogers_ratio": float(self.rogers()["code omega / optimum"]),
            "ext_key": self.ext_key, "h41_omega": std.H41_OMEGA,
            "h41_n": 0 if self.h41_ext is None else int(self.h41_ext["n"].iloc[0]),
            "table2_z": float(self.row(self.ext_key, "code").ratio), "h23_z": float(self.h23.loc["z-score", "ratio"]),
            "h41_ext_z": nan if self.h41_ext is None else float(self.h41_ext.loc["z-score", "ratio"]),
            "h41_real_z": float(self.h41_real.loc["z-score", "ratio"]),
            "z_stated": float(self.stated.loc["z-score", "ratio"]), "rank_stated": float(self.stated.loc["rank", "ratio"]),
        }  # fmt: skip


def _pick(fronts: Mapping[str, ScoreTable], name: str, default: str) -> str:
    return name if name in fronts else default


def practitioner_study(
    suites: Mapping[str, ScoreTable], n_samples: int = 10_000, seed: int = 0, featured: Sequence[str] = ("extended",)
) -> PractitionerStudy:
    """Table 2, its decomposition and App. H.23/H.41 on the frontiers of ``suites`` (those of at least 3 models).

    Parameters
    ----------
    suites : mapping of str to ScoreTable
        The leaderboards, by name (the paper's: ``ollm_v2``, ``extended``, ``livebench``).
    n_samples : int
        Monte Carlo query directions of the code variant (the paper's 10,000).
    seed : int
        Seed of the query directions (the paper's code: ``default_rng(0)``).
    featured : sequence of str
        The leaderboards the prose prefers to read off, in order; else the first frontier.

    Returns
    -------
    PractitionerStudy

    Raises
    ------
    ValueError
        No leaderboard has a frontier of at least 3 models.
    """
    suites = dict(suites)
    sizes = {s: int(conventions.frontier_mask(t).sum()) for s, t in suites.items()}
    too_small = {s: n for s, n in sizes.items() if n < 3}
    fronts = {s: conventions.frontier(t) for s, t in suites.items() if s not in too_small}
    if not fronts:
        raise ValueError(f"no leaderboard given has a frontier of at least 3 models ({too_small}); the formula needs 3")
    feat = next((s for s in featured if s in fronts), next(iter(fronts)))
    table = vr.visible_radius_table(fronts, n_samples=n_samples, seed=seed)
    decomp = vr.visible_radius_table(fronts, DECOMPOSITION, n_samples=n_samples, seed=seed)["omega"].unstack(0)
    ext, v2 = _pick(fronts, "extended", feat), _pick(fronts, "ollm_v2", feat)
    twice_ok = conventions.frontier_mask(fronts[ext]).sum() >= 3
    return PractitionerStudy(
        suites=suites,
        fronts=fronts,
        too_small=too_small,
        featured=feat,
        table=table,
        decomposition=decomp.loc[list(DECOMPOSITION), list(fronts)],
        ext_key=ext,
        v2_key=v2,
        h23=std.ratios_h23(fronts[ext]),
        h41_v2=std.ratios_h41(suites[v2]),
        h41_ext=std.ratios_h41(fronts[ext]) if twice_ok else None,
        h41_real=std.ratios_h41(suites[ext]),
        stated=std.stated_ratios(fronts[ext]),
        n_samples=n_samples,
    )
