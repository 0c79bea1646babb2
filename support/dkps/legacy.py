"""``DataKernelPerspectiveSpace``: the original paired DKPS (Acharyya et al., *Consistent estimation
of generative model representations in the data kernel perspective space*, 2024).

On a fully paired design (every model answers the same ``m`` queries) the model distance is
:math:`d(i, i') = \\|\\bar X_i - \\bar X_{i'}\\|_F / \\sqrt m`, with :math:`\\bar X_i` the
(queries x dimensions) matrix of model ``i``'s responses aggregated over replicates; classical MDS
of the distance matrix gives the perspective-space coordinates. ``DKPS(response_kwargs=dict(
pca_dim=None, normalize=False))`` computes the same distance from records (to rounding); this
class keeps the original's interface for code written against it.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist, squareform
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from .geometry import classical_mds
from .settings import COUNT
from .threads import single_blas_thread

__all__ = ["DataKernelPerspectiveSpace"]


class DataKernelPerspectiveSpace(BaseEstimator):
    r"""The original paired data kernel perspective space: every model answers every query, distances by MDS.

    Each model's replicates are aggregated (``response_distribution_fn``) into an :math:`m \times d` matrix
    :math:`\bar X_i`; :math:`D_{ii'} = \mathrm{dist}(\bar X_i, \bar X_{i'}) / \sqrt{m}` over the flattened
    matrices, then classical MDS [1]_ [2]_.

    Parameters
    ----------
    response_distribution_fn : callable, default numpy.mean
        Aggregates a model's replicates, called as ``fn(array, axis=response_distribution_axis)``
        on its (queries x replicates x dim) array.
    response_distribution_axis : int, default 1
        The replicate axis.
    metric_cmds : str, default 'euclidean'
        Distance between flattened response matrices (any ``scipy.spatial.distance.pdist`` metric),
        divided by :math:`\sqrt m`.
    n_components_cmds : int, optional
        MDS dimension (None: the Zhu–Ghodsi elbow).
    n_elbows_cmds : int, default 2
        Which Zhu–Ghodsi elbow (when ``n_components_cmds`` is None).
    dissimilarity : {'precomputed', 'euclidean'}, default 'precomputed'
        MDS of the distance matrix, or of the Euclidean distances between its rows (the original's early
        default).

    Attributes
    ----------
    model_names_ : list of str
        The models, in input order (dict) or sorted (records).
    dist_matrix_ : ndarray of shape (n_models, n_models)
        The distance matrix.
    embedding_ : ndarray of shape (n_models, d)
        The MDS coordinates.

    Raises
    ------
    ValueError
        From ``fit_transform``: a parameter outside its constraints, arrays of different shapes, missing
        columns, or a model that does not answer every query (use :class:`DKPS` or :class:`PKPS` then).

    References
    ----------
    .. [1] A. Acharyya, M. W. Trosset, C. E. Priebe and H. S. Helm, the data kernel perspective space
       (2024), arXiv:2409.17308.
    .. [2] The Blind Spot Book, Part V: "Perspective spaces in one picture" (``ch-perspective-spaces``).
    """

    _parameter_constraints: dict = {
        "response_distribution_fn": [callable],
        "response_distribution_axis": [Interval(numbers.Integral, None, None, closed="neither")],
        "metric_cmds": [str, callable],
        "n_components_cmds": [COUNT, None],
        "n_elbows_cmds": [COUNT],
        "dissimilarity": [StrOptions({"precomputed", "euclidean"})],
    }

    def __init__(
        self,
        response_distribution_fn=np.mean,
        response_distribution_axis=1,
        metric_cmds="euclidean",
        n_components_cmds=None,
        n_elbows_cmds=2,
        dissimilarity="precomputed",
    ):
        self.response_distribution_fn = response_distribution_fn
        self.response_distribution_axis = response_distribution_axis
        self.metric_cmds = metric_cmds
        self.n_components_cmds = n_components_cmds
        self.n_elbows_cmds = n_elbows_cmds
        self.dissimilarity = dissimilarity

    def _stack(self, data) -> tuple[list, np.ndarray]:
        if isinstance(data, dict):
            arrs = [np.asarray(v, dtype=float) for v in data.values()]
            if not all(a.ndim == 3 for a in arrs) or len({a.shape for a in arrs}) != 1:
                raise ValueError(
                    "data as a dict needs one (queries x replicates x dim) array per model, all of one shape"
                )
            X = np.stack([self.response_distribution_fn(a, axis=self.response_distribution_axis) for a in arrs])
            return list(data), X
        df = pd.DataFrame(data)
        col = "embedding" if "embedding" in df.columns else "response_embedding"
        missing = [c for c in ("model_id", "query_id", col) if c not in df.columns]
        if missing:
            raise ValueError(f"records need the columns {missing} (or a dict of per-model arrays)")
        key = ["task_id", "query_id"] if "task_id" in df.columns else ["query_id"]
        qkeys = df[key].drop_duplicates().sort_values(key)
        models = sorted(df.model_id.astype(str).unique())
        n_per = df.groupby(df.model_id.astype(str))[key].apply(lambda g: len(g.drop_duplicates()))
        if (n_per != len(qkeys)).any():
            bad = n_per.index[n_per != len(qkeys)][0]
            raise ValueError(
                f"model {bad!r} answers {n_per[bad]} of the {len(qkeys)} queries: the paired DKPS needs every "
                "model to answer every query; use DKPS or PKPS for unpaired data"
            )
        V = np.stack(df[col].map(lambda v: np.asarray(v, dtype=float)).to_numpy())
        frame = pd.DataFrame(V)
        frame["_m"] = df.model_id.astype(str).to_numpy()
        for k in key:
            frame[k] = df[k].astype(str).to_numpy()
        mean = frame.groupby(["_m"] + key, sort=True).mean()  # replicates -> their mean
        return models, mean.to_numpy().reshape(len(models), len(qkeys), V.shape[1])

    @single_blas_thread
    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, data, return_dict: bool = True):
        """Distances and MDS coordinates of the models in ``data``.

        Parameters
        ----------
        data : dict or records
            A dict ``{model: (queries x replicates x dim) array}`` (the original's input) or records with
            ``model_id``, ``query_id`` (and ``task_id``) and ``embedding`` (or ``response_embedding``), every
            model answering every query.
        return_dict : bool, default True
            Return ``{model: coords}`` instead of the array.

        Returns
        -------
        dict or ndarray of shape (n_models, d)
            The MDS coordinates.

        Raises
        ------
        ValueError
            See the class's Raises.
        """
        names, X = self._stack(data)
        m = X.shape[1]
        D = squareform(pdist(X.reshape(len(X), -1), metric=self.metric_cmds)) / np.sqrt(m)
        self.model_names_ = [str(n) for n in names]
        self.dist_matrix_ = D
        Dm = D if self.dissimilarity == "precomputed" else squareform(pdist(D))
        self.embedding_ = classical_mds(Dm, self.n_components_cmds, self.n_elbows_cmds).coords
        if return_dict:
            return {k: self.embedding_[i] for i, k in enumerate(names)}
        return self.embedding_
