"""Files written whole or not at all: through a temporary file of the writer's own, renamed into place.

Readers never see half a file, and writers side by side (processes, or threads of one process) never
rename a file another has already moved: each gets its own temporary name from :func:`tempfile.mkstemp`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["file_mode", "write_atomic"]


def file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(target: Path, produce: Callable[[Path], object], prefix: str) -> None:
    """Write ``target`` through a temporary file in its folder (``produce(tmp_path)``), then rename.

    The temporary file is named ``prefix`` + a unique part + ``target``'s suffix, gets the mode a new
    file would have (:func:`file_mode`; ``mkstemp`` makes it private), and is removed on any failure or
    interrupt.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=target.suffix, dir=target.parent)
    os.close(fd)
    try:
        produce(Path(tmp))
        os.chmod(tmp, file_mode())
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
