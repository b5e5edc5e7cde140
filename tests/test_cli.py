import json
from pathlib import Path

from naf_bench.cli import main

EXAMPLES = Path(__file__).parent.parent / "examples"


def test_certify_examples(capsys):
    assert main(["certify", str(EXAMPLES / "figure1_odd_cycle.lp"), str(EXAMPLES / "even_cycle.lp")]) == 0
    out = capsys.readouterr().out
    assert "?- a" in out and "FTuloop" in out and "incoherent" in out
    assert "?- e" in out and "TFuloop" in out


def test_certify_json_and_query_override(capsys, tmp_path):
    path = tmp_path / "p.lp"
    path.write_text("e :- not f.\nf :- not e.\n")
    assert main(["certify", str(path), "--json", "--query", "f"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["query"], data["signature"], data["n_stable_models"]) == ("f", "TFuloop", 2)


def test_certify_reports_parse_error_position(capsys, tmp_path):
    path = tmp_path / "bad.lp"
    path.write_text("a.\nb :- -c.\n")
    assert main(["certify", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:6: error: classical negation" in err
    assert "b :- -c." in err


def test_certify_missing_file_keeps_going(capsys, tmp_path):
    status = main(["certify", str(tmp_path / "absent.lp"), str(EXAMPLES / "even_cycle.lp")])
    captured = capsys.readouterr()
    assert status == 2
    assert "absent.lp: error: No such file or directory" in captured.err
    assert "TFuloop" in captured.out


def test_certify_bad_query(capsys):
    assert main(["certify", str(EXAMPLES / "even_cycle.lp"), "--query", "X"]) == 2
    assert "even_cycle.lp: error: query 'X': variable 'X' is not allowed" in capsys.readouterr().err
