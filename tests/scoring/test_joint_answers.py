"""naf_bench.scoring.joint_answers: each JOINT reading's letter from its tagged line, after thinking, the last
readable line winning."""

from naf_bench.scoring.joint_answers import joint_answers

UNANSWERED = {"closed_world": None, "cred": None, "skept": None, "wfs": None}


def test_tagged_lines_in_markdown_or_brackets_answer_their_readings():
    text = "<think>wfs ANSWER: A</think>\n**wfs** ANSWER: C\n[cred] ANSWER: A\n- skept: B\nclosed_world: hmm"
    assert joint_answers(text, "strict") == {"closed_world": None, "cred": "A", "skept": "B", "wfs": "C"}


def test_the_last_line_that_reads_as_a_letter_counts():
    assert joint_answers("CRED ANSWER: A\ncred ANSWER: B\ncred ANSWER: maybe", "strict")["cred"] == "B"


def test_no_text_answers_no_reading():
    assert joint_answers(None, "flexible") == UNANSWERED
    assert joint_answers("ANSWER: A", "flexible") == UNANSWERED
