"""Every parallel loop of dkps goes through joblib: the result does not depend on n_jobs."""

from __future__ import annotations

import numpy as np
import pytest

from dkps import LRMC, PKPS, Ensemble


def test_ensemble_folds_in_parallel_equal_serial(small):
    serial = Ensemble([PKPS(), LRMC()], mode="cv", holdout=None).fit(small)
    par = Ensemble([PKPS(), LRMC()], mode="cv", holdout=None, n_jobs=2).fit(small)
    assert par.weight_ == serial.weight_
    np.testing.assert_array_equal(par.oof_predictions_[["p0", "p1"]], serial.oof_predictions_[["p0", "p1"]])
    assert par.predict() == serial.predict()


@pytest.mark.parametrize("bad", [0, 1.5, "two"])
def test_ensemble_n_jobs_is_checked(small, bad):
    with pytest.raises(ValueError, match="n_jobs"):
        Ensemble([PKPS(), LRMC()], n_jobs=bad).fit(small)
