"""Exceptions raised by :mod:`dkps`."""

from __future__ import annotations

from sklearn.exceptions import NotFittedError

__all__ = ["NotFittedError", "UnknownIdError"]

# NotFittedError is scikit-learn's own (a ValueError and an AttributeError): the estimators check with
# sklearn.utils.validation.check_is_fitted, which raises it, so ``except dkps.NotFittedError`` catches both.


class UnknownIdError(ValueError, KeyError):
    """Raised when ``predict`` cells name a model or task the estimator has not seen.

    A subclass of both :class:`ValueError` (dkps's bad-input error) and :class:`KeyError` (what users
    of the original dkps catch). ``str()`` gives the plain message, not its repr.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return ValueError.__str__(self)
