"""The version of dkps."""

__version__ = "0.1.0"
