"""naf_bench.integrations.tasks: the lm-eval task files read as plain specs (generative tasks only, include chains
merged), the prompt each task sends, and its rows or per-program documents; all without inspect_ai or lighteval."""

import subprocess
import sys

import pytest

from naf_bench.errors import ConfigError
from naf_bench.integrations.tasks import PROMPT, TaskSpec, prompt_text, task_documents, task_rows, task_spec, task_specs


def test_a_task_file_is_read_with_its_template_merged_in():
    assert task_spec("naf_bench_wfs44_verify") == TaskSpec(
        name="naf_bench_wfs44_verify",
        config="wfs44",
        split="test",
        conditions=("wfs",),
        prompt="utils.verify_prompt",
        reader="utils.strict_letters",
        results="utils.process_results",
        max_tokens=2048,
        temperature=0.0,
        stop=(),
    )
    joint = task_spec("naf_bench_joint_prompt")
    assert (joint.conditions, joint.prompt, joint.reader, joint.per_program) == (
        None,
        "utils.joint_prompt",
        "none",
        True,
    )
    assert task_spec("naf_bench_joint").per_program is False  # its ProgramTask sends one prompt per row


def test_only_generative_tasks_are_specs_and_an_unknown_name_lists_them():
    names = list(task_specs())
    assert names == sorted(names) and "naf_bench_wfs" in names
    assert not [name for name in names if name.startswith("naf_bench_mc")]  # log-probability tasks stay lm-eval's
    assert "naf_bench" not in names and "naf_bench_hidden" not in names  # groups
    with pytest.raises(ConfigError, match=r"no generative naf-bench task 'naf_bench_mc'; the tasks are naf_bench_"):
        task_spec("naf_bench_mc")


def test_a_single_reading_task_sends_each_rows_own_prompt_and_reads_only_its_reading():
    spec = task_spec("naf_bench_wfs")
    rows = task_rows(spec)
    assert (len(rows), set(rows["condition"])) == (120, {"wfs"})
    assert spec.prompt == PROMPT and prompt_text(spec, rows[0]) == rows[0]["prompt"]
    with pytest.raises(ConfigError, match="config 'main' has no split 'train'; it has test"):
        task_rows(spec, split="train")


def test_the_verify_task_numbers_the_rules_and_asks_for_three_steps():
    spec = task_spec("naf_bench_wfs44_verify")
    row = task_rows(spec)[0]
    text = prompt_text(spec, row)
    assert text.startswith(row["prompt"].split("Rules:")[0] + "Rules:\n1. ")
    assert "STEP 1 - State the exact semantics" in text and text.endswith("'ANSWER: X' where X is A, B, or C.")


def test_the_joint_prompt_task_has_one_document_per_program_asking_every_reading():
    spec = task_spec("naf_bench_joint_prompt")
    documents = task_documents(spec)
    assert len(documents) == 120
    assert [row["condition"] for row in documents[0]["rows"]] == ["closed_world", "cred", "skept", "wfs"]
    assert {row["program_id"] for row in documents[0]["rows"]} == {documents[0]["program_id"]}
    text = prompt_text(spec, documents[0])
    assert text.startswith("Answer the question below under each of the following readings of 'not'")
    assert text.endswith(
        "'closed_world ANSWER: X', 'cred ANSWER: X', 'skept ANSWER: X', 'wfs ANSWER: X', where each X is A, B, or C."
    )


def test_reading_the_specs_imports_no_harness():
    code = (
        "import sys; from naf_bench.integrations.tasks import task_specs; task_specs(); "
        "print(sorted(m for m in ('inspect_ai', 'lighteval', 'lm_eval') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "[]\n"
