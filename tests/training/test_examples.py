"""naf_bench.training.examples: what training reads, built from rows: letter-only targets, DPO pairs of readings
that answer differently, seeded program groups, the train/held-out disjointness check, and the chat prompt."""

import pytest

from naf_bench.errors import ConfigError
from naf_bench.training.examples import (
    answer_line_tokens,
    chat_prompt,
    check_disjoint,
    letter_completions,
    preference_pairs,
    program_groups,
)


def row(program_id, condition, gold, framing="abstract", order_id=0, program="p :- not q.", query="p"):
    return {
        "program_id": program_id, "condition": condition, "gold": gold, "framing": framing, "order_id": order_id,
        "program": program, "query": query,
        "messages": [{"role": "user", "content": f"{program_id} under {condition}?"},
                     {"role": "assistant", "content": f"trace of {condition}\nANSWER: {gold}"}],
    }  # fmt: skip


def test_a_letter_completion_is_the_answer_line_alone():
    [done] = letter_completions([row("p0", "wfs", "C")])
    assert done["messages"] == [
        {"role": "user", "content": "p0 under wfs?"},
        {"role": "assistant", "content": "ANSWER: C"},
    ]
    assert (done["program_id"], done["gold"]) == ("p0", "C")


def test_preference_pairs_set_a_reading_against_another_of_the_same_variant_that_answers_differently():
    rows = [row("p0", "wfs", "C"), row("p0", "closed_world", "A"), row("p0", "cred", "A"),
            row("p0", "skept", "A", order_id=1), row("p1", "wfs", "B")]  # fmt: skip
    pairs = preference_pairs(rows)
    assert [(pair["chosen"][0]["content"][9:], pair["rejected"][0]["content"][9:]) for pair in pairs] == [
        ("wfs\nANSWER: C", "closed_world\nANSWER: A"),
        ("wfs\nANSWER: C", "cred\nANSWER: A"),
        ("closed_world\nANSWER: A", "wfs\nANSWER: C"),
        ("cred\nANSWER: A", "wfs\nANSWER: C"),
    ]
    assert pairs[0]["prompt"] == [{"role": "user", "content": "p0 under wfs?"}]
    with pytest.raises(ConfigError, match="no preference pair to train on"):
        preference_pairs([row("p0", "wfs", "A"), row("p0", "cred", "A")])


def test_program_groups_keep_a_programs_rows_together_in_a_seeded_order():
    rows = [row(f"p{i}", condition, "A") for i in range(6) for condition in ("wfs", "cred")]
    groups = program_groups(rows, seed=3)
    assert [[r["condition"] for r in group] for group in groups] == [["wfs", "cred"]] * 6
    order = [group[0]["program_id"] for group in groups]
    assert sorted(order) == [f"p{i}" for i in range(6)] and order == [
        g[0]["program_id"] for g in program_groups(rows, 3)
    ]
    assert order != [g[0]["program_id"] for g in program_groups(rows, 4)]


def test_a_held_out_program_equal_to_a_training_one_up_to_renaming_is_refused():
    train = [row("p0", "wfs", "C", program="p :- not q.", query="p")]
    check_disjoint(train, [row("e0", "wfs", "A", program="a :- not b.\nb.", query="a")])
    with pytest.raises(ConfigError, match="1 evaluation programs are training programs"):
        check_disjoint(train, [row("e0", "wfs", "C", program="a :- not b.", query="a")])


def test_the_answer_line_and_the_chat_prompt_come_from_the_models_tokenizer(tiny_chat_lm):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_chat_lm)
    assert answer_line_tokens(tokenizer) == 3  # 'ANSWER', ':', the letter: words of the tiny model's vocabulary
    assert chat_prompt(tokenizer, row("p0", "wfs", "C")) == "user : p0 under wfs? [EOS] assistant : "
