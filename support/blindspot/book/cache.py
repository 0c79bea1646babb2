"""A cache of executed chapters, keyed by what determines them (in the spirit of jupyter-cache).

An executed chapter is reused when nothing it depends on has changed:

- the chapter's source text and the parameters injected into it (an input parameter -- the scores, or the
  ledger file the build gathers before the ledger chapter -- counts by its content, not its path);
- its claims registry file (``book/claims/<stem>.yml``), which decides its ledger statuses;
- the data directory (every file's path, size and modification time);
- the code of every ``blindspot`` / ``dkps`` module the chapter's kernel had imported when it
  finished (recorded at execution, checked by content).

An entry is the executed notebook, the chapter's ledger file, and a JSON record of the key and the
module hashes, stored under ``_build/cache/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from blindspot.data.fetch import file_sha256
from blindspot.data.format_options import SOURCE_KEY

__all__ = ["ChapterCache", "CacheEntry", "tree_fingerprint", "chapter_key"]

#: Bump to invalidate every entry when the build's own output format changes.
FORMAT = 2


def tree_fingerprint(root: Path | None) -> str:
    """A digest of every file under ``root`` (relative path, size, modification time); '' for None."""
    if root is None:
        return ""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath) / name
            st = p.stat()
            h.update(f"{p.relative_to(root).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


#: The parameter that names a chapter's input scores: a file given there enters the key by its content, a folder
#: (Every Eval Ever records, harness results) by its files.
INPUT_PARAMETER = "scores"
#: Every parameter that names a file a chapter *reads*, keyed by content: the scores, and the gathered ledger the
#: ledger chapter summarises (the build rewrites it at the same path for every book, so a path key would show a
#: second your-data book the first one's closing summary). ``ledger_dir`` is where a chapter *writes* and enters
#: as written; the data directory has its own fingerprint.
INPUT_PARAMETERS = frozenset({INPUT_PARAMETER, "ledger_file"})


def _param_token(value: object, is_input: bool = False, base: Path | None = None) -> object:
    """A parameter as it enters the key: with ``is_input``, an existing file by its content, a folder by its
    files' names, sizes and times, and a list of inputs item by item (a relative path resolved against
    ``base``, the chapters' working directory); anything else as is."""
    if not is_input:
        return value
    if isinstance(value, (list, tuple)):
        return [_param_token(v, True, base) for v in value]
    if isinstance(value, Mapping):  # a file with its reading options: the file by its content, the options as given
        return {k: _param_token(v, k == SOURCE_KEY, base) for k, v in sorted(value.items())}
    if isinstance(value, str) and value and len(value) < 4096:
        p = Path(value)
        if base is not None and not p.is_absolute():
            p = Path(base) / p
        if p.is_file():
            return {"file": value, "sha256": file_sha256(p)}
        if p.is_dir():
            return {"folder": value, "tree": tree_fingerprint(p)}
    return value


def chapter_key(
    source_text: str, parameters: dict, registry_file: Path, data_fingerprint: str, base: Path | None = None
) -> str:
    """The digest of everything known before execution that determines an executed chapter.

    ``base`` is the directory the chapters run in, against which relative input paths are resolved.
    """
    payload = {
        "format": FORMAT,
        "python": sys.version_info[:2],
        "source": hashlib.sha256(source_text.encode()).hexdigest(),
        "parameters": {k: _param_token(v, k in INPUT_PARAMETERS, base) for k, v in sorted(parameters.items())},
        "registry": file_sha256(registry_file) if registry_file.is_file() else "",
        "data": data_fingerprint,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    notebook: Path
    ledger: Path | None
    seconds: float


class ChapterCache:
    """Executed chapters under ``directory`` (one entry per chapter and key)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _base(self, stem: str, key: str) -> Path:
        return self.directory / f"{stem}-{key[:20]}"

    def lookup(self, stem: str, key: str) -> CacheEntry | None:
        """The entry for ``(stem, key)`` if every module it recorded still has the same content."""
        base = self._base(stem, key)
        meta_path = base.with_suffix(".json")
        nb = base.with_suffix(".ipynb")
        if not (meta_path.is_file() and nb.is_file()):
            return None
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError:
            return None
        if meta.get("key") != key:
            return None
        for path, digest in meta.get("modules", {}).items():
            p = Path(path)
            if not p.is_file() or file_sha256(p) != digest:
                return None
        ledger = base.with_suffix(".ledger.json")
        return CacheEntry(nb, ledger if ledger.is_file() else None, float(meta.get("seconds", 0.0)))

    def last_seconds(self, stem: str) -> float | None:
        """How long the chapter's latest cached execution took (whatever its key), or None if never run."""
        for meta_path in self.directory.glob(f"{stem}-*.json"):
            if meta_path.name.endswith(".ledger.json"):
                continue
            try:
                return float(json.loads(meta_path.read_text()).get("seconds", 0.0))
            except (json.JSONDecodeError, ValueError, TypeError):
                return None
        return None

    def store(
        self, stem: str, key: str, notebook: Path, ledger: Path | None, modules: list[str], seconds: float
    ) -> None:
        """Keep an executed chapter (older entries of the same chapter are removed)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for old in self.directory.glob(f"{stem}-*"):
            old.unlink()
        base = self._base(stem, key)
        shutil.copy2(notebook, base.with_suffix(".ipynb"))
        if ledger is not None and ledger.is_file():
            shutil.copy2(ledger, base.with_suffix(".ledger.json"))
        meta = {"key": key, "seconds": seconds, "modules": {m: file_sha256(Path(m)) for m in sorted(modules)}}
        tmp = base.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta, indent=1))
        tmp.replace(base.with_suffix(".json"))
