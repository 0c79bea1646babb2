"""Arena-Bench v1 read into records: grades by the answer the judge quotes, the org prefix, the fallback."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blindspot.data.suites import resolve_data_dir
from blindspot.perspective import arena_bench, offloading

START, END = "[The Start of Assistant's Answer]", "[The End of Assistant's Answer]"


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _judgment(qid: str, model: str, answer: str, score) -> dict:
    prompt = f"[Question]\nq {qid}\n\n[The Start of Reference Answer]\nref\n[The End of Reference Answer]\n\n"
    return dict(question_id=qid, model=model, user_prompt=f"{prompt}{START}\n{answer}\n{END}", judgment="...",
                score=score)  # fmt: skip


@pytest.fixture
def folder(tmp_path) -> Path:
    """Four prompts, four models; grades filed under a prefix, under another name, quoting a stale answer, null."""
    root = tmp_path / "data" / arena_bench.ARENA_DIR
    qids = ["q1", "q2", "q3", "q4"]
    _write(
        root / "question.jsonl", [dict(question_id=q, category="arena-bench-v1", turns=[f"prompt {q}"]) for q in qids]
    )
    for m in ("alpha-7b", "beta", "gamma-13b", "delta"):
        _write(root / "model_answer" / f"{m}.jsonl",
               [dict(question_id=q, model_id=m, choices=[dict(index=0, turns=[f"{m} answers {q}"])]) for q in qids])  # fmt: skip
    _write(root / "model_judgment" / "alpha-7b.jsonl",
           [_judgment(q, "org/alpha-7b", f"alpha-7b answers {q}", 7) for q in qids])  # fmt: skip
    _write(root / "model_judgment" / "beta-alias.jsonl",
           [_judgment(q, "beta", f"beta answers {q}", 9) for q in qids])  # fmt: skip
    stale = [_judgment("q1", "gamma-13b", "an answer gamma no longer gives", 2)]
    stale += [_judgment(q, "gamma-13b", f"gamma-13b answers {q}", 5) for q in qids[1:3]]
    stale += [_judgment("q4", "gamma-13b", "gamma-13b answers q4", None)]
    _write(root / "model_judgment" / "gamma-13b.jsonl", stale)
    _write(root / "model_judgment" / "unknown-model.jsonl", [_judgment("q1", "epsilon", "x", 3)])
    return root


def test_grades_follow_the_quoted_answer_not_the_file_name(folder):
    d = arena_bench.arena_bench_data(folder.parent)
    assert not d.synthetic and d.models.index.tolist() == ["alpha-7b", "beta", "delta", "gamma-13b"]
    s = d.responses.set_index(["model_id", "query_id"]).score
    assert (s.loc["alpha-7b"] == 7).all()  # 'org/alpha-7b': the prefix is dropped
    assert (s.loc["beta"] == 9).all()  # filed as beta-alias.jsonl, quoting beta's answers
    assert np.isnan(s.loc[("gamma-13b", "q1")])  # the judge quoted another answer: no grade
    assert s.loc[("gamma-13b", "q2")] == 5 and np.isnan(s.loc[("gamma-13b", "q4")])  # null grade: NaN
    assert s.loc["delta"].isna().all()
    assert d.models.loc["gamma-13b", "n_graded"] == 2 and d.models.loc["delta", "judgment_file"] == ""
    assert d.graded_models == ["alpha-7b", "beta", "gamma-13b"]
    notes = " ".join(d.notes)
    assert "beta-alias.jsonl grades beta" in notes and "unknown-model.jsonl" in notes and "1 judgment rows" in notes
    assert set(d.responses.task_id) == {arena_bench.CATEGORY}


def test_a_prompt_subset_is_fixed_and_nested(folder):
    two = arena_bench.arena_bench_data(folder, n_prompts=2)
    three = arena_bench.arena_bench_data(folder, n_prompts=3)
    assert set(two.queries.query_id) < set(three.queries.query_id)
    assert len(two.responses) == 2 * 4 and (two.models.n_answers == 2).all()
    with pytest.raises(ValueError, match="n_prompts"):
        arena_bench.arena_bench_data(folder, n_prompts=0)


def test_broken_answer_files_are_named(folder):
    _write(folder / "model_answer" / "beta.jsonl",
           [dict(question_id="q1", model_id="beta", choices=[dict(index=0, turns=["a"])])])  # fmt: skip
    with pytest.raises(ValueError, match=r"beta.jsonl: answers 1 prompts, not the 4 questions"):
        arena_bench.arena_bench_data(folder)
    (folder / "model_answer" / "beta.jsonl").write_text("{not json\n")
    with pytest.raises(ValueError, match="beta.jsonl: line 1 is not JSON"):
        arena_bench.arena_bench_data(folder)


def test_without_the_folder_a_labelled_stand_in(tmp_path):
    d = arena_bench.arena_bench_data(tmp_path)
    assert d.synthetic and "synthetic" in d.describe().lower() and arena_bench.grade_table(d).synthetic
    with pytest.raises(FileNotFoundError, match="blindspot data fetch --suites arena_bench_v1"):
        arena_bench.arena_bench_data(tmp_path, fallback=False)


def test_offloading_keeps_models_graded_on_most_prompts(folder):
    d = arena_bench.arena_bench_data(folder)
    with pytest.raises(ValueError, match="only 2 model"):
        offloading.arena_offload_rows(d)  # gamma (2 of 4) and delta (0) fall below 95%
    rows, dropped = offloading.arena_offload_rows(arena_bench.synthetic_arena_bench())
    assert dropped == 0 and rows.score.notna().all() and rows.model_id.nunique() == 10


def _have_arena() -> bool:
    root = resolve_data_dir()
    return bool(root) and (Path(root) / arena_bench.ARENA_DIR / "question.jsonl").is_file()


@pytest.mark.skipif(not _have_arena(), reason="needs the Arena-Bench v1 data")
def test_the_real_folder():
    d = arena_bench.arena_bench_data()
    assert d.responses.shape[0] == 17 * 300 and len(d.queries) == 300
    assert len(d.graded_models) == 15 and "vicuna-7b-v1.5" not in d.graded_models
    assert d.models.loc["gpt-4-1106-preview", "judgment_file"] == "gpt-4-turbo.jsonl"
    assert d.models.loc["Mistral-7B-Instruct-v0.1", "n_graded"] == 298  # filed as 'mistralai/...'; two null grades
    assert d.models.loc["Llama-2-70b-chat", "n_graded"] < 150  # its answers were regenerated after the judging
    rows, dropped = offloading.arena_offload_rows(d)
    assert rows.model_id.nunique() == 13 and rows.query_id.nunique() + dropped == 300
