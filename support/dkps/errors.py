"""Exceptions raised by :mod:`dkps`."""

from __future__ import annotations

__all__ = ["NotFittedError", "UnknownIdError"]


class NotFittedError(ValueError, AttributeError):
    """Raised when ``predict``/``update``/``score_table`` is called before ``fit``.

    A subclass of both :class:`ValueError` and :class:`AttributeError`, like scikit-learn's.
    """


class UnknownIdError(ValueError, KeyError):
    """Raised when ``predict`` cells name a model or task the estimator has not seen.

    A subclass of both :class:`ValueError` (dkps's bad-input error) and :class:`KeyError` (what users
    of the original dkps catch). ``str()`` gives the plain message, not its repr.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return ValueError.__str__(self)
