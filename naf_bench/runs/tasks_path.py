"""``python -m naf_bench.runs.tasks_path`` (or ``naf-bench tasks-path``): the folder to pass to lm-eval's
``--include_path`` for the naf_bench tasks, wherever naf-bench is installed."""

from naf_bench.runs.run import tasks_dir

if __name__ == "__main__":
    print(tasks_dir())
