"""App. H.13-H.14 on a leaderboard in one call: does a greedy subset chosen on some models cover the others?

:func:`temporal_transfer_study` splits a leaderboard's models into four quarters by name (the paper's code),
and by date when the leaderboard (or the paper's OLLM v2 dump) has dates, and computes the transfer matrix of
greedy coverage between quarters (:func:`~blindspot.treat.transfer.retention_matrix`): entry (i, j) is the
coverage f on quarter j of the greedy top r chosen on quarter i. It checks whether the name order is a time
order (:func:`~blindspot.treat.transfer.order_agreement`), transfers a subset from the early to the late half
(:func:`~blindspot.treat.transfer.halves_transfer`) and ranks the late half with it against random subsets
(:func:`~blindspot.treat.transfer.late_kendall`). The result gives its numbers by name
(:meth:`TemporalTransferStudy.quantities`), its tables, its sentences, its figure and its ledger records.

References
----------
The paper's App. H.13 and H.14 (the temporal transfer matrix and the early/late halves).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import coverage as cv, spectrum
from blindspot.core.claim_value import ClaimStatement, ClaimValue, on_tables
from blindspot.core.verdict import Verdict
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import figures, transfer as tf, verdicts

__all__ = ["QUARTERS", "TemporalTransferStudy", "temporal_transfer_study"]

#: The quarters' labels.
QUARTERS = ["Q1", "Q2", "Q3", "Q4"]
#: Subset sizes of the early/late halves table.
HALVES_R = (4, 5, 6, 7)


def _rng(m: tf.RetentionMatrix, ratio: bool = False) -> str:
    off = m.off_diagonal(ratio=ratio)
    return f"[{off.min():.3f}, {off.max():.3f}]"


def _dates(table: ScoreTable, dump: ScoreTable | None) -> dict[str, pd.Series]:
    """Each model's date by source: the dump's upload and submission dates on the paper's data, the row
    order on a synthetic stand-in (it has no dates), the leaderboard's own date columns without a dump."""
    if dump is not None and not (table.synthetic or dump.synthetic):
        return {c.replace("_", " "): tf.submission_dates(dump, table.scores.index, c) for c in ("upload_date", "submission_date")}  # fmt: skip
    if dump is not None:
        days = pd.date_range("2024-06-01", periods=table.n_models, freq="D")
        return {"row order": pd.Series(days, index=table.scores.index)}
    return {c.replace("_", " "): d for c, d in tf.table_dates(table).items()}


@dataclass(frozen=True)
class TemporalTransferStudy:
    """Transfer matrices of greedy coverage between quarters of a leaderboard's models.

    Attributes
    ----------
    table : ScoreTable
        The leaderboard; ``dump`` the paper's OLLM v2 dump (None on your data).
    r, r_dump : int
        Subset sizes on the leaderboard and on the dump.
    dates : dict
        source -> each model's date (see :func:`_dates`).
    can_split : bool
        Four quarters of :data:`blindspot.data.MIN_MODELS` models and more benchmarks than r.
    alpha : list of ndarray
        The quarters by name (empty when the table cannot be split); ``rm_alpha`` their transfer matrix.
    quarters : dict
        date source -> (quarters by date, their date spans), for sources dating enough models.
    rm_time : dict
        date source -> transfer matrix of its quarters; ``time_key`` the first source (None without dates).
    agree : OrderAgreement or None
        Name order against the ``time_key`` order.
    rm_dump : RetentionMatrix or None
        The dump's calendar quarters (None on your data or with r_dump too large).
    halves : DataFrame
        :func:`~blindspot.treat.transfer.halves_transfer` of the early and late halves by name.
    late : LateKendall or None
        The late half ranked by the early half's greedy top r, against random subsets.
    """

    table: ScoreTable
    dump: ScoreTable | None
    r: int
    r_dump: int
    n_random: int
    dates: dict[str, pd.Series]
    can_split: bool
    alpha: list[np.ndarray]
    rm_alpha: tf.RetentionMatrix | None
    quarters: dict[str, tuple[list[np.ndarray], list[str]]]
    rm_time: dict[str, tf.RetentionMatrix]
    agree: tf.OrderAgreement | None
    rm_dump: tf.RetentionMatrix | None
    halves: pd.DataFrame
    late: tf.LateKendall | None

    @property
    def names(self) -> pd.Series:
        """The models' names, in row order."""
        return self.table.scores.index.to_series()

    @property
    def time_key(self) -> str | None:
        """The first date source with quarters (upload date on the paper's data), or None."""
        return next(iter(self.quarters), None)

    def quantities(self) -> dict[str, int | str]:
        """``table_name``, ``n_table`` (models), ``r``, ``r_dump`` and ``n_random`` (random subsets)."""
        t = self.table
        return {"table_name": t.name, "n_table": t.n_models, "r": self.r, "r_dump": self.r_dump, "n_random": self.n_random}  # fmt: skip

    def ranges(self) -> dict[str, tf.RetentionMatrix]:
        """The leaderboard's transfer matrices by ordering: by name (the paper), then by each date source."""
        out = {"by name (paper)": self.rm_alpha} if self.rm_alpha is not None else {}
        return out | {f"by {key}": m for key, m in self.rm_time.items()}

    # tables
    def parts_table(self) -> pd.DataFrame:
        """Each quarter by name: its first and last model and its rows."""
        names = self.names
        return pd.DataFrame(
            {
                "first model": [names.iloc[p[0]] for p in self.alpha],
                "last model": [names.iloc[p[-1]] for p in self.alpha],
                "rows": [len(p) for p in self.alpha],
            },
            index=QUARTERS[: len(self.alpha)],
        )

    def quarters_table(self) -> pd.DataFrame | None:
        """Each date source's quarter spans (None without dates)."""
        if not self.quarters:
            return None
        return pd.DataFrame({key: spans for key, (_, spans) in self.quarters.items()}, index=QUARTERS)

    def ranges_table(self) -> pd.DataFrame:
        """Per ordering: the off-diagonal coverages' min and max and the smallest ratio M_ij / M_jj."""
        rows = {
            name: {
                "off-diagonal min": m.off_diagonal().min(),
                "off-diagonal max": m.off_diagonal().max(),
                "min ratio M_ij / M_jj": m.off_diagonal(ratio=True).min(),
            }
            for name, m in self.ranges().items()
        }
        return pd.DataFrame(rows).T

    def agreement_table(self) -> pd.DataFrame | None:
        """Models dated, share in the same quarter and Kendall tau of name order against time order."""
        a = self.agree
        if a is None:
            return None
        rows = {
            "models with both": a.n,
            "same quarter (share)": round(a.same_part, 3),
            "Kendall tau, name order vs time order": round(a.tau, 3),
        }
        return pd.Series(rows, dtype=object).to_frame(self.time_key)

    def dump_table(self) -> pd.DataFrame | None:
        """The dump's calendar-quarter matrix with each quarter's greedy top r (None without it)."""
        m = self.rm_dump
        if m is None:
            return None
        tops = pd.DataFrame({"greedy top r": [", ".join(o) for o in m.orders]}, index=m.frame().index)
        return pd.concat([m.frame().round(3), tops], axis=1)

    def late_table(self) -> pd.Series | None:
        """The transferred subset's Kendall tau and top-10 overlap on the late half, and the random subsets'."""
        lk = self.late
        if lk is None:
            return None
        return pd.Series(
            {
                "greedy-transferred tau": lk.tau,
                "top-10 shared": lk.shared,
                "random tau (mean)": lk.random_tau_mean,
                "random tau (sd)": lk.random_tau_sd,
                "random top-10 shared (mean)": lk.random_shared_mean,
            }
        )

    # sentences (empty where the section does not apply)
    @property
    def split_note(self) -> str:
        """Why the transfer matrices are not computed (empty when they are)."""
        if self.can_split:
            return ""
        t = self.table
        return (
            f":::{{important}}\n**The transfer matrices are not computed on this leaderboard.** They need at least "
            f"{4 * MIN_MODELS} models (four parts of {MIN_MODELS}) and more benchmarks than r = {self.r}; "
            f"{t.name} has {t.n_models} models and {t.n_benchmarks} benchmarks.\n:::"
        )

    @property
    def alpha_text(self) -> str:
        """What the by-name matrix holds and the range of its off-diagonal coverages and ratios."""
        if self.rm_alpha is None:
            return ""
        return (
            f"Rows are the quarter greedy was trained on, columns the quarter its top {self.r} is evaluated on. The "
            f"off-diagonal coverages lie in {_rng(self.rm_alpha)}. These are coverages; the retention relative to "
            "the evaluation quarter's own greedy subset, "
            f"$M_{{ij}}/M_{{jj}}$, lies in {_rng(self.rm_alpha, ratio=True)} (above 1 where the transferred subset "
            "happens to beat greedy's own)."
        )

    @property
    def quarters_text(self) -> str:
        """How many models have a date and how many days each quarter spans, or why there are no quarters."""
        if not self.quarters:
            return (
                ":::{important}\n**No dates on this leaderboard.** The quarters by time, and the check of whether the "
                "name order is a time order, need a date column (`release_date`, `date`, `upload_date` or "
                "`submission_date`).\n:::"
            )
        sentences = []
        for key, (parts, _) in self.quarters.items():
            d = self.dates[key]
            days = ", ".join(f"{(d.iloc[p].max() - d.iloc[p].min()).days}" for p in parts)
            sentences.append(
                f"{int(d.notna().sum())} of the {self.table.n_models} models have a date ({key}); its quarters span "
                f"{days} days."
            )
        return " ".join(sentences)

    @property
    def agreement_text(self) -> str:
        """How far the name order is a time order, and the off-diagonal range by time."""
        a, key = self.agree, self.time_key
        if a is None:
            return ""
        return (
            f"Sorted by name and by {key}, {100 * a.same_part:.0f}% of the models land in the same quarter "
            f"(an unrelated order would give about {100 / a.n_parts:.0f}%), and Kendall $\\tau$ between the two "
            f"orders is {a.tau:.2f}. Ordered by {key} the off-diagonal coverages lie in {_rng(self.rm_time[key])}."
        )

    @property
    def dump_note(self) -> str:
        """Why the calendar quarters are not shown (empty when they are)."""
        if self.rm_dump is not None:
            return ""
        return (
            ":::{note}\nThe calendar quarters use the paper's OLLM v2 dump; they are "
            "shown on the paper's data only.\n:::"
        )

    @property
    def dump_text(self) -> str:
        """The dump's quarter sizes and off-diagonal range."""
        m = self.rm_dump
        if m is None:
            return ""
        sizes = ", ".join(f"{lab}: {s}" for lab, s in zip(m.labels, m.sizes))
        return f"Quarter sizes: {sizes}. The off-diagonal coverages lie in {_rng(m)}."

    @property
    def halves_text(self) -> str:
        """The share of the native coverage the transferred subset keeps at r."""
        if not self.can_split or self.r not in self.halves.index:
            return ""
        return f"At $r$ = {self.r} the transferred subset keeps {self.halves.loc[self.r, 'ratio']:.3f} of the native coverage."  # fmt: skip

    @property
    def late_text(self) -> str:
        """The transferred subset's Kendall tau and overlap against random subsets'."""
        lk = self.late
        if lk is None:
            return ""
        return (
            f"The transferred subset gives $\\tau$ = {lk.tau:.3f} and keeps {lk.shared} of the top 10 models; random "
            f"{self.r}-subsets give $\\tau$ = {lk.random_tau_mean:.3f} ± {lk.random_tau_sd:.3f} and keep "
            f"{lk.random_shared_mean:.1f}. Coverage and rank preservation are different goals "
            "({ref}`ch-subset-objectives`)."
        )

    @property
    def summary_text(self) -> str:
        """The summary's bullets: each ordering's off-diagonal range and smallest ratio, and the late-half tau."""
        bullets = [
            f"- Off-diagonal coverages {name}: {_rng(m)}; smallest retention ratio {m.off_diagonal(ratio=True).min():.3f}."
            for name, m in self.ranges().items()
        ]
        lk = self.late
        if lk is not None:
            bullets.append(
                f"- The transferred subset ranks the late half with Kendall $\\tau$ = {lk.tau:.3f}; random "
                f"{self.r}-subsets give {lk.random_tau_mean:.3f} ± {lk.random_tau_sd:.3f}."
            )
        return "\n".join(bullets)

    # figure
    def figure(self) -> plt.Figure:
        """Heat maps of the transfer matrices: by name, by the first date source, and the dump's calendar quarters."""
        mats = {"by name (paper)": self.rm_alpha.frame()} if self.rm_alpha is not None else {}
        if self.time_key is not None:
            mats[f"by {self.time_key}"] = self.rm_time[self.time_key].frame()
        if self.rm_dump is not None:
            mats["OLLM v2 dump, calendar quarters"] = self.rm_dump.frame()
        return figures.retention_heatmaps(mats) if mats else figures.not_drawn("no transfer matrix")

    # ledger
    def claims(self) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order, all on the leaderboard (none when it cannot be split)."""
        return on_tables(self._records(), self.table)

    def _records(self) -> dict[str, float | tuple[float, str] | Verdict]:
        if self.rm_alpha is None:
            return {}
        off, ratio = self.rm_alpha.off_diagonal(), self.rm_alpha.off_diagonal(ratio=True)
        out: dict[str, float | tuple[float, str] | Verdict] = {
            "TT.offdiag_min": off.min(),
            "TT.offdiag_max": off.max(),
            "TT.retention_label": (
                ratio.min(),
                f"the entries are coverages f(T), off-diagonal [{off.min():.3f}, {off.max():.3f}]; the retention "
                f"ratio M_ij/M_jj lies in [{ratio.min():.3f}, {ratio.max():.3f}]",
            ),
        }
        if self.agree is not None:
            key = self.time_key
            out["TT.chronological"] = verdicts.name_order_is_time_order(
                self.agree, off, self.rm_time[key].off_diagonal(), key
            )
        if self.r in self.halves.index:
            row = self.halves.loc[self.r]
            out |= {f"TT.h14_{c}7": row[c] for c in ("ratio", "native", "transferred")}
        lk = self.late
        out |= {
            "TT.late_tau": lk.tau,
            "TT.late_shared": lk.shared,
            "TT.random_tau": lk.random_tau_mean,
            "TT.random_tau_sd": lk.random_tau_sd,
            "TT.random_shared": lk.random_shared_mean,
        }
        return out

    def statuses(self, recorded: Mapping[str, str]) -> dict[str, str]:
        """The page's status words (``label``, ``chrono``) from the ledger's statuses, or why not checked."""
        return {
            "label": recorded.get("TT.retention_label", "not computed on this leaderboard"),
            "chrono": recorded.get("TT.chronological", "not checked (no dates)"),
        }


def _dump_matrix(dump: ScoreTable | None, r_dump: int) -> tf.RetentionMatrix | None:
    if dump is None or r_dump >= dump.n_benchmarks:
        return None
    if dump.synthetic:
        parts, labels = tf.ordered_parts(np.arange(dump.n_models), 4), QUARTERS
    else:
        parts, labels = tf.calendar_parts(dump.meta["submission_date"])
    return tf.retention_matrix(dump, parts, r=r_dump, labels=labels)


def temporal_transfer_study(
    table: ScoreTable,
    dump: ScoreTable | None = None,
    *,
    r: int = 7,
    r_dump: int = 4,
    n_random: int = 200,
    seed: int = 0,
) -> TemporalTransferStudy:
    """Transfer greedy subsets between quarters of a leaderboard's models, by name and by date.

    Parameters
    ----------
    table : ScoreTable
        The leaderboard.
    dump : ScoreTable, optional
        The paper's OLLM v2 dump (dates, and its calendar quarters); None on your data.
    r, r_dump : int
        Subset sizes on the leaderboard and on the dump.
    n_random : int
        Random r-subsets of the late-half ranking check.
    seed : int
        Seed of the random subsets.

    Returns
    -------
    TemporalTransferStudy

    Raises
    ------
    ValueError
        ``r`` or ``r_dump`` below 1.
    """
    if r < 1 or r_dump < 1:
        raise ValueError(f"r and r_dump must be at least 1, got {r} and {r_dump}")
    dates = _dates(table, dump)
    names = table.scores.index.to_series()
    can_split = table.n_models >= 4 * MIN_MODELS and r < table.n_benchmarks
    alpha = tf.ordered_parts(names, 4) if can_split else []
    quarters = {}
    for key, d in dates.items():
        if can_split and d.notna().sum() >= 4 * MIN_MODELS:
            parts = tf.ordered_parts(d, 4)
            quarters[key] = (parts, [f"{d.iloc[p].min():%Y-%m-%d} to {d.iloc[p].max():%Y-%m-%d}" for p in parts])
    rm_time = {key: tf.retention_matrix(table, parts, r=r, labels=QUARTERS) for key, (parts, _) in quarters.items()}
    time_key = next(iter(quarters), None)
    X = table.values
    halves, late = pd.DataFrame(), None
    if can_split:
        early, later = tf.ordered_parts(names, 2)
        halves = tf.halves_transfer(X[early], X[later], r_values=[x for x in HALVES_R if x < table.n_benchmarks])
        early_top = cv.greedy_select(spectrum.correlation(X[early]), r=r).order
        late = tf.late_kendall(X[later], early_top, n_random=n_random, seed=seed)
    return TemporalTransferStudy(
        table=table,
        dump=dump,
        r=int(r),
        r_dump=int(r_dump),
        n_random=int(n_random),
        dates=dates,
        can_split=can_split,
        alpha=alpha,
        rm_alpha=tf.retention_matrix(table, alpha, r=r, labels=QUARTERS) if can_split else None,
        quarters=quarters,
        rm_time=rm_time,
        agree=tf.order_agreement(names, dates[time_key]) if time_key is not None else None,
        rm_dump=_dump_matrix(dump, r_dump),
        halves=halves,
        late=late,
    )
