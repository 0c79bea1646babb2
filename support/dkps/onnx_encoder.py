"""A sentence-transformers model run by ONNX Runtime: the same vectors as the torch backend, faster on a CPU.

The graph is the model's own sentence-transformers pipeline (the transformer, then the pooling
and normalisation its ``modules.json`` lists: for all-MiniLM-L6-v2 the mean of the token
embeddings under the attention mask, then division by the L2 norm, Reimers & Gurevych 2019,
Sentence-BERT, section 3). It is exported once with torch's TorchScript ONNX exporter
(``torch.onnx.export(..., dynamo=False)``, which needs no package beyond torch) from the weights on
disk, with the transformer's attention written out as matrix products and a softmax
(``attn_implementation="eager"``: the same function as torch's fused scaled-dot-product kernel,
which the exporter can only trace into a slower graph; 10–20 % faster at 256 word pieces on one
thread, ``benchmarks/encoder_speed.py``), checked against the torch backend as users run it
(the default attention) on :data:`PROBE_TEXTS` (every vector within cosine
:data:`AGREEMENT` of torch's, in one padded batch and one text at a time), and written atomically
into a folder (:mod:`dkps.embed` uses ``<embedding cache folder>/onnx/``) under a name that carries a checksum of the weights and configuration
files, the torch version, the exporter and the opset, so a stale export is never read. Later runs
load the export with ONNX Runtime alone (no torch import).

Texts are tokenised by the model's own tokenizer (``transformers.AutoTokenizer`` on the model
folder) exactly as sentence-transformers does (truncation ``'longest_first'`` to the sequence
length), grouped by their exact number of word pieces and run ``batch_size`` at a time within a group,
so no text is padded and a text's vector is the same, bit for bit, whatever texts share its call
(:meth:`OnnxEncoder.encode`; the embedding cache therefore holds the same vectors whatever order and
history filled it). ONNX Runtime's intra-op threads follow the
caller's limit: ``n_threads``, else ``$OMP_NUM_THREADS``, else the cores this process may use.

``quantize=True`` runs a dynamically quantised int8 copy (``onnxruntime.quantization.quantize_dynamic``,
weights of the matrix products in int8). Its vectors are not within :data:`AGREEMENT` of torch's
(see ``benchmarks/encoder_speed.py``), so it is never a default and the embedding cache keys its
vectors apart.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import unicodedata
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "AGREEMENT",
    "EXPORTER",
    "OPSET",
    "PREFIX_CHARS_PER_TOKEN",
    "PROBE_TEXTS",
    "OnnxEncoder",
    "default_threads",
    "export_path",
    "length_batches",
    "model_checksum",
    "onnx_available",
    "splits_words_on_whitespace",
    "whitespace_prefix",
]

#: Characters read per word piece of ``max_tokens`` before a long text is tokenised whole (see ``tokenize``).
PREFIX_CHARS_PER_TOKEN = 8
#: ONNX opset of the export.
OPSET = 17
#: Exporter tag in the export's file name (bump it when the exported wrapper changes).
EXPORTER = "ts2"  # ts2: eager attention in the traced graph (ts1 traced the fused kernel)
#: Least cosine between an exported vector and torch's on the probe texts for the export to be used.
AGREEMENT = 0.99999
#: Texts of several lengths (one longer than 256 word pieces) embedded by both backends before an export is used.
PROBE_TEXTS = (
    "Hello, world.",
    "",
    "  Leading and trailing spaces, TABS\tand\nnew lines.  ",
    "The capital of France is Paris; its population is about 2.1 million (2023).",
    "Ünïcödé, 東京, emoji 🙂 and math: ∑_{i=1}^n x_i² ≥ 0.",
    "def f(x):\n    return [y * 2 for y in x if y % 3 == 0]\n",
    " ".join(f"word{i} and some filler text number {i}" for i in range(80)),
)
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_CONFIG_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_CHECKSUMS: dict = {}  # (path, sizes, mtimes) -> checksum; hashing 90 MB once per process


def onnx_available() -> bool:
    """Whether ``onnxruntime`` and ``transformers`` (for the tokenizer) import."""
    try:
        import onnxruntime  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


def default_threads() -> int:
    """Intra-op threads: ``$OMP_NUM_THREADS`` if set (a positive int), else the cores this process may use."""
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) >= 1:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _model_files(model_dir: Path) -> list[Path]:
    files = [model_dir / f for f in _WEIGHT_FILES + _CONFIG_FILES if (model_dir / f).is_file()]
    if not any(f.name in _WEIGHT_FILES for f in files):
        raise ValueError(
            f"no weights ({' or '.join(_WEIGHT_FILES)}) in {model_dir}; pass a sentence-transformers model folder"
        )
    modules = model_dir / "modules.json"
    if modules.is_file():
        for m in json.loads(modules.read_text()):
            sub = model_dir / m.get("path", "")
            if m.get("path") and sub.is_dir():
                files += sorted(p for p in sub.glob("*.json") if p.is_file())
    return files


def model_checksum(model_dir: str | os.PathLike) -> str:
    """sha256 over the names and bytes of a model folder's weights and configuration files (its modules' too)."""
    model_dir = Path(model_dir)
    files = _model_files(model_dir)
    stamp = (str(model_dir.resolve()), tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files))
    if stamp not in _CHECKSUMS:
        h = hashlib.sha256()
        for f in files:
            h.update(str(f.relative_to(model_dir)).encode() + b"\0")
            with open(f, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        _CHECKSUMS[stamp] = h.hexdigest()
    return _CHECKSUMS[stamp]


def export_path(model_dir: str | os.PathLike, folder: str | os.PathLike, quantize: bool = False) -> Path:
    """Where the export of ``model_dir`` lives in ``folder``: ``<model folder name>-<checksum[:16]>-torch<version>-<exporter>-opset<n>[-int8].onnx``."""
    return Path(folder) / _export_name(Path(model_dir), _torch_version(), quantize)


def _torch_version() -> str:
    """The installed torch's version, read from its metadata (importing torch takes seconds); ImportError if absent."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        raise ImportError("torch is not installed") from None


def _export_name(model_dir: Path, torch_version: str, quantize: bool) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_dir.resolve().name)
    tag = f"{name}-{model_checksum(model_dir)[:16]}-torch{torch_version}-{EXPORTER}-opset{OPSET}"
    return tag + ("-int8" if quantize else "") + ".onnx"


def _atomic_write(target: Path, write) -> None:
    """``write(tmp_path)`` into a temporary file beside ``target``, then rename it over ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; an export is as readable as the cache
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _session(path: Path, n_threads: int):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = int(n_threads)
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


class OnnxEncoder:
    """Encode texts with a sentence-transformers model folder through ONNX Runtime.

    Parameters
    ----------
    model_dir : a sentence-transformers model folder (weights, ``modules.json``, tokenizer files)
    folder : where the exports are kept (:mod:`dkps.embed` uses ``<embedding cache folder>/onnx``)
    n_threads : ONNX Runtime intra-op threads (default :func:`default_threads`)
    quantize : run the dynamically quantised int8 copy (not within :data:`AGREEMENT` of torch)
    batch_size : texts per ONNX Runtime call (default 8: a small batch keeps a layer's activations in the
        CPU's caches, and is faster per text than 32 at 64 to 256 word pieces on one thread here,
        ``benchmarks/encoder_speed.py --batch-sizes``)

    Raises
    ------
    ImportError
        onnxruntime or transformers missing, or torch missing when no export exists yet.
    RuntimeError
        The fresh export does not agree with torch on :data:`PROBE_TEXTS` (nothing is written).
    """

    def __init__(
        self,
        model_dir: str | os.PathLike,
        folder: str | os.PathLike,
        n_threads: int | None = None,
        quantize: bool = False,
        batch_size: int = 8,
    ):
        self._setup(model_dir, n_threads, batch_size)
        self.quantize = bool(quantize)
        self.path = _find_export(self.model_dir, Path(folder), self.quantize)
        if not self.path.is_file():
            _export(self.model_dir, self.path, self.quantize)
        self.session = _session(self.path, self.n_threads)

    @classmethod
    def _on_file(cls, model_dir: Path, path: Path, n_threads: int = 1) -> OnnxEncoder:
        """An encoder on the graph in ``path`` as it is (no export, no search): for checking a fresh export."""
        self = cls.__new__(cls)
        self._setup(model_dir, n_threads, 8)
        self.quantize, self.path = False, Path(path)
        self.session = _session(self.path, self.n_threads)
        return self

    def _setup(self, model_dir, n_threads: int | None, batch_size: int) -> None:
        if not onnx_available():
            raise ImportError("the ONNX backend needs onnxruntime and transformers: pip install onnxruntime==1.32.0")
        if n_threads is not None and (isinstance(n_threads, bool) or int(n_threads) != n_threads or n_threads < 1):
            raise ValueError(f"n_threads must be None or an int >= 1, got {n_threads!r}")
        if isinstance(batch_size, bool) or int(batch_size) != batch_size or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        from transformers import AutoTokenizer

        self.model_dir = Path(model_dir)
        self.n_threads = int(n_threads) if n_threads is not None else default_threads()
        self.batch_size = int(batch_size)
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir))
        self._word_split = splits_words_on_whitespace(self.tokenizer)
        if self.tokenizer.padding_side != "right":
            side = self.tokenizer.padding_side
            raise ValueError(
                f"the ONNX backend pads on the right; the tokenizer of {self.model_dir} pads on the {side}"
            )
        cfg = self.model_dir / "sentence_bert_config.json"
        st_cfg = json.loads(cfg.read_text()) if cfg.is_file() else {}
        self.lower_case = bool(st_cfg.get("do_lower_case", False))
        positions = json.loads((self.model_dir / "config.json").read_text()).get("max_position_embeddings")
        self.max_positions = int(positions) if positions else None
        default = st_cfg.get("max_seq_length") or self.tokenizer.model_max_length
        self.max_seq_length = int(min(default, self.max_positions) if self.max_positions else default)

    def tokenize(self, texts: Sequence[str], max_tokens: int | None = None) -> list[list[int]]:
        """Word-piece ids of each text (with the special tokens), truncated to ``max_tokens`` (default the model's length).

        A WordPiece tokenizer that splits words on whitespace first (BERT's) reads only a prefix of a long
        text: its first ``PREFIX_CHARS_PER_TOKEN * max_tokens`` characters, cut back to a whitespace. Words are
        split independently, so the prefix's word pieces are the first word pieces of the whole text; when
        the prefix alone fills ``max_tokens`` the truncated ids are the whole text's, and otherwise the whole
        text is tokenised (20,000 AlpacaEval answers at 64 word pieces: 2.4 s instead of 5.5 s, the same ids).
        """
        length = self.max_seq_length if max_tokens is None else int(max_tokens)
        if self.max_positions is not None and length > self.max_positions:
            raise ValueError(f"max_tokens={length} exceeds the model's {self.max_positions} positions")
        texts = [t.lower() for t in texts] if self.lower_case else list(texts)
        if not self._word_split:
            return self._ids(texts, length)
        heads = [whitespace_prefix(t, PREFIX_CHARS_PER_TOKEN * length) for t in texts]
        ids = self._ids(heads, length)
        short = [i for i, (h, t, x) in enumerate(zip(heads, texts, ids)) if len(h) < len(t) and len(x) < length]
        for i, x in zip(short, self._ids([texts[i] for i in short], length) if short else []):
            ids[i] = x
        return ids

    def _ids(self, texts: list[str], length: int) -> list[list[int]]:
        return self.tokenizer(texts, truncation="longest_first", max_length=length)["input_ids"]

    def encode(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """``(len(texts), d)`` float32 sentence embeddings, in input order.

        Each text's vector depends on the text alone, bit for bit, not on which texts share its call or its
        batch (:func:`length_batches`): texts run only beside texts of the same number of word pieces, so no
        text is ever padded, and a text with no such companion runs twice in a batch of two, so every batch
        takes the same matrix-product path (ONNX Runtime computes a lone row with another kernel, whose
        rounding differs in the last bits).
        """
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        ids = self.tokenize(texts, max_tokens)
        out: np.ndarray | None = None
        for rows in length_batches([len(x) for x in ids], self.batch_size):
            run = rows if len(rows) > 1 else rows * 2  # a lone text runs as a pair: the batched kernel's rounding
            input_ids = np.array([ids[i] for i in run], dtype=np.int64)
            mask = np.ones_like(input_ids)
            feed = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
            vec = self.session.run(None, feed)[0][: len(rows)]
            if out is None:
                out = np.empty((len(texts), vec.shape[1]), dtype=np.float32)
            out[rows] = vec
        return out


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions of texts grouped by their exact length, each group cut into batches of at most ``batch_size``.

    No batch mixes lengths, so no text is padded: a text's vector cannot depend on the longest text beside it.
    Groups come in increasing length, positions in input order.

    Parameters
    ----------
    lengths : sequence of int
        Word pieces of each text.
    batch_size : int
        Largest batch.

    Returns
    -------
    list of list of int

    Examples
    --------
    >>> length_batches([3, 5, 3, 3, 5], 2)
    [[0, 2], [3], [1, 4]]
    """
    groups: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(int(n), []).append(i)
    return [g[s : s + batch_size] for n in sorted(groups) for g in (groups[n],) for s in range(0, len(g), batch_size)]


def splits_words_on_whitespace(tokenizer) -> bool:
    """Whether ``tokenizer`` (a ``transformers`` fast tokenizer) is BERT's: a BERT normaliser, BERT's
    pre-tokeniser (words split on whitespace and punctuation) and WordPiece, so that a text cut at a
    whitespace tokenises into a prefix of the whole text's word pieces."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return False
    from tokenizers import models, normalizers, pre_tokenizers

    return (
        isinstance(backend.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
        and isinstance(backend.model, models.WordPiece)
        and isinstance(backend.normalizer, normalizers.BertNormalizer)
    )


def _bert_whitespace(ch: str) -> bool:
    """BERT's whitespace: space, tab, new line, carriage return and the Unicode space separators (Zs)."""
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def whitespace_prefix(text: str, n_chars: int) -> str:
    """``text`` cut at its last BERT whitespace at or before character ``n_chars`` (``text`` itself when it
    is no longer than that or has no such whitespace)."""
    if len(text) <= n_chars:
        return text
    for cut in range(n_chars, 0, -1):
        if _bert_whitespace(text[cut]):
            return text[:cut]
    return text


def _find_export(model_dir: Path, folder: Path, quantize: bool) -> Path:
    """The export's path for the installed torch; without torch, the newest export of these weights with this exporter and opset."""
    try:
        return export_path(model_dir, folder, quantize)
    except ImportError:
        pass
    found = sorted(folder.glob(_export_name(model_dir, "*", quantize)), key=lambda p: p.stat().st_mtime)
    if not found:
        raise ImportError(
            f"no ONNX export of {model_dir} in {folder} and no torch to make one: pip install torch==2.13.0"
        )
    return found[-1]


class _Pipeline:  # the sentence-transformers forward on three tensors, for the exporter
    def __new__(cls, st):
        import torch

        class Pipeline(torch.nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def forward(self, input_ids, attention_mask, token_type_ids):
                feats = {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}
                return self.model(feats)["sentence_embedding"]

        return Pipeline(st).eval()


def _torch_vectors(st, texts: Sequence[str]) -> np.ndarray:
    return np.asarray(st.encode(list(texts), convert_to_numpy=True, batch_size=len(texts)), dtype=np.float32)


def _export(model_dir: Path, target: Path, quantize: bool) -> None:
    """Export the fp32 graph (and, for ``quantize``, its int8 copy), checked against torch, atomically."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ImportError(
            "exporting the ONNX graph needs torch and sentence-transformers: pip install torch==2.13.0 sentence-transformers"
        ) from None
    fp32 = export_path(model_dir, target.parent, quantize=False)
    if quantize:
        if not fp32.is_file():
            _export(model_dir, fp32, quantize=False)
        from onnxruntime.quantization import QuantType, quantize_dynamic

        _atomic_write(target, lambda tmp: quantize_dynamic(str(fp32), tmp, weight_type=QuantType.QInt8))
        return
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    st = SentenceTransformer(str(model_dir), device="cpu")  # the reference: torch as backend='torch' runs it
    st.max_seq_length = min(st.max_seq_length or 512, 512)
    traced = _eager_copy(model_dir, st)
    # a padded sample: the trace must keep the attention mask (an unpadded batch could let it drop out)
    sample = st.preprocess(["a short text", "a somewhat longer text with more word pieces in it, to pad the first"])
    args = tuple(sample[k] for k in _INPUTS)
    axes = {k: {0: "batch", 1: "sequence"} for k in _INPUTS} | {"sentence_embedding": {0: "batch"}}

    def write(tmp: str) -> None:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _Pipeline(traced),
                args,
                tmp,
                input_names=list(_INPUTS),
                output_names=["sentence_embedding"],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        _check_export(st, Path(tmp), model_dir)

    _atomic_write(target, write)


def _eager_copy(model_dir: Path, st):
    """The model with its attention as explicit products (``attn_implementation="eager"``) for the trace;
    ``st`` itself when the model does not take that option."""
    from sentence_transformers import SentenceTransformer

    try:
        eager = SentenceTransformer(str(model_dir), device="cpu", model_kwargs={"attn_implementation": "eager"})
    except (TypeError, ValueError):
        return st
    eager.max_seq_length = st.max_seq_length
    return eager


def _check_export(st, path: Path, model_dir: Path) -> None:
    """RuntimeError unless every probe vector of the graph in ``path`` is within cosine AGREEMENT of torch's,
    in one padded batch and one text at a time, at 64 and 256 word pieces."""
    enc = OnnxEncoder._on_file(model_dir, path)
    for length in (64, 256):
        st.max_seq_length = length
        ref = _torch_vectors(st, PROBE_TEXTS)
        for got in (enc.encode(PROBE_TEXTS, length), np.vstack([enc.encode([t], length) for t in PROBE_TEXTS])):
            cos = np.sum(ref * got, axis=1) / (np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1))
            if not np.all(cos >= AGREEMENT):
                raise RuntimeError(
                    f"the ONNX export of {model_dir} disagrees with torch (least cosine {cos.min():.7f} < {AGREEMENT}); "
                    "use backend='torch'"
                )
