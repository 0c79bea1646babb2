"""Swap probability under an anisotropic hidden covariance: Proposition 2 (Schur-convexity).

Hidden capabilities v ~ N(0, Sigma_h) with eigenvalues lambda_1..lambda_h. The hidden quality is
Y = ||v||^2 = sum_l lambda_l chi2_{1,l}, and a swap of a pair with visible gap Delta happens when
W = Y_j - Y_i > Delta for two independent copies.

* Var W = 4 tr Sigma_h^2 = 4 sum lambda^2, so the Gaussian approximation is
  P_gauss = Phi(-Delta / (2 sqrt(sum lambda^2)))                                  :func:`p_swap_gauss`
* At fixed trace sum lambda = s, lambda -> sum lambda^2 is Schur-convex and minimal at the uniform
  vector: for Delta > 0 the isotropic spectrum *minimises* P_gauss (Proposition 2).
* The exact law: W has the real characteristic function phi(t) = prod_l (1 + 4 lambda_l^2 t^2)^(-1/2),
  so by Gil-Pelaez P(W > Delta) = 1/2 - (1/pi) int_0^inf sin(t Delta) phi(t) / t dt
                                                                                :func:`p_swap_spectrum_exact`
* App. G.4's six-prior *simulation* is a different model (a linear functional of N(0, diag(e)) with
  the visible coordinates the first ones): :func:`simulate_linear_functional`. There, isotropy gives
  the most swaps because anisotropic priors put their variance into the visible coordinates; this is
  why App. G.4 calls isotropy the "worst-case upper bound", the opposite of Proposition 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import integrate, stats

from blindspot.core.swap import PRIORS, _check_dims, prior_spectrum

__all__ = [
    "p_swap_gauss",
    "p_swap_spectrum_exact",
    "p_swap_mc",
    "majorizes",
    "robin_hood",
    "anisotropy_path",
    "SchurScan",
    "schur_scan",
    "LINEAR_FUNCTIONAL_PRIORS",
    "linear_functional_prior",
    "LinearSwap",
    "simulate_linear_functional",
    "linear_functional_table",
    "priors_table_exact",
]


def _check_spectrum(lam: Sequence[float] | np.ndarray) -> np.ndarray:
    lam = np.asarray(lam, dtype=float)
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"the hidden spectrum must be a non-empty vector, got shape {lam.shape}")
    if not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError("hidden eigenvalues must be finite and non-negative (a covariance is PSD)")
    if lam.sum() <= 0:
        raise ValueError("the hidden spectrum has zero trace: nothing is hidden")
    return lam


def _check_delta(delta: float | np.ndarray) -> np.ndarray:
    g = np.asarray(delta, dtype=float)
    if not np.all(np.isfinite(g)) or np.any(g < 0):
        raise ValueError("the gap Delta must be finite and >= 0 (order the pair so the visible leader comes first)")
    return g


def p_swap_gauss(delta: float | np.ndarray, lam: Sequence[float] | np.ndarray) -> float | np.ndarray:
    """Phi(-Delta / (2 sqrt(sum lambda^2))), the Gaussian approximation of Proposition 2."""
    lam = _check_spectrum(lam)
    g = _check_delta(delta)
    p = stats.norm.cdf(-g / (2.0 * np.sqrt(np.sum(lam**2))))
    return float(p) if np.ndim(p) == 0 else p


def _gil_pelaez(delta: float, lam: np.ndarray) -> float:
    if delta == 0.0:
        return 0.5
    lam = lam[lam > 0]
    c = 4.0 * lam**2

    def phi(t: float) -> float:
        return float(np.exp(-0.5 * np.sum(np.log1p(c * t * t))))

    # sin(t Delta)/t is smooth at 0; integrate the bulk directly, then the oscillatory tail with QAWF.
    T = 20.0 / delta
    head, _ = integrate.quad(
        lambda t: np.sinc(t * delta / np.pi) * delta * phi(t), 0.0, T, limit=400, epsabs=1e-12, epsrel=1e-10
    )
    tail, _ = integrate.quad(lambda t: phi(t) / t, T, np.inf, weight="sin", wvar=delta, limlst=200)
    return float(np.clip(0.5 - (head + tail) / np.pi, 0.0, 0.5))


def p_swap_spectrum_exact(delta: float | np.ndarray, lam: Sequence[float] | np.ndarray) -> float | np.ndarray:
    """Exact P(Y_j - Y_i > Delta) for Y = sum_l lambda_l chi2_1 (Gil-Pelaez inversion).

    phi_W(t) = prod_l (1 + 4 lambda_l^2 t^2)^(-1/2) is real and even, so
    P(W > Delta) = 1/2 - (1/pi) int_0^inf sin(t Delta) phi_W(t) / t dt. For lambda = (1, ..., 1)
    (nu ones) this is the chi-squared swap probability of Corollary 1(b).
    """
    lam = _check_spectrum(lam)
    g = _check_delta(delta)
    p = np.vectorize(lambda x: _gil_pelaez(float(x), lam), otypes=[float])(g)
    return float(p) if p.ndim == 0 else p


def p_swap_mc(
    delta: float, lam: Sequence[float] | np.ndarray, n_draws: int = 200_000, seed: int = 0, batch: int = 100_000
) -> tuple[float, float]:
    """Monte Carlo P(Y_j - Y_i > Delta), Y = sum lambda_l chi2_1: returns (estimate, standard error)."""
    lam = _check_spectrum(lam)
    g = float(_check_delta(delta))
    if n_draws < 2:
        raise ValueError(f"n_draws must be at least 2, got {n_draws}")
    rng = np.random.default_rng(seed)
    hits, left = 0, n_draws
    while left > 0:
        m = min(batch, left)
        G = rng.standard_normal((2, m, lam.size)) ** 2
        W = G[1] @ lam - G[0] @ lam
        hits += int(np.count_nonzero(W > g))
        left -= m
    p = hits / n_draws
    return p, float(np.sqrt(max(p * (1 - p), 1e-300) / n_draws))


def majorizes(a: Sequence[float], b: Sequence[float], tol: float = 1e-12) -> bool:
    """True when a majorises b (b < a): equal sums and every partial sum of sorted(a) >= that of sorted(b)."""
    a = np.sort(np.asarray(a, dtype=float))[::-1]
    b = np.sort(np.asarray(b, dtype=float))[::-1]
    if a.shape != b.shape:
        raise ValueError(f"majorisation compares vectors of equal length, got {a.size} and {b.size}")
    if abs(a.sum() - b.sum()) > tol * max(1.0, abs(a.sum())):
        return False
    return bool(np.all(np.cumsum(a) >= np.cumsum(b) - tol * max(1.0, abs(a.sum()))))


def robin_hood(lam: Sequence[float], i: int, j: int, t: float) -> np.ndarray:
    """A T-transform: move a fraction t in [0, 1/2] of the gap from the larger of lam_i, lam_j to the smaller.

    The result is majorised by ``lam`` (it is "more equal"), with the same trace.
    """
    lam = np.array(lam, dtype=float)
    if not 0.0 <= t <= 0.5:
        raise ValueError(f"the transfer fraction t must be in [0, 1/2], got {t}")
    if i == j:
        raise ValueError("a Robin Hood transfer needs two different coordinates")
    hi, lo = (i, j) if lam[i] >= lam[j] else (j, i)
    m = t * (lam[hi] - lam[lo])
    lam[hi] -= m
    lam[lo] += m
    return lam


def anisotropy_path(h: int, trace: float, alphas: Sequence[float]) -> np.ndarray:
    """Spectra (len(alphas), h) from isotropic (alpha = 0) to one direction (alpha = 1) at fixed trace.

    lambda(alpha) = (1 - alpha) * trace/h * 1 + alpha * trace * e_1: a majorisation chain.
    """
    if h < 1 or trace <= 0:
        raise ValueError(f"need h >= 1 hidden directions and a positive trace, got h={h}, trace={trace}")
    a = np.asarray(alphas, dtype=float)
    if np.any((a < 0) | (a > 1)):
        raise ValueError("anisotropy alphas must lie in [0, 1]")
    iso = np.full(h, trace / h)
    spike = np.zeros(h)
    spike[0] = trace
    return (1 - a)[:, None] * iso + a[:, None] * spike


@dataclass(frozen=True)
class SchurScan:
    """Random majorisation pairs lambda < lambda' (lambda = a Robin Hood move of lambda').

    ``violations_gauss`` / ``violations_exact`` count pairs with P(lambda) > P(lambda') + tol
    (Proposition 2 says none under the Gaussian approximation); ``iso_violations_*`` count random
    spectra whose P is below the isotropic one.
    """

    deltas: tuple[float, ...]
    n_pairs: int
    violations_gauss: int
    violations_exact: int
    iso_violations_gauss: int
    iso_violations_exact: int
    max_excess_exact: float
    violations_exact_by_delta: tuple[int, ...] = ()

    def quantities(self) -> dict[str, float | int]:
        """``checks`` (pairs x gaps), ``violations_gauss``, ``violations_exact``, ``iso_violations_gauss``,
        ``iso_violations_exact``, ``max_excess_exact`` and ``violations_exact_small`` (at the smallest gap)."""
        by_delta = self.violations_exact_by_delta
        return {"checks": len(self.deltas) * self.n_pairs, "violations_gauss": self.violations_gauss,
                "violations_exact": self.violations_exact, "iso_violations_gauss": self.iso_violations_gauss,
                "iso_violations_exact": self.iso_violations_exact, "max_excess_exact": self.max_excess_exact,
                "violations_exact_small": by_delta[0] if by_delta else 0}  # fmt: skip

    def summary(self) -> pd.Series:
        """The scan's counts as one labelled column: ``pairs x gaps checked``, ``violations, Gaussian``,
        ``violations, exact``, ``below isotropic, Gaussian``, ``below isotropic, exact``, ``largest exact excess``
        and ``exact violations at Delta = <gaps>`` (a tuple, one count per gap)."""
        gaps = ", ".join(f"{d:g}" for d in self.deltas)
        return pd.Series(
            {
                "pairs x gaps checked": len(self.deltas) * self.n_pairs,
                "violations, Gaussian": self.violations_gauss,
                "violations, exact": self.violations_exact,
                "below isotropic, Gaussian": self.iso_violations_gauss,
                "below isotropic, exact": self.iso_violations_exact,
                "largest exact excess": self.max_excess_exact,
                f"exact violations at Delta = {gaps}": self.violations_exact_by_delta,
            }
        )


def schur_scan(
    deltas: Sequence[float] = (1.0, 3.0, 10.0),
    h: int = 6,
    trace: float = 10.0,
    n_pairs: int = 200,
    seed: int = 0,
    exact: bool = True,
    tol: float = 1e-9,
) -> SchurScan:
    """Check Proposition 2 on random Dirichlet spectra and their Robin Hood transforms (T-transforms)."""
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be positive, got {n_pairs}")
    deltas = tuple(float(x) for x in deltas)
    _check_delta(np.array(deltas))
    rng = np.random.default_rng(seed)
    iso = np.full(h, trace / h)
    vg = ve = ig = ie = 0
    by_delta = {dl: 0 for dl in deltas}
    excess = -np.inf
    for _ in range(n_pairs):
        lam_p = rng.dirichlet(np.full(h, 0.7)) * trace
        i, j = rng.choice(h, 2, replace=False)
        lam = robin_hood(lam_p, int(i), int(j), float(rng.uniform(0, 0.5)))
        for dlt in deltas:
            pg, pg2 = p_swap_gauss(dlt, lam), p_swap_gauss(dlt, lam_p)
            vg += int(pg > pg2 + tol)
            ig += int(pg2 < p_swap_gauss(dlt, iso) - tol)
            if exact:
                pe, pe2 = p_swap_spectrum_exact(dlt, lam), p_swap_spectrum_exact(dlt, lam_p)
                ve += int(pe > pe2 + tol)
                by_delta[dlt] += int(pe > pe2 + tol)
                ie += int(pe2 < p_swap_spectrum_exact(dlt, iso) - tol)
                excess = max(excess, pe - pe2)
    return SchurScan(
        deltas, n_pairs, vg, ve, ig, ie, float(excess) if exact else float("nan"), tuple(by_delta[dl] for dl in deltas)
    )


# ----------------------------------------------------------------------------------------------
# App. G.4's linear-functional model (its six-prior simulation; the paper's code, validation_v6.py w5)
# ----------------------------------------------------------------------------------------------
LINEAR_FUNCTIONAL_PRIORS: tuple[str, ...] = ("isotropic", "empirical", "1/i", "1/i^2", "1/sqrt(i)", "adversarial")


def linear_functional_prior(name: str, k: int = 12, empirical: np.ndarray | None = None) -> np.ndarray:
    """A prior spectrum of App. G.4, of length k, normalised to sum k (adversarial: [k, 0, ..., 0])."""
    if name not in LINEAR_FUNCTIONAL_PRIORS:
        raise ValueError(f"unknown prior {name!r}; choose one of {LINEAR_FUNCTIONAL_PRIORS}")
    i = np.arange(1, k + 1, dtype=float)
    if name == "isotropic":
        e = np.ones(k)
    elif name == "empirical":
        if empirical is None or len(empirical) != k:
            raise ValueError(f"the 'empirical' prior needs empirical= eigenvalues of length k={k}")
        e = np.clip(np.asarray(empirical, dtype=float), 0, None)
    elif name == "1/i":
        e = 1 / i
    elif name == "1/i^2":
        e = 1 / i**2
    elif name == "1/sqrt(i)":
        e = 1 / np.sqrt(i)
    else:
        e = np.zeros(k)
        e[0] = 1.0
    return e / e.sum() * k


@dataclass(frozen=True)
class LinearSwap:
    """Top-1 swap rate of App. G.4's linear-functional model, with its standard error and the visible share."""

    swap_rate: float
    se: float
    visible_share: float
    n_draws: int


def simulate_linear_functional(
    eigs: Sequence[float],
    n: int = 148,
    n_draws: int = 2000,
    n_visible: int | None = None,
    seed: int = 0,
    batch: int = 250,
) -> LinearSwap:
    """App. G.4: rows X ~ N(0, diag(eigs)); obs = sum of the first n_visible coordinates, full = sum of all.

    Swap when argmax obs != argmax full. (obs_i, full_i) is bivariate normal with correlation
    sqrt(visible_share), visible_share = sum(eigs[:n_visible]) / sum(eigs), so the rate depends on
    the prior only through that share.
    """
    e = _check_spectrum(eigs)
    k = e.size
    nv = k // 2 if n_visible is None else int(n_visible)
    if not 1 <= nv < k:
        raise ValueError(f"n_visible must be in [1, {k - 1}], got {nv}")
    if n < 2:
        raise ValueError(f"need at least 2 models, got n={n}")
    rng = np.random.default_rng(seed)
    sd = np.sqrt(e)
    swaps = 0
    for s in range(0, n_draws, batch):
        m = min(batch, n_draws - s)
        X = rng.standard_normal((m, n, k)) * sd
        obs = X[:, :, :nv].sum(axis=2)
        full = obs + X[:, :, nv:].sum(axis=2)
        swaps += int(np.count_nonzero(obs.argmax(axis=1) != full.argmax(axis=1)))
    p = swaps / n_draws
    return LinearSwap(p, float(np.sqrt(max(p * (1 - p), 1e-300) / n_draws)), float(e[:nv].sum() / e.sum()), n_draws)


def linear_functional_table(
    empirical: np.ndarray,
    n: int = 148,
    n_draws: int = 2000,
    seed: int = 0,
    reverse: bool = False,
    priors: Sequence[str] = LINEAR_FUNCTIONAL_PRIORS,
    same_seed: bool = False,
) -> pd.DataFrame:
    """App. G.4's six priors (one default_rng(seed) stream per prior, seeded seed + index); reverse=True puts
    the largest eigenvalues on the *hidden* coordinates instead.

    ``priors`` and ``same_seed`` give App. G.2's four-prior variant of the same simulation: the priors
    isotropic, empirical, 1/i and 1/i^2, each with a fresh ``default_rng(seed)`` (seed 1 in the paper's code).
    """
    rows = []
    k = len(empirical)
    unknown = [p for p in priors if p not in LINEAR_FUNCTIONAL_PRIORS]
    if unknown or not len(priors):
        raise ValueError(f"priors must be a non-empty selection of {LINEAR_FUNCTIONAL_PRIORS}, got {list(priors)}")
    for i, name in enumerate(priors):
        e = linear_functional_prior(name, k, empirical)
        if reverse:
            e = e[::-1]
        r = simulate_linear_functional(e, n=n, n_draws=n_draws, seed=seed if same_seed else seed + i)
        rows.append({"prior": name, "swap_rate": r.swap_rate, "se": r.se, "visible_share": r.visible_share})
    return pd.DataFrame(rows).set_index("prior")


def priors_table_exact(
    delta2: float,
    d: float,
    sigma_obs: float,
    empirical: np.ndarray,
    D_list: Sequence[float] = (10, 20, 50, 100),
    seed: int = 0,
) -> pd.DataFrame:
    """The six-prior table of the paper's code (validation_v8.py ``exp1a``) under the *exact* weighted
    chi-squared law instead of its Gaussian form.

    With e normalised to sum D - d, the code's P = Phi(-Delta_2 / (2 sigma)), sigma =
    sigma_obs sqrt(4 sum e^2) / (D - d), equals Phi(-Delta'' / sd(W)) with W = sum_l e_l (chi2_1 - chi2_1')
    and Delta'' = Delta_2 (D - d) / (2 sigma_obs). This function returns P(W > Delta'') exactly
    (Gil-Pelaez), so each cell differs from :func:`blindspot.core.swap.priors_table` only by the
    Gaussian approximation. Rows = priors (same order and Pareto stream), columns = D.
    """

    if sigma_obs <= 0:
        raise ValueError(f"sigma_obs must be positive, got {sigma_obs}")
    _check_delta(delta2)
    rng = np.random.default_rng(seed)
    out = {}
    for name in PRIORS:
        row = {}
        for D in D_list:
            nu = _check_dims(d, D)
            e = prior_spectrum(name, max(int(D - d), 1), rng, empirical)
            e = e / e.sum() * nu
            row[D] = p_swap_spectrum_exact(delta2 * nu / (2.0 * sigma_obs), e)
        out[name] = row
    df = pd.DataFrame(out).T
    df.columns.name = "D"
    df.index.name = "prior"
    return df
