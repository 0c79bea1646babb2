"""What a run cost: peak memory of the process (for the book's cost reports)."""

from __future__ import annotations

import resource
import sys
from pathlib import Path

__all__ = ["peak_memory_mb"]


def peak_memory_mb() -> float:
    """Peak resident set size of this process so far, in MiB.

    Linux: ``VmHWM`` of ``/proc/self/status`` (the high-water mark of this process's own memory;
    unlike ``getrusage``'s ``ru_maxrss`` it is not inherited from a parent across fork + exec, so a
    worker process reports its own peak). Elsewhere ``getrusage(RUSAGE_SELF).ru_maxrss`` (KiB on
    Linux, bytes on macOS).
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1]) / 1024.0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return float(rss) / (1024.0 * 1024.0) if sys.platform == "darwin" else float(rss) / 1024.0
