"""The book's data directory from its public sources: a checksummed registry, ``fetch`` and ``ensure_data``.

Every file the book reads is registered in ``blindspot/data/datasets.json`` with its public source
(a GitHub repository at a pinned commit), the raw URL at that pin, its sha256 and git blob SHA-1,
and its license. A data file is either a byte-for-byte **copy** of one raw file (pinned by the
sha256 of the copy) or **built** by a builder of :mod:`blindspot.data.sources` from raw inputs
(pinned by the inputs' sha256; the registry also records the sha256 of the reference build, which
the pinned pandas and pyarrow reproduce byte for byte).

:func:`fetch` downloads the raw files with :mod:`pooch` into the cache (:func:`blindspot.data.suites.cache_dir`),
verifies every checksum, reshapes, and writes a data directory laid out like the reference one,
each folder with its PROVENANCE.md. A file only ever appears under its final name complete and
verified: downloads go to a temporary file that pooch deletes unless the hash matches, and built
or copied files are written to a temporary name and renamed. :func:`ensure_data` is what a build
calls: an existing data directory, or the suites fetched into the cache, or None (offline).

Names to know:

- a **suite** is what a chapter asks for (``extended``, ``ollm_v2_full``, ``alpaca_eval``, ...);
  :data:`SUITE_FILES` maps each to the data-directory paths it reads, :data:`BOOK_SUITES` lists the
  suites some chapter reads;
- ``$BLINDSPOT_DATA_MIRROR`` (or ``mirror=``) replaces the scheme and host of every raw URL, e.g.
  ``http://127.0.0.1:8000`` serving ``/<owner>/<repo>/<commit>/<path>`` (the tests' loopback mirror);
- ``$BLINDSPOT_CACHE`` moves the cache.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import tarfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urlsplit

import pooch
import requests
from tqdm import tqdm

from blindspot.data import sources
from blindspot.data.atomic import write_atomic
from blindspot.data.suites import cache_dir, fetched_data_dir, resolve_data_dir

__all__ = [
    "REGISTRY_PATH",
    "MIRROR_ENV",
    "RawFile",
    "DataFile",
    "Suite",
    "Registry",
    "FetchReport",
    "ChecksumError",
    "DataUnavailableError",
    "load_registry",
    "fetch",
    "ensure_data",
    "file_sha256",
    "SUITE_FILES",
    "BOOK_SUITES",
]

#: The registry shipped with the package.
REGISTRY_PATH = Path(__file__).resolve().parent / "datasets.json"
#: Environment variable: a base URL (scheme and host, optionally a path) that replaces the host of every raw URL.
MIRROR_ENV = "BLINDSPOT_DATA_MIRROR"
#: The fetch's record of what it wrote (sha256 per data file), kept in the data directory.
MANIFEST = ".blindspot-fetch.json"
#: Prefix of the temporary files written into the data directory before their final rename.
PARTIAL_PREFIX = ".blindspot-partial-"
#: Parallel downloads.
WORKERS = 4
#: Seconds to wait for a connection / between bytes.
TIMEOUT = (10, 60)
#: Seconds the one probe of each host waits before the downloads start (offline is known in this time).
PROBE_TIMEOUT = 3.0


# ------------------------------------------------------------------------------------------ errors
class ChecksumError(ValueError):
    """A downloaded or copied file does not have its registered sha256 (the file was not kept)."""


class DataUnavailableError(OSError):
    """The data could not be downloaded: offline, host unreachable, HTTP error, or interrupted transfer."""


class _Cancelled(Exception):
    """Raised inside a running download when another one failed or the user interrupted."""


# ------------------------------------------------------------------------------------------ registry
@dataclass(frozen=True)
class RawFile:
    """One file of a public repository at a pinned commit."""

    source: str
    repo: str
    commit: str
    path: str
    url: str
    sha256: str
    git_sha1: str
    bytes: int
    license: str
    archive: str | None = None  # the URL of an archive holding the file (fetched once for all its files)
    archive_root: str = ""  # the archive's top folder, before ``path``

    @property
    def key(self) -> str:
        return f"{self.source}:{self.path}"

    @property
    def member(self) -> str:
        """The file's name inside its archive."""
        return f"{self.archive_root}/{self.path}" if self.archive_root else self.path

    def describe(self) -> str:
        return f"{self.repo}@{self.commit[:7]}:{self.path}"


@dataclass(frozen=True)
class DataFile:
    """One file of the data directory: a copy of a raw file, or built from raw inputs."""

    relpath: str
    sha256: str
    bytes: int
    copy: RawFile | None = None
    build: str | None = None
    inputs: tuple[RawFile, ...] = ()

    @property
    def folder(self) -> str:
        return PurePosixPath(self.relpath).parts[0]

    @property
    def raw(self) -> tuple[RawFile, ...]:
        """The raw files this data file needs."""
        return (self.copy,) if self.copy is not None else self.inputs


@dataclass(frozen=True)
class Suite:
    """A name a chapter asks for and the data files it reads."""

    name: str
    files: tuple[str, ...]
    book: bool
    description: str


@dataclass(frozen=True)
class Registry:
    """Every data file, its sources and the suites (see ``datasets.json``)."""

    files: dict[str, DataFile]
    suites: dict[str, Suite]
    folders: dict[str, dict]
    path: Path
    sha256: str

    def suite_files(self, names: Iterable[str] | None = None) -> list[DataFile]:
        """The data files of the named suites (None: the book's suites; ``"all"``: every file), in registry order."""
        names = self.book_suites if names is None else list(names)
        if "all" in names:
            return list(self.files.values())
        unknown = [n for n in names if n not in self.suites]
        if unknown:
            raise ValueError(
                f"unknown suite(s) {unknown}; known suites: {sorted(self.suites)} (or 'all'; no --suites: the book's)"
            )
        wanted = {f for n in names for f in self.suites[n].files}
        return [f for p, f in self.files.items() if p in wanted]

    @property
    def book_suites(self) -> list[str]:
        return [n for n, s in self.suites.items() if s.book]

    def download_bytes(self, files: Iterable[DataFile]) -> int:
        """Bytes of the distinct raw files the given data files need."""
        return sum(r.bytes for r in {r.key: r for f in files for r in f.raw}.values())


def file_sha256(path: Path) -> str:
    """sha256 (hex) of a file's content, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_manifest_file(path: Path) -> dict[str, dict]:
    """A checksum manifest: ``<sha256> <bytes> <path>`` per line (``#`` starts a comment), as {path: meta}."""
    hexes = re.compile(r"^[0-9a-f]{64}$")
    out = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        digest, size, name = line.split(" ", 2)
        if not hexes.match(digest):
            raise ValueError(f"{path}: line {i} has a malformed sha256")
        out[name] = {"sha256": digest, "bytes": int(size)}
    return out


def load_registry(path: str | os.PathLike | None = None) -> Registry:
    """Read and check a registry file (default: the one shipped with the package).

    Raises
    ------
    ValueError
        A malformed registry: unknown source or builder, an input pattern that matches no raw file,
        a suite naming a file that is not registered, a bad hash.
    """
    path = Path(path) if path is not None else REGISTRY_PATH
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read the data registry {str(path)!r}: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != 1:
        raise ValueError(f"{path}: not a data registry of format 1")
    try:
        return _parse_registry(doc, path)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: malformed data registry ({type(exc).__name__}: {exc})") from exc


def _raw_file(
    sid: str, src: dict, p: str, meta: dict, git_sha1: str, archive: str | None = None, archive_root: str = ""
) -> RawFile:
    """The raw file ``p`` (``meta``: its sha256 and size) of the registry's source ``sid`` (``src``)."""
    return RawFile(
        source=sid,
        repo=src["repo"],
        commit=src["commit"],
        path=p,
        url=src["base_url"] + quote(p),
        sha256=meta["sha256"],
        git_sha1=git_sha1,
        bytes=int(meta["bytes"]),
        license=src["license"],
        archive=archive,
        archive_root=archive_root,
    )


def _parse_registry(doc: dict, path: Path) -> Registry:
    hexes = re.compile(r"^[0-9a-f]{64}$")
    raws: dict[str, dict[str, RawFile]] = {}
    for sid, src in doc["sources"].items():
        raws[sid] = {}
        archive = src.get("archive") or {}
        if "manifest" in src:
            manifest = path.parent / src["manifest"]  # beside the registry, else the one shipped with the package
            manifest = manifest if manifest.is_file() else REGISTRY_PATH.parent / src["manifest"]
            for p, meta in _read_manifest_file(manifest).items():
                raws[sid][p] = _raw_file(sid, src, p, meta, "", archive.get("url"), archive.get("root", ""))
        for p, meta in src["files"].items():
            if not hexes.match(meta["sha256"]):
                raise ValueError(f"{path}: source {sid!r} file {p!r} has a malformed sha256")
            raws[sid][p] = _raw_file(sid, src, p, meta, meta["git_sha1"])

    def resolve(ref: str, where: str) -> list[RawFile]:
        sid, _, pattern = ref.partition(":")
        if sid not in raws:
            raise ValueError(f"{path}: {where} names the unknown source {sid!r}")
        hits = [r for p, r in raws[sid].items() if fnmatch.fnmatchcase(p, pattern)]
        if not hits:
            raise ValueError(f"{path}: {where}: {ref!r} matches no registered raw file")
        return hits

    files: dict[str, DataFile] = {}
    for folder, spec in doc["folders"].items():
        if "copy_tree" in spec:  # every raw file under a folder of the source, copied byte for byte
            sid, _, prefix = spec["copy_tree"].partition(":")
            if sid not in raws:
                raise ValueError(f"{path}: folder {folder!r} names the unknown source {sid!r}")
            for p, raw in raws[sid].items():
                if p.startswith(prefix):
                    rel = f"{folder}/{p[len(prefix) :]}"
                    files[rel] = DataFile(rel, raw.sha256, raw.bytes, copy=raw)
        for name, meta in spec["files"].items():
            rel = f"{folder}/{name}"
            if "copy" in meta:
                (raw,) = resolve(meta["copy"], rel)
                if raw.sha256 != meta["sha256"]:
                    raise ValueError(f"{path}: {rel} is a copy of {raw.describe()} but their sha256 differ")
                files[rel] = DataFile(rel, meta["sha256"], int(meta["bytes"]), copy=raw)
            else:
                if meta.get("build") not in sources.BUILDERS:
                    raise ValueError(f"{path}: {rel} names the unknown builder {meta.get('build')!r}")
                inputs = {r.key: r for ref in meta["inputs"] for r in resolve(ref, rel)}
                files[rel] = DataFile(
                    rel, meta["sha256"], int(meta["bytes"]), build=meta["build"], inputs=tuple(inputs.values())
                )
    suites: dict[str, Suite] = {}
    for name, spec in doc["suites"].items():
        members = [p for pattern in spec["files"] for p in files if fnmatch.fnmatchcase(p, pattern)]
        if not members:
            raise ValueError(f"{path}: suite {name!r} matches no registered file")
        suites[name] = Suite(name, tuple(dict.fromkeys(members)), bool(spec["book"]), spec["description"])
    folders = {k: {kk: vv for kk, vv in v.items() if kk != "files"} for k, v in doc["folders"].items()}
    return Registry(files, suites, folders, path, file_sha256(path))


# ------------------------------------------------------------------------------------------ result
@dataclass(frozen=True)
class FetchReport:
    """What :func:`fetch` did."""

    dest: Path
    files: tuple[str, ...]
    written: tuple[str, ...]
    downloaded: int
    downloaded_bytes: int
    seconds: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        """One line for the terminal."""
        if not self.written:
            return f"{len(self.files)} data file(s) present and verified in {self.dest} (nothing downloaded, {self.seconds:.1f} s)"
        return (
            f"{len(self.written)} of {len(self.files)} data file(s) written to {self.dest}: {self.downloaded} raw "
            f"file(s) downloaded ({self.downloaded_bytes / 1e6:.1f} MB), {self.seconds:.1f} s"
        )


# ------------------------------------------------------------------------------------------ downloads
class _ProgressShare:
    """pooch's progress-bar protocol (``total``, ``update``, ``reset``, ``close``) for one download,
    forwarded to a bar shared by all downloads; raises :class:`_Cancelled` once ``stop`` is set, so the
    download aborts and pooch deletes its temporary file."""

    def __init__(self, bar: tqdm | None, lock: threading.Lock, stop: threading.Event):
        self.bar, self.lock, self.stop = bar, lock, stop
        self._total, self.done, self._finished = 0, 0, False

    @property
    def total(self) -> int:
        return self._total

    @total.setter
    def total(self, value: int) -> None:
        self._total, self.done, self._finished = int(value or 0), 0, False

    def update(self, n: int) -> None:
        if self.stop.is_set():
            raise _Cancelled()
        if self._finished:  # pooch's final update(total) after reset(): add what is left
            n = max(0, self._total - self.done)
        elif self._total:
            n = max(0, min(n, self._total - self.done))
        self.done += n
        if self.bar is not None and n:
            with self.lock:
                self.bar.update(n)

    def reset(self) -> None:
        self._finished = True

    def close(self) -> None:
        pass


def _mirrored(url: str, mirror: str | None) -> str:
    """``url`` with its scheme and host replaced by ``mirror`` (which may carry a path prefix)."""
    if not mirror:
        return url
    return mirror.rstrip("/") + urlsplit(url).path


def _cached(raw: RawFile, cache: Path) -> Path:
    return cache / "raw" / raw.repo / raw.commit / raw.path


def _present(path: Path, sha256: str) -> bool:
    """The file is in the cache with its sha256 (an archive, whose own bytes are not pinned: present)."""
    return path.is_file() and (not sha256 or file_sha256(path) == sha256)


def _archive_of(raw: RawFile) -> RawFile:
    """The download unit of a file held in an archive: the archive itself (its bytes are not pinned, as GitHub
    does not promise byte-stable archives; every file taken out of it is checked against its own sha256)."""
    return RawFile(
        raw.source, raw.repo, raw.commit, f"{raw.archive_root or 'archive'}.tar.gz", str(raw.archive), "", "", 0,
        raw.license,
    )  # fmt: skip


def _extract(archive: Path, members: Sequence[DataFile], dest: Path, written: list[str], manifest: dict,
             bar: tqdm, stop_check: Callable[[], None] | None) -> None:  # fmt: skip
    """Take ``members`` out of the cached archive in one pass, each checked against its sha256 and written
    atomically into ``dest``.

    Raises
    ------
    ChecksumError
        A file of the archive does not have its registered sha256, or the archive lacks a registered file.
    """
    wanted = {f.copy.member: f for f in members if f.copy is not None}
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for info in tar:
                f = wanted.pop(info.name, None)
                if f is None or not info.isfile():
                    continue
                if stop_check is not None:
                    stop_check()
                body = tar.extractfile(info).read()  # type: ignore[union-attr]
                digest = hashlib.sha256(body).hexdigest()
                if digest != f.sha256:
                    raise ChecksumError(
                        f"checksum mismatch for {f.relpath} (in {archive.name} of {f.copy.repo}@{f.copy.commit[:7]}): "
                        f"expected sha256 {f.sha256}, got {digest}; the file was not kept"
                    )
                write_atomic(dest / f.relpath, lambda tmp, b=body: tmp.write_bytes(b), PARTIAL_PREFIX)
                manifest[f.relpath] = {"sha256": digest}
                written.append(f.relpath)
                bar.update(1)
                if not wanted:
                    break
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ChecksumError(
            f"the cached archive {archive} cannot be read ({type(exc).__name__}: {exc}); delete it and fetch again"
        ) from exc
    if wanted:
        raise ChecksumError(
            f"the archive {archive.name} lacks {len(wanted)} registered file(s), e.g. {next(iter(wanted))}; delete "
            f"{archive} and fetch again"
        )


_POOCH_MISMATCH = re.compile(r"expected (?:\w+:)?([0-9a-fA-F]+) but got ([0-9a-fA-F]+)")


def _download(raw: RawFile, cache: Path, mirror: str | None, share: _ProgressShare) -> Path:
    """Fetch one raw file into the cache with pooch (verified), or raise a one-line error."""
    target = _cached(raw, cache)
    url = _mirrored(raw.url, mirror)
    downloader = pooch.HTTPDownloader(progressbar=share, chunk_size=1 << 16, timeout=TIMEOUT)
    try:
        pooch.retrieve(
            url,
            known_hash=f"sha256:{raw.sha256}" if raw.sha256 else None,
            fname=target.name,
            path=target.parent,
            downloader=downloader,
        )
    except ValueError as exc:
        m = _POOCH_MISMATCH.search(str(exc))
        if m is None:
            raise ValueError(f"cannot download {raw.describe()} from {url}: {exc}") from None
        raise ChecksumError(
            f"checksum mismatch for {raw.describe()} (from {url}): expected sha256 {raw.sha256}, got {m.group(2)}; "
            "the download was deleted"
        ) from None
    except requests.exceptions.HTTPError as exc:
        code = exc.response.status_code if exc.response is not None else "error"
        raise DataUnavailableError(f"cannot download {raw.describe()}: HTTP {code} from {url}") from None
    except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ReadTimeout) as exc:
        raise DataUnavailableError(
            f"the download of {raw.describe()} from {url} was interrupted ({type(exc).__name__}); nothing partial was "
            "kept, run the fetch again to resume"
        ) from None
    except requests.exceptions.RequestException as exc:
        host = urlsplit(url).netloc
        raise DataUnavailableError(
            f"offline: cannot reach {host} to download the data ({type(exc).__name__}); nothing was written"
        ) from None
    return target


def _probe_hosts(raws: Sequence[RawFile], mirror: str | None) -> None:
    """One short request to each host the downloads need, before any download starts.

    Offline (no name resolution, a refused or timed-out connection), the first failed connection
    decides it in at most :data:`PROBE_TIMEOUT` seconds, instead of one failed download per file.
    An HTTP answer of any status means the host is reachable: the download itself reports a missing file.

    Raises
    ------
    DataUnavailableError
        ``offline: cannot reach <host> ...`` (one line).
    """
    seen: set[str] = set()
    for raw in raws:
        url = _mirrored(raw.url, mirror)
        parts = urlsplit(url)
        if parts.netloc in seen:
            continue
        seen.add(parts.netloc)
        try:
            requests.head(url, timeout=(PROBE_TIMEOUT, PROBE_TIMEOUT), allow_redirects=False).close()
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
            raise DataUnavailableError(
                f"offline: cannot reach {parts.netloc} to download the data ({type(exc).__name__}); nothing was written"
            ) from None


def _download_unless_stopped(raw: RawFile, cache: Path, mirror: str | None, share: _ProgressShare) -> Path:
    """One download of :func:`_download_all`'s pool: none when ``share.stop`` is already set, and a failure
    sets it in the failing thread itself, so no queued download starts after the first failure
    (the main thread, which cancels the queue, may be scheduled much later on a busy machine)."""
    if share.stop.is_set():
        raise _Cancelled()
    try:
        return _download(raw, cache, mirror, share)
    except BaseException:
        share.stop.set()
        raise


def _download_all(raws: Sequence[RawFile], cache: Path, mirror: str | None, progress: bool) -> None:
    """Download the raw files (in parallel, one shared progress bar); on the first failure or an
    interrupt, abort the others (their temporary files are deleted) and raise."""
    if not raws:
        return
    total = sum(r.bytes for r in raws)
    bar = (
        tqdm(total=total, unit="B", unit_scale=True, desc=f"downloading {len(raws)} file(s)", file=sys.stderr)
        if progress
        else None
    )
    lock, stop = threading.Lock(), threading.Event()
    for parent in {_cached(r, cache).parent for r in raws}:  # made here, not by racing threads
        parent.mkdir(parents=True, exist_ok=True)
    level = pooch.get_logger().level
    pooch.get_logger().setLevel(logging.WARNING)  # pooch logs a line per file at INFO; the bar says it all
    pool = ThreadPoolExecutor(max_workers=WORKERS)
    futures = [pool.submit(_download_unless_stopped, r, cache, mirror, _ProgressShare(bar, lock, stop)) for r in raws]
    try:
        wait(futures, return_when=FIRST_EXCEPTION)
        errors = [f.exception() for f in futures if f.done() and f.exception() is not None]
        if errors:
            stop.set()
            for f in futures:  # downloads not started yet never start (each would wait for its own failure)
                f.cancel()
            wait(futures)
            first = next((e for e in errors if not isinstance(e, _Cancelled)), errors[0])
            raise first
    except BaseException:
        stop.set()
        for f in futures:
            f.cancel()
        wait(futures)
        raise
    finally:
        pool.shutdown(wait=True)
        pooch.get_logger().setLevel(level)
        if bar is not None:
            bar.close()


# ------------------------------------------------------------------------------------------ writing
def _sweep_partials(dest: Path) -> None:
    """Remove temporary files a killed fetch left in ``dest`` (only this module's own prefix)."""
    if dest.is_dir():
        for p in dest.rglob(f"{PARTIAL_PREFIX}*"):
            p.unlink(missing_ok=True)


def _read_manifest(dest: Path) -> dict:
    try:
        with open(dest / MANIFEST, encoding="utf-8") as fh:
            doc = json.load(fh)
        return doc.get("files", {}) if isinstance(doc, dict) else {}
    except (OSError, json.JSONDecodeError):
        return {}


def _is_current(dest: Path, f: DataFile, manifest: dict) -> bool:
    """The file is in ``dest`` with the registry's sha256, or with the sha256 this fetch recorded when it
    built it (a rebuild with other library versions may differ from the reference byte-wise)."""
    p = dest / f.relpath
    if not p.is_file():
        return False
    digest = file_sha256(p)
    return digest == f.sha256 or digest == manifest.get(f.relpath, {}).get("sha256")


def _produce(f: DataFile, dest: Path, cache: Path, notes: list[str]) -> str:
    """Copy or build one data file into ``dest`` (atomically); return its sha256."""
    target = dest / f.relpath
    digest: dict[str, str] = {}

    if f.copy is not None:

        def produce(tmp: Path) -> None:
            shutil.copyfile(_cached(f.copy, cache), tmp)
            digest["sha256"] = file_sha256(tmp)
            if digest["sha256"] != f.sha256:
                raise ChecksumError(
                    f"checksum mismatch for {f.relpath} (copy of {f.copy.describe()}): expected sha256 {f.sha256}, "
                    f"got {digest['sha256']}; the file was not kept"
                )

    else:
        builder = sources.BUILDERS[f.build]
        inputs = {r.path: _cached(r, cache) for r in f.inputs}

        def produce(tmp: Path) -> None:
            for r in f.inputs:  # the cache may have changed since the download was verified
                if file_sha256(inputs[r.path]) != r.sha256:
                    raise ChecksumError(
                        f"checksum mismatch for the cached {r.describe()}: expected sha256 {r.sha256}; delete "
                        f"{inputs[r.path]} and fetch again"
                    )
            sources.write(builder.make(inputs), builder, tmp)
            digest["sha256"] = file_sha256(tmp)

    write_atomic(target, produce, PARTIAL_PREFIX)
    if digest["sha256"] != f.sha256:
        notes.append(
            f"{f.relpath} was rebuilt from verified sources but is not byte-identical to the reference build "
            f"(sha256 {digest['sha256'][:12]}..., reference {f.sha256[:12]}...): library versions differ from the pins"
        )
    return digest["sha256"]


def _write_text(target: Path, text: str) -> None:
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return
    write_atomic(target, lambda tmp: tmp.write_text(text, encoding="utf-8"), PARTIAL_PREFIX)


def _write_provenance(dest: Path, folders: Iterable[str]) -> None:
    """Each touched folder's PROVENANCE.md and the data directory's README.md (shipped with the package)."""
    for folder in folders:
        _write_text(
            dest / folder / "PROVENANCE.md", (sources.PROVENANCE_DIR / f"{folder}.md").read_text(encoding="utf-8")
        )
    _write_text(dest / "README.md", (sources.PROVENANCE_DIR / "README.md").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------ fetch
def fetch(
    suites: Iterable[str] | None = None,
    dest: str | os.PathLike | None = None,
    *,
    progress: bool = True,
    mirror: str | None = None,
    cache: str | os.PathLike | None = None,
    registry: Registry | str | os.PathLike | None = None,
    stop_check: Callable[[], None] | None = None,
) -> FetchReport:
    """Download, verify and reshape the files of ``suites`` into the data directory ``dest``.

    Parameters
    ----------
    suites : names, optional
        Suites of the registry (:data:`SUITE_FILES`); None: every suite some chapter reads
        (:data:`BOOK_SUITES`); ``"all"``: every registered file.
    dest : path, optional
        The data directory to write (created if needed); default :func:`blindspot.data.suites.fetched_data_dir`.
    progress : bool
        Show progress bars (stderr): bytes downloaded, then files written (naming the one being built).
    mirror : str, optional
        Base URL replacing the scheme and host of every raw URL; default ``$BLINDSPOT_DATA_MIRROR``.
    cache : path, optional
        Where raw downloads are kept (``<cache>/raw/<owner>/<repo>/<commit>/<path>``); default
        :func:`blindspot.data.suites.cache_dir`.
    registry : Registry or path, optional
        Default: the registry shipped with the package.
    stop_check : callable, optional
        Called before each file is put into ``dest``; it raises to stop there (the command's
        :func:`blindspot.cli._raise_if_stopped`, for a Ctrl-C whose exception Python swallowed).

    Returns
    -------
    FetchReport
        A file already in ``dest`` with its registered sha256 is left alone, so a second fetch
        downloads nothing.

    Raises
    ------
    ChecksumError (a ValueError)
        A raw file's sha256 differs from the registry; the message names the file and both hashes.
    DataUnavailableError (an OSError)
        Offline, HTTP error or interrupted transfer (one line). Nothing unverified is left behind.
    ValueError
        An unknown suite name.
    """
    t0 = time.perf_counter()
    reg = registry if isinstance(registry, Registry) else load_registry(registry)
    files = reg.suite_files(suites)
    dest = Path(dest).expanduser() if dest is not None else fetched_data_dir()
    cache = Path(cache).expanduser() if cache is not None else cache_dir()
    mirror = mirror if mirror is not None else os.environ.get(MIRROR_ENV) or None
    if mirror is not None and urlsplit(mirror).scheme not in ("http", "https"):
        raise ValueError(
            f"the data mirror {mirror!r} is not an http(s) URL (e.g. http://127.0.0.1:8000); fix ${MIRROR_ENV}"
        )
    _sweep_partials(dest)
    manifest = _read_manifest(dest)
    todo = [f for f in files if not _is_current(dest, f, manifest)]
    folders = list(dict.fromkeys(f.folder for f in files))
    if not todo:
        if dest.is_dir():
            _write_provenance(dest, folders)
        return FetchReport(dest, tuple(f.relpath for f in files), (), 0, 0, time.perf_counter() - t0)
    raws = list({r.key: r for f in todo for r in f.raw if r.archive is None}.values())
    archives = {a.key: a for a in (_archive_of(r) for f in todo for r in f.raw if r.archive is not None)}
    missing = [r for r in [*raws, *archives.values()] if not _present(_cached(r, cache), r.sha256)]
    _probe_hosts(missing, mirror)
    _download_all(missing, cache, mirror, progress)
    notes: list[str] = []
    written: list[str] = []
    in_archives = [f for f in todo if f.copy is not None and f.copy.archive is not None]
    bar = tqdm(total=len(todo), desc="writing the data directory", unit="file", file=sys.stderr, disable=not progress)

    def record() -> None:
        _write_text(dest / MANIFEST, json.dumps({"registry": reg.sha256, "files": manifest}, indent=1) + "\n")

    try:
        for f in todo:
            if f in in_archives:
                continue
            if stop_check is not None:
                stop_check()
            if f.build is not None:  # the slow ones: say which
                bar.set_postfix_str(f.relpath)
            manifest[f.relpath] = {"sha256": _produce(f, dest, cache, notes)}
            written.append(f.relpath)
            bar.update(1)
            record()
        for key, unit in archives.items():  # each archive read once, whatever number of files it holds
            mine = [f for f in in_archives if _archive_of(f.copy).key == key]  # type: ignore[arg-type]
            bar.set_postfix_str(f"{len(mine)} files from {unit.repo}@{unit.commit[:7]}")
            try:
                _extract(_cached(unit, cache), mine, dest, written, manifest, bar, stop_check)
            finally:
                record()
    finally:  # what was written, even if a later file failed, gets its folder's provenance
        bar.close()
        if written:
            _write_provenance(dest, folders)
    return FetchReport(
        dest,
        tuple(f.relpath for f in files),
        tuple(written),
        len(missing),
        sum(r.bytes for r in missing),
        time.perf_counter() - t0,
        tuple(notes),
    )


def ensure_data(
    suites: Iterable[str] | None = None, dest: str | os.PathLike | None = None, progress: bool = True
) -> Path | None:
    """A data directory for a build: the existing one, or ``suites`` fetched into the cache, or None.

    Order (that of :func:`blindspot.data.suites.resolve_data_dir`): ``$BLINDSPOT_DATA``, then
    ``../shared/data`` are returned as they are (nothing is fetched); otherwise the suites (default:
    :data:`BOOK_SUITES`) are fetched into ``dest`` (default: the cache's data directory, which
    ``resolve_data_dir`` finds afterwards). Offline, prints one line to stderr saying so and how to
    fetch later, and returns the cache's data directory if an earlier fetch left one, else None (the
    chapters then run on the synthetic stand-in).

    Raises
    ------
    ChecksumError
        A download does not match the registry (not an offline condition: something is wrong).
    """
    if dest is None:
        root = resolve_data_dir()
        if root is not None and root != fetched_data_dir().resolve():
            return root
        dest = fetched_data_dir()
    dest = Path(dest).expanduser()
    try:
        report = fetch(suites, dest, progress=progress)
    except DataUnavailableError as exc:
        fallback = dest if dest.is_dir() and any(dest.iterdir()) else None
        then = "chapters without their data" if fallback else "the chapters"
        print(
            f"blindspot: {exc}; {then} run on the synthetic stand-in (fetch later: blindspot data fetch)",
            file=sys.stderr,
        )
        return fallback.resolve() if fallback else None
    for note in report.notes:
        print(f"blindspot: note: {note}", file=sys.stderr)
    return dest.resolve()


_REGISTRY = load_registry()
#: Suite name -> the data-directory paths it reads (e.g. ``"extended": ("paper/extended.csv",)``).
SUITE_FILES: dict[str, tuple[str, ...]] = {n: s.files for n, s in _REGISTRY.suites.items()}
#: The suites some chapter of the book reads (what ``fetch()`` and ``ensure_data()`` get by default).
BOOK_SUITES: tuple[str, ...] = tuple(_REGISTRY.book_suites)
