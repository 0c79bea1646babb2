"""Theorem 5: iterative blind-spot closure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.coverage import greedy_select, validate_sigma
from blindspot.core.spectrum import participation_ratio
from blindspot.treat.guarantees import submodularity_ratio

__all__ = ["ClosureCurve", "closure_curve"]


@dataclass(frozen=True)
class ClosureCurve:
    """Theorem 5 on one Sigma: the greedy coverage f(T_t), the claimed lower bound and the valid one.

    ``claimed[t-1]`` = 1 - (1 - d_eff/k)^t (the paper); ``valid[t-1]`` = 1 - exp(-gamma t / k) with the
    submodularity ratio gamma (None when k is too large for it); ``holds`` = f >= claimed.
    """

    t: np.ndarray
    f: np.ndarray
    claimed: np.ndarray
    valid: np.ndarray | None
    gamma: float | None
    d_eff: float
    rank: int
    names: list[str]

    @property
    def holds(self) -> np.ndarray:
        return self.f >= self.claimed - 1e-12

    @property
    def failing_t(self) -> list[int]:
        """The steps t at which the claimed bound fails."""
        return [int(t) for t, h in zip(self.t, self.holds) if not h]

    def failures_by_start(self) -> dict[int, list[int]]:
        """For every start m = 0..k-1 (the "m" of f(T_{m+t}), which the paper leaves undefined), the
        steps t = 1..k-m at which f(T_{m+t}) < 1 - (1 - d_eff/k)^t; m = 0 gives :attr:`failing_t`."""
        k = len(self.t)
        out = {}
        for m in range(k):
            t = np.arange(1, k - m + 1)
            ok = self.f[m + t - 1] >= self.claimed[t - 1] - 1e-12
            out[m] = [int(x) for x in t[~ok]]
        return out

    def frame(self) -> pd.DataFrame:
        d = {
            "benchmark": [self.names[i] for i in range(len(self.t))],
            "f": self.f,
            "claimed": self.claimed,
            "holds": self.holds,
        }
        if self.valid is not None:
            d["valid_lower"] = self.valid
        return pd.DataFrame(d, index=pd.Index(self.t, name="t"))


def closure_curve(
    Sigma: np.ndarray | pd.DataFrame, names: Sequence[str] | None = None, with_gamma: bool = True
) -> ClosureCurve:
    """Theorem 5 checked on Sigma: greedy f(T_t) for t = 1..k against 1 - (1 - d_eff/k)^t."""
    inp = validate_sigma(Sigma, names)
    g = greedy_select(inp.sigma, names=inp.names)
    k = inp.k
    t = np.arange(1, k + 1)
    de = participation_ratio(np.linalg.eigvalsh(inp.sigma))
    claimed = 1.0 - (1.0 - de / k) ** t
    gamma, valid = None, None
    if with_gamma and k <= 14:
        gamma = submodularity_ratio(inp.sigma).gamma
        valid = 1.0 - np.exp(-gamma * t / k)
    rank = int(np.linalg.matrix_rank(inp.sigma, tol=1e-8 * max(1.0, np.abs(inp.sigma).max())))
    return ClosureCurve(t, g.coverages, claimed, valid, gamma, de, rank, g.selected)
