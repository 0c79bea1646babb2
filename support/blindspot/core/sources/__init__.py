"""Moved to :mod:`blindspot.data.sources`; this alias goes in the next release.

``blindspot.core.sources`` (and ``.alpaca``, ``.epoch``, ``.ollm``, ``.psn_irt``) are the very module
objects of ``blindspot.data.sources``.
"""

import sys

from blindspot.data import sources as _moved
from blindspot.data.sources import alpaca, epoch, ollm, psn_irt

sys.modules[__name__] = _moved
for _m in (alpaca, epoch, ollm, psn_irt):
    sys.modules[f"{__name__}.{_m.__name__.rsplit('.', 1)[1]}"] = _m
