"""naf_bench.training.command: the SFT/DPO command's options and the refusals made before any model loads, and the
per-seed summary and per-weight comparison built from the runs' metrics."""

import pytest

from naf_bench.errors import ConfigError
from naf_bench.training.command import comparison_table, main, parser, seed_summary


def metrics(before, after, rho=0.1, generated=True, joint=True):
    """A run's metrics as ``train`` returns them, for the one framing 'abstract' (accuracy ``before`` and
    ``after``); JOINT is half the accuracy, the credulous C rate 0.5 and the skeptical one unknown."""

    def cell(accuracy):
        report = {"accuracy": {"value": accuracy}, "conditions": {"cred": {"c_rate": 0.5}, "skept": {}}}
        if joint:
            report["joint"] = {"value": accuracy / 2}
        key = "report" if generated else "top_token_report"
        return {"label": {"strict_accuracy": accuracy}, "letters": {"all": {"rho": rho}}, key: report}

    return {"before": {"framings": {"abstract": cell(before)}}, "after": {"framings": {"abstract": cell(after)}}}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-steps", "0"], "--max-steps must be >= 1, got 0"),
        (["--max-steps", "1", "--semantic-loss-weight", "0", "-0.5"], r"must be >= 0, got \[0.0, -0.5\]"),
        (["--max-steps", "1", "--method", "dpo", "--semantic-loss-weight", "1"], "--method dpo takes no --semantic"),
    ],
)
def test_bad_arguments_are_refused_before_a_model_loads(tmp_path, argv, message):
    with pytest.raises(ConfigError, match=message):
        main(["--model", str(tmp_path / "no-model"), "--out", str(tmp_path / "out"), *argv])
    assert not (tmp_path / "out").exists()


def test_the_defaults_train_sft_on_traces_of_every_framing_and_hold_out_wfs44_abstract():
    args = parser().parse_args(["--model", "m", "--max-steps", "3", "--out", "o"])
    assert (args.method, args.completion, args.train_config, args.eval_config) == ("sft", "trace", "sft", "wfs44")
    assert (args.train_framings, args.eval_framing) == (["abstract", "escalation", "sensor", "audit"], ["abstract"])
    assert (args.semantic_loss_weight, args.seed, args.extractor) == ([0.0], [0], "flexible")
    assert args.semantic_families == ["one_letter", "alphabet", "inclusion", "invariance"]


def test_the_seed_summary_gives_each_seeds_strict_accuracy_and_rho_and_their_means():
    summary = seed_summary({0: metrics(0.5, 0.75, rho=0.1), 1: metrics(0.25, 1.0, rho=0.3)})
    assert summary == {
        "seeds": [0, 1],
        "framings": {
            "abstract": {
                "before": {
                    "strict_accuracy": [0.5, 0.25],
                    "mean_strict_accuracy": 0.375,
                    "rho": [0.1, 0.3],
                    "mean_rho": 0.2,
                },
                "after": {
                    "strict_accuracy": [0.75, 1.0],
                    "mean_strict_accuracy": 0.875,
                    "rho": [0.1, 0.3],
                    "mean_rho": 0.2,
                },
            }
        },
    }


def test_the_comparison_has_a_row_per_weight_and_moment_and_means_over_the_known_values_only():
    table = comparison_table({0.0: {0: metrics(0.5, 0.75), 1: metrics(0.25, 1.0, joint=False)},
                              1.0: {0: metrics(0.5, 0.5, generated=False)}})  # fmt: skip
    assert [(row["semantic_loss_weight"], row["moment"], row["answers"]) for row in table] == [
        (0.0, "before", "generated"),
        (0.0, "after", "generated"),
        (1.0, "before", "top token"),
        (1.0, "after", "top token"),
    ]
    assert table[1] == {
        "semantic_loss_weight": 0.0,
        "framing": "abstract",
        "moment": "after",
        "seeds": [0, 1],
        "answers": "generated",
        "mean_accuracy": 0.875,
        "mean_joint": 0.375,
        "mean_rho": 0.1,
        "mean_c_rate_cred": 0.5,
        "mean_c_rate_skept": None,
        "accuracy": [0.75, 1.0],
        "joint": [0.375, None],
        "rho": [0.1, 0.1],
        "c_rate_cred": [0.5, 0.5],
        "c_rate_skept": [None, None],
    }
