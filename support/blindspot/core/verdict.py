"""A decided statement, the test behind it, and the words a page says about it.

The chapters narrate; the package decides. Each part's ``verdicts`` module turns computed results into
a :class:`Verdict`: whether a statement holds, the evidence built from the values that decided it, and
its **basis**:

- ``exact``: a counterexample, a closed form or a proof check decided it; nothing is sampled, so
  no interval applies and the verdict is what the computation says.
- ``statistical``: a sample (of models, items, resamples or seeds) decided it; the verdict then
  names its :class:`StatTest` (the test, the estimate, its 95 % interval or p-value, and the smallest
  effect the test could detect) and is reached by one calibrated rule, :func:`judge`: a statement
  *holds* where the interval supports it, *fails* only where the interval excludes it **and** the
  test could have detected the claimed effect, and is otherwise **not resolved at 95 %**
  (``holds=None``).

Where the protocol had choices (a clustering's seed and k, a frontier rule, how missing cells are
filled, which leaderboards enter), :class:`Robustness` says under how many of the reasonable
alternatives the verdict holds, and which alternatives flip it.

The ledger (:mod:`blindspot.book.ledger`) turns a verdict into a status. ``dkps`` measures but does
not judge: it holds no verdicts, so it does not import this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

__all__ = [
    "EXACT",
    "STATISTICAL",
    "BASES",
    "StatTest",
    "Robustness",
    "Verdict",
    "judge",
    "detectable_effect",
    "number_or",
    "listing",
    "yes_no",
    "compare_words",
]

#: What a page says where a number was not computed (a section that does not apply to the data).
NOT_COMPUTED = "not computed"
#: A verdict decided without sampling: a counterexample, a closed form, a proof check.
EXACT = "exact"
#: A verdict decided on a sample (models, items, resamples, seeds): it names its test.
STATISTICAL = "statistical"
BASES = (EXACT, STATISTICAL)
#: The level of every interval a verdict is judged on.
LEVEL = 0.95
#: The power at which :func:`detectable_effect` states what a test could detect.
POWER = 0.80


def detectable_effect(interval: tuple[float, float], level: float = LEVEL, power: float = POWER) -> float:
    """The smallest effect a test with this interval resolves with the given power.

    With the interval read as ``estimate ± z_{1-α/2}·se`` (so ``se = width / (2 z_{1-α/2})``), a true
    effect ``δ`` away from the null is resolved at level ``1-α`` with probability ``power`` when
    ``δ ≥ (z_{1-α/2} + z_{power})·se`` (the usual minimum-detectable-effect formula of a two-sided
    Wald test; Cohen, *Statistical Power Analysis*, 1988, ch. 1).

    Parameters
    ----------
    interval : (float, float)
        The test's interval of the estimate, at ``level``.
    level, power : float
        The interval's coverage and the required power.

    Returns
    -------
    float
        ``(z_{1-α/2} + z_power) · (hi - lo) / (2 z_{1-α/2})``; 2.8 half-widths / 1.96 at the defaults.

    Examples
    --------
    >>> round(detectable_effect((-1.96, 1.96)), 3)
    2.802
    """
    lo, hi = _interval(interval)
    z_a = NormalDist().inv_cdf(0.5 + level / 2)
    z_b = NormalDist().inv_cdf(power)
    return (z_a + z_b) * (hi - lo) / (2 * z_a)


def _interval(interval: Sequence[float]) -> tuple[float, float]:
    lo, hi = (float(x) for x in interval)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(f"an interval needs two finite ends with lo <= hi, got {interval!r}")
    return lo, hi


@dataclass(frozen=True)
class StatTest:
    """The test behind a statistical verdict.

    Attributes
    ----------
    name : str
        What was done, in words a referee can redo (``"paired bootstrap over 2,000 resamples of the
        models"``, ``"exact McNemar test"``, ``"5 seeds, t interval"``).
    estimate : float or None
        The quantity the statement is about, as computed.
    interval : (float, float) or None
        Its 95 % interval (None when the test gives only a p-value).
    p_value : float or None
        The test's p-value, where it has one.
    detectable : float or None
        The smallest effect the test resolves at 80 % power, in the estimate's units; default from
        the interval (:func:`detectable_effect`).
    widened : str
        Empty, or how the interval was widened beyond what the test gives (e.g. to include the point
        estimate), which a table must show.
    """

    name: str
    estimate: float | None = None
    interval: tuple[float, float] | None = None
    p_value: float | None = None
    detectable: float | None = None
    widened: str = ""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ValueError("a StatTest needs the name of the test")
        if self.interval is None and self.p_value is None:
            raise ValueError(f"the test {self.name!r} needs an interval or a p-value")
        if self.interval is not None:
            object.__setattr__(self, "interval", _interval(self.interval))
            if self.detectable is None:
                object.__setattr__(self, "detectable", detectable_effect(self.interval))
        if self.p_value is not None and not 0.0 <= float(self.p_value) <= 1.0:
            raise ValueError(f"a p-value lies in [0, 1], got {self.p_value!r}")

    def words(self, spec: str = ".3g") -> str:
        """The test in one clause: name, estimate, interval, p-value and what it could detect."""
        parts = [self.name]
        if self.estimate is not None:
            parts.append(f"estimate {format(self.estimate, spec)}")
        if self.interval is not None:
            lo, hi = self.interval
            parts.append(
                f"95% interval [{format(lo, spec)}, {format(hi, spec)}]" + (" (widened)" if self.widened else "")
            )
        if self.p_value is not None:
            parts.append(f"p = {self.p_value:.3g}")
        if self.detectable is not None:
            parts.append(f"could detect {format(self.detectable, spec)}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Robustness:
    """Under how many of the protocol's reasonable alternatives a verdict holds.

    Attributes
    ----------
    held : int
        Alternatives under which the statement holds.
    total : int
        Alternatives tried (the chapter's own choice included).
    alternatives : str
        What was varied (``"k-means seeds 0-4, k = 3, k = 8, a code/text split"``).
    flips : tuple of str
        The alternatives under which the verdict differs from the chapter's own choice.
    """

    held: int
    total: int
    alternatives: str
    flips: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not 0 <= int(self.held) <= int(self.total) or int(self.total) < 1:
            raise ValueError(f"held must lie in [0, total] with total >= 1, got {self.held} of {self.total}")
        object.__setattr__(self, "flips", tuple(str(f) for f in self.flips))

    @property
    def fragile(self) -> bool:
        """True when some alternative flips the verdict."""
        return bool(self.flips)

    def words(self) -> str:
        """'holds in 3 of 8 (k-means seeds ...); flips under: ...'."""
        text = f"holds in {self.held} of {self.total} ({self.alternatives})"
        if self.flips:
            text += "; flips under: " + ", ".join(self.flips)
        return text


@dataclass(frozen=True)
class Verdict:
    """A statement decided from computed values.

    Attributes
    ----------
    holds : bool or None
        Whether the statement holds under the registry's reading of it; None when a statistical test
        resolves it neither way at 95 % (:func:`judge`).
    evidence : str
        The computed values that decided it, in words (the ledger shows it beside the status).
    book : float or str, optional
        The book's value to show beside the statement (``Ledger.statement(book=...)``), if any.
    basis : {'exact', 'statistical'}
        What decided it: a computation without sampling, or a sample with its :attr:`test`.
    test : StatTest, optional
        The test of a statistical verdict (required for one that holds or fails).
    robustness : Robustness, optional
        How the verdict fares under the protocol's alternatives.

    Raises
    ------
    ValueError
        On an unknown basis, an exact verdict left unresolved, or a statistical verdict that holds or
        fails without a test.
    """

    holds: bool | None
    evidence: str
    book: float | str | None = None
    basis: str = EXACT
    test: StatTest | None = None
    robustness: Robustness | None = None

    def __post_init__(self) -> None:
        if self.holds is not None:
            object.__setattr__(self, "holds", bool(self.holds))
        if self.basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, got {self.basis!r}")
        if self.basis == EXACT and self.holds is None:
            raise ValueError("an exact verdict is decided: holds must be True or False")
        if self.basis == STATISTICAL and self.test is None:
            raise ValueError("a statistical verdict names its test (test=StatTest(...))")

    @property
    def resolved(self) -> bool:
        """False when the test resolves the statement neither way."""
        return self.holds is not None


def judge(
    test: StatTest,
    claim: str,
    threshold: float | tuple[float, float],
    claimed_effect: float | None = None,
) -> bool | None:
    """The calibrated rule: does the test's interval support the claim, exclude it, or neither?

    For a claim that the tested quantity θ lies ``claim`` the ``threshold``:

    - ``'>'`` (θ above the threshold): True when the interval lies above it; False when it lies below
      it **and** the test could have detected the claimed effect (``claimed_effect`` — the claim's size
      above the threshold — is at least :attr:`StatTest.detectable`; with no size stated, an interval
      that excludes every value the claim allows is enough); None otherwise.
    - ``'<'``: the mirror image.
    - ``'in'`` with ``threshold = (a, b)``: True when the interval lies inside [a, b], False when it
      misses [a, b] entirely, None when it straddles an end.

    With only a p-value (no interval), the test of a ``'>'`` / ``'<'`` claim is read as one-sided
    against the threshold: True when ``p < 0.05`` and the estimate lies on the claim's side, otherwise
    None (a p-value alone cannot say that the claimed effect was excluded).

    Parameters
    ----------
    test : StatTest
        The test, with its estimate and 95 % interval (or p-value).
    claim : {'>', '<', 'in'}
        Which side of the threshold the statement puts the quantity.
    threshold : float or (float, float)
        The claim's boundary (a band for ``'in'``).
    claimed_effect : float, optional
        How far past the threshold the claim puts the quantity, when it states a size (e.g. the gain the
        original reports); the test must be able to detect it for a failure.

    Returns
    -------
    bool or None

    Examples
    --------
    >>> t = StatTest("paired bootstrap", estimate=-0.01, interval=(-0.02, 0.005))
    >>> judge(t, ">", 0.0) is None                         # straddles 0: not resolved
    True
    >>> judge(StatTest("bootstrap", -0.01, (-0.02, -0.004)), ">", 0.0)   # excludes any gain
    False
    >>> judge(StatTest("bootstrap", -0.01, (-0.2, -0.001)), ">", 0.0, claimed_effect=0.05) is None
    True
    """
    if claim not in (">", "<", "in"):
        raise ValueError(f"claim must be '>', '<' or 'in', got {claim!r}")
    if test.interval is None:
        if claim == "in" or test.p_value is None or test.estimate is None:
            return None
        side = test.estimate > threshold if claim == ">" else test.estimate < threshold  # type: ignore[operator]
        return True if (side and test.p_value < 1 - LEVEL) else None
    lo, hi = test.interval
    if claim == "in":
        a, b = _interval(threshold)  # type: ignore[arg-type]
        if a <= lo and hi <= b:
            return True
        return False if (hi < a or lo > b) else None
    t = float(threshold)  # type: ignore[arg-type]
    supports = lo > t if claim == ">" else hi < t
    excludes = hi <= t if claim == ">" else lo >= t
    if supports:
        return True
    if excludes:
        could = claimed_effect is None or test.detectable is None or abs(claimed_effect) >= test.detectable
        return False if could else None
    return None


def number_or(value: float | None, spec: str = ".2f", missing: str = NOT_COMPUTED) -> str:
    """``value`` formatted with ``spec``, or ``missing`` when there is no value (None or NaN).

    Parameters
    ----------
    value : float or None
        The computed number, None when it was not computed.
    spec : str
        A format specification (``".2f"``, ``".0f"``, ``".1%"``).
    missing : str
        What to say instead of a number.

    Returns
    -------
    str
    """
    if value is None or value != value:  # NaN
        return missing
    return format(value, spec)


def listing(items: Iterable[object], empty: str = "none", sep: str = ", ") -> str:
    """The items joined by ``sep``, or ``empty`` when there are none."""
    text = sep.join(str(x) for x in items)
    return text or empty


def yes_no(flag: bool) -> str:
    """'yes' or 'no' for a computed flag (a table cell)."""
    return "yes" if flag else "no"


def compare_words(a: float, b: float, above: str = "above", below: str = "below") -> str:
    """``above`` when ``a > b``, else ``below`` (e.g. 'more often than' / 'less often than')."""
    return above if a > b else below
