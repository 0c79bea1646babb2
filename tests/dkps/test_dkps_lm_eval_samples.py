"""Dkps.lm_eval_samples: lm-evaluation-harness ``--log_samples`` output read into records.

The fixture (``tests/fixtures/lm_eval/output``) was written by lm-eval 0.4.13 itself
(``make_fixture.py``). Each check compares the reader with an independent reading of the same
JSONL and JSON files done here with ``json`` alone, or with lm-eval's own aggregates in the
results files; the PKPS test fits on harness samples generated from the fixture's own lines with a
known answer.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dkps
from dkps import PKPS, lm_eval_samples
from dkps.lm_eval_samples import load_records

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "output"
SAMPLES = re.compile(r"^samples_(.+)_(\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
GOLD_CHOICE_TASKS = ("tiny_facts", "tiny_science", "tiny_calib")


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def runs() -> dict:
    """The fixture read here without dkps: per run (model from its results file, stamp), per task,
    the lines of its samples file, and the results file."""
    out: dict = {}
    for res in sorted(FIXTURE.rglob("results_*.json")):
        stamp = res.stem[len("results_") :]
        data = json.loads(res.read_text(encoding="utf-8"))
        model = data["config"]["model_args"]["pretrained"]
        tasks = {}
        for f in res.parent.glob(f"samples_*_{stamp}.jsonl"):
            tasks[SAMPLES.match(f.name).group(1)] = _lines(f)
        out[(model, stamp)] = {"results": data, "tasks": tasks}
    return out


@pytest.fixture(scope="module")
def separate() -> pd.DataFrame:
    return load_records(FIXTURE, runs="separate")


def _one_line(exc: pytest.ExceptionInfo) -> str:
    msg = str(exc.value)
    assert "\n" not in msg, msg
    return msg


# ------------------------------------------------------------------------------------ the fixture
def test_fixture_is_what_lm_eval_writes(runs):
    """Five runs of four models, each with the four tasks' samples; one model run twice."""
    assert len(runs) == 5
    models = [m for m, _ in runs]
    assert sorted(set(models)) == ["acme/tiny-alpha", "acme/tiny-beta", "omega/omega-7b", "zeta-lab/zeta-mini"]
    assert models.count("acme/tiny-alpha") == 2
    for run in runs.values():
        assert set(run["tasks"]) == {"tiny_arith", "tiny_calib", "tiny_facts", "tiny_science"}
        assert run["results"]["lm_eval_version"] == "0.4.13"
        assert run["results"]["group_subtasks"]["tiny_suite"] == ["tiny_facts", "tiny_science"]
    assert sum(f.stat().st_size for f in FIXTURE.rglob("*") if f.is_file()) < 1_000_000


def test_rows_and_fields_match_an_independent_reading(runs, separate):
    """Every (run, task, document) once; ids, prompts, targets and generations as in the JSONL."""
    expected = {}
    for (model, stamp), run in runs.items():
        for task, lines in run["tasks"].items():
            for rec in lines:
                expected[(f"{model}@{stamp}", task, str(rec["doc_id"]))] = rec
    got = {(r.model_id, r.task_id, r.query_id): r for r in separate.itertuples()}
    assert set(got) == set(expected)
    assert len(separate) == len(expected) == 5 * (8 + 8 + 6 + 8)
    for key, row in got.items():
        rec = expected[key]
        assert row.query == rec["arguments"]["gen_args_0"]["arg_0"]
        assert row.target == rec["target"]
        assert row.run == key[0].split("@")[1]
        if key[1] == "tiny_arith":
            assert row.response == rec["resps"][0][0]  # the model's own text, before the filter
            assert row.filter == "strict-match"
    assert list(separate.columns) == lm_eval_samples.COLUMNS


def test_scores_average_to_the_harness_aggregates(runs, separate):
    """The default metric per task (acc_norm, acc, exact_match at strict-match) and its rows' mean
    equal lm-eval's own aggregate in the run's results file."""
    means = separate.groupby(["model_id", "task_id"]).score.mean()
    metric = separate.groupby("task_id").metric.unique()
    assert {t: list(m) for t, m in metric.items()} == {
        "tiny_arith": ["exact_match"],
        "tiny_calib": ["acc"],  # acc before brier_score, though the task lists brier_score first
        "tiny_facts": ["acc_norm"],
        "tiny_science": ["acc_norm"],
    }
    keys = {"tiny_arith": "exact_match,strict-match", "tiny_calib": "acc,none"}
    for (model, stamp), run in runs.items():
        for task in run["tasks"]:
            key = keys.get(task, "acc_norm,none")
            assert means[(f"{model}@{stamp}", task)] == pytest.approx(run["results"]["results"][task][key], abs=1e-12)
    assert separate.higher_is_better.eq(True).all()
    suites = separate.groupby("task_id").suite.unique().map(list).to_dict()
    assert suites == {
        "tiny_arith": ["tiny_arith"],
        "tiny_calib": ["tiny_calib"],
        "tiny_facts": ["tiny_suite"],
        "tiny_science": ["tiny_suite"],
    }


def test_a_choice_tasks_response_is_the_choice_its_metric_picks(runs, separate):
    """Score 1 exactly when the response is the gold choice's text, for acc_norm and for acc."""
    by_acc = load_records(FIXTURE, runs="separate", tasks=list(GOLD_CHOICE_TASKS), metric="acc")
    for frame in (separate, by_acc):
        rows = frame[frame.task_id.isin(GOLD_CHOICE_TASKS)]
        docs = {}
        for (model, stamp), run in runs.items():
            for task in GOLD_CHOICE_TASKS:
                for rec in run["tasks"][task]:
                    docs[(f"{model}@{stamp}", task, str(rec["doc_id"]))] = rec["doc"]
        for r in rows.itertuples():
            doc = docs[(r.model_id, r.task_id, r.query_id)]
            assert r.response in doc["choices"]
            assert r.score == float(r.response == doc["choices"][doc["answer"]])
    # acc and acc_norm pick different choices somewhere in the fixture: the rule is not one argmax
    by = ["model_id", "task_id", "query_id"]
    acc = by_acc.set_index(by)
    norm = separate[separate.task_id.isin(("tiny_facts", "tiny_science"))].set_index(by)
    assert (acc.loc[norm.index, "response"] != norm.response).any()


def test_brier_score_is_decomposed_into_per_sample_scores(runs):
    """Brier_score, logged as (gold, probabilities), averages to the harness's own value; it is
    lower-is-better, said in higher_is_better."""
    recs = load_records(FIXTURE, runs="separate", tasks="tiny_calib", metric={"tiny_calib": "brier_score"})
    assert set(recs.metric) == {"brier_score"} and set(recs.higher_is_better) == {False}
    for (model, stamp), run in runs.items():
        mine = recs[recs.model_id == f"{model}@{stamp}"].score.mean()
        assert mine == pytest.approx(run["results"]["results"]["tiny_calib"]["brier_score,none"], abs=1e-7)


def test_filter_and_filtered_responses(runs):
    recs = load_records(FIXTURE, runs="separate", tasks=["tiny_arith"], filter="flexible-extract", response="filtered")
    for (model, stamp), run in runs.items():
        mine = recs[recs.model_id == f"{model}@{stamp}"]
        assert mine.score.mean() == pytest.approx(
            run["results"]["results"]["tiny_arith"]["exact_match,flexible-extract"]
        )
        lines = {str(r["doc_id"]): r for r in run["tasks"]["tiny_arith"] if r["filter"] == "flexible-extract"}
        assert all(r.response == lines[r.query_id]["filtered_resps"][0] for r in mine.itertuples())


def test_repeated_runs_keep_the_newest(runs):
    with pytest.warns(UserWarning, match=r"4 samples file\(s\) of 1 older run\(s\) of 1 model\(s\) left out"):
        recs = load_records(FIXTURE)
    assert sorted(recs.model_id.unique()) == [
        "acme/tiny-alpha",
        "acme/tiny-beta",
        "omega/omega-7b",
        "zeta-lab/zeta-mini",
    ]
    newest = max(stamp for model, stamp in runs if model == "acme/tiny-alpha")
    assert set(recs.run[recs.model_id == "acme/tiny-alpha"]) == {newest}
    assert len(recs) == 4 * 30


def test_tasks_groups_query_text_and_cap():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        suite = load_records(FIXTURE, tasks="tiny_suite")  # a group stands for its subtasks
        assert set(suite.task_id) == {"tiny_facts", "tiny_science"}
        docs = load_records(FIXTURE, tasks=["tiny_facts"], query="doc")
        assert all(
            json.loads(q)["question"] in p for q, p in zip(docs["query"], suite["query"][suite.task_id == "tiny_facts"])
        )
        capped = load_records(FIXTURE, max_queries_per_cell=3)
    assert capped.groupby(["model_id", "task_id"]).size().eq(3).all()
    shared = capped.groupby("task_id").apply(lambda g: g.groupby("model_id").query_id.apply(frozenset).nunique())
    assert shared.eq(1).all()  # one subset shared by every model


def test_exported_from_dkps():
    assert dkps.lm_eval_samples is lm_eval_samples and "lm_eval_samples" in dkps.__all__
    doc = load_records.__doc__
    for section in ("Parameters", "Returns", "Raises", "References", "Examples"):
        assert f"\n    {section}\n    ---" in doc


# ------------------------------------------------------------------------------------ PKPS
def _write_run(root: Path, model: str, stamp: str, task: str, lines: list[dict], output_type: str) -> None:
    """One run's samples file and results file, written as lm-eval's EvaluationTracker writes them."""
    folder = root / model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"samples_{task}_{stamp}.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in lines)
    res = folder / f"results_{stamp}.json"
    data = json.loads(res.read_text()) if res.exists() else {"results": {}, "configs": {}, "higher_is_better": {}}
    data["config"] = {"model": "seeded", "model_args": {"pretrained": model}}
    data["model_name"] = model
    data["configs"][task] = {"task": task, "output_type": output_type, "target_delimiter": " "}
    res.write_text(json.dumps(data))


def _generated_store(root: Path, n_docs: int = 10) -> dict[str, float]:
    """Harness samples of two behaviours, four models each, on a generation and a choice task,
    made from the fixture's own lines: family 'good' answers right in one wording, 'poor' wrong in
    another; each model adds its own word to a third of its answers. Returns each model's score."""
    beta = next(FIXTURE.glob("acme__tiny-beta/samples_tiny_arith_*.jsonl"))
    gen_template = _lines(beta)[0]
    mc_template = _lines(next(FIXTURE.glob("acme__tiny-beta/samples_tiny_facts_*.jsonl")))[0]
    truth = {}
    pairs = np.random.default_rng(0).integers(1, 50, size=(n_docs, 2)).tolist()  # the documents
    for fam, good in (("good", True), ("poor", False)):
        for i in range(4):
            model = f"{fam}/m{i}"
            truth[model] = 1.0 if good else 0.0
            gen, mc = [], []
            for d in range(n_docs):
                a, b = pairs[d]
                answer = a + b if good else a + b + 1
                extra = f" note{i}" if d % 3 == i % 3 else ""
                text = (
                    f" Adding {a} and {b} carefully gives {answer}.{extra}\n#### {answer}"
                    if good
                    else f" hmm maybe roughly {answer} or so{extra}"
                )
                rec = copy.deepcopy(gen_template)
                rec.update(doc_id=d, doc={"question": f"What is {a} + {b}?", "answer": str(a + b)}, target=str(a + b))
                rec["arguments"]["gen_args_0"]["arg_0"] = f"Question: What is {a} + {b}?\nAnswer:"
                rec.update(resps=[[text]], filtered_resps=[str(answer)], exact_match=float(good))
                gen.append(rec)
                choices = [f"city{d}a", f"city{d}b", f"city{d}c{extra}"]
                lls = [-1.0, -5.0, -6.0] if good else [-6.0, -5.0, -1.0]
                rec = copy.deepcopy(mc_template)
                rec.update(doc_id=d, doc={"question": f"q{d}", "choices": choices, "answer": 0}, target="0")
                rec["arguments"] = {
                    f"gen_args_{j}": {"arg_0": f"Question: q{d}\nAnswer:", "arg_1": " " + c}
                    for j, c in enumerate(choices)
                }
                rec["resps"] = [[[str(x), "False"]] for x in lls]
                rec["filtered_resps"] = [[str(x), "False"] for x in lls]
                rec.update(acc=float(good), acc_norm=float(good))
                mc.append(rec)
            _write_run(root, model, "2026-01-01T00-00-00.000001", "gen", gen, "generate_until")
            _write_run(root, model, "2026-01-01T00-00-00.000001", "mc", mc, "multiple_choice")
    return truth


def test_pkps_fits_and_predicts_on_generated_harness_samples(tmp_path):
    """Known answer: a held-out model's three nearest neighbours are its own family (its wording),
    whose scores are all equal, so its predicted score is its family's score exactly; held out by
    family, it gets the other family's."""
    truth = _generated_store(tmp_path)
    recs = load_records(tmp_path)
    assert len(recs) == 8 * 2 * 10 and set(recs.suite) == {"gen", "mc"}
    est = PKPS(embedding_kwargs=dict(provider="hash", model="hash-64")).fit(recs)
    assert sorted(est.model_names_) == sorted(truth) and sorted(est.task_names_) == ["gen", "mc"]
    cells = recs[["model_id", "task_id"]].drop_duplicates()
    pred = est.predict(cells=cells, k=3, as_frame=True)
    assert len(pred) == 16
    np.testing.assert_allclose(pred.score_hat, pred.model_id.map(truth), atol=1e-9)
    other = est.predict(cells=cells, k=3, holdout="family", as_frame=True)
    np.testing.assert_allclose(other.score_hat, 1.0 - other.model_id.map(truth), atol=1e-9)


def test_pkps_on_the_real_fixture_predicts_within_the_other_models_scores():
    """Invariant of distance-weighted kNN: a held-out cell's prediction is a convex combination of
    the other models' cell scores on that task."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        recs = load_records(FIXTURE)
        est = PKPS(embedding_kwargs=dict(provider="hash", model="hash-64")).fit(recs)
    pred = est.predict(cells=recs[["model_id", "task_id"]].drop_duplicates(), k=2, as_frame=True)
    cell = recs.groupby(["model_id", "task_id"]).score.mean()
    assert len(pred) == 16 and pred.score_hat.notna().all()
    for r in pred.itertuples():
        others = cell.xs(r.task_id, level="task_id").drop(r.model_id)
        assert others.min() - 1e-12 <= r.score_hat <= others.max() + 1e-12


# ------------------------------------------------------------------------------------ refusals
@pytest.fixture()
def copy_of_fixture(tmp_path) -> Path:
    dst = tmp_path / "out"
    shutil.copytree(FIXTURE, dst)
    return dst


def _edit_lines(path: Path, fn) -> None:
    lines = _lines(path)
    path.write_text("".join(json.dumps(fn(i, r)) + "\n" for i, r in enumerate(lines)))


def test_refuses_paths_without_samples(tmp_path):
    with pytest.raises(ValueError, match="neither a file nor a directory") as e:
        load_records(tmp_path / "missing")
    _one_line(e)
    with pytest.raises(ValueError, match=r"no lm-evaluation-harness samples files .* --log_samples") as e:
        load_records(tmp_path)
    _one_line(e)
    only_results = tmp_path / "m"
    only_results.mkdir()
    shutil.copy(next(FIXTURE.glob("acme__tiny-beta/results_*.json")), only_results)
    with pytest.raises(ValueError, match=r"1 lm-eval results file\(s\) but no samples.*without --log_samples") as e:
        load_records(tmp_path)
    _one_line(e)
    other = tmp_path / "notes.jsonl"
    other.write_text("{}\n")
    with pytest.raises(ValueError, match=r"is not an lm-evaluation-harness samples file") as e:
        load_records(other)
    _one_line(e)
    with pytest.raises(ValueError, match="paths must be"):
        load_records([])


def test_refuses_lines_that_are_not_samples(copy_of_fixture):
    f = next(copy_of_fixture.glob("acme__tiny-beta/samples_tiny_facts_*.jsonl"))
    text = f.read_text().splitlines()
    f.write_text("\n".join(text[:2] + ["{not json"] + text[2:]) + "\n")
    with pytest.raises(ValueError, match=r"samples_tiny_facts_.*, line 3: not valid JSON") as e:
        load_records(f)
    _one_line(e)
    f.write_text("\n".join(text[:1] + ['{"doc_id": 1, "doc": {}}']) + "\n")
    with pytest.raises(ValueError, match=r"line 2: not an lm-evaluation-harness sample \(no 'arguments', 'resps'") as e:
        load_records(f)
    _one_line(e)
    f.write_text("")
    with pytest.raises(ValueError, match="holds no samples"):
        load_records(f)


@pytest.mark.parametrize(
    ("output_type", "with_results"),
    [
        ("loglikelihood", True),
        ("loglikelihood", False),
        ("loglikelihood_rolling", True),
        ("loglikelihood_rolling", False),
    ],
)
def test_refuses_loglikelihood_tasks_by_name(tmp_path, output_type, with_results):
    """A log-likelihood task holds the likelihood of the reference, not a response of the model;
    it is recognised from the results file's output_type, or from the sample's shape without it."""
    rec = {"doc_id": 0, "doc": {"text": "the end"}, "target": " end", "filter": "none", "metrics": ["acc"], "acc": 1.0}
    if output_type == "loglikelihood":
        rec.update(
            arguments={"gen_args_0": {"arg_0": "the", "arg_1": " end"}},
            resps=[[["-1.5", "True"]]],
            filtered_resps=[["-1.5", "True"]],
        )
    else:
        rec.update(
            arguments={"gen_args_0": {"arg_0": "the end"}},
            resps=[["-7.5"]],
            filtered_resps=["-7.5"],
            metrics=["word_perplexity"],
            word_perplexity=["-7.5", 2],
        )
        rec.pop("acc")
    if with_results:
        _write_run(tmp_path, "org/lm", "2026-01-01T00-00-00.000001", "lambada_tiny", [rec], output_type)
    else:
        (tmp_path / "org__lm").mkdir()
        (tmp_path / "org__lm" / "samples_lambada_tiny_2026-01-01T00-00-00.000001.jsonl").write_text(
            json.dumps(rec) + "\n"
        )
    with pytest.raises(
        ValueError, match=rf"task 'lambada_tiny' .* is a {output_type} task: .*leave it out with tasks="
    ) as e:
        load_records(tmp_path)
    _one_line(e)


def test_refuses_metrics_and_filters_a_task_does_not_log(tmp_path):
    with pytest.raises(
        ValueError, match=r"task 'tiny_arith' has no metric 'acc' in its samples \(it has 'exact_match'\)"
    ) as e:
        load_records(FIXTURE, runs="separate", metric="acc")
    _one_line(e)
    with pytest.raises(ValueError, match=r"task 'tiny_facts' has no filter 'strict-match'"):
        load_records(FIXTURE, runs="separate", tasks="tiny_facts", filter="strict-match")
    with pytest.raises(ValueError, match=r"tasks: 'mmlu' has no samples here \(tasks with samples: tiny_arith, "):
        load_records(FIXTURE, tasks=["mmlu"])
    rec = _lines(next(FIXTURE.glob("acme__tiny-beta/samples_tiny_facts_*.jsonl")))[0]
    rec.update(metrics=["f1"], f1=[0, 2])
    rec.pop("acc"), rec.pop("acc_norm")
    _write_run(tmp_path, "org/lm", "2026-01-01T00-00-00.000001", "tiny_f1", [rec], "multiple_choice")
    with pytest.raises(ValueError, match=r"no per-sample score among its metrics \('f1'\)") as e:
        load_records(tmp_path)
    _one_line(e)
    with pytest.raises(ValueError, match=r"metric 'f1' is corpus-level \(a sample holds \[0, 2\]"):
        load_records(tmp_path, metric="f1")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(runs="all"), "runs must be one of 'newest', 'separate'"),
        (dict(query="text"), "query must be one of 'prompt', 'doc'"),
        (dict(response="both"), "response must be one of 'raw', 'filtered'"),
        (dict(max_queries_per_cell=0), "max_queries_per_cell must be None or an int >= 1"),
        (dict(max_queries_per_cell=True), "max_queries_per_cell must be None or an int >= 1"),
        (dict(metric=["acc"]), "metric must be a name or a mapping"),
    ],
)
def test_refuses_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_records(FIXTURE, **kwargs)


def test_refuses_one_document_with_two_prompts_or_two_documents(copy_of_fixture):
    """Runs made with different few-shot examples (or chat templates) give one document two
    prompts: refused, and query='doc' reads them; different data under one doc_id is refused."""
    f = next(copy_of_fixture.glob("zeta-lab__zeta-mini/samples_tiny_facts_*.jsonl"))

    def fewshot(i, r):
        r["arguments"] = {
            k: dict(v, arg_0="Question: an example\nAnswer: x\n\n" + v["arg_0"]) for k, v in r["arguments"].items()
        }
        return r

    _edit_lines(f, fewshot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(
            ValueError, match=r"task 'tiny_facts', doc_id 0: the prompt differs between runs .*query='doc'"
        ) as e:
            load_records(copy_of_fixture)
        _one_line(e)
        recs = load_records(copy_of_fixture, query="doc")
    assert recs[recs.task_id == "tiny_facts"].groupby("query_id")["query"].nunique().eq(1).all()

    def other_data(i, r):
        return dict(r, doc_hash="0" * 64) if i == 2 else r

    _edit_lines(f, other_data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(
            ValueError, match=r"task 'tiny_facts', doc_id 2: the document \(doc_hash\) differs .*different data"
        ):
            load_records(copy_of_fixture, query="doc")


def test_models_are_named_by_model_args_then_model_name_then_folder(tmp_path):
    src = next(FIXTURE.glob("acme__tiny-beta/samples_tiny_arith_*.jsonl"))
    stamp = SAMPLES.match(src.name).group(2)
    folder = tmp_path / "renamed"
    folder.mkdir()
    shutil.copy(src, folder)
    assert set(load_records(folder).model_id) == {"renamed"}  # no results file: the folder
    res = json.loads(next(FIXTURE.glob(f"acme__tiny-beta/results_{stamp}.json")).read_text())
    (folder / f"results_{stamp}.json").write_text(json.dumps(res))
    assert set(load_records(folder).model_id) == {"acme/tiny-beta"}
    res["config"]["model_args"] = "dtype=float16"  # a string without a model key: model_name
    res["model_name"] = "named/by-tracker"
    (folder / f"results_{stamp}.json").write_text(json.dumps(res))
    assert set(load_records(folder).model_id) == {"named/by-tracker"}
    res["config"]["model_args"] = "pretrained=org/from-args,peft=org/adapter"  # peft first, as lm-eval
    (folder / f"results_{stamp}.json").write_text(json.dumps(res))
    assert set(load_records(folder).model_id) == {"org/adapter"}


def test_samples_grouped_per_run_are_read_from_every_folder(tmp_path):
    """Two output folders holding the same model's two runs: one model, and of the four runs the
    newest (ties: the later path) kept for every task."""
    for name in ("a", "b"):
        shutil.copytree(FIXTURE / "acme__tiny-alpha", tmp_path / name / "acme__tiny-alpha")
    with pytest.warns(UserWarning, match=r"12 samples file\(s\) of 3 older run\(s\) of 1 model\(s\)"):
        recs = load_records([tmp_path / "a", tmp_path / "b"])
    assert set(recs.model_id) == {"acme/tiny-alpha"}
    per_key = defaultdict(set)
    for r in recs.itertuples():
        per_key[(r.task_id, r.query_id)].add(r.run)
    assert all(len(v) == 1 for v in per_key.values())
    assert {Path(p).parts[-3] for p in recs.source_path} == {"b"}


def test_importing_dkps_loads_no_heavy_or_blindspot_module():
    """The reader adds nothing heavy to ``import dkps``, and dkps stays apart from blindspot."""
    heavy = ("torch", "transformers", "sentence_transformers", "onnxruntime", "dask", "distributed", "lm_eval")
    code = (
        "import sys, dkps.lm_eval_samples; "
        f"print(','.join(m for m in {heavy + ('datasets', 'blindspot')!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


# ----------------------------------------------------------------------------- one rule, two readers
# blindspot's reader of harness results (blindspot.data.lm_eval_results) and this reader of its samples
# pick a task's metric, its filter and the model's name by the same rules; the floors forbid either
# importing the other (blindspot.data imports no dkps, dkps no blindspot), so these tests hold them
# together: each fails when one reader's rule drifts from the other's.


def test_both_lm_eval_readers_share_the_preference_orders():
    from blindspot.data import lm_eval_results

    assert lm_eval_samples.METRIC_PREFERENCE == lm_eval_results.METRIC_PREFERENCE
    assert lm_eval_samples.FILTER_PREFERENCE == lm_eval_results.FILTER_PREFERENCE
    assert lm_eval_samples.MODEL_KEYS == lm_eval_results.MODEL_KEYS


@pytest.mark.parametrize("seed", range(5))
def test_both_lm_eval_readers_pick_the_same_metric_and_filter(seed):
    """On seeded draws of metric and filter names (preferred ones, others, and none preferred), the
    results reader's ``"metric,filter"`` is the samples reader's metric and filter."""
    from blindspot.data import lm_eval_results

    rng = np.random.default_rng(seed)
    metric_pool = list(lm_eval_samples.METRIC_PREFERENCE) + ["brier_score", "zeta", "alpha", "ter"]
    filter_pool = list(lm_eval_samples.FILTER_PREFERENCE) + ["flexible-extract", "get-answer", "a-first"]
    for _ in range(200):
        metrics = list(rng.choice(metric_pool, size=int(rng.integers(1, 6)), replace=False))
        filters = list(rng.choice(filter_pool, size=int(rng.integers(1, 4)), replace=False))
        keys = [f"{m},{f}" for m in metrics for f in filters]
        metric, flt = lm_eval_results.primary_metric(keys).split(",", 1)
        assert metric == lm_eval_samples._pick("metric", "t", None, metrics, lm_eval_samples.METRIC_PREFERENCE)
        assert flt == lm_eval_samples._pick("filter", "t", None, filters, lm_eval_samples.FILTER_PREFERENCE)


@pytest.mark.parametrize(
    "run",
    [
        {"config": {"model_args": "pretrained=org/a,dtype=float16"}, "model_name": "org/named"},
        {"config": {"model_args": "pretrained=org/a,peft=org/adapter"}},
        {"config": {"model_args": "dtype=float16, engine = gpt-x "}},
        {"config": {"model_args": {"model": "org/dict", "path": "/models/p"}}, "model_name": "org/named"},
        {"config": {"model_args": {"pretrained": "", "delta": "org/delta"}}},
        {"config": {"model_args": "dtype=float16"}, "model_name": " org/named "},
        {"config": {"model_args": None}, "model_name": "  "},
        {"config": "not a mapping"},
        {},
    ],
)
def test_both_lm_eval_readers_name_the_model_alike(run):
    """``config.model_args`` by the harness's keys, else ``model_name``, else the folder: the same name from both."""
    from blindspot.data import lm_eval_results

    path = Path("out") / "org__folder" / "results_2026-01-01T00-00-00.json"
    sf = lm_eval_samples._SamplesFile(path.with_name("samples_t_2026-01-01T00-00-00.jsonl"), "t", "x", results=run)
    assert lm_eval_samples._model_of(sf) == lm_eval_results.model_of(run, path)


@pytest.mark.parametrize("name", ["org/m0", "ORG/M0/", " org/m0 ", "Org/M0//", "x"])
def test_both_lm_eval_readers_key_a_model_alike(name):
    """One identity rule in both readers (dkps may not import blindspot's)."""
    from blindspot.data.identity import model_key

    assert lm_eval_samples.model_key(name) == model_key(name)


# ------------------------------------------------------------------------------------ hostile sample files
def _copy(tmp_path: Path) -> Path:
    out = tmp_path / "output"
    shutil.copytree(FIXTURE, out)
    return out


def _rewrite(path: Path, change) -> None:
    lines = _lines(path)
    change(lines)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def test_a_null_first_metric_does_not_switch_the_models_metric(tmp_path):
    out = _copy(tmp_path)
    f = next((out / "omega__omega-7b").glob("samples_tiny_facts_*.jsonl"))
    _rewrite(f, lambda ls: ls[0].update(acc_norm=None))
    with pytest.warns(UserWarning, match="no 'acc_norm' \\(null"):
        df = load_records(out)
    facts = df[df.task_id == "tiny_facts"]
    assert set(facts.metric) == {"acc_norm"}  # omega's switched to 'acc' before, silently
    assert len(facts[facts.model_id == "omega/omega-7b"]) == len(_lines(f)) - 1


def test_a_repeated_document_with_another_score_is_one_line(tmp_path):
    out = _copy(tmp_path)
    f = next((out / "omega__omega-7b").glob("samples_tiny_facts_*.jsonl"))

    def repeat(ls):
        again = copy.deepcopy(ls[0])
        again["acc_norm"] = 1.0 - again["acc_norm"]
        ls.append(again)

    _rewrite(f, repeat)
    with pytest.raises(ValueError) as exc:
        load_records(out)
    msg = _one_line(exc)
    assert f.name in msg and "document 0" in msg and "mixes runs" in msg


def test_a_samples_file_without_a_timestamp_is_read_with_a_warning(tmp_path):
    out = _copy(tmp_path)
    f = next((out / "omega__omega-7b").glob("samples_tiny_facts_*.jsonl"))
    f.rename(f.with_name("samples_tiny_facts.jsonl"))
    with pytest.warns(UserWarning, match="without the run's timestamp"):
        df = load_records(out)
    facts = df[(df.task_id == "tiny_facts") & (df.model_id == "omega/omega-7b")]
    assert len(facts) == len(_lines(f.with_name("samples_tiny_facts.jsonl")))  # skipped silently before


def test_a_non_utf8_byte_names_the_file(tmp_path):
    out = _copy(tmp_path)
    f = next((out / "omega__omega-7b").glob("samples_tiny_facts_*.jsonl"))
    f.write_bytes(f.read_bytes().replace(b'"target"', b'"t\xffrget"', 1))
    with pytest.raises(ValueError) as exc:
        load_records(out)
    msg = _one_line(exc)
    assert f.name in msg and "not UTF-8" in msg


def test_a_run_without_its_results_file_is_the_same_model(tmp_path):
    """Acme/tiny-alpha was run twice; without the first run's results file, that run can only be named by its
    folder, 'acme__tiny-alpha', and appeared as a second model."""
    out = _copy(tmp_path)
    sorted((out / "acme__tiny-alpha").glob("results_*.json"))[0].unlink()
    with pytest.warns(UserWarning, match="older run"):
        df = load_records(out)
    assert sorted(set(df.model_id)) == ["acme/tiny-alpha", "acme/tiny-beta", "omega/omega-7b", "zeta-lab/zeta-mini"]
