"""Moved to :mod:`blindspot.data.fetch`; this alias goes in the next release.

``blindspot.core.datasets`` is the very module object ``blindspot.data.fetch`` (every name, private ones too).
"""

import sys

from blindspot.data import fetch as _moved

sys.modules[__name__] = _moved
