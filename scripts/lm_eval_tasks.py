"""Write the lm-eval task files that depend on the readings table: one task per named reading on ``main`` and on
``hard``, and the two JOINT tasks (one prompt per reading, and the JOINT prompt that asks every reading at once,
as the stream trains on it), whose static ``metric_list`` names every reading's accuracy.

    python scripts/lm_eval_tasks.py            # rewrite them in lm_eval_tasks/naf_bench
    python scripts/lm_eval_tasks.py --check    # exit 1, naming the files, if they differ from the table (CI)
    python scripts/lm_eval_tasks.py --out DIR  # write them elsewhere

lm-eval reads ``metric_list`` before any document, so the list is written here from the table rather than
by a task hook.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from naf_bench.readings import READINGS, joint_conditions

TASKS = Path(__file__).resolve().parent.parent / "lm_eval_tasks" / "naf_bench"
HEADER = "# written by scripts/lm_eval_tasks.py from naf_bench.readings; edit the table, then run it\n"


def _metric(name: str) -> str:
    return f"  - metric: {name}\n    aggregation: mean\n    higher_is_better: true\n"


def task_files() -> dict[str, str]:
    """File name -> text of every reading-specific task file."""
    conditions = [reading.name for reading in READINGS.named()]
    files = {}
    for condition in conditions:
        files[f"naf_bench_{condition}.yaml"] = (
            f"{HEADER}include: _template_yaml\ntask: naf_bench_{condition}\n"
            f"dataset_kwargs: {{conditions: [{condition}]}}\n"
        )
        files[f"naf_bench_hard_{condition}.yaml"] = (
            f"{HEADER}include: naf_bench_{condition}.yaml\ntask: naf_bench_hard_{condition}\ndataset_name: hard\n"
        )
    metrics = "".join(_metric(name) for name in ("joint", "acc", "coverage", *(f"acc_{c}" for c in conditions)))
    files["naf_bench_joint.yaml"] = (
        f"{HEADER}include: _template_yaml\ntask: naf_bench_joint\nclass: !function utils.ProgramTask\n"
        'doc_to_target: "{{program_id}}"\nprocess_results: !function utils.process_program\n'
        f"metric_list:\n{metrics}"
        "dataset_kwargs:\n  columns: [id, program_id, family, condition, gold, prompt]\n  by_program: true\n"
    )
    # the JOINT prompt asks the JOINT readings alone
    asked = "".join(_metric(name) for name in ("joint", "acc", "coverage", *(f"acc_{c}" for c in joint_conditions())))
    files["naf_bench_joint_prompt.yaml"] = (
        f"{HEADER}include: _template_yaml\ntask: naf_bench_joint_prompt\ndoc_to_text: !function utils.joint_prompt\n"
        'doc_to_target: "{{program_id}}"\nprocess_results: !function utils.process_joint_prompt\n'
        "filter_list:  # the JOINT reader reads the whole response, one line per reading\n"
        "  - name: none\n    filter:\n      - function: take_first\n"
        f"metric_list:\n{asked}"
        "dataset_kwargs:\n  columns: [id, program_id, family, condition, gold, program, query, language, framing]\n"
        "  by_program: true\n"
    )
    return files


def drift(folder: Path = TASKS) -> list[str]:
    """The task files in ``folder`` that are missing or differ from what the table writes."""
    return sorted(
        name
        for name, text in task_files().items()
        if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files that differ from the table")
    parser.add_argument("--out", type=Path, default=TASKS, help="folder to write (default: lm_eval_tasks/naf_bench)")
    args = parser.parse_args(argv)
    if args.check:
        stale = drift(args.out)
        if stale:
            print(f"out of date with the readings table: {', '.join(stale)}; run scripts/lm_eval_tasks.py")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in task_files().items():
        (args.out / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
