"""The metric card: evaluate's template sections, examples that run as written, the module's name."""

import doctest
from pathlib import Path

import naf_bench.scoring

CARD = Path(__file__).resolve().parent.parent / "modellog_metric" / "README.md"


def test_the_card_has_evaluates_sections():
    text = CARD.read_text(encoding="utf-8")
    for section in ("## Metric Description", "## How to Use", "### Inputs", "### Output Values",
                    "#### Values from Popular Papers", "### Examples", "## Limitations and Bias", "## Citation",
                    "## Further References"):  # fmt: skip
        assert f"\n{section}\n" in text, section
    assert "| `consistency` | `rho` | −1–1 |" in text and "0.817 label accuracy but 0.167" in text


def test_the_cards_examples_run_as_written():
    examples = CARD.read_text(encoding="utf-8").split("### Examples")[1].split("```python")[1].split("```")[0]
    test = doctest.DocTestParser().get_doctest(examples, {}, "card", str(CARD), 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=8)


def test_the_module_says_naf_bench():
    label = naf_bench.scoring.load_metric("label")
    assert label.name == "naf_bench" and label.config_name == "label"
    assert "NAF-Bench" in label.description and "2609.27517" in label.citation
