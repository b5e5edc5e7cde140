"""naf-bench analyze on small gold sets and runs written for these tests."""

import json

import pytest

from naf_bench import certify
from naf_bench.analysis import analyze, reading_letters
from naf_bench.cli import main
from naf_bench.readings import CONDITIONS, gold_letter

PROGRAMS = {  # family -> program text (query q)
    "control": "q :- a. a :- not b.",
    "odd": "q :- a. a :- b. b :- not c. c :- not d. d :- not b.",
    "even_one_sided": "q :- cq. cq :- x0. x0 :- not x1. x1 :- not x0.",
    "even_both_sided": "q :- cq. cq :- x0. cq :- x1. x0 :- not x1. x1 :- not x0.",
}
SOUND = {  # a reasoned, correct output per (family, condition)
    ("control", "none"): "b has no rule, so a is true and q is true.\nANSWER: A",
    ("odd", "none"): "b, c, d form a cycle through negation, so q is undefined.\nANSWER: C",
    ("even_one_sided", "none"): "x0 and x1 form a cycle, so q is undefined.\nANSWER: C",
    ("even_both_sided", "none"): "x0 and x1 form a cycle through negation; q is undefined.\nANSWER: C",
}
TEXT = {
    "A": "Since a is true, q is true in every stable model and in some stable model; q is true.",
    "B": "q is not in any stable model; q is false.",
    "C": "The negation cycle leaves q undefined.",
}


def _rows(depths=(8,)):
    rows = []
    for family, text in PROGRAMS.items():
        certificate = certify(text)
        for depth in depths:
            program_id = f"t-{family}-d{depth}"
            for condition in CONDITIONS:
                rows.append({
                    "id": f"{program_id}-{condition}::{condition}", "program_id": program_id, "family": family,
                    "condition": condition, "gold": gold_letter(condition, certificate.labels), "depth": depth,
                    "width": 4, "certificate": certificate.to_json(),
                })  # fmt: skip
    return rows


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def gold(tmp_path):
    return _write(tmp_path / "gold.jsonl", _rows())


def _oracle(rows):
    out = []
    for row in rows:
        letter = row["gold"] or reading_letters(json.loads(row["certificate"])["labels"])["consensus"]
        if row["condition"] == "none":
            text = SOUND[(row["family"], "none")]
        elif row["condition"] == "skept" and row["family"] == "odd":
            text = "The odd cycle b, c, d admits no stable model, so q is vacuously true.\nANSWER: A"
        else:
            text = f"{TEXT[letter]}\nANSWER: {letter}"
        out.append({"id": row["id"], "prediction": text})
    return out


def _always_a(rows):
    return [{"id": r["id"], "prediction": "Forward chaining: a is true, so q is true.\nANSWER: A"} for r in rows]


def test_tables_of_an_oracle_and_a_forward_chainer(tmp_path, gold):
    rows = [json.loads(line) for line in gold.read_text().splitlines()]
    oracle = _write(tmp_path / "oracle.jsonl", _oracle(rows))
    chainer = _write(tmp_path / "chainer.jsonl", _always_a(rows))
    result = analyze([oracle, chainer], gold, "strict", n_bootstrap=50)
    best, weak = result["runs"]["oracle"], result["runs"]["chainer"]
    assert (best["n_prompts"], best["n_parsed"], best["accuracy"]) == (16, 16, 1.0)
    assert best["per_semantics"]["wfs"] == {
        "correct": 4, "n_parsed": 4, "n": 4, "accuracy": 1.0, "strict_accuracy": 1.0, "ci95": [1.0, 1.0],
        "baselines": {"constant_A": 0.25, "constant_B": 0.0, "constant_C": 0.75, "majority": 0.25},
    }  # fmt: skip
    assert best["default_correspondence"] is None  # no errors: n/a
    # the forward chainer: right on control, on skeptical odd and on both-sided even, wrong elsewhere
    assert weak["accuracy"] == 8 / 16
    assert weak["by_bin"]["control"]["all"]["correct"] == 4 and weak["by_bin"]["odd"]["all"]["correct"] == 1
    assert weak["fisher"]["table"] == [[4, 0], [4, 8]] and round(weak["fisher"]["p_value"], 4) == 0.0769
    assert best["fisher"]["odds_ratio"] is None  # no errors anywhere: undefined, not 0
    assert weak["wfs_undefined"] == {"n": 3, "n_parsed": 3, "definite": 3, "abstained": 0, "definite_share": 1.0}
    assert best["flip_rate"] == {"flipped": 0, "groups": 0, "rate": None}  # no variants: undefined, not 0
    # Tables 9-10: the oracle's untutored answers follow WFS (= consensus here), better than always-C
    reading = best["default_reading"]
    assert reading["agreement"] == {"cred": 1, "skept": 1, "wfs": 4, "closed_world": 4, "consensus": 4}
    assert reading["baselines"]["constant_C"]["wfs"] == 3
    assert reading["best_fit"] == "wfs" and reading["earned_c"] == {"c_answers": 3, "cycle_named": 3}
    assert weak["default_reading"]["best_fit"] is None  # always A is the constant_A baseline itself
    # Tables 11-13
    assert best["audit"]["contradicted_among_correct"] == {"contradicted": 0, "auditable": 16, "rate": 0.0}
    assert best["audit"]["skeptical_odd"] == {"correct": 1, "earned": 1}
    assert weak["audit"]["skeptical_odd"] == {"correct": 1, "earned": 0}
    # wrong: the global readings contradict q; under cred/skept a plain "q is true" is no entailment verdict
    assert weak["audit"]["by_correctness"]["wrong"] == {
        "sound": 0, "contradicted": 6, "unverifiable": 2, "no_derivation": 0
    }  # fmt: skip
    assert result["audit_floor"] == {"runs": 1, "contradicted": 0, "auditable": 16, "rate": 0.0}
    assert "size" not in best  # one depth, one width


def test_flip_rate_and_size_when_the_gold_varies(tmp_path):
    rows = _rows(depths=(2, 8))
    for row in rows:
        row["variant"] = "asis"
    flipped = [dict(r, id=r["id"] + "-rev", variant="reversed") for r in rows]
    gold = _write(tmp_path / "gold.jsonl", rows + flipped)
    outputs = _oracle(rows) + [{"id": r["id"], "prediction": "ANSWER: A" if r["family"] == "odd" else
                                "ANSWER: " + (r["gold"] or "C")} for r in flipped]  # fmt: skip
    run = _write(tmp_path / "run.jsonl", outputs)
    result = analyze([run], gold, "strict", n_bootstrap=20)["runs"]["run"]
    # odd programs: answers change across orders under closed_world, cred and wfs (skept was A already)
    assert result["flip_rate"] == {"flipped": 6, "groups": 32, "rate": 6 / 32}
    assert set(result["size"]["standardised_ols"]) == {"depth"}
    assert result["size"]["accuracy_by"]["depth"] == {"2": 29 / 32, "8": 29 / 32}
    assert result["size"]["sound_by"]["depth"]["2"] == 1.0  # the bare reordered answers are not auditable


def test_lm_eval_folder_and_the_command(tmp_path, gold, capsys):
    rows = [json.loads(line) for line in gold.read_text().splitlines()]
    folder = tmp_path / "lm_eval" / "tiny"
    folder.mkdir(parents=True)
    samples = [{"doc": r, "resps": [[o["prediction"]]]} for r, o in zip(rows, _oracle(rows), strict=True)]
    _write(folder / "samples_naf_bench_wfs_2026.jsonl", samples)
    _write(folder / "samples_naf_bench_verify_2026.jsonl", [dict(s, resps=[["ANSWER: B"]]) for s in samples])
    out = tmp_path / "analysis"
    command = ["analyze", str(tmp_path / "lm_eval"), "--gold", str(gold), "--bootstrap", "20", "--out", str(out)]
    assert main(command) == 0
    printed = capsys.readouterr().out
    assert "answers read with the 'strict' extractor" in printed
    assert "model: accuracy 100.0 (16/16 parsed)" in printed  # the verify run is not merged into it
    result = json.loads((out / "analysis.json").read_text())
    assert list(result["runs"]) == ["model"]
    assert "## Table 1" in (out / "analysis.md").read_text()
    assert (out / "accuracy_per_semantics.png").stat().st_size > 5000 and (out / "audit.png").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d, g: _write(d / "r.jsonl", [{"id": "t-odd-d8-wfs::wfs", "prediction": "A"},
                                             {"id": "nope::wfs", "prediction": "A"}]),
         "r.jsonl:2: unknown id 'nope::wfs'"),
        (lambda d, g: _write(d / "r.jsonl", [{"id": "t-odd-d8-wfs::wfs", "prediction": "no letter"}]),
         "r.jsonl: no parsable answer with the 'strict' extractor"),
        (lambda d, g: d / "missing.jsonl", "missing.jsonl: no such file or folder"),
    ],
)  # fmt: skip
def test_bad_runs_exit_1_naming_file_and_line(tmp_path, gold, capsys, make, message):
    path = make(tmp_path, gold)
    assert main(["analyze", str(path), "--gold", str(gold), "--out", str(tmp_path / "a")]) == 1
    assert message in capsys.readouterr().err


def test_bad_gold_names_its_line(tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(_rows()[0]) + "\n{broken\n")
    run = _write(tmp_path / "r.jsonl", [{"id": _rows()[0]["id"], "prediction": "ANSWER: A"}])
    assert main(["analyze", str(run), "--gold", str(gold), "--out", str(tmp_path / "a")]) == 1
    assert "gold.jsonl:2: malformed JSON" in capsys.readouterr().err
