"""Every command's help: defaults shown, and each command's examples after its options."""

from __future__ import annotations

import argparse

# Each command's examples, shown at the end of its help (the top-level parser's under "")
EXAMPLES = {
    "": ("naf-bench certify examples/figure1_odd_cycle.lp", "naf-bench baselines main --out baselines.json"),
    "certify": ("naf-bench certify examples/*.lp", "naf-bench certify prog.lp --query a --json"),
    "export": ("naf-bench export --out out/naf-bench --repo-id ORG/naf-bench",),
    "generate": ("naf-bench generate main --set depths=2,8 --seed 3 --out main.jsonl",
                 "naf-bench generate hard --split test --out hard-test.parquet"),
    "score": ("naf-bench score submission.jsonl --out scores.json",
              "naf-bench score submission.jsonl --config hard --split test"),
    "baselines": ("naf-bench baselines main --out baselines.json", "naf-bench baselines hard --split validation"),
    "report": ("naf-bench report out/run/lm_eval baselines.json --out out/report",),
    "import-authors": ("naf-bench import-authors ../NAFBench --out ref",),
    "analyze": ("naf-bench analyze ref/production/runs/*.jsonl --gold ref/production/gold.jsonl --out out/production",
                "naf-bench analyze --authors ref --out out/paper"),
    "run": ("naf-bench run smollm2 --limit 2 --baselines baselines.json --out out/run",
            "naf-bench run --model local-chat-completions --model_args base_url=http://127.0.0.1:8000/v1 --limit 2"),
    "smollm2-path": ("naf-bench smollm2-path", 'ls -l "$(naf-bench smollm2-path)"'),
    "tasks-path": ("naf-bench tasks-path",
                   'lm_eval --include_path "$(naf-bench tasks-path)" --tasks naf_bench --model hf --model_args '
                   "pretrained=MODEL"),
    "leaderboard": ("naf-bench leaderboard build submissions/ --gold gold.jsonl --out site",
                    "naf-bench leaderboard serve --gold hidden.jsonl --data board/"),
    "leaderboard build": ("naf-bench leaderboard build submissions/ --gold gold.jsonl --out site",
                          "naf-bench leaderboard build --data board/ --gold hidden.jsonl --dev-gold dev.jsonl "
                          "--out site"),
    "leaderboard serve": ("naf-bench leaderboard serve --gold hidden.jsonl --dev-gold dev.jsonl --data board/",),
    "leaderboard add-team": ("naf-bench leaderboard add-team team-a --data board/",
                             "naf-bench leaderboard add-team hf-user --hub-user --data board/"),
    "leaderboard revoke-team": ("naf-bench leaderboard revoke-team team-a --data board/",),
    "leaderboard withdraw": ("naf-bench leaderboard withdraw 12 --reason 'duplicate upload' --data board/",),
    "leaderboard freeze": ("naf-bench leaderboard freeze --data board/",),
    "leaderboard space": ("naf-bench leaderboard space --out space/ --requirement 'naf-bench[leaderboard]==0.1.0'",),
    "leaderboard new-set": ("naf-bench leaderboard new-set --key secret.key --new-key --config hard --out hidden/",
                            "naf-bench leaderboard new-set --key secret.key --config main --set programs_per_cell=2 "
                            "--out hidden-small/"),
    "leaderboard approve-model": ("naf-bench leaderboard approve-model models/smollm2/ --data board/",
                                  "naf-bench leaderboard approve-model ORG/NAME@COMMIT40HEX --data board/"),
    "leaderboard worker": ("naf-bench leaderboard worker --data board/ --hidden hidden/ --key secret.key",
                           "naf-bench leaderboard worker --data board/ --hidden hidden/ --once --timeout 1800 "
                           "--max-gen-toks 2048"),
    "train": ("naf-bench train grpo --model smollm2 --max-steps 2 --out out/grpo",),
    "train sft": ("naf-bench train sft --model smollm2 --max-steps 20 --out out/sft",),
    "train grpo": ("naf-bench train grpo --model smollm2 --max-steps 2 --out out/grpo",
                   "naf-bench train grpo --model MODEL --max-steps 500 --joint --reward joint format --out out/joint"),
    "train stream": ("naf-bench train stream --format verl --count 10000 --out train.parquet",
                     "naf-bench train stream --format openrlhf --joint --out prompts.jsonl"),
}  # fmt: skip


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help, the examples kept as written, and each option's default shown where it has one that its
    help does not already name."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text, default = action.help or "", action.default
        if default in (None, argparse.SUPPRESS) or action.nargs == 0 or "default" in text or not action.option_strings:
            return text  # nargs 0: a flag, whose default is only that it is off
        shown = " ".join(map(str, default)) if isinstance(default, list | tuple) else str(default)
        return f"{text} (default: {shown})".replace("%", "%%").replace("%%(", "%(")


def with_help(parser: argparse.ArgumentParser, command: str = "") -> None:
    """Every parser of the tree: its defaults shown, its description, and its examples after its options."""
    parser.formatter_class = HelpFormatter
    parser.epilog = "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if name not in helps:  # an old spelling (argparse's alias) of a command listed under its name
                    continue
                sub.description = sub.description or helps[name]
                with_help(sub, f"{command} {name}".strip())
