"""The three answer extractors on realistic free-form outputs (written for these tests), and degenerate input."""

import pytest

from naf_bench.scoring.extract import extract_answer, strip_thinking, unalias_extractor

RESTATED_OPTIONS = "Choose exactly one:\n  A. Definitely yes\n  B. Definitely no\n  C. Cannot be determined\n"


@pytest.mark.parametrize(
    ("text", "strict", "flexible"),
    [
        # the instructed format, however decorated
        ("Reasoning first.\n\n**ANSWER: C**", "C", "C"),
        ("ANSWER: (B)", "B", "B"),
        ("ANSWER:\n\nA", "A", "A"),
        ("Final answer: **B**", "B", "B"),
        ("The final answer is (C).", "C", "C"),
        # prose that only looks like the format
        ("To answer: a cycle through negation decides this.\nANSWER: B", "B", "B"),
        ("We answer: a cycle exists, so nothing follows.", None, None),
        ("The final answer is a bit subtle here; q is undefined.", None, "C"),
        # small models: an option line instead of the ANSWER line
        ("C. Cannot be determined", None, "C"),
        ("**B**", "B", "B"),
        ("**B** – definitely no, since blocked holds.", None, "B"),
        ("(A) Definitely yes", None, "A"),
        ("### Answer\nB. Definitely no", None, "B"),
        # a restated option list is not an answer; the conclusion after it is
        (RESTATED_OPTIONS, None, None),
        (RESTATED_OPTIONS + "\nq cannot be determined.", None, "C"),
        # LaTeX
        ("Thus $q$ is false, so \\boxed{B}", None, "B"),
        ("\\[\n\\boxed{\\text{Cannot be determined}}\n\\]", None, "C"),
        ("The final answer is: $\\boxed{\\text{True}}$.", None, "A"),
        # <think> blocks and truncation
        ("<think>ANSWER: A looks tempting</think>\nANSWER: C", "C", "C"),
        ("<think>long deliberation that never closes ... ANSWER: A", None, None),
        ("Step 1: p0 is true by rule 3.\nStep 2: q depends on r, which", None, None),
        # hedges stay unanswered
        ("the answer is probably A", None, None),
        ("It might be A or B.", None, None),
        ("I have no idea.", None, None),
        ("No, because blocked holds.", None, "B"),
        ("Yes.", None, "A"),
        ("The answer is B.", None, "B"),
        # Chinese
        ("所以答案是：\nANSWER: C", "C", "C"),
        ("C. 无法确定", None, "C"),
    ],
)
def test_strict_and_flexible_on_free_form_outputs(text, strict, flexible):
    assert extract_answer(text, "strict") == strict
    assert extract_answer(text, "flexible") == flexible


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        ("we answer: A then\nANSWER: C", "q", "C"),
        ("Answer = B", "q", "B"),
        ("(C).", "q", "C"),
        ("<think>ANSWER: B</think>nothing visible", "q", "B"),  # the raw text is read after the visible text
        ("The final answer is \\boxed{\\text{True}}.", "q", "A"),
        ("Conclusion: q is undefined under the WFS.", "q", "C"),
        ("In conclusion, it does not hold.", "q", "B"),
        ("The final answer is \\boxed{q}.", "q", "A"),  # the query atom's name means true
        ("The final answer is \\boxed{r}.", "q", None),
        ("Nothing conclusive here", "q", None),
    ],
)
def test_authors_extractor(text, query, expected):
    assert extract_answer(text, "authors", query=query) == expected
    assert extract_answer(text, "reference", query=query) == expected  # its old name, an alias


def test_authors_keeps_unclosed_thinking_as_the_authors_do():
    text = "<think>ANSWER: A"
    assert extract_answer(text, "strict") is None
    assert extract_answer(text, "authors") == "A"


def test_strip_thinking_is_case_insensitive_and_keeps_text_between_blocks():
    assert strip_thinking("x<THINK>a</Think>y<think>b</think>z<think>c") == "xyz"


@pytest.mark.parametrize(
    "text",
    [
        "\\boxed{" + " " * 300,
        "ANSWER:" + "\n" * 32000,
        " " * 100_000,
        "<think>" * 20_000,
        "\\boxed{" * 20_000,
        "final answer is " * 5_000,
        "(" * 50_000,
    ],
)
def test_degenerate_input_is_unanswered(text):
    # linear time is measured by scripts/bench_extract.py; here: each is read, and none is an answer
    for extractor in ("strict", "flexible", "authors"):
        assert extract_answer(text, extractor) is None


def test_the_old_name_of_the_authors_extractor_is_read_wherever_an_extractor_is_named():
    from naf_bench.cli import build_parser
    from naf_bench.scoring.core import score

    assert unalias_extractor("reference") == "authors" and unalias_extractor("strict") == "strict"
    assert build_parser().parse_args(["score", "run.jsonl", "--extractor", "reference"]).extractor == "authors"
    assert (
        build_parser().parse_args(["analyze", "--authors", "ref", "--extractor", "reference", "--out", "o"]).extractor
        == "authors"
    )
    assert score([], {}, extractor="reference").extractor == "authors"
