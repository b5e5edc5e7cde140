"""LoRA fine-tuning with TRL on a tiny random model built here: the script end to end, the semantic loss and
its gradient, and the evaluate module fed batch by batch as the training loop feeds it."""

import json
import math
import runpy
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("trl")
peft = pytest.importorskip("peft")

import naf_bench.scoring  # noqa: E402
from naf_bench.errors import ConfigError  # noqa: E402
from naf_bench.scoring.consistency import compute_consistency  # noqa: E402
from naf_bench.scoring.constraints import constraint_formulas, row_events  # noqa: E402
from naf_bench.scoring.core import best_constants  # noqa: E402
from naf_bench.scoring.lm import first_token_ids  # noqa: E402
from naf_bench.training.command import main  # noqa: E402
from naf_bench.training.examples import (  # noqa: E402
    answer_line_tokens,
    chat_prompt,
    check_disjoint,
    evaluation_rows,
    letter_completions,
    preference_pairs,
    program_groups,
    training_rows,
)
from naf_bench.training.held_out import answer_and_generate, answer_report, evaluate_model  # noqa: E402
from naf_bench.training.semantic import (  # noqa: E402
    SEMANTIC_FAMILIES,
    accumulate_semantic_gradient,
    answer_log_probs,
    group_semantic_loss,
    semantic_loss_of_letters,
    semantic_trainer_class,
)
from naf_bench.training.trainer import load_model  # noqa: E402

SCRIPT = Path(__file__).parents[2] / "scripts" / "train_sft.py"


@pytest.fixture(scope="module")
def program_rows():
    """The four named-condition rows of one sft training program, abstract framing."""
    groups = program_groups(training_rows(["abstract"]), seed=0)
    return groups[0]


def test_script_end_to_end(tiny_chat_lm, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    argv = ["--model", str(tiny_chat_lm), "--max-steps", "2", "--out", str(out), "--semantic-loss-weight", "0.5"]
    argv += ["--train-framings", "escalation", "--eval-framing", "escalation", "abstract", "--eval-limit", "3"]
    argv += ["--eval-steps", "1", "--device", "cpu", "--seed", "1", "--generate", "--max-new-tokens", "3"]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv])
    runpy.run_path(str(SCRIPT), run_name="__main__")

    metrics = json.loads((out / "metrics.json").read_text())
    assert [entry["step"] for entry in metrics["history"]] == [0, 1, 2]
    assert metrics["before"] == metrics["history"][0] and metrics["after"] == metrics["history"][-1]
    for entry in (metrics["before"], metrics["after"]):
        assert set(entry["framings"]) == {"escalation", "abstract"}
        for scores in entry["framings"].values():
            label = scores["label"]
            assert label["n_scored"] == 3  # three wfs44 programs, one wfs row each
            assert set(label["per_condition"]) == {"wfs"} and "constant_A" in label["per_condition"]["wfs"]["baselines"]
            assert 0.0 <= label["coverage"] <= 1.0 and -1.0 <= scores["letters"]["all"]["rho"] <= 1.0
            assert scores["generate"]["n_scored"] == 3  # greedy generations, read by the strict extractor
        assert entry["letters"]["invariance"]["n"] == 3  # the same wfs question across the two framings
    train = metrics["train"]
    assert len(train["loss"]) == len(train["semantic_loss"]) == 2
    assert all(math.isfinite(x) for x in train["loss"] + train["semantic_loss"])
    assert all(x > 0 for x in train["semantic_loss"])
    for lm, semantic, total in zip(train["loss"], train["semantic_loss"], train["total_loss"], strict=True):
        assert total == pytest.approx(lm + 0.5 * semantic, rel=1e-5)
    assert metrics["config"]["device"] == "cpu" and metrics["config"]["train_framings"] == ["escalation"]
    assert all(entry["cpu_seconds"] > 0 for entry in metrics["history"])
    peaks = [entry["peak_rss_gb"] for entry in metrics["history"]]
    assert 0 < peaks[0] <= peaks[-1] <= metrics["peak_rss_gb"] < 4  # getrusage's peak never falls
    assert f"peak resident memory {metrics['peak_rss_gb']:.2f} GB" in capsys.readouterr().out
    assert (out / "adapter" / "adapter_model.safetensors").is_file() and (out / "training.png").stat().st_size > 0
    adapter = peft.PeftModel.from_pretrained(load_model(str(tiny_chat_lm))[0], out / "adapter")
    trained = [p for name, p in adapter.named_parameters() if "lora_B" in name]
    assert trained and any(p.abs().sum() > 0 for p in trained)  # lora_B starts at zero: two steps moved it


def test_framing_transfer_protocol_repeats_over_seeds(tiny_chat_lm, tmp_path):
    """Table 7's protocol: train on one framing, evaluate on it and on an unseen one, once per seed."""
    out = tmp_path / "transfer"
    argv = ["--model", str(tiny_chat_lm), "--max-steps", "1", "--out", str(out), "--train-framings", "audit"]
    summary = main([*argv, "--eval-framing", "audit", "abstract", "--eval-limit", "2", "--seed", "3", "4"])
    assert summary["seeds"] == [3, 4] and set(summary["framings"]) == {"audit", "abstract"}
    for position, seed in enumerate((3, 4)):
        metrics = json.loads((out / f"seed-{seed}" / "metrics.json").read_text())
        assert metrics["config"]["seed"] == seed and metrics["config"]["train_framings"] == ["audit"]
        for framing, cell in summary["framings"].items():
            after = metrics["after"]["framings"][framing]
            assert cell["after"]["strict_accuracy"][position] == after["label"]["strict_accuracy"]
            assert cell["after"]["rho"][position] == after["letters"]["all"]["rho"]
            row = next(r for r in summary["table"] if r["framing"] == framing and r["moment"] == "after")
            assert row["answers"] == "top token"  # no --generate: the table reads the top token's answers
            assert row["accuracy"][position] == after["top_token_report"]["accuracy"]["value"]


def test_dpo_on_certified_versus_wrong_reading_traces(tiny_chat_lm, tmp_path):
    groups = program_groups(training_rows(["sensor"]), seed=0)
    uniform = next(group for group in groups if len({row["gold"] for row in group}) == 1)
    with pytest.raises(ConfigError, match="no preference pair"):
        preference_pairs(uniform)  # every reading gives the same answer: nothing to prefer
    divergent = next(group for group in groups if len({row["gold"] for row in group}) > 1)
    pairs = preference_pairs(divergent)
    golds = [row["gold"] for row in divergent]
    assert len(pairs) == sum(a != b for a in golds for b in golds)
    for pair in pairs:
        chosen, rejected = (pair[key][0]["content"].rsplit("ANSWER: ", 1)[1] for key in ("chosen", "rejected"))
        assert chosen != rejected
        assert pair["prompt"][0]["role"] == "user" and pair["chosen"][0]["role"] == "assistant"
    out = tmp_path / "dpo"
    argv = ["--model", str(tiny_chat_lm), "--max-steps", "1", "--out", str(out), "--method", "dpo"]
    metrics = main([*argv, "--train-framings", "sensor", "--eval-limit", "2"])
    assert metrics["train"]["loss"][0] == pytest.approx(math.log(2), abs=1e-4)  # policy = reference at step 1
    assert metrics["train"]["semantic_loss"] == [] and (out / "adapter" / "adapter_config.json").is_file()
    with pytest.raises(ConfigError, match="no --semantic-loss-weight"):
        main([*argv, "--semantic-loss-weight", "1"])


def test_semantic_loss_is_the_wmc_of_the_constraints_and_reaches_the_adapter(tiny_chat_lm, program_rows):
    model, tokenizer = load_model(str(tiny_chat_lm))
    model = peft.get_peft_model(model, peft.LoraConfig(r=4, task_type="CAUSAL_LM"))
    with torch.no_grad():  # lora_B starts at zero, which would hide lora_A's gradient
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.normal_(std=0.1)
    assert sorted(row["condition"] for row in program_rows) == ["closed_world", "cred", "skept", "wfs"]
    loss = group_semantic_loss(model, tokenizer, program_rows)
    loss.backward()

    letters = answer_log_probs(model, tokenizer, program_rows)[:, first_token_ids(tokenizer)].exp()
    events = row_events([dict(zip("ABC", row.tolist(), strict=True)) for row in letters])
    formulas = [f for family, f in constraint_formulas(program_rows) if family in SEMANTIC_FAMILIES]
    # one letter for each of 4 prompts, no C under cred and skept, 4 certified inclusions between readings
    assert len(formulas) == 10
    wmc = compute_consistency(formulas, [events] * len(formulas))["wmc"]
    assert loss.item() == pytest.approx(-sum(math.log(w) for w in wmc), rel=1e-6)
    assert loss.item() > 0
    gradients = {name: p.grad for name, p in model.named_parameters() if p.requires_grad}
    assert gradients and all("lora_" in name for name in gradients)
    assert all(g is not None and g.abs().sum() > 0 for g in gradients.values())


def test_evaluation_reads_the_top_token_and_feeds_the_metric_batch_by_batch(tiny_chat_lm):
    model, tokenizer = load_model(str(tiny_chat_lm))
    rows = evaluation_rows(["abstract"], limit=5)
    result = evaluate_model(model, tokenizer, rows, naf_bench.scoring.load_metric("label"), batch_size=2)
    with torch.no_grad():
        log_probs = answer_log_probs(model, tokenizer, rows)
    top = log_probs.argmax(dim=-1).tolist()
    letter_ids = first_token_ids(tokenizer)
    letters = log_probs[:, letter_ids]
    answers = ["ABC"[letter_ids.index(t)] if t in letter_ids else None for t in top]
    label = result["framings"]["abstract"]["label"]
    assert label["n_scored"] == 5
    assert label["coverage"] == sum(a is not None for a in answers) / 5
    assert label["strict_accuracy"] == sum(a == row["gold"] for a, row in zip(answers, rows, strict=True)) / 5
    forced = ["ABC"[i] for i in letters.argmax(dim=-1).tolist()]
    forced_choice = result["framings"]["abstract"]["forced_choice"]
    assert forced_choice["coverage"] == 1.0
    assert forced_choice["accuracy"] == sum(a == row["gold"] for a, row in zip(forced, rows, strict=True)) / 5
    # the same top-token answers per condition beside the best constant, without generating
    report = result["framings"]["abstract"]["top_token_report"]
    assert report["accuracy"]["value"] == label["strict_accuracy"] and report["extractor"] == "strict"
    assert report["conditions"]["wfs"]["c_rate"] == answers.count("C") / 5 and report["conditions"]["wfs"]["n"] == 5


def test_metric_add_batch_with_per_row_columns_then_compute():
    """A training loop's add_batch: every row column (gold, condition, program, variant, bin) batch by batch."""
    metric = naf_bench.scoring.load_metric("label")
    batches = [
        (["ANSWER: B", "ANSWER: A", "ANSWER: B"], [None, "A", "B"], ["none", "cred", "skept"], ["p", "p", "p"]),
        (["ANSWER: A", "no answer"], ["A", "B"], ["closed_world", "wfs"], ["p", "p"]),
        (
            ["ANSWER: C", "ANSWER: C", "B", "A"],
            ["C", "C", "B", "A"],
            ["closed_world", "cred", "skept", "wfs"],
            ["q"] * 4,
        ),
    ]
    for _ in range(2):  # compute() leaves the module ready for the next evaluation
        for predictions, references, conditions, program_ids in batches:
            metric.add_batch(
                predictions=predictions,
                references=references,
                conditions=conditions,
                program_ids=program_ids,
                variants=[None] * len(predictions),
                bins=[None] * len(predictions),
            )
        scores = metric.compute()
        assert (scores["n_scored"], scores["strict_accuracy"], scores["joint"]) == (8, 7 / 8, 0.5)
        assert scores["per_condition"]["wfs"]["coverage"] == 0.5
    rows = [
        {"gold": "A", "condition": "wfs", "program_id": "p"},
        {"gold": None, "condition": "none", "program_id": "p"},
    ]
    metric.add_batch(predictions=["ANSWER: A", "ANSWER: B"], **naf_bench.scoring.label_columns(rows))
    assert metric.compute()["default_correspondence"] is None  # the one named answer is right
    with pytest.raises(ValueError, match="Bad inputs"):
        metric.add_batch(predictions=["A"], references=["A"], formulas=["a"])
    with pytest.raises(ValueError, match="Mismatch in the number"):
        metric.add_batch(**naf_bench.scoring.label_columns(rows), predictions=["A"])


def _hard(letters: str, sure: float = 0.98):
    """Letter probabilities, one row per letter of ``letters``: ``sure`` on it, the rest shared by the others."""
    return torch.tensor([[sure if x == letter else (1 - sure) / 2 for x in "ABC"] for letter in letters])


def test_all_c_violates_the_readings_alphabets_and_costs_more_than_the_certified_letters(program_rows):
    rows = sorted(program_rows, key=lambda row: row["condition"])  # closed_world, cred, skept, wfs
    cred = next(k for k, row in enumerate(rows) if row["condition"] == "cred")
    formulas = [(family, f) for family, f in constraint_formulas(rows) if family in SEMANTIC_FAMILIES]
    assert ("alphabet", f"~r{cred}_C") in formulas  # from Reading.letters: credulous answers are A or B
    assert sum(family == "alphabet" for family, _ in formulas) == 2  # cred and skept; wfs and closed world have C
    all_c = row_events([{"A": 0.0, "B": 0.0, "C": 1.0}] * len(rows))
    wmc = compute_consistency([f for _, f in formulas], [all_c] * len(formulas))["wmc"]
    violated = [family for (family, _), w in zip(formulas, wmc, strict=True) if w == 0.0]
    assert violated == ["alphabet", "alphabet"]  # one letter, the inclusions and invariance all hold for all-C
    golds = "".join(row["gold"] for row in rows)
    always_c = semantic_loss_of_letters(rows, _hard("C" * len(rows))).item()
    certified = semantic_loss_of_letters(rows, _hard(golds)).item()
    assert certified < 0.5 < 7.0 < always_c  # each alphabet term of all-C is -log(0.02), about 3.9
    without_alphabet = [f for f in SEMANTIC_FAMILIES if f != "alphabet"]
    # the families of before: all-C costs no more than the certified letters, which is why it was learnt
    assert semantic_loss_of_letters(rows, _hard("C" * len(rows)), without_alphabet).item() < 0.5


def test_semantic_gradient_prompt_by_prompt_is_the_gradient_of_the_whole_loss(tiny_chat_lm, program_rows):
    model, tokenizer = load_model(str(tiny_chat_lm))
    model = peft.get_peft_model(model, peft.LoraConfig(r=4, task_type="CAUSAL_LM"))
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.normal_(std=0.1)
    model.eval()  # no dropout: both computations see the same function
    trained = {name: p for name, p in model.named_parameters() if p.requires_grad}
    whole = group_semantic_loss(model, tokenizer, program_rows)
    (0.5 * whole).backward()
    expected = {name: p.grad.clone() for name, p in trained.items()}
    model.zero_grad()
    value = accumulate_semantic_gradient(model, tokenizer, program_rows, scale=0.5)
    assert value == pytest.approx(whole.item(), rel=1e-6)
    for name, parameter in trained.items():
        torch.testing.assert_close(parameter.grad, expected[name], rtol=1e-4, atol=1e-7)
    assert any(g.abs().sum() > 0 for g in expected.values())


def test_lm_loss_from_the_completion_logits_is_trls_loss(tiny_chat_lm, program_rows, tmp_path):
    """The loss from the logits of the positions that predict a completion token (a batch of two, padded) is
    the one TRL's fused head computes over every position, gradient included."""
    import datasets
    import trl

    model, tokenizer = load_model(str(tiny_chat_lm))
    rows = letter_completions(program_rows[:1]) + program_rows[1:2]  # a one-line and a traced completion
    examples = datasets.Dataset.from_list(
        [{"prompt": row["messages"][:1], "completion": row["messages"][1:]} for row in rows]
    )
    args = trl.SFTConfig(output_dir=str(tmp_path), report_to="none", use_cpu=True, max_length=4096)
    trainer = semantic_trainer_class()(model=model, args=args, train_dataset=examples, processing_class=tokenizer)
    inputs = trainer._prepare_inputs(trainer.data_collator(list(trainer.train_dataset)))
    assert inputs["attention_mask"].eq(0).any()  # the shorter row is padded
    n_targets = inputs["labels"][:, 1:].ne(-100).sum()
    ours = trainer.compute_loss(model, dict(inputs), num_items_in_batch=n_targets)
    ours.backward()
    expected = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    model.zero_grad()
    theirs = trl.SFTTrainer.compute_loss(trainer, model, dict(inputs), num_items_in_batch=n_targets)
    theirs.backward()
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-5) and ours.item() > 0
    assert expected
    for name, parameter in model.named_parameters():
        if parameter.grad is not None:
            torch.testing.assert_close(parameter.grad, expected[name], rtol=1e-4, atol=1e-6)


def test_one_cached_prompt_gives_the_letters_and_the_greedy_generation(tiny_chat_lm):
    model, tokenizer = load_model(str(tiny_chat_lm))
    for row in evaluation_rows(["abstract"], limit=2):
        with torch.no_grad():
            log_probs, text = answer_and_generate(model, tokenizer, row, max_new_tokens=4)
            expected = answer_log_probs(model, tokenizer, [row])[0]
        torch.testing.assert_close(log_probs, expected, rtol=1e-4, atol=1e-5)
        ids = tokenizer(chat_prompt(tokenizer, row), return_tensors="pt", add_special_tokens=False)
        output = model.generate(**ids, max_new_tokens=4, do_sample=False, pad_token_id=tokenizer.pad_token_id)
        assert text == tokenizer.decode(output[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)
        assert len(tokenizer(text, add_special_tokens=False)["input_ids"]) >= 3


def test_answer_report_beside_the_best_constant_per_condition():
    golds = {"p1": "CAAC", "p2": "CABC", "p3": "AAAA", "p4": "CBAC"}  # closed_world, cred, skept, wfs
    conditions = ("closed_world", "cred", "skept", "wfs")
    rows = [
        {"program_id": p, "condition": c, "gold": g}
        for p, letters in golds.items()
        for c, g in zip(conditions, letters, strict=True)
    ]
    texts = {"p1": "CAAC", "p2": "CABC", "p3": "AACA", "p4": "CCAC"}
    answers = [f"The answer is {x}." for p in golds for x in texts[p]]
    assert best_constants(rows) == {"closed_world": "C", "cred": "A", "skept": "A", "wfs": "C"}
    report = answer_report(rows, answers, "flexible")
    cred, wfs = report["conditions"]["cred"], report["conditions"]["wfs"]
    assert (cred["accuracy"], cred["best_constant"], cred["best_constant_accuracy"]) == (0.75, "A", 0.75)
    assert cred["c_rate"] == 0.25 and report["conditions"]["skept"]["c_rate"] == 0.25
    assert (wfs["accuracy"], wfs["best_constant_accuracy"]) == (1.0, 0.75)
    assert report["joint"] == {
        "value": 0.5,  # p1 and p2 all right
        "ci95": report["joint"]["ci95"],
        "best_constant": 0.25,  # C, A, A, C is p1 alone
        "n_programs": 4,
    }
    low, high = report["joint"]["ci95"]
    assert 0.0 <= low <= 0.5 <= high <= 1.0 and cred["ci95"][0] <= 0.75 <= cred["ci95"][1]
    assert report["accuracy"]["value"] == 14 / 16  # p3 skeptical and p4 credulous answered C


def test_held_out_programs_must_not_be_training_programs():
    rows = training_rows(["abstract"])
    with pytest.raises(ConfigError, match="evaluation programs are training programs"):
        check_disjoint(rows, rows[:4])
    check_disjoint(rows, evaluation_rows(["abstract"], "sft", "validation"))


def test_recipe_with_and_without_the_semantic_loss_in_one_table(tiny_chat_lm, tmp_path):
    """Letter-only completions on smaller sft programs (--set), held out on the validation split's other
    programs, generations read by the flexible extractor; two weights, one table."""
    out = tmp_path / "compare"
    argv = ["--model", str(tiny_chat_lm), "--max-steps", "1", "--out", str(out), "--train-framings", "abstract"]
    argv += ["--set", "depths=3,4", "--set", "widths=2,3", "--set", "traced=false", "--set", "framings=abstract"]
    argv += ["--eval-config", "sft", "--eval-split", "validation", "--eval-limit", "4", "--completion", "letter"]
    argv += ["--generate", "--max-new-tokens", "3", "--extractor", "flexible", "--semantic-loss-weight", "0", "1"]
    summary = main([*argv, "--dtype", "bfloat16", "--seed", "5"])
    assert summary["weights"] == [0.0, 1.0] and len(summary["table"]) == 4  # 2 weights x before/after
    for row in summary["table"]:
        metrics = json.loads((out / f"w-{row['semantic_loss_weight']:g}" / "seed-5" / "metrics.json").read_text())
        cell = metrics[row["moment"]]["framings"]["abstract"]
        report = cell["report"]
        assert row["accuracy"] == [report["accuracy"]["value"]] and row["joint"] == [report["joint"]["value"]]
        assert row["mean_rho"] == cell["letters"]["all"]["rho"]
        assert row["c_rate_cred"] == [report["conditions"]["cred"]["c_rate"]]
        assert report["joint"]["n_programs"] == 4 and {c["n"] for c in report["conditions"].values()} == {4}
        assert cell["generate"]["extractor"] == "flexible"
        # four programs evenly spaced through the split: one of each bin, so no constant gets every condition
        assert report["joint"]["best_constant"] == 0.25
        assert metrics["config"]["completion"] == "letter" and metrics["config"]["n_train_rows"] == 512
    assert len(metrics["train"]["semantic_loss"]) == 1  # the weight-1 run
    # the base model is evaluated once: the second run reuses the first run's step-0 evaluation
    first, second = (json.loads((out / f"w-{w}" / "seed-5" / "metrics.json").read_text()) for w in (0, 1))
    assert "shared" not in first["before"] and second["before"]["shared"] is True
    assert {k: v for k, v in second["before"].items() if k not in ("shared", "peak_rss_gb")} == {
        k: v for k, v in first["before"].items() if k != "peak_rss_gb"
    }
    # and what it reuses is what that run alone would have measured: its untrained adapter changes nothing
    argv[argv.index(str(out))] = str(tmp_path / "alone")
    main([*argv[:-2], "1", "--dtype", "bfloat16", "--seed", "6"])
    alone = json.loads((tmp_path / "alone" / "metrics.json").read_text())["before"]

    def scores(entry):
        return {k: v for k, v in entry.items() if k not in ("shared", "peak_rss_gb", "seconds", "cpu_seconds")}

    assert scores(alone) == scores(first["before"])


def test_generation_too_short_for_the_answer_line_is_refused(tiny_chat_lm, tmp_path):
    """A letter-only completion is the 'ANSWER: X' line: fewer new tokens than it has can never reach the letter
    (SmolLM2 needs five; this tokenizer three), so the run stops before training."""
    tokenizer = load_model(str(tiny_chat_lm))[1]
    assert answer_line_tokens(tokenizer) == 3  # 'ANSWER', ':', 'A'
    argv = ["--model", str(tiny_chat_lm), "--max-steps", "1", "--out", str(tmp_path / "short"), "--eval-limit", "1"]
    argv += ["--completion", "letter", "--generate", "--max-new-tokens", "2"]
    with pytest.raises(ConfigError, match=r"--max-new-tokens 2 cannot reach the letter.* is 3 tokens"):
        main(argv)
    assert not (tmp_path / "short" / "metrics.json").exists()


def test_lora_on_every_linear_layer(tiny_chat_lm, tmp_path):
    """--lora-target-modules all-linear adapts the MLP too (peft's GPT-2 default is the attention's c_attn)."""
    out = tmp_path / "all"
    argv = ["--model", str(tiny_chat_lm), "--max-steps", "1", "--out", str(out), "--eval-limit", "1"]
    main([*argv, "--train-framings", "abstract", "--lora-target-modules", "all-linear", "--lora-r", "2"])
    adapter = json.loads((out / "adapter" / "adapter_config.json").read_text())
    adapted = {name.rsplit(".", 1)[-1] for name in adapter["target_modules"]}  # peft stores the full names
    assert adapted == {"c_attn", "c_fc", "c_proj"} and adapter["r"] == 2
    main([*argv, "--train-framings", "abstract", "--lora-target-modules", "c_fc"])
    assert json.loads((out / "adapter" / "adapter_config.json").read_text())["target_modules"] == ["c_fc"]
