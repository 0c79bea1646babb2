"""Swap probabilities of the chi-squared projection model (Corollary 1; App. C.2, G.1).

The model (paper App. C.2): capabilities c_i ~ N(0, I_D) i.i.d.; a benchmark suite sees
d of the D directions. The visible quality of model i is X_i = ||u_i||^2 ~ chi2_d, the hidden one
Y_i = ||v_i||^2 ~ chi2_{D-d}, the true quality Z_i = X_i + Y_i ~ chi2_D. The benchmark's top model
is i* = argmax X_i.

* (a) signal-to-noise rho = Corr(X_i, Z_i) = sqrt(d / D)                       :func:`rho_snr`
* (b) P(Z_j > Z_i | X_i - X_j = Delta) = P(Y_j - Y_i > Delta), exactly
  int_0^inf f_nu(y) S_nu(y + Delta) dy (nu = D - d), or by the CLT
  Phi(-Delta / (2 sqrt(nu)))  (Var(Y_j - Y_i) = 4 nu)                         :func:`p_swap_pair`
* (c) Harris/FKG: P(top-1 correct | X) >= prod_j P(Y_i* - Y_j > -Delta_j)
* (d) union bound: P(top-1 wrong | X) <= sum_j P(Y_j - Y_i* > Delta_j)        :func:`p_top1_bounds`
* boxed eq. (3) of the main text, literally: sum_j Phi(-Delta_j / (2 sqrt(2 (D - d))))  :func:`top1_union_bound_stated`
  (its 2 sigma_hidden is sqrt(2) x the true sd 2 sqrt(D - d) of (b), so it is a looser bound; and it is
  vacuous on real leaderboards, a sum of n - 1 terms near 1/2)
* the rescaled form the paper's code uses for every number:
  Phi(-Delta / (2 sigma_h)), sigma_h = sigma_obs sqrt((D - d)/d)            :func:`p_swap_rescaled`
* the six hidden-capability priors x D table behind "[0.38, 0.49]"
  (the paper's code, validation_v8.py ``exp1a``)                               :func:`priors_table`

Gaps Delta are in chi-squared (squared-norm) units for (b)-(d) and eq. (3) as the model defines
them, and in standardised aggregate units for the rescaled form (the paper plugs standardised score
gaps into eq. (3); its code replaces the model by the rescaling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import integrate, special, stats

from blindspot.core.conventions import ArrayLike, aggregate, as_matrix
from blindspot.core.spectrum import d_eff as _d_eff

__all__ = [
    "p_swap_rescaled",
    "rho_snr",
    "p_swap_pair",
    "p_swap_pair_batch",
    "PairSwapMC",
    "simulate_pair_swap",
    "rho_mc",
    "Top1Bounds",
    "p_top1_bounds",
    "p_top1_exact",
    "top1_union_bound_stated",
    "top1_union_bound_rescaled",
    "Top1Simulation",
    "simulate_chi2_top1",
    "SwapInputs",
    "swap_inputs",
    "d_sweep",
    "PRIORS",
    "empirical_prior",
    "prior_spectrum",
    "p_swap_prior",
    "priors_table",
]


# ----------------------------------------------------------------------------------------------
# input checks
# ----------------------------------------------------------------------------------------------
def _check_dims(d: float, D: float) -> float:
    """Validate 0 < d < D and return nu = D - d (the hidden degrees of freedom)."""
    if not np.isfinite(d) or d <= 0:
        raise ValueError(f"the visible dimension d must be a positive number, got {d}")
    if not np.isfinite(D):
        raise ValueError(f"the ambient dimension D must be finite, got {D}")
    if D <= d:
        raise ValueError(
            f"the ambient dimension D={D} must exceed the visible dimension d={d}: with D <= d there are no "
            f"hidden directions (choose D > d_eff)"
        )
    return float(D - d)


def _check_gaps(delta: float | np.ndarray, name: str = "Delta") -> np.ndarray:
    g = np.asarray(delta, dtype=float)
    if not np.all(np.isfinite(g)):
        raise ValueError(f"the gap {name} must be finite")
    if np.any(g < 0):
        raise ValueError(
            f"the gap {name} must be >= 0, got {float(g.min())}: order the pair so the visible leader comes first"
        )
    return g


def _out(p: np.ndarray) -> float | np.ndarray:
    p = np.asarray(p, dtype=float)
    return float(p) if p.ndim == 0 else p


# ----------------------------------------------------------------------------------------------
# the code's rescaled swap probability (kept: the half-split chapter imports it)
# ----------------------------------------------------------------------------------------------
def p_swap_rescaled(delta: float | np.ndarray, d: float, D: float, sigma_obs: float) -> float | np.ndarray:
    """Phi(-Delta / (2 sigma_obs sqrt((D - d)/d))), the rescaled swap probability of the paper's code.

    Raises
    ------
    ValueError
        If a gap is negative, d <= 0, D <= d or sigma_obs <= 0.
    """
    delta = np.asarray(delta, dtype=float)
    if np.any(delta < 0):
        raise ValueError("the gap Delta must be >= 0 (order the pair so the visible leader comes first)")
    if d <= 0:
        raise ValueError(f"d must be positive, got {d}")
    if D <= d:
        raise ValueError(f"the ambient dimension D={D} must exceed d={d}: no hidden directions otherwise")
    if sigma_obs <= 0:
        raise ValueError(f"sigma_obs must be positive, got {sigma_obs}")
    sigma_h = sigma_obs * np.sqrt((D - d) / d)
    p = stats.norm.cdf(-delta / (2.0 * sigma_h))
    return float(p) if p.ndim == 0 else p


# ----------------------------------------------------------------------------------------------
# (a) signal-to-noise and (b) the pairwise swap probability
# ----------------------------------------------------------------------------------------------
def rho_snr(d: float, D: float) -> float:
    """Signal-to-noise rho = Corr(X_i, Z_i) = sqrt(2d / 2D) = sqrt(d / D) (Corollary 1(a)).

    Var X = 2d, Var Z = 2D and Cov(X, Z) = Var X, so the correlation is sqrt(d/D).
    """
    _check_dims(d, D)
    return float(np.sqrt(d / D))


def _chi2_logpdf_const(nu: float) -> float:
    return -(nu / 2.0) * np.log(2.0) - special.gammaln(nu / 2.0)


def _p_swap_exact_scalar(delta: float, nu: float) -> float:
    if delta == 0.0:
        return 0.5  # Y_j - Y_i is symmetric and continuous
    a, c = nu / 2.0, _chi2_logpdf_const(nu)

    def f(y: float) -> float:  # chi2 pdf f_nu(y) times survival S_nu(y + Delta), via scipy.special
        return float(np.exp(c + special.xlogy(a - 1.0, y) - y / 2.0) * special.gammaincc(a, (y + delta) / 2.0))

    med = 2.0 * float(special.gammaincinv(a, 0.5))
    lo, _ = integrate.quad(f, 0.0, med, limit=200, epsabs=1e-13, epsrel=1e-10)
    hi, _ = integrate.quad(f, med, np.inf, limit=200, epsabs=1e-13, epsrel=1e-10)
    return float(min(max(lo + hi, 0.0), 0.5))


def p_swap_pair(delta: float | np.ndarray, d: float, D: float, approx: str = "exact") -> float | np.ndarray:
    """P(Z_j > Z_i | X_i - X_j = Delta) = P(Y_j - Y_i > Delta), Y ~ chi2_{D-d} i.i.d. (Corollary 1(b)).

    Parameters
    ----------
    delta : float or array
        Visible gap(s) X_i - X_j >= 0, in chi-squared units.
    d, D : float
        Visible and ambient dimension (0 < d < D; d need not be an integer).
    approx : {'exact', 'clt', 'stated'}
        ``exact``: int_0^inf f_nu(y) S_nu(y + Delta) dy with scipy.stats.chi2 and scipy.integrate.quad.
        ``clt``: Phi(-Delta / (2 sqrt(nu))), the normal approximation with the right variance 4 nu.
        ``stated``: one term of the main text's eq. (3), Phi(-Delta / (2 sqrt(2 nu))), which uses
        2 sigma_hidden = sqrt(2) x the true sd, so eq. (3) is valid but looser than the CLT form.

    Raises
    ------
    ValueError
        Negative gap, d <= 0, D <= d, or an unknown ``approx``.
    """
    nu = _check_dims(d, D)
    g = _check_gaps(delta)
    if approx == "exact":
        p = np.vectorize(lambda x: _p_swap_exact_scalar(float(x), nu), otypes=[float])(g)
    elif approx == "clt":
        p = stats.norm.cdf(-g / (2.0 * np.sqrt(nu)))
    elif approx == "stated":
        p = stats.norm.cdf(-g / (2.0 * np.sqrt(2.0 * nu)))
    else:
        raise ValueError(f"approx={approx!r} is not one of 'exact', 'clt', 'stated'")
    return _out(p)


_GL_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _gauss_legendre01(m: int) -> tuple[np.ndarray, np.ndarray]:
    if m not in _GL_CACHE:
        x, w = np.polynomial.legendre.leggauss(m)
        _GL_CACHE[m] = ((x + 1.0) / 2.0, w / 2.0)
    return _GL_CACHE[m]


def p_swap_pair_batch(delta: np.ndarray, d: float, D: float, n_nodes: int = 256) -> np.ndarray:
    """Vectorised exact P(Y_j - Y_i > Delta) for many gaps (same law as ``p_swap_pair(..., 'exact')``).

    Substituting u = F_nu(y) gives int_0^1 S_nu(F_nu^{-1}(u) + Delta) du, a bounded integrand,
    integrated with ``n_nodes``-point Gauss-Legendre; the tests check it against quad to 1e-7.
    """
    nu = _check_dims(d, D)
    g = _check_gaps(delta)
    u, w = _gauss_legendre01(n_nodes)
    y = 2.0 * special.gammaincinv(nu / 2.0, u)  # chi2 quantiles F_nu^{-1}(u)
    p = special.gammaincc(nu / 2.0, (y + g[..., None]) / 2.0) @ w  # chi2 survival S_nu

    return np.where(g == 0, 0.5, p)


@dataclass(frozen=True)
class PairSwapMC:
    """Monte Carlo estimate of P(Y_j - Y_i > Delta) with its binomial standard error."""

    p: float
    se: float
    n_draws: int
    seed: int


def simulate_pair_swap(
    delta: float, d: float, D: float, n_draws: int = 1_000_000, seed: int = 0, batch: int = 1_000_000
) -> PairSwapMC:
    """Monte Carlo of Corollary 1(b): draw Y_i, Y_j ~ chi2_{D-d} and count Y_j - Y_i > Delta."""
    nu = _check_dims(d, D)
    g = float(_check_gaps(delta))
    if n_draws < 2:
        raise ValueError(f"n_draws must be at least 2, got {n_draws}")
    rng = np.random.default_rng(seed)
    hits = 0
    left = n_draws
    while left > 0:
        m = min(batch, left)
        y = rng.chisquare(nu, size=(2, m))
        hits += int(np.count_nonzero(y[1] - y[0] > g))
        left -= m
    p = hits / n_draws
    return PairSwapMC(p, float(np.sqrt(max(p * (1 - p), 1e-300) / n_draws)), n_draws, seed)


def rho_mc(d: float, D: float, n_draws: int = 200_000, seed: int = 0) -> float:
    """Monte Carlo Corr(X, Z) with X ~ chi2_d, Z = X + Y, Y ~ chi2_{D-d} (checks :func:`rho_snr`)."""
    nu = _check_dims(d, D)
    rng = np.random.default_rng(seed)
    x = rng.chisquare(d, n_draws)
    z = x + rng.chisquare(nu, n_draws)
    return float(np.corrcoef(x, z)[0, 1])


# ----------------------------------------------------------------------------------------------
# (c), (d): top-1 reliability given the visible qualities
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Top1Bounds:
    """Bounds on the top-1 reliability given visible qualities X (Corollary 1(c),(d), corrected).

    Attributes
    ----------
    i_star : int
        argmax X, the benchmark's top model.
    gaps : ndarray
        Delta_j = X_{i*} - X_j for j != i* (chi-squared units).
    pair_swap : ndarray
        P(Y_j - Y_{i*} > Delta_j) for each j (exact or CLT, as requested).
    correct_lower : float
        prod_j (1 - pair_swap_j): the Harris/FKG *lower* bound on P(top-1 correct | X).
    wrong_upper : float
        sum_j pair_swap_j: the union *upper* bound on P(top-1 wrong | X) (may exceed 1).
    paper_direction_upper : float
        The same product, which App. C.2 (d) states as an *upper* bound on P(correct); it is a lower bound.
    """

    i_star: int
    gaps: np.ndarray
    pair_swap: np.ndarray
    correct_lower: float
    wrong_upper: float

    @property
    def paper_direction_upper(self) -> float:
        return self.correct_lower


def _check_X(X: Sequence[float] | np.ndarray) -> np.ndarray:
    x = np.asarray(X, dtype=float).ravel()
    if x.size < 2:
        raise ValueError(f"need the visible qualities of at least 2 models, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError("visible qualities X must be finite")
    return x


def p_top1_bounds(X: Sequence[float] | np.ndarray, d: float, D: float, approx: str = "exact") -> Top1Bounds:
    """Product (FKG) lower bound on P(correct | X) and union upper bound on P(wrong | X) (App. C.2 (c), (d)).

    The events {Y_{i*} - Y_j > -Delta_j} are all increasing in (Y_{i*}, -Y_1, ..., -Y_n), so by
    Harris' inequality P(all hold) >= prod_j P(each). The paper's appendix states the reverse
    direction; :class:`Top1Bounds` keeps the product so the notebook can show which way it goes.
    """
    x = _check_X(X)
    _check_dims(d, D)
    i_star = int(np.argmax(x))
    gaps = np.delete(x[i_star] - x, i_star)
    if approx == "exact":
        ps = p_swap_pair_batch(gaps, d, D)
    else:
        ps = np.atleast_1d(p_swap_pair(gaps, d, D, approx=approx))
    return Top1Bounds(i_star, gaps, ps, float(np.prod(1.0 - ps)), float(ps.sum()))


def p_top1_exact(X: Sequence[float] | np.ndarray, d: float, D: float) -> float:
    """P(top-1 correct | X) = int f_nu(y) prod_{j != i*} F_nu(y + Delta_j) dy, exactly (quad).

    Conditional on X, the leader i* stays on top iff X_{i*} + Y_{i*} > X_j + Y_j for every j, i.e.
    Y_j < Y_{i*} + Delta_j; integrating over Y_{i*} = y gives the one-dimensional integral.
    """
    x = _check_X(X)
    nu = _check_dims(d, D)
    i_star = int(np.argmax(x))
    gaps = np.delete(x[i_star] - x, i_star)
    a_, c = nu / 2.0, _chi2_logpdf_const(nu)

    def f(y: float) -> float:
        return float(np.exp(c + special.xlogy(a_ - 1.0, y) - y / 2.0) * np.prod(special.gammainc(a_, (y + gaps) / 2.0)))

    med = 2.0 * float(special.gammaincinv(a_, 0.5))
    a, _ = integrate.quad(f, 0.0, med, limit=200, epsabs=1e-13, epsrel=1e-10)
    b, _ = integrate.quad(f, med, np.inf, limit=200, epsabs=1e-13, epsrel=1e-10)
    return float(min(max(a + b, 0.0), 1.0))


def top1_union_bound_stated(gaps: Sequence[float] | np.ndarray, d: float, D: float) -> float:
    """The boxed eq. (3) of the main text, literally: sum_j Phi(-Delta_j / (2 sqrt(2 (D - d)))).

    A valid but looser upper bound on P(top-1 wrong) than the union bound with the CLT term (the
    eq. (3)'s 2 sigma_hidden is sqrt(2) x the true sd), when Delta_j are chi-squared gaps. With n - 1
    terms of about 0.4-0.5 each it is far above 1 on real leaderboards, i.e. vacuous.
    """
    g = _check_gaps(np.atleast_1d(gaps), "Delta_j")
    nu = _check_dims(d, D)
    return float(stats.norm.cdf(-g / (2.0 * np.sqrt(2.0 * nu))).sum())


def top1_union_bound_rescaled(gaps: Sequence[float] | np.ndarray, d: float, D: float, sigma_obs: float) -> float:
    """Eq. (3) with the code's rescaled sigma_h = sigma_obs sqrt((D - d)/d): sum_j Phi(-Delta_j / (2 sigma_h))."""
    g = _check_gaps(np.atleast_1d(gaps), "Delta_j")
    return float(np.sum(p_swap_rescaled(g, d, D, sigma_obs)))


@dataclass(frozen=True)
class Top1Simulation:
    """Monte Carlo of the chi-squared model's top-1 reliability, with the per-draw bounds averaged.

    Attributes
    ----------
    p_correct, se : float
        Fraction of draws where argmax X = argmax Z, and its binomial standard error.
    mean_product_bound : float
        Mean over draws of the FKG product (a lower bound on P(correct) in expectation).
    mean_union_bound : float
        Mean over draws of the union sum with exact pair terms (an upper bound on P(wrong)).
    mean_stated_union_bound : float
        Mean over draws of the literal eq. (3) sum (chi-squared gaps).
    """

    n: int
    d: float
    D: float
    trials: int
    p_correct: float
    se: float
    mean_product_bound: float
    mean_union_bound: float
    mean_stated_union_bound: float
    seed: int


def simulate_chi2_top1(
    n: int, d: float, D: float, trials: int = 20_000, seed: int = 0, bound_trials: int | None = 1000, batch: int = 250
) -> Top1Simulation:
    """Simulate the chi-squared model: X ~ chi2_d, Y ~ chi2_{D-d} for n models, ``trials`` times.

    Top-1 is correct when argmax X = argmax (X + Y). For the first ``bound_trials`` draws (all if
    None) the conditional FKG product, union sum and eq. (3) sum are evaluated from the drawn X
    (exact pair terms by :func:`p_swap_pair_batch`) and averaged.
    """
    if n < 2:
        raise ValueError(f"need at least 2 models, got n={n}")
    if trials < 2:
        raise ValueError(f"trials must be at least 2, got {trials}")
    nu = _check_dims(d, D)
    rng = np.random.default_rng(seed)
    X = rng.chisquare(d, size=(trials, n))
    Y = rng.chisquare(nu, size=(trials, n))
    ok = np.argmax(X, axis=1) == np.argmax(X + Y, axis=1)
    p = float(ok.mean())
    m = trials if bound_trials is None else min(bound_trials, trials)
    prod_b, union_b, stated_b = [], [], []
    for s in range(0, m, batch):
        Xb = X[s : min(s + batch, m)]
        top = Xb.max(axis=1, keepdims=True)
        gaps = np.sort(top - Xb, axis=1)[:, 1:]  # drop the leader's own zero gap
        ps = p_swap_pair_batch(gaps, d, D, n_nodes=96)
        prod_b.append(np.prod(1.0 - ps, axis=1))
        union_b.append(ps.sum(axis=1))
        stated_b.append(stats.norm.cdf(-gaps / (2.0 * np.sqrt(2.0 * nu))).sum(axis=1))
    return Top1Simulation(
        n,
        float(d),
        float(D),
        trials,
        p,
        float(np.sqrt(p * (1 - p) / trials)),
        float(np.concatenate(prod_b).mean()),
        float(np.concatenate(union_b).mean()),
        float(np.concatenate(stated_b).mean()),
        seed,
    )


# ----------------------------------------------------------------------------------------------
# the inputs the paper plugs in, and its two D-sweeps
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SwapInputs:
    """The population quantities the paper's swap numbers use (as its code computes them).

    d_eff of the raw scores, Delta_2 = agg_(1) - agg_(2), sigma_obs = sd(agg) (ddof 0), the gaps
    agg_(1) - agg_(j) for j = 2..n (standardised units) and the population size n.
    """

    d_eff: float
    delta2: float
    sigma_obs: float
    gaps: np.ndarray
    n: int


def swap_inputs(S: ArrayLike) -> SwapInputs:
    """d_eff, Delta_2, sigma_obs and the leader's gaps of a population (z-mean aggregate)."""
    X = as_matrix(S)
    a = np.sort(aggregate(X))[::-1]
    return SwapInputs(float(_d_eff(X)), float(a[0] - a[1]), float(a.std()), a[0] - a[1:], int(X.shape[0]))


def d_sweep(
    delta2: float, d: float, sigma_obs: float, D_list: Sequence[float] = (6, 7, 8, 9, 10, 15, 20, 30, 50, 100)
) -> pd.DataFrame:
    """The D-sweep of App. G.1 (Table G.1): rho = sqrt(d/D) and the rescaled P_swap at each D > d."""
    rows = []
    for D in D_list:
        _check_dims(d, D)
        rows.append({"D": D, "rho": rho_snr(d, D), "p_swap": p_swap_rescaled(delta2, d, D, sigma_obs)})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------
# the six hidden-capability priors behind the main text's "[0.38, 0.49]" (paper's code: validation_v8.py exp1a)
# ----------------------------------------------------------------------------------------------
PRIORS: tuple[str, ...] = ("isotropic", "empirical", "1/i", "1/i^2", "Pareto(1.5)", "adversarial")


def empirical_prior(S: ArrayLike) -> np.ndarray:
    """Eigenvalues of the covariance (ddof 1) of the *raw* scores, clipped at 0, rescaled to sum k.

    The empirical prior, as the paper's code builds it.
    """
    X = as_matrix(S)
    e = np.clip(np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1], 0.0, None)
    if e.sum() <= 0:
        raise ValueError("the score covariance is zero: no empirical prior")
    return e / e.sum() * X.shape[1]


def prior_spectrum(
    name: str, h: int, rng: np.random.Generator | None = None, empirical: np.ndarray | None = None
) -> np.ndarray:
    """The first h hidden eigenvalues under a named prior (unnormalised; the paper's code, validation_v8.py ``exp1a``).

    isotropic: ones; empirical: the given list (only its length exists, so fewer than h may come
    back); 1/i; 1/i^2; Pareto(1.5): ``rng.pareto(1.5, h) + 1`` (random); adversarial: [1, 0, ...].
    """
    if name not in PRIORS:
        raise ValueError(f"unknown prior {name!r}; choose one of {PRIORS}")
    if h < 1:
        raise ValueError(f"need at least one hidden direction, got h={h}")
    i = np.arange(1, h + 1, dtype=float)
    if name == "isotropic":
        return np.ones(h)
    if name == "empirical":
        if empirical is None:
            raise ValueError("the 'empirical' prior needs empirical= eigenvalues (see empirical_prior)")
        return np.asarray(empirical, dtype=float)[:h]
    if name == "1/i":
        return 1.0 / i
    if name == "1/i^2":
        return 1.0 / i**2
    if name == "Pareto(1.5)":
        if rng is None:
            raise ValueError("the 'Pareto(1.5)' prior is random: pass rng=np.random.default_rng(seed)")
        return rng.pareto(1.5, size=h) + 1.0
    e = np.zeros(h)
    e[0] = 1.0
    return e


def p_swap_prior(delta2: float, d: float, D: float, sigma_obs: float, eigs: np.ndarray) -> float:
    """Top-2 swap under a hidden spectrum, as the paper's code (validation_v8.py ``exp1a``) computes it.

    e <- eigs * (D - d) / sum(eigs);  var = 4 sum e^2;  sigma = sigma_obs sqrt(var) / (D - d);
    P = Phi(-Delta_2 / (2 sigma)). For the isotropic prior sigma = 2 sigma_obs / sqrt(h), so P
    *falls* with D, the opposite trend of :func:`p_swap_rescaled` (App. G.1), though both are presented
    as the same isotropic chi-squared model.
    """
    nu = _check_dims(d, D)
    g = float(_check_gaps(delta2, "Delta_2"))
    if sigma_obs <= 0:
        raise ValueError(f"sigma_obs must be positive, got {sigma_obs}")
    e = np.asarray(eigs, dtype=float)
    if e.ndim != 1 or e.size == 0 or np.any(e < 0) or e.sum() <= 0:
        raise ValueError("eigs must be a non-empty vector of non-negative numbers with a positive sum")
    e = e / e.sum() * nu
    sigma = sigma_obs * np.sqrt(4.0 * np.sum(e**2)) / nu
    return float(stats.norm.cdf(-g / (2.0 * sigma)))


def priors_table(
    delta2: float,
    d: float,
    sigma_obs: float,
    empirical: np.ndarray,
    D_list: Sequence[float] = (10, 20, 50, 100),
    priors: Sequence[str] = PRIORS,
    seed: int = 0,
) -> pd.DataFrame:
    """The six-prior x D table behind the paper's "[0.38, 0.49]" (the paper's code, validation_v8.py ``exp1a``).

    For each prior (outer loop) and D (inner loop): h = max(floor(D - d), 1) hidden eigenvalues,
    then :func:`p_swap_prior`. One ``default_rng(seed)`` is shared across calls, so the Pareto row
    consumes it in the order D = 10, 20, 50, 100 as the code does. Rows = priors, columns = D.
    """
    for p in priors:
        if p not in PRIORS:
            raise ValueError(f"unknown prior {p!r}; choose one of {PRIORS}")
    rng = np.random.default_rng(seed)
    out = {}
    for name in priors:
        row = {}
        for D in D_list:
            _check_dims(d, D)
            h = max(int(D - d), 1)
            row[D] = p_swap_prior(delta2, d, D, sigma_obs, prior_spectrum(name, h, rng, empirical))
        out[name] = row
    df = pd.DataFrame(out).T
    df.columns.name = "D"
    df.index.name = "prior"
    return df
