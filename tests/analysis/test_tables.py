"""naf-bench analyze on small gold sets and runs written for these tests."""

import json

import numpy as np
import pytest

from naf_bench import certify
from naf_bench.analysis.tables import analyze, reading_letters
from naf_bench.cli import main
from naf_bench.errors import DataError
from naf_bench.readings import all_conditions, gold_letter

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
            for condition in all_conditions():
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
        "correct": 4,
        "n_parsed": 4,
        "n": 4,
        "accuracy": 1.0,
        "strict_accuracy": 1.0,
        "ci95": [1.0, 1.0],
        "baselines": {"constant_A": 0.25, "constant_B": 0.0, "constant_C": 0.75, "majority": 0.25},
    }
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
        "sound": 0,
        "contradicted": 6,
        "unverifiable": 2,
        "no_derivation": 0,
    }
    assert result["audit_floor"] == {"runs": 1, "contradicted": 0, "auditable": 16, "rate": 0.0}
    assert "size" not in best  # one depth, one width


def test_flip_rate_and_size_when_the_gold_varies(tmp_path):
    rows = _rows(depths=(2, 8))
    for row in rows:
        row["variant"] = "asis"
    flipped = [dict(r, id=r["id"] + "-rev", variant="reversed") for r in rows]
    gold = _write(tmp_path / "gold.jsonl", rows + flipped)
    outputs = _oracle(rows) + [
        {"id": r["id"], "prediction": "ANSWER: A" if r["family"] == "odd" else "ANSWER: " + (r["gold"] or "C")}
        for r in flipped
    ]
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
        (lambda d, g: d / "missing.jsonl", "missing.jsonl: no such file (a run (a submission JSONL file or an lm-eval"),
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


def test_mann_whitney_stands_beside_fisher(tmp_path, gold):
    rows = [json.loads(line) for line in gold.read_text().splitlines()]
    chainer = _write(tmp_path / "chainer.jsonl", _always_a(rows))
    run = analyze([chainer], gold, "strict", n_bootstrap=10)["runs"]["chainer"]
    by_program = {family: cells["all"]["correct"] for family, cells in run["by_bin"].items()}
    assert by_program == {"control": 4, "even_both_sided": 2, "even_one_sided": 1, "odd": 1}  # of 4 each
    # one control program (1.0) above all three divergent ones (0.5, 0.25, 0.25): U = 3; the tie: asymptotic p
    assert run["fisher"]["mann_whitney"] == {
        "u": 3.0,
        "p_value": pytest.approx(0.34578, abs=1e-5),
        "n_control": 1,
        "n_divergent": 3,
    }


def _sweep_rows():
    """A 3 x 3 depth x width sweep of two bins; the gold is constant per condition, as on the authors' grid."""
    rows = []
    for family in ("control", "odd"):
        for depth in (0, 2, 4):
            for width in (0, 2, 4):
                program_id = f"s-{family}-d{depth}-w{width}"
                for condition, gold in (("cred", "A"), ("wfs", "C")):
                    rows.append({
                        "id": f"{program_id}::{condition}", "program_id": program_id, "cluster": f"s-{family}",
                        "family": family, "condition": condition, "gold": gold, "depth": depth, "width": width,
                        "tokens": 100 + 10 * depth + width,
                    })  # fmt: skip
    return rows


def test_sweep_tables_and_the_pooled_regression_with_stored_letters(tmp_path):
    rows = _sweep_rows()
    gold = _write(tmp_path / "gold.jsonl", rows)
    # right exactly on control: correctness = 1 - odd, whatever depth, width or length
    weak = [{"id": r["id"], "prediction": "", "stored": r["gold"] if r["family"] == "control" else "B"} for r in rows]
    perfect = [{"id": r["id"], "prediction": "", "stored": r["gold"]} for r in rows]
    runs = [_write(tmp_path / "weak.jsonl", weak), _write(tmp_path / "perfect.jsonl", perfect)]
    result = analyze(runs, gold, "stored", n_bootstrap=40)
    cells = result["runs"]["weak"]["size"]["cells"]
    assert (cells["depth"]["2"]["correct"], cells["depth"]["2"]["n_parsed"], cells["depth"]["2"]["n"]) == (6, 12, 12)
    assert cells["width"]["4"]["baselines"]["best_constant_per_condition"] == 1.0
    assert cells["width"]["4"]["baselines"]["constant_A"] == 0.5
    regression = result["regression"]
    assert (regression["pooled"], regression["n"]) == (["weak"], 36)  # perfect is at or above 0.92: not pooled
    assert regression["accuracy"] == {"weak": 0.5, "perfect": 1.0}
    without, with_length = regression["without_length"], regression["with_length"]
    assert set(without["coefficients"]) == {"intercept", "z(depth)", "z(width)", "bin=odd"}
    assert without["coefficients"]["intercept"] == pytest.approx(1.0)
    assert without["coefficients"]["bin=odd"] == pytest.approx(-1.0)
    assert with_length["coefficients"]["z(tokens)"] == pytest.approx(0.0, abs=1e-9)
    assert without["width_minus_depth"] == pytest.approx(0.0, abs=1e-9)
    assert without["ci95_prompts"] == pytest.approx([0.0, 0.0], abs=1e-9)
    assert without["ci95_programs"] == pytest.approx([0.0, 0.0], abs=1e-9)
    out = tmp_path / "analysis"
    assert (
        main(
            [
                "analyze",
                *map(str, runs),
                "--gold",
                str(gold),
                "--extractor",
                "stored",
                "--bootstrap",
                "5",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = (out / "analysis.md").read_text()
    assert "| weak | depth | 2 | 50.0 [" in text and "(6/12 of 12) | 50.0 | 100.0 | 50.0 / 0.0 / 50.0 |" in text
    assert "| without length | intercept +1.0000, z(depth) " in text and "bin=odd -1.0000 |" in text
    assert (out / "accuracy_by_size.png").stat().st_size > 5000
    with pytest.raises(DataError, match="no parsable answer with the 'stored' extractor"):
        analyze([_write(tmp_path / "bare.jsonl", [{"id": rows[0]["id"], "prediction": "ANSWER: A"}])], gold, "stored")


def test_a_sweep_regression_on_uneven_data_matches_least_squares(tmp_path):
    rows = _sweep_rows()
    gold = _write(tmp_path / "gold.jsonl", rows)
    letters = ["A" if (r["depth"] + r["width"]) % 4 == 0 or r["family"] == "control" else "B" for r in rows]
    lines = [{"id": r["id"], "prediction": "", "stored": x} for r, x in zip(rows, letters, strict=True)]
    run = _write(tmp_path / "run.jsonl", lines)
    fit = analyze([run], gold, "stored", n_bootstrap=5)["regression"]["without_length"]["coefficients"]
    y = np.array([float(x == r["gold"]) for r, x in zip(rows, letters, strict=True)])
    z = [np.array([r[c] for r in rows], float) for c in ("depth", "width")]
    design = np.column_stack([np.ones(len(y)), *((v - v.mean()) / v.std() for v in z),
                              [float(r["family"] == "odd") for r in rows]])  # fmt: skip
    expected = np.linalg.lstsq(design, y, rcond=None)[0]
    assert list(fit.values()) == pytest.approx(list(expected), abs=1e-6)


def test_framing_cells_and_flips(tmp_path):
    rows = [
        {
            "id": f"v-odd-wfs-t{t}::wfs",
            "program_id": "v-odd-wfs",
            "family": "odd",
            "condition": "wfs",
            "gold": "C",
            "framing": framing,
            "variant": framing,
        }
        for t, framing in enumerate(("escalation", "sensor", "audit"))
    ]
    gold = _write(tmp_path / "gold.jsonl", rows)
    lines = [{"id": r["id"], "prediction": f"ANSWER: {x}"} for r, x in zip(rows, "CCA", strict=True)]
    run = _write(tmp_path / "run.jsonl", lines)
    result = analyze([run], gold, "strict", n_bootstrap=5)["runs"]["run"]
    assert result["flip_rate"] == {"flipped": 1, "groups": 1, "rate": 1.0}
    assert {f: (c["correct"], c["n_parsed"]) for f, c in result["framing"].items()} == {
        "audit": (0, 1),
        "escalation": (1, 1),
        "sensor": (1, 1),
    }


def test_translate_then_solve_outcomes_beside_the_authors_letters(tmp_path):
    texts = {
        "cyc-a": ("p :- not q.\nq :- not p.\nQUERY: p.", "C", True),  # answered C: right
        "cyc-b": ("not p :- q.\nq.\nQUERY: p", "B", True),  # the authors dropped the negated head: we fail it
        "def-a": ("t1 :- t2.\nt2.\nQUERY: eligible(y).", "B", True),  # no rule for the query: theirs read 'false'
        "def-b": ("<think>draft\nQUERY: x", None, False),  # unclosed thinking: no program at all
    }
    rows = [
        {
            "id": f"{k}-{theme}::wfs",
            "program_id": f"{k}-{theme}",
            "cluster": k,
            "family": "divergent",
            "condition": "wfs",
            "gold": "C" if k.startswith("cyc") else "B",
            "mitigation": "t2s",
        }
        for k in texts
        for theme in ("meeting", "panel")
    ]
    gold = _write(tmp_path / "gold.jsonl", rows)
    lines = [
        {
            "id": r["id"],
            "prediction": texts[r["cluster"]][0],
            "stored": texts[r["cluster"]][1],
            "stored_ok": texts[r["cluster"]][2],
        }
        for r in rows
    ]
    run = _write(tmp_path / "run.jsonl", lines)
    stored = analyze([run], gold, "stored", n_bootstrap=20)["runs"]["run"]["mitigation"]
    assert (stored["n"], stored["n_parsed"], stored["nulls"], stored["correct"]) == (8, 6, 2, 4)
    assert (stored["accuracy"], stored["strict_accuracy"], stored["n_programs"]) == (4 / 6, 0.5, 4)
    t = stored["translations"]
    assert t["outcomes"] == {"answered": 2, "no_query": 2, "undefined_query": 2, "unparseable": 2}
    assert t["undefined_query"] == ["def-a-meeting::wfs", "def-a-panel::wfs"]
    assert (
        t["failures"]["cyc-b-panel::wfs"] == "unparseable translation: line 1, column 1: a rule head cannot be negated"
    )
    assert (t["stored_ok"], t["stored_ok_known"]) == (6, 8)
    assert t["ours"] == {"answered": 2, "correct": 2, "accuracy": 1.0, "strict_accuracy": 0.25}
    out = tmp_path / "analysis"
    assert main(["analyze", str(run), "--gold", str(gold), "--extractor", "stored", "--out", str(out)]) == 0
    text = (out / "analysis.md").read_text()
    assert "| run | t2s | 66.7 (4/6) | 50.0 (of 8) | 2 |" in text and "over 4 programs |" in text
    assert (
        "| run | 6/8 | answered 2, no_query 2, undefined_query 2, unparseable 2 | 100.0 (2/2) | 25.0 (of 8) |" in text
    )
    assert "- run: undefined query atom: def-a-meeting::wfs" in text
    assert (out / "mitigation.png").stat().st_size > 5000
    ours = analyze([run], gold, "strict", n_bootstrap=20)["runs"]["run"]["mitigation"]
    assert (ours["n_parsed"], ours["correct"], ours["accuracy"]) == (2, 2, 1.0)  # our reader's letters


def test_a_set_without_widths_slices_by_depth_only_and_plots(tmp_path):
    """The authors' 100-prompt pilot names no width: its rows are in no width slice, and the plots are drawn."""
    from naf_bench.analysis.outputs import write_analysis

    rows = [dict(row, width=None) for row in _rows(depths=(2, 8))]
    result = analyze(
        [_write(tmp_path / "run.jsonl", _oracle(rows))], _write(tmp_path / "gold.jsonl", rows), "strict", n_bootstrap=20
    )
    size = result["runs"]["run"]["size"]
    assert size["accuracy_by"] == {"depth": {"2": 1.0, "8": 1.0}, "width": {}}
    assert set(size["cells"]["depth"]) == {"2", "8"} and size["cells"]["width"] == {}
    written = write_analysis(result, tmp_path / "out")
    assert tmp_path / "out" / "accuracy_by_size.png" in written
