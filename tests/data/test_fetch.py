"""blindspot.data.fetch and blindspot.data.sources: the registry, `blindspot data fetch`, the reshaping.

Nothing here touches the internet. A loopback HTTP server (127.0.0.1, ephemeral port, started and
stopped by the fixture) serves a mirror laid out like raw.githubusercontent.com
(``/<owner>/<repo>/<commit>/<path>``): byte-verbatim files taken from the reference data directory,
and the raw-format excerpts of ``fixtures/raw`` (see ``fixtures/make_raw_fixtures.py``) for the
reshaped files. The registry's URLs point at it through the documented ``mirror=`` /
``$BLINDSPOT_DATA_MIRROR`` override.
"""

from __future__ import annotations

import copy
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import numpy as np
import pandas as pd
import pytest
import requests

from blindspot import cli, data
from blindspot.data import epoch_hub, fetch as datasets, sources
from blindspot.data.sources import alpaca as alpaca_src, epoch as epoch_src, ollm as ollm_src
from blindspot.perspective import arena_bench, response_records

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "raw"
PROJECT = HERE.parents[1]
sys.path.insert(0, str(HERE / "fixtures"))
import make_raw_fixtures as fx  # noqa: E402  (the fixture generator's model lists)

REGISTRY_DOC = json.loads(datasets.REGISTRY_PATH.read_text(encoding="utf-8"))
#: Sources whose raw files the fixtures excerpt (their data files are reshaped or copied from excerpts).
FIXTURE_SOURCES = ("llm-leaderboard-csv", "bayes-llm-saturation", "alpaca_eval", "PSN-IRT")


def sha256(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


# ------------------------------------------------------------------------------------------ the mirror
class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``server.root``; per-path misbehaviour set on the server: corrupt, truncate, slow."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        try:
            self._serve()
        except (BrokenPipeError, ConnectionResetError):
            # the client hung up (tests interrupt downloads on purpose): without this the server's thread
            # prints the traceback to stderr, into whichever test of this process is running by then
            pass

    def _serve(self) -> None:
        srv = self.server
        path = unquote(urlsplit(self.path).path)
        srv.requests.append(path)
        local = srv.root / path.lstrip("/")
        if not local.is_file():
            self.send_error(404)
            return
        body = local.read_bytes()
        if path in srv.corrupt:
            body = srv.corrupt[path](body)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if path in srv.truncate:  # promise the whole file, send half, hang up
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if path in srv.slow:  # a trickle: the test interrupts the client meanwhile
            for i in range(0, len(body), 4096):
                self.wfile.write(body[i : i + 4096])
                self.wfile.flush()
                srv.started.set()
                time.sleep(0.05)
            return
        self.wfile.write(body)


class Mirror:
    """A loopback server over a directory laid out like the public raw hosts."""

    def __init__(self, root: Path):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.server.root = root
        self.server.requests, self.server.corrupt = [], {}
        self.server.truncate, self.server.slow = set(), set()
        self.server.started = threading.Event()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def requests(self) -> list[str]:
        return self.server.requests

    def reset(self) -> None:
        self.server.requests.clear()
        self.server.corrupt.clear()
        self.server.truncate.clear()
        self.server.slow.clear()
        self.server.started.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def url_path(raw: datasets.RawFile) -> str:
    """The unquoted path under which the mirror serves a raw file."""
    return f"/{raw.repo}/{raw.commit}/{raw.path}"


@pytest.fixture(scope="module")
def mirror_root(tmp_path_factory, data_dir) -> Path:
    """The fixtures, plus the registry's verbatim copies taken from the reference data directory."""
    root = tmp_path_factory.mktemp("mirror")
    shutil.copytree(FIXTURES, root, dirs_exist_ok=True)
    reg = datasets.load_registry()
    for f in reg.files.values():
        if f.copy is not None and f.copy.source not in FIXTURE_SOURCES and f.copy.archive is None:
            target = root / url_path(f.copy).lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data_dir / f.relpath, target)
    _archive_of_reference(root, data_dir, reg, ("helm_instruct", "livecodebenchpro"))
    return root


def _archive_of_reference(root: Path, data_dir: Path, reg, folders, change: str | None = None) -> Path:
    """The Every Eval Ever archive, as GitHub's codeload serves it (``<repo>-<commit>/data/...``), holding the
    reference copies of ``folders`` (``change``: one file whose bytes are altered), at its mirrored URL path."""
    members = [f for f in reg.files.values() if f.copy is not None and f.copy.archive is not None]
    unit = datasets._archive_of(members[0].copy)
    target = root / urlsplit(unit.url).path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    with tarfile.open(target, "w:gz") as tar:
        for f in members:
            if f.relpath.split("/")[1] in folders:
                body = (data_dir / f.relpath).read_bytes()
                if f.relpath == change:
                    body = body.replace(b"0", b"1", 1)
                info = tarfile.TarInfo(f.copy.member)
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    return target


@pytest.fixture(scope="module")
def mirror(mirror_root):
    m = Mirror(mirror_root)
    yield m
    m.close()


@pytest.fixture
def live(mirror, monkeypatch, tmp_path):
    """The mirror, reset; ``$BLINDSPOT_DATA_MIRROR`` pointing at it and ``$BLINDSPOT_CACHE`` in tmp_path."""
    mirror.reset()
    monkeypatch.setenv(datasets.MIRROR_ENV, mirror.url)
    monkeypatch.setenv(data.CACHE_ENV, str(tmp_path / "cache"))
    return mirror


def closed_port_url() -> str:
    """A loopback URL where nothing listens (connection refused: what offline looks like)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def fixture_registry(tmp_path_factory) -> Path:
    """The shipped registry with the fixture sources' files re-pinned to the excerpts (their sha256,
    git blob SHA-1 and size). Built files get no reference hash (an excerpt has none); copies of
    excerpted raw files take the excerpt's hash; data files whose raw file has no excerpt are dropped."""
    doc = copy.deepcopy(REGISTRY_DOC)
    for sid in FIXTURE_SOURCES:
        src = doc["sources"][sid]
        base = FIXTURES / src["repo"] / src["commit"]
        src["files"] = {}
        for p in files_under(base):
            b = p.read_bytes()
            rel = p.relative_to(base).as_posix()
            src["files"][rel] = {
                "sha256": sha256(b),
                "git_sha1": hashlib.sha1(b"blob %d\0" % len(b) + b).hexdigest(),
                "bytes": len(b),
            }
    for spec in doc["folders"].values():
        for name, meta in list(spec["files"].items()):
            if "copy" in meta:
                sid, _, path = meta["copy"].partition(":")
                if sid in FIXTURE_SOURCES:
                    if path not in doc["sources"][sid]["files"]:
                        del spec["files"][name]
                        continue
                    meta["sha256"] = doc["sources"][sid]["files"][path]["sha256"]
            else:
                meta["sha256"], meta["bytes"] = "0" * 64, 0
    kept = {f"{folder}/{name}" for folder, spec in doc["folders"].items() for name in spec["files"]}
    for suite in doc["suites"].values():
        suite["files"] = [p for p in suite["files"] if "*" in p or p in kept]
    path = tmp_path_factory.mktemp("registry") / "datasets.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reshaped(mirror, fixture_registry, tmp_path_factory) -> Path:
    """Every reshaped suite built from the excerpts through the loopback mirror (one fetch per module)."""
    dest = tmp_path_factory.mktemp("reshaped")
    mirror.reset()
    report = datasets.fetch(
        ["ollm_v2_full", "ollm_v1_full", "ollm_v1v2_joined", "epoch_hub", "epoch_hub_extra", "alpaca_eval",
         "alpaca_eval_extra", "item_level_psn_irt"],
        dest, progress=False, mirror=mirror.url, cache=tmp_path_factory.mktemp("cache"), registry=fixture_registry,
    )  # fmt: skip
    assert report.downloaded == len(
        {r.key for f in map(datasets.load_registry(fixture_registry).files.get, report.files) for r in f.raw}
    )
    return dest


# ------------------------------------------------------------------------------------------ the registry
def test_registry_urls_are_the_raw_files_at_the_pinned_commits():
    reg = datasets.load_registry()
    raws = {r.key: r for f in reg.files.values() for r in f.raw}
    listed = sum(len(s["files"]) for s in REGISTRY_DOC["sources"].values())
    in_manifests = sum(
        len(datasets._read_manifest_file(datasets.REGISTRY_PATH.parent / s["manifest"]))
        for s in REGISTRY_DOC["sources"].values()
        if "manifest" in s
    )
    assert len(raws) == listed + in_manifests  # every raw file is used
    for r in raws.values():
        assert re.fullmatch(r"[0-9a-f]{40}", r.commit), r
        assert r.url == f"https://raw.githubusercontent.com/{r.repo}/{r.commit}/{quote(r.path)}"
        assert r.license
    for folder, meta in reg.folders.items():
        assert meta["license"] and (sources.PROVENANCE_DIR / f"{folder}.md").is_file()


def test_suites_cover_every_file_the_book_reads():
    """Every named suite of blindspot.data and every file the Part V readers open has a registry
    suite, and every suite some chapter names is fetched by default."""
    for name, spec in data.SUITES.items():  # a file, or a folder (Every Eval Ever) whose every file is registered
        files = datasets.SUITE_FILES[name]
        assert spec.path in files or all(p.startswith(spec.path + "/") for p in files), name
    assert epoch_hub.HUB_FILE in datasets.SUITE_FILES["epoch_hub"]
    for f in ("responses.parquet", "models.csv", "queries.csv"):
        assert f"{response_records.ALPACA_DIR}/{f}" in datasets.SUITE_FILES["alpaca_eval"]
    assert any(p.startswith("eee_samples/schemas/") for p in datasets.SUITE_FILES["eee_samples"])
    assert f"{arena_bench.ARENA_DIR}/question.jsonl" in datasets.SUITE_FILES["arena_bench_v1"]
    readers = {"load_epoch_hub": "epoch_hub", "load_paper_epoch": "epoch", "alpaca_eval_data": "alpaca_eval",
               "load_alpaca_records": "alpaca_eval", '"eee_samples"': "eee_samples", "eee_study.staged_folder": "eee_samples",
               "arena_bench_data": "arena_bench_v1", "load_arena_offload_suite": "arena_bench_v1"}  # fmt: skip
    named = set()
    for nb in (PROJECT / "notebooks").glob("*.md"):
        text = nb.read_text(encoding="utf-8")
        named |= {s for s in data.SUITES if re.search(rf"['\"]{s}['\"]", text)}
        named |= {suite for call, suite in readers.items() if call in text}
    assert named, "no chapter names a suite: the scan is broken"
    assert named <= set(datasets.BOOK_SUITES), sorted(named - set(datasets.BOOK_SUITES))


def test_registry_matches_the_reference_data_directory(data_dir):
    """Each registered file's sha256 is that of the reference copy, every reference file is registered,
    the shipped PROVENANCE texts are the reference ones, and the pins agree with them."""
    reg = datasets.load_registry()
    for rel, f in reg.files.items():
        assert sha256((data_dir / rel).read_bytes()) == f.sha256, rel
        assert (data_dir / rel).stat().st_size == f.bytes, rel
    on_disk = {p.relative_to(data_dir).as_posix() for p in files_under(data_dir)}
    docs = {p for p in on_disk if p.endswith("PROVENANCE.md") or p == "README.md"}
    assert on_disk - docs == set(reg.files)
    for folder in reg.folders:
        shipped = (sources.PROVENANCE_DIR / f"{folder}.md").read_text(encoding="utf-8")
        assert shipped == (data_dir / folder / "PROVENANCE.md").read_text(encoding="utf-8")
        for f in (f for f in reg.files.values() if f.folder == folder):
            for r in f.raw:  # the pinned commit is the one the folder's provenance names
                assert r.commit[:7] in shipped, (folder, r.commit)
    # the AlpacaEval inventory lists the git blob SHA-1 of every raw file it used: the registry agrees
    inventory = pd.read_csv(data_dir / "alpaca_eval_responses" / "source_files.csv")
    pinned = {r.path: r.git_sha1 for f in reg.files.values() for r in f.raw if r.source == "alpaca_eval"}
    assert pinned == dict(zip(inventory.path, inventory.blob_sha1))


def test_a_malformed_registry_is_refused(tmp_path):
    def write(doc) -> Path:
        p = tmp_path / "bad.json"
        p.write_text(json.dumps(doc))
        return p

    doc = copy.deepcopy(REGISTRY_DOC)
    doc["folders"]["ollm_v2"]["files"]["ollm_v2.csv"]["build"] = "no_such_builder"
    with pytest.raises(ValueError, match="unknown builder 'no_such_builder'"):
        datasets.load_registry(write(doc))
    doc = copy.deepcopy(REGISTRY_DOC)
    doc["folders"]["ollm_v2"]["files"]["ollm_v2.csv"]["inputs"] = ["llm-leaderboard-csv:csv/absent.csv"]
    with pytest.raises(ValueError, match="matches no registered raw file"):
        datasets.load_registry(write(doc))
    doc = copy.deepcopy(REGISTRY_DOC)
    doc["folders"]["paper"]["files"]["extended.csv"]["sha256"] = "0" * 64
    with pytest.raises(ValueError, match="sha256 differ"):
        datasets.load_registry(write(doc))
    with pytest.raises(ValueError, match=r"unknown suite\(s\) \['nope'\]"):
        datasets.load_registry().suite_files(["nope"])
    with pytest.raises(ValueError, match="not a data registry"):
        datasets.load_registry(write([1, 2]))
    doc = copy.deepcopy(REGISTRY_DOC)
    del doc["sources"]["alpaca_eval"]["commit"]
    with pytest.raises(ValueError, match="malformed data registry"):
        datasets.load_registry(write(doc))
    with pytest.raises(ValueError, match="is not an http"):
        datasets.fetch(["livebench"], tmp_path / "d", mirror="127.0.0.1:8000", cache=tmp_path / "c")


# ------------------------------------------------------------------------------------------ fetching
def test_fetch_downloads_verifies_and_lays_out_like_the_reference(live, tmp_path, data_dir):
    dest = tmp_path / "data"
    report = datasets.fetch(["extended", "livebench", "eee_samples"], dest, progress=False)
    reg = datasets.load_registry()
    wanted = reg.suite_files(["extended", "livebench", "eee_samples"])
    assert set(report.written) == set(report.files) == {f.relpath for f in wanted}
    assert report.downloaded == len(live.requests) == len(wanted)
    assert report.downloaded_bytes == sum(f.bytes for f in wanted)
    for f in wanted:
        assert (dest / f.relpath).read_bytes() == (data_dir / f.relpath).read_bytes(), f.relpath
    for folder in ("paper", "eee_samples"):
        assert (dest / folder / "PROVENANCE.md").read_bytes() == (data_dir / folder / "PROVENANCE.md").read_bytes()
    assert (dest / "README.md").read_bytes() == (data_dir / "README.md").read_bytes()
    assert not any(p.name.startswith(datasets.PARTIAL_PREFIX) for p in files_under(dest))
    umask = os.umask(0)
    os.umask(umask)
    assert {p.stat().st_mode & 0o777 for p in files_under(dest)} == {0o666 & ~umask}  # not mkstemp's 0600
    # the named suite now loads from the fetched directory, and is the paper's
    t = data.load_suite("extended", data_dir=dest, fallback=False)
    assert t.scores.shape == (295, 12) and not t.synthetic
    # a second fetch downloads nothing
    live.reset()
    again = datasets.fetch(["extended", "livebench", "eee_samples"], dest, progress=False)
    assert live.requests == [] and again.written == () and again.downloaded == 0
    assert "nothing downloaded" in again.describe()


def test_arena_bench_is_fetched_at_its_pinned_commit_and_reads_like_the_reference(live, tmp_path, data_dir):
    """Arena-Bench v1 (lmarena/arena-hard-auto at 4a705dd): 34 verbatim files, the reference layout, and the
    routing chapters' reader finds the same 17 models and 15 graded ones in the fetched copy."""
    dest = tmp_path / "data"
    report = datasets.fetch(["arena_bench_v1"], dest, progress=False)
    wanted = datasets.load_registry().suite_files(["arena_bench_v1"])
    pins = {r.commit for f in wanted for r in f.raw}
    assert len(wanted) == 34 and pins == {"4a705dd6963f777aba2ae79259e3013934e6e012"}
    assert set(report.written) == {f.relpath for f in wanted}
    for f in wanted:
        assert (dest / f.relpath).read_bytes() == (data_dir / f.relpath).read_bytes(), f.relpath
    prov = (dest / arena_bench.ARENA_DIR / "PROVENANCE.md").read_bytes()
    assert prov == (data_dir / arena_bench.ARENA_DIR / "PROVENANCE.md").read_bytes()
    got = arena_bench.arena_bench_data(dest, fallback=False)
    assert len(got.models) == 17 and len(got.graded_models) == 15 and len(got.queries) == 300


def test_a_damaged_or_missing_file_is_fetched_again_and_leftovers_are_swept(live, tmp_path, data_dir):
    dest = tmp_path / "data"
    datasets.fetch(["extended", "livebench"], dest, progress=False)
    (dest / "paper" / "extended.csv").write_text("model,a,b\nx,1,2\n")
    (dest / "paper" / "livebench.csv").unlink()
    leftover = dest / "paper" / f"{datasets.PARTIAL_PREFIX}abc.csv"  # what a killed fetch leaves
    leftover.write_text("half a file")
    live.reset()
    report = datasets.fetch(["extended", "livebench"], dest, progress=False)
    assert set(report.written) == {"paper/extended.csv", "paper/livebench.csv"}
    assert report.downloaded == 0 and live.requests == []  # the verified raw files were in the cache
    for f in ("extended.csv", "livebench.csv"):
        assert (dest / "paper" / f).read_bytes() == (data_dir / "paper" / f).read_bytes()
    assert not leftover.exists()


def test_cli_fetch_then_second_fetch(live, tmp_path, capsys):
    dest = tmp_path / "data"
    assert cli.main(["data", "fetch", "--suites", "livebench", "ollm_v2", "--dest", str(dest), "--no-progress"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("2 of 2 data file(s) written")
    t0 = time.perf_counter()
    assert cli.main(["data", "fetch", "--suites", "livebench", "ollm_v2", "--dest", str(dest), "--no-progress"]) == 0
    assert time.perf_counter() - t0 < 5.0  # in fact tens of milliseconds; the bound only guards against a re-download
    assert "present and verified" in capsys.readouterr().out


def test_cli_unknown_suite_is_one_line_and_exit_2(live, tmp_path, capsys):
    assert cli.main(["data", "fetch", "--suites", "nope", "--dest", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown suite(s) ['nope']" in err[0]


def test_a_corrupted_download_is_one_line_exit_2_and_nothing_is_kept(live, tmp_path, capsys):
    reg = datasets.load_registry()
    raw = reg.files["paper/extended.csv"].copy
    live.server.corrupt[url_path(raw)] = lambda b: b.replace(b"GPQA", b"GPQB", 1)
    bad = (live.server.root / url_path(raw).lstrip("/")).read_bytes().replace(b"GPQA", b"GPQB", 1)
    dest = tmp_path / "data"
    code = cli.main(["data", "fetch", "--suites", "extended", "--dest", str(dest), "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "data/extended.csv" in err[0] and raw.sha256 in err[0] and sha256(bad) in err[0]
    assert files_under(dest) == [] and files_under(tmp_path / "cache") == []


def test_an_interrupted_download_leaves_nothing_and_a_rerun_resumes(live, tmp_path):
    reg = datasets.load_registry()
    raw = reg.files["paper/arena_categories.csv"].copy
    live.server.truncate.add(url_path(raw))
    dest = tmp_path / "data"
    with pytest.raises(datasets.DataUnavailableError, match="interrupted") as exc:
        datasets.fetch(["arena_categories", "livebench"], dest, progress=False)
    assert "\n" not in str(exc.value)
    leftovers = [p for p in files_under(dest) + files_under(tmp_path / "cache")]
    # nothing of arena_categories anywhere; livebench may have completed (verified) in the cache only
    assert all("arena_categories" not in p.name for p in leftovers)
    assert all(p.parent.name != "paper" for p in leftovers)  # no data file was written
    live.reset()
    report = datasets.fetch(["arena_categories", "livebench"], dest, progress=False)
    assert set(report.written) == {"paper/arena_categories.csv", "paper/livebench.csv"}
    assert sha256((dest / "paper/arena_categories.csv").read_bytes()) == raw.sha256


def _subprocess_env(tmp_path: Path, mirror_url: str, pythonpath: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("BLINDSPOT_DATA",)}
    env.update(
        {
            "PYTHONPATH": str(pythonpath),
            datasets.MIRROR_ENV: mirror_url,
            data.CACHE_ENV: str(tmp_path / "cache"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def test_ctrl_c_during_a_download_leaves_nothing(live, tmp_path):
    reg = datasets.load_registry()
    raw = reg.files["paper/arena_categories.csv"].copy  # 164 kB, trickled in 4 kB pieces
    live.server.slow.add(url_path(raw))
    dest = tmp_path / "data"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "blindspot",
            "data",
            "fetch",
            "--suites",
            "arena_categories",
            "--dest",
            str(dest),
            "--no-progress",
        ],
        env=_subprocess_env(tmp_path, live.url, PROJECT / "support"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A job started in the background (`make test &`, some CI runners) inherits SIGINT ignored, and Python
        # then keeps it ignored: the child gets the default back, as at a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert live.server.started.wait(60), "the download never started"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("blindspot: interrupted; nothing partial was kept")
    assert files_under(dest) == [] and files_under(tmp_path / "cache") == []


def test_a_ctrl_c_that_python_swallowed_stops_the_fetch_before_a_file_is_put_in_place(live, tmp_path, swallowed_ctrl_c):
    """A signal that arrives while a ``__del__`` runs raises there and Python only prints "Exception
    ignored": without the check before each file is written the fetch ran on to the end with status 0."""
    dest = tmp_path / "data"
    setup = (
        "from blindspot.data import fetch as datasets\n"
        "real = datasets._download_all\n"
        "def download_all(*args, **kwargs):\n"
        "    Swallowed()\n"
        "    return real(*args, **kwargs)\n"
        "datasets._download_all = download_all"
    )
    argv = ["data", "fetch", "--suites", "arena_categories", "--dest", str(dest), "--no-progress"]
    res = swallowed_ctrl_c(setup, argv, _subprocess_env(tmp_path, live.url, PROJECT / "support"), tmp_path)
    assert res.returncode == 130, res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("blindspot: interrupted; nothing partial was kept")
    assert files_under(dest) == []


def test_offline_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(datasets.MIRROR_ENV, closed_port_url())
    monkeypatch.setenv(data.CACHE_ENV, str(tmp_path / "cache"))
    dest = tmp_path / "data"
    with pytest.raises(datasets.DataUnavailableError, match=r"^offline: cannot reach 127\.0\.0\.1:\d+"):
        datasets.fetch(["livebench"], dest, progress=False)
    assert cli.main(["data", "fetch", "--suites", "livebench", "--dest", str(dest), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("blindspot: offline:")
    assert not dest.exists() and files_under(tmp_path / "cache") == []


def test_a_missing_file_on_the_host_is_one_line_with_the_http_status(live, tmp_path):
    """A mirror may carry a path prefix; a file it does not have is an HTTP error, not 'offline'."""
    with pytest.raises(datasets.DataUnavailableError, match=r"^cannot download .*data/livebench\.csv: HTTP 404") as exc:
        datasets.fetch(["livebench"], tmp_path / "data", progress=False, mirror=f"{live.url}/no/such/prefix")
    assert "\n" not in str(exc.value)
    assert live.requests == [
        "/no/such/prefix/Jason-Wang313/stereology/5c567b6e67b7ed20949a162f4bbc036281a9e696/data/livebench.csv"
    ]
    assert files_under(tmp_path / "data") == [] and files_under(tmp_path / "cache") == []


def _fresh_clone(tmp_path: Path) -> Path:
    """A copy of the support packages in a project folder with no ../shared/data beside it."""
    proj = tmp_path / "clone"
    shutil.copytree(PROJECT / "support", proj / "support", ignore=shutil.ignore_patterns("__pycache__"))
    return proj


ENSURE = """
import sys
from blindspot import data
from blindspot.data import fetch as datasets
root = datasets.ensure_data(["extended"], progress=False)
t = data.load_suite("extended")
print(root, data.resolve_data_dir(), t.synthetic, t.scores.shape)
"""


def test_ensure_data_on_a_machine_without_a_data_directory(live, tmp_path):
    """A fresh clone (no $BLINDSPOT_DATA, no ../shared/data): offline, one line and the synthetic stand-in;
    online, the suite fetched into the cache, which resolve_data_dir then finds (last in its order)."""
    proj = _fresh_clone(tmp_path)
    run = dict(cwd=proj, capture_output=True, text=True, timeout=300)
    off = subprocess.run(
        [sys.executable, "-c", ENSURE], env=_subprocess_env(tmp_path, closed_port_url(), proj / "support"), **run
    )
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["None", "None", "True", "(300,", "12)"]
    lines = off.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("blindspot: offline:") and "blindspot data fetch" in lines[0]
    on = subprocess.run(
        [sys.executable, "-c", ENSURE], env=_subprocess_env(tmp_path, live.url, proj / "support"), **run
    )
    assert on.returncode == 0, on.stderr
    cached = str((tmp_path / "cache" / "data").resolve())
    assert on.stdout.split() == [cached, cached, "False", "(295,", "12)"]
    assert on.stderr == ""


def test_shared_data_beside_the_project_is_found_from_any_working_directory(tmp_path):
    """../shared/data is looked for beside the project root (the folder holding support/), not only
    beside the working directory (the root was taken one level too deep before)."""
    proj = _fresh_clone(tmp_path)
    shared = tmp_path / "shared" / "data"
    shared.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    env = _subprocess_env(tmp_path, closed_port_url(), proj / "support")
    code = "from blindspot import data; print(data.resolve_data_dir())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(shared.resolve())


# ------------------------------------------------------------------------------------------ reshaping
def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(line == w for w in it) for line in part)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_reshaped_ollm_dumps_are_the_reference_rows(reshaped, data_dir):
    """Row order is kept, so the reshaped excerpt is, line for line, a subsequence of the reference CSV."""
    for rel, raw in (("ollm_v2/ollm_v2.csv", ollm_src.V2_RAW), ("ollm_v1/ollm_v1.csv", ollm_src.V1_RAW)):
        ours, ref = _lines(reshaped / rel), _lines(data_dir / rel)
        n_raw = len(_lines(FIXTURES / fx.OLLM / raw)) - 1
        assert ours[0] == ref[0] and len(ours) - 1 == n_raw
        assert _is_subsequence(ours[1:], ref[1:]), rel
    joined = pd.read_csv(reshaped / "ollm_v1v2_joined/ollm_v1v2_joined.csv")
    ref = pd.read_csv(data_dir / "ollm_v1v2_joined/ollm_v1v2_joined.csv")
    expected = ref[ref.model_name.isin(fx.JOINED_MODELS)].reset_index(drop=True)
    assert len(expected) == len(fx.JOINED_MODELS)
    pd.testing.assert_frame_equal(joined, expected)


def _cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells, with every cell that parses as a number replaced by that number's repr."""

    def one(text: str) -> str:
        try:
            return repr(float(text))
        except ValueError:
            return text

    return frame.map(one)


def test_reshaped_epoch_tables_are_the_reference_rows(reshaped, data_dir):
    # cell by cell as written, numbers compared as numbers: pandas writes a file's whole column as float
    # when some cell of it is empty, so an excerpt may write 5 where the full file writes 5.0
    long = _cells(pd.read_csv(reshaped / "epoch_hub/epoch_long.csv", dtype=str, keep_default_na=False))
    ref = _cells(pd.read_csv(data_dir / "epoch_hub/epoch_long.csv", dtype=str, keep_default_na=False))
    pick = ref.model_version.isin(fx.EPOCH_MODELS) | ((ref.model_version == "") & ref.name.isin(fx.EPOCH_NAME_ONLY))
    assert pick.sum() == len(long) > 30
    pd.testing.assert_frame_equal(long, ref[pick].reset_index(drop=True))
    wide = pd.read_csv(reshaped / "epoch_hub/epoch_wide.csv").set_index("model_version")
    refw = pd.read_csv(data_dir / "epoch_hub/epoch_wide.csv").set_index("model_version").loc[sorted(fx.EPOCH_MODELS)]
    assert list(wide.index) == sorted(fx.EPOCH_MODELS)
    assert list(wide.columns[:3]) == ["release_date", "organization", "eci_score"]
    pd.testing.assert_frame_equal(wide, refw[wide.columns], check_dtype=False)
    absent = [c for c in refw.columns if c not in wide.columns]
    assert refw[absent].isna().all().all()  # the excerpt holds every score of these models


def test_reshaped_alpaca_tables_are_the_reference_rows(reshaped, data_dir):
    folder, ref_folder = reshaped / "alpaca_eval_responses", data_dir / "alpaca_eval_responses"
    models = list(fx.ALPACA_MODELS)
    k = fx.N_QUERIES
    pd.testing.assert_frame_equal(pd.read_csv(folder / "queries.csv"), pd.read_csv(ref_folder / "queries.csv").head(k))
    resp = pd.read_parquet(folder / "responses.parquet")
    ref = pd.read_parquet(ref_folder / "responses.parquet", filters=[("model_id", "in", models), ("query_id", "<", k)])
    assert len(ref) > 30 and ref.score.notna().sum() > 10
    pd.testing.assert_frame_equal(resp, ref.reset_index(drop=True))
    ae1 = pd.read_parquet(folder / "scores_ae1_alpaca_eval_gpt4.parquet")
    ref1 = pd.read_parquet(
        ref_folder / "scores_ae1_alpaca_eval_gpt4.parquet", filters=[("model_id", "in", models), ("query_id", "<", k)]
    )
    assert (~ref1.judged_output_equals_response).any()  # falcon-7b-instruct's older judged outputs are in the excerpt
    pd.testing.assert_frame_equal(ae1, ref1.reset_index(drop=True))
    # the model table: leaderboard columns are the reference's; counts are those of the excerpt
    m = pd.read_csv(folder / "models.csv").set_index("model_id")
    refm = pd.read_csv(ref_folder / "models.csv").set_index("model_id")
    assert set(m.index) == set(models) | set(fx.ALPACA_LEADERBOARD_ONLY)
    copied = [
        c
        for c in m.columns
        if c
        not in ("n_responses", "n_null_or_empty_response", "n_scored", "score_mean", "ae1_n_scored", "ae1_score_mean")
    ]
    pd.testing.assert_frame_equal(m[copied], refm.loc[m.index, copied], check_dtype=False)
    only = list(fx.ALPACA_LEADERBOARD_ONLY)
    pd.testing.assert_frame_equal(m.loc[only], refm.loc[only], check_dtype=False)  # no outputs: every column
    by = ref.groupby("model_id")
    assert m.loc[models, "n_responses"].tolist() == by.size().reindex(models).tolist()
    assert m.loc[models, "n_scored"].tolist() == by.score.count().reindex(models).tolist()
    np.testing.assert_allclose(m.loc[models, "score_mean"], by.score.mean().reindex(models), rtol=0, atol=1e-15)
    assert (
        m.loc[models, "ae1_n_scored"].tolist()
        == ref1.groupby("model_id").score.count().reindex(models, fill_value=0).tolist()
    )
    # the inventory: the reference's rows for these files, and (a file kept whole) the reference's git blob SHA-1
    inv = pd.read_csv(folder / "source_files.csv")
    refi = pd.read_csv(ref_folder / "source_files.csv")
    refi = refi[refi.path.isin(set(inv.path))].reset_index(drop=True)
    pd.testing.assert_frame_equal(inv[["kind", "model_id", "path"]], refi[["kind", "model_id", "path"]])
    whole = inv.path == alpaca_src.LEADERBOARD_AE1
    pd.testing.assert_frame_equal(inv[whole].reset_index(drop=True), refi[whole].reset_index(drop=True))


def test_reshaped_item_responses_are_the_reference_rows(reshaped, data_dir):
    ours = _lines(reshaped / "item_level_psn_irt/responses.csv")
    with open(data_dir / "item_level_psn_irt/responses.csv", encoding="utf-8") as fh:
        ref = [next(fh).rstrip("\n") for _ in range(len(ours))]
    assert len(ours) == 4 and all(len(line.split(",")) == 41 for line in ours)
    assert ours == [",".join(line.split(",")[:41]) for line in ref]


def test_a_fetch_of_reshaped_suites_twice_downloads_nothing(reshaped, mirror, fixture_registry, tmp_path):
    mirror.reset()
    report = datasets.fetch(["ollm_v1v2_joined", "alpaca_eval"], reshaped, progress=False, mirror=mirror.url,
                            cache=tmp_path / "empty-cache", registry=fixture_registry)  # fmt: skip
    assert report.written == () and mirror.requests == []


# ------------------------------------------------------------------------------------------ the rules, by hand
def test_preference_to_score_follows_the_alpaca_eval_encoding():
    got = alpaca_src.preference_to_score(np.array([1.0, 2.0, 1.5, 0.0, 1.25, np.nan]))
    np.testing.assert_array_equal(got, [0.0, 1.0, 0.5, 0.5, 0.25, np.nan])


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_epoch_headline_score_and_the_max_over_repeats(tmp_path):
    """Hand-made files in Epoch's format: the score is the first column after the model version that is not
    Scaffold/Tools/Agent; repeats take the max; ECI is metadata; dates come from the first dated row."""
    a = _write(
        tmp_path / "a.csv",
        "Model version,Scaffold,Accuracy,Release date,Organization\nm1,x,0.5,2024-01-01,Org\nm1,y,0.7,,\nm2,x,0.2,,\n",
    )
    b = _write(tmp_path / "b.csv", "Model version,Score,Release date,Name\nm2,30,2023-05-05,M two\n,,,\n,1,,nameless\n")
    eci = _write(
        tmp_path / "eci.csv",
        "Model version,ECI Score,Release date,Display name\nm1,120.5,2024-01-01,M1\nm3,99,2022-01-01,M3\n",
    )
    inputs = {"benchmark_data/a.csv": a, "benchmark_data/b.csv": b, f"benchmark_data/{epoch_src.ECI}.csv": eci}
    long = epoch_src.epoch_long(inputs)
    assert list(long.columns) == list(epoch_src.LONG_COLUMNS)
    assert (
        long.score_column.tolist() == ["Accuracy"] * 3 + ["Score"] * 2 + ["ECI Score"] * 2
    )  # the empty row is dropped
    wide = epoch_src.epoch_wide(inputs).set_index("model_version")
    assert list(wide.index) == ["m1", "m2"]  # m3 has only an ECI score: not a row
    assert wide.loc["m1", "a"] == 0.7 and np.isnan(wide.loc["m1", "b"]) and wide.loc["m2", "b"] == 30
    assert wide.loc["m1", "eci_score"] == 120.5 and np.isnan(wide.loc["m2", "eci_score"])
    assert wide.loc["m2", "release_date"] == "2023-05-05" and wide.loc["m1", "organization"] == "Org"
    with pytest.raises(ValueError, match="no 'Model version' column"):
        epoch_src.headline_column(["model", "score"])


def test_builders_refuse_inputs_of_the_wrong_shape(tmp_path):
    bad = _write(tmp_path / "v2.csv", "id,model_name\nx,y\n")
    with pytest.raises(ValueError, match="not the Open LLM Leaderboard v2 export"):
        ollm_src.ollm_v2({ollm_src.V2_RAW: bad})
    ref = _write(
        tmp_path / "ref.json", json.dumps([{"instruction": "a?", "output": "A", "generator": "r", "dataset": "t"}])
    )
    other = _write(tmp_path / "m.json", json.dumps([{"instruction": "b?", "output": "B", "generator": "m"}]))
    inputs = {alpaca_src.REFERENCE_OUTPUTS: ref, "results/m/model_outputs.json": other}
    with pytest.raises(ValueError, match=r"m\.json: an instruction is not among the reference's 1"):
        alpaca_src.alpaca_responses(inputs)


def test_a_rebuild_that_differs_from_the_reference_bytes_is_kept_and_noted(mirror, fixture_registry, tmp_path):
    """Built files are pinned by their verified inputs; the reference hash of the output is a check whose
    failure (other library versions) is reported, not fatal. The excerpt registry has no reference hash."""
    report = datasets.fetch(
        ["item_level_psn_irt"],
        tmp_path / "d",
        progress=False,
        mirror=mirror.url,
        cache=tmp_path / "c",
        registry=fixture_registry,
    )
    assert report.notes and "not byte-identical to the reference build" in report.notes[0]
    assert (tmp_path / "d" / "item_level_psn_irt" / "responses.csv").is_file()


def test_report_is_one_line():
    r = datasets.FetchReport(Path("/x"), ("a", "b"), ("a",), 1, 2_500_000, 1.25)
    assert "\n" not in r.describe() and r.describe().startswith(
        "1 of 2 data file(s) written to /x: 1 raw file(s) downloaded (2.5 MB)"
    )


def test_offline_is_known_from_one_probe_before_any_download(monkeypatch, tmp_path):
    """A host that cannot be reached (here: every connection times out after the probe's timeout) is known
    from one short request per host, before the per-file downloads start: no download is attempted."""
    probes, downloads = [], []

    def unreachable(url, timeout, **kw):
        probes.append(url)
        time.sleep(0.2)  # a connection that never completes, cut short here
        raise requests.exceptions.ConnectTimeout(f"connect to {url} timed out")

    monkeypatch.delenv(datasets.MIRROR_ENV, raising=False)
    monkeypatch.setattr(datasets.requests, "head", unreachable)
    monkeypatch.setattr(datasets, "_download", lambda *a, **k: downloads.append(a))
    t0 = time.perf_counter()
    with pytest.raises(datasets.DataUnavailableError, match=r"^offline: cannot reach raw\.githubusercontent\.com"):
        datasets.fetch(["alpaca_eval"], tmp_path / "data", progress=False, mirror=None, cache=tmp_path / "cache")
    assert time.perf_counter() - t0 < 5
    assert len(probes) == 1 and downloads == []
    assert not (tmp_path / "data").exists() or files_under(tmp_path / "data") == []


def test_after_a_failed_download_no_other_download_starts(monkeypatch, tmp_path):
    """The first failed download stops the others: the ones not started yet never start (before, each of
    the hundreds of files waited for its own failure, which offline took over a minute)."""
    calls = []

    def failing(raw, *a, **k):
        calls.append(raw)
        time.sleep(0.05)
        raise datasets.DataUnavailableError(f"cannot download {raw.describe()}: HTTP 503")

    monkeypatch.delenv(datasets.MIRROR_ENV, raising=False)
    monkeypatch.setattr(datasets, "_probe_hosts", lambda raws, mirror: None)
    monkeypatch.setattr(datasets, "_download", failing)
    files = datasets.load_registry().suite_files(["alpaca_eval"])
    n_raw = len({r.key for f in files for r in f.raw})
    assert n_raw > 10 * datasets.WORKERS
    with pytest.raises(datasets.DataUnavailableError, match="HTTP 503"):
        datasets.fetch(["alpaca_eval"], tmp_path / "data", progress=False, mirror=None, cache=tmp_path / "cache")
    assert len(calls) <= datasets.WORKERS  # each thread's first failure stops it and every queued download


def test_a_slow_main_thread_lets_no_download_start_after_the_first_failure(monkeypatch, tmp_path):
    """The failing download itself stops the queue: a main thread that learns of the failure late (a busy
    machine; here its wait sleeps 0.5 s first) lets no other download start meanwhile. Before, the pool's
    threads kept taking queued downloads until the main thread cancelled them (over 20 calls here)."""
    calls = []

    def failing(raw, *a, **k):
        calls.append(raw)
        time.sleep(0.01)
        raise datasets.DataUnavailableError(f"cannot download {raw.describe()}: HTTP 503")

    real_wait = datasets.wait

    def late_wait(*a, **k):
        time.sleep(0.5)
        return real_wait(*a, **k)

    monkeypatch.delenv(datasets.MIRROR_ENV, raising=False)
    monkeypatch.setattr(datasets, "_probe_hosts", lambda raws, mirror: None)
    monkeypatch.setattr(datasets, "_download", failing)
    monkeypatch.setattr(datasets, "wait", late_wait)
    with pytest.raises(datasets.DataUnavailableError, match="HTTP 503"):
        datasets.fetch(["alpaca_eval"], tmp_path / "data", progress=False, mirror=None, cache=tmp_path / "cache")
    assert 1 <= len(calls) <= datasets.WORKERS


# ------------------------------------------------------------------------------------------ archives
def test_every_eval_ever_folders_come_from_one_archive_checked_file_by_file(live, tmp_path, data_dir):
    """4,857 record files are one download (GitHub's archive of the pinned commit), each file taken out of it
    checked against its own registered sha256, laid out as the reference data directory; a second fetch
    downloads nothing."""
    dest = tmp_path / "data"
    report = datasets.fetch(["eee_helm_instruct", "eee_livecodebenchpro"], dest, progress=False)
    assert report.downloaded == 1 and len(live.requests) == 1 and "/tar.gz/" in live.requests[0]
    assert len(report.written) == 4 + 29
    for rel in report.written:
        assert (dest / rel).read_bytes() == (data_dir / rel).read_bytes(), rel
    assert (dest / "eee_aggregate" / "PROVENANCE.md").read_bytes() == (
        data_dir / "eee_aggregate" / "PROVENANCE.md"
    ).read_bytes()
    assert data.load_suite("eee_livecodebenchpro", data_dir=dest, fallback=False).n_models == 27
    again = datasets.fetch(["eee_helm_instruct", "eee_livecodebenchpro"], dest, progress=False)
    assert again.downloaded == 0 and again.written == ()


def test_an_altered_file_in_the_archive_is_refused_by_name(live, tmp_path, data_dir, mirror_root):
    reg = datasets.load_registry()
    bad = sorted(f.relpath for f in reg.files.values() if f.relpath.startswith("eee_aggregate/helm_instruct/"))[1]
    _archive_of_reference(mirror_root, data_dir, reg, ("helm_instruct",), change=bad)
    try:
        with pytest.raises(datasets.ChecksumError, match=rf"checksum mismatch for {re.escape(bad)} "):
            datasets.fetch(["eee_helm_instruct"], tmp_path / "data", progress=False)
        assert not (tmp_path / "data" / bad).exists()
    finally:
        _archive_of_reference(mirror_root, data_dir, reg, ("helm_instruct", "livecodebenchpro"))
