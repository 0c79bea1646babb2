"""Which quality does a leaderboard's winner maximise? Top-1 swap rates under five quality functionals
(the paper's App. H.24).

The simulation (the paper's code, validation_v8.py ``exp1b``): n models with capabilities
c_i ~ N(0, I_D); the benchmark sees the first d coordinates and ranks by their mean,
obs_i = mean(c_i[:d]). The "true" quality is one of five functionals q(c):

    ||c||^2,   (1/sqrt D) sum_j c_j,   e_1 . c = c_1,   w . c (w a random unit vector),   min_j c_j.

The top-1 swap rate is the fraction of trials in which argmax_i obs_i != argmax_i q(c_i). One
``default_rng(seed)`` (the paper's seed is 1) first draws w, then a fresh (n_trials, n, D) array of
capabilities for each functional, in the order above. Drawing it in consecutive blocks of trials
consumes the same stream, so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["FUNCTIONALS", "QualitySwap", "quality_swap_rates"]

#: The five quality functionals of App. H.24, in the paper's order.
FUNCTIONALS: tuple[str, ...] = ("||c||^2", "(1/sqrt D) sum c", "e1 . c", "random w . c", "min_j c_j")


@dataclass(frozen=True)
class QualitySwap:
    """Top-1 swap rates under each quality functional (App. H.24).

    Attributes
    ----------
    rates : pandas.Series
        Swap rate per functional (index :data:`FUNCTIONALS`).
    se : pandas.Series
        Binomial standard error of each rate.
    w : ndarray (D,)
        The random unit vector of ``random w . c``.
    n, D, d, n_trials, seed : int
        The simulation's parameters.
    """

    rates: pd.Series
    se: pd.Series
    w: np.ndarray
    n: int
    D: int
    d: int
    n_trials: int
    seed: int

    def table(self) -> pd.DataFrame:
        """The rates with their standard errors, one row per functional."""
        return pd.DataFrame({"swap rate": self.rates, "SE": self.se})


def _functionals(w: np.ndarray, D: int) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Each functional of a block of capabilities (trials, n, D) -> qualities (trials, n)."""
    return {
        "||c||^2": lambda c: np.einsum("tnj,tnj->tn", c, c),
        "(1/sqrt D) sum c": lambda c: c.sum(axis=2) / np.sqrt(D),
        "e1 . c": lambda c: c[:, :, 0],
        "random w . c": lambda c: c @ w,
        "min_j c_j": lambda c: c.min(axis=2),
    }


def quality_swap_rates(
    n: int = 148, D: int = 20, d: int = 5, n_trials: int = 5000, seed: int = 1, batch: int = 250
) -> QualitySwap:
    """Top-1 swap rates under the five quality functionals of App. H.24 (see the module docstring).

    Parameters
    ----------
    n : int
        Models per simulated leaderboard (the paper: the Extended frontier's 148).
    D : int
        Ambient dimension of capability (the paper: 20).
    d : int
        Observed coordinates, the first ``d`` (the paper: round(d_eff) = 5 of the Extended frontier).
    n_trials : int
        Simulated leaderboards per functional (the paper: 5000).
    seed : int
        Seed of the one generator (the paper: 1).
    batch : int
        Trials drawn at a time (does not change the result).

    Raises
    ------
    ValueError
        n < 2, d outside [1, D - 1] (no hidden coordinate), n_trials < 1 or batch < 1.
    """
    n, D, d = int(n), int(D), int(d)
    if n < 2:
        raise ValueError(f"a top-1 comparison needs at least 2 models, got n={n}")
    if not 1 <= d < D:
        raise ValueError(f"the observed coordinates d={d} must be between 1 and D - 1 = {D - 1} (some must be hidden)")
    if n_trials < 1 or batch < 1:
        raise ValueError(f"n_trials and batch must be at least 1, got {n_trials} and {batch}")
    rng = np.random.default_rng(seed)
    w = rng.normal(size=D)
    w /= np.linalg.norm(w)
    rates, ses = {}, {}
    for name, q in _functionals(w, D).items():
        swaps = 0
        done = 0
        while done < n_trials:
            b = min(batch, n_trials - done)
            c = rng.normal(size=(b, n, D))
            obs = c[:, :, :d].mean(axis=2)
            swaps += int(np.count_nonzero(np.argmax(obs, axis=1) != np.argmax(q(c), axis=1)))
            done += b
        p = swaps / n_trials
        rates[name], ses[name] = p, float(np.sqrt(p * (1 - p) / n_trials))
    return QualitySwap(pd.Series(rates, name="swap rate"), pd.Series(ses, name="SE"), w, n, D, d, n_trials, seed)
