"""The version of ``blindspot`` (one place: the package face, the report's footer and the wheel read it here)."""

__version__ = "0.1.0"
