"""The metric card: evaluate's template sections, examples that run as written, the module's name."""

import doctest
from pathlib import Path

import naf_bench.scoring

CARD = Path(__file__).resolve().parents[2] / "modellog_metric" / "README.md"


def test_the_card_has_evaluates_sections():
    text = CARD.read_text(encoding="utf-8")
    for section in (
        "## Metric Description",
        "## How to Use",
        "### Inputs",
        "### Output Values",
        "#### Values from Popular Papers",
        "### Examples",
        "## Limitations and Bias",
        "## Citation",
        "## Further References",
    ):
        assert f"\n{section}\n" in text, section
    assert "| `consistency` | `rho` | −WMC0/(1 − WMC0) to 1 | (WMC − WMC0)/(1 − WMC0)" in text
    assert "0.817 label accuracy but 0.167" in text


def test_every_example_of_the_card_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the repository root, as a user's project
    blocks = [block.split("```")[0] for block in CARD.read_text(encoding="utf-8").split("```python")[1:]]
    assert len(blocks) == 3 and all(block.lstrip().startswith(">>>") for block in blocks)
    session = "\n".join(blocks)  # one session, as a reader runs them: a later block uses what an earlier loaded
    runner = doctest.DocTestRunner()
    runner.run(doctest.DocTestParser().get_doctest(session, {}, "card", str(CARD), 0))
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=20)


def test_the_module_says_naf_bench():
    label = naf_bench.scoring.load_metric("label")
    assert label.name == "naf_bench" and label.config_name == "label"
    assert "NAF-Bench" in label.description and "2609.27517" in label.citation
