"""naf_bench.cli.boards: ``leaderboard build`` from a folder of submissions: the ranked line per track, a partial
run named apart, every refusal on stderr with exit status 1, and the site's files written."""

import argparse

from naf_bench.cli import boards


def build(submissions, gold, out):
    parser = argparse.ArgumentParser(prog="naf-bench")
    boards.add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["leaderboard", "build", str(submissions), "--gold", str(gold), "--bootstrap", "0",
                              "--out", str(out)])  # fmt: skip
    return args.run(args)


def submit(folder, name, predictions, write_submission, write_metadata, **metadata):
    write_submission(folder / f"{name}.jsonl", predictions)
    write_metadata(folder / f"{name}.metadata.json", **metadata)


def test_the_board_ranks_full_runs_names_a_partial_one_apart_and_writes_the_site(
    tmp_path, write_gold, answers, write_submission, write_metadata, capsys
):
    rows = write_gold(tmp_path / "gold.jsonl", n_programs=4)
    folder = tmp_path / "subs"
    folder.mkdir()
    submit(folder, "alpha", answers(rows, 3), write_submission, write_metadata)
    submit(folder, "beta", answers(rows, 1), write_submission, write_metadata)
    first = {key: letter for key, letter in answers(rows, 4).items() if key.startswith("p0::")}  # one program of four
    submit(folder, "delta", first, write_submission, write_metadata)
    site = tmp_path / "site"
    assert build(folder, tmp_path / "gold.jsonl", site) == 0
    assert capsys.readouterr().out.splitlines() == [
        "standard track: 1. alpha 75.0, 2. beta 25.0",
        "standard track, not ranked: delta 25.0 (partial: 4 of 16 prompts)",
        "enhanced track: none",
        f"wrote {site / 'leaderboard.json'}",
        f"wrote {site / 'index.html'}",
        f"wrote {site / 'README.md'}",
    ]


def test_a_refused_submission_is_named_on_stderr_left_off_the_board_and_the_status_is_one(
    tmp_path, write_gold, answers, write_submission, write_metadata, capsys
):
    rows = write_gold(tmp_path / "gold.jsonl", n_programs=4)
    folder = tmp_path / "subs"
    folder.mkdir()
    submit(folder, "alpha", answers(rows, 2), write_submission, write_metadata)
    submit(folder, "gamma", answers(rows, 4), write_submission, write_metadata, track="enhanced")  # no method_url
    assert build(folder, tmp_path / "gold.jsonl", tmp_path / "site") == 1
    out, err = capsys.readouterr()
    assert err == (
        "refused gamma: metadata.method_url: required on the enhanced track (a link to the paper, code or model card "
        "describing the method)\n"
    )
    assert out.splitlines()[:2] == ["standard track: 1. alpha 50.0", "enhanced track: none"]
    assert "gamma" not in (tmp_path / "site" / "leaderboard.json").read_text()
