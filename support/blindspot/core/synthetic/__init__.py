"""Moved to :mod:`blindspot.data.synthetic`; this alias goes in the next release.

``blindspot.core.synthetic`` is the very module object ``blindspot.data.synthetic`` (every name, private ones too).
"""

import sys

from blindspot.data import synthetic as _moved

sys.modules[__name__] = _moved
