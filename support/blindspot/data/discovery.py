"""Which leaderboards a folder holds: the data floor's discovery, for commands that read many at once.

A folder given to ``blindspot survey`` (or to :func:`blindspot.survey`) may be

* a store of Every Eval Ever records at the store's level (``<leaderboard>/<developer>/<model>/<uuid>.json``,
  records four levels down): one leaderboard per subfolder holding records;
* a folder one format of :mod:`blindspot.data.readers` reads as a whole (a leaderboard's Every Eval Ever
  records, lm-evaluation-harness results): one leaderboard;
* any other folder: one leaderboard per score file directly in it (:data:`SCORE_SUFFIXES`).

:func:`leaderboard_sources` says which, as ``(name, path)`` pairs the readers then read one by one.
"""

from __future__ import annotations

from pathlib import Path

from blindspot.data import eee_aggregate
from blindspot.data.readers import FORMATS

__all__ = ["SCORE_SUFFIXES", "STORE_DEPTH", "leaderboard_sources", "record_depth", "score_files"]

#: Score files a folder of leaderboards is searched for (one leaderboard each).
SCORE_SUFFIXES = (".csv", ".tsv", ".txt", ".json", ".jsonl", ".parquet", ".gz")
#: How deep below a store's folder its records lie (``<leaderboard>/<developer>/<model>/<uuid>.json``).
STORE_DEPTH = 4


def score_files(folder: str | Path) -> list[Path]:
    """The score files directly in ``folder`` (by suffix, :data:`SCORE_SUFFIXES`), sorted by name.

    Parameters
    ----------
    folder : str or Path
        A folder.

    Returns
    -------
    list of Path
    """
    folder = Path(folder)
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(SCORE_SUFFIXES))


def record_depth(folder: str | Path) -> int | None:
    """How many path parts below ``folder`` its first Every Eval Ever record lies (in sorted order).

    Parameters
    ----------
    folder : str or Path
        A folder.

    Returns
    -------
    int or None
        1 for a record directly in ``folder``; None when the first JSON file found is not a record.
    """
    folder = Path(folder)
    for p in sorted(folder.rglob("*.json")):
        try:
            if p.is_file() and eee_aggregate.detect([p]):
                return len(p.relative_to(folder).parts)
        except OSError:
            continue
        break
    return None


def leaderboard_sources(folder: str | Path) -> list[tuple[str, Path]]:
    """The leaderboards a folder holds, as ``(name, path)`` to read each from (see the module's docstring).

    Parameters
    ----------
    folder : str or Path
        A folder of leaderboards, or of one leaderboard.

    Returns
    -------
    list of (str, Path)
        A store's subfolders by name; the folder itself when a format reads it whole; else each score
        file, named by its stem.

    Raises
    ------
    ValueError
        The folder holds no score file, no Every Eval Ever records and no harness results.
    """
    folder = Path(folder)
    if eee_aggregate.detect([folder]):
        depth = record_depth(folder)
        if depth is not None and depth >= STORE_DEPTH:
            subs = sorted(p for p in folder.iterdir() if p.is_dir() and eee_aggregate.detect([p]))
            if len(subs) > 1:
                return [(p.name, p) for p in subs]
        return [(folder.name, folder)]
    if any(f.key != "file" and f.detect((folder,)) for f in FORMATS):
        return [(folder.name, folder)]
    files = score_files(folder)
    if not files:
        raise ValueError(
            f"{str(folder)!r} is a folder holding no score file ({', '.join(SCORE_SUFFIXES)}), no Every Eval Ever "
            f"records and no lm-evaluation-harness results; name the files, or a folder that holds them"
        )
    return [(f.stem, f) for f in files]
