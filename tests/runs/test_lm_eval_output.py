"""naf_bench.runs.lm_eval_output: an lm-eval output folder's samples per task with their model and results file, and
a run's model named from lm-eval's model_args."""

import json

import pytest

from naf_bench.errors import DataError
from naf_bench.runs.lm_eval_output import model_name, read_output_folder


def test_each_task_file_is_read_with_its_results_and_line_numbers(tmp_path):
    folder = tmp_path / "org__tiny"
    folder.mkdir()
    results = {"config": {"model_args": "pretrained=org/tiny,dtype=float32"}}
    (folder / "results_2025-01-01T00.json").write_text(json.dumps(results))
    (folder / "samples_naf_bench_wfs_2025-01-01T00.jsonl").write_text('{"doc_id": 0}\n\n{"doc_id": 1}\n')
    (folder / "samples_naf_bench_cred_2025-01-01T00.jsonl").write_text('{"doc_id": 2}\n')
    read = list(read_output_folder(tmp_path))
    assert [(t.model, t.task, t.path.name) for t in read] == [
        ("org/tiny", "naf_bench_cred", "samples_naf_bench_cred_2025-01-01T00.jsonl"),
        ("org/tiny", "naf_bench_wfs", "samples_naf_bench_wfs_2025-01-01T00.jsonl"),
    ]
    assert read[1].samples == ((1, {"doc_id": 0}), (3, {"doc_id": 1}))
    assert read[1].results == results


def test_a_folder_without_samples_or_with_a_bad_line_is_refused_with_where(tmp_path):
    with pytest.raises(DataError, match=r"no samples_\*\.jsonl \(an lm-eval output folder was expected\)"):
        list(read_output_folder(tmp_path))
    (tmp_path / "samples_naf_bench_2025.jsonl").write_text('{"doc_id": 0}\nnot json\n')
    with pytest.raises(DataError, match=r"samples_naf_bench_2025\.jsonl:2: not a JSON line"):
        list(read_output_folder(tmp_path))


def test_the_model_is_named_by_its_gguf_file_hub_name_endpoint_or_local_folder(tmp_path):
    assert model_name("pretrained=org/tiny,gguf_file=tiny-q8.gguf") == "tiny-q8.gguf"
    assert model_name({"model": "served-model", "base_url": "http://localhost:8000/v1"}) == "served-model"
    assert model_name("org/tiny") == "org/tiny"
    assert model_name(f"pretrained={tmp_path / 'my-model'}") == f"{tmp_path}/my-model"  # not there: kept whole
    (tmp_path / "my-model").mkdir()
    assert model_name(f"pretrained={tmp_path / 'my-model'}") == "my-model"
    assert model_name({}) == "model"
