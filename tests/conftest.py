"""What the tests share, as fixtures: a tiny causal LM built here, small gold sets, submissions and metadata written
in the formats the package reads (never the reference data), and a fifth reading to register."""

import json
import os
import random

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no Hub here: every dataset is generated locally
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest

from naf_bench.readings import Reading


def build_tiny_lm(path=None):
    """A random 1-layer GPT-2 with a word-level tokenizer built here (no download); saved if ``path``."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["[UNK]", "[EOS]", "A", "B", "C", "ANSWER", ":", "Is", "proposition", "Proposition", "q", "true",
             "?", "not", "if", "and", "."]  # fmt: skip
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="[UNK]", eos_token="[EOS]", pad_token="[EOS]"
    )
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=len(words), n_positions=4096, n_embd=16, n_layer=1, n_head=2, bos_token_id=1, eos_token_id=1
    )
    model = transformers.GPT2LMHeadModel(config)
    if path is not None:
        model.save_pretrained(path)
        fast.save_pretrained(path)
    return model, fast


CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} [EOS] {% endfor %}"
    "{% if add_generation_prompt %}assistant : {% endif %}"
)


@pytest.fixture(scope="module")
def tiny_chat_lm(tmp_path_factory):
    """The tiny random GPT-2 above with a chat template, saved as a model folder."""
    model, tokenizer = build_tiny_lm()
    tokenizer.chat_template = CHAT_TEMPLATE
    folder = tmp_path_factory.mktemp("tiny_chat_lm")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session", name="build_tiny_lm")
def tiny_lm_builder():
    """``build_tiny_lm(path=None) -> (model, tokenizer)``: the tiny random GPT-2 above, saved as a model folder at
    ``path`` when one is given."""
    return build_tiny_lm


GOLD_CONDITIONS = ("none", "closed_world", "cred", "skept", "wfs")


def _write_gold(path, n_programs=12, seed=0, prefix="p"):
    rng = random.Random(seed)
    rows = []
    for i in range(n_programs):
        for condition in GOLD_CONDITIONS:
            rows.append({
                "id": f"{prefix}{i}::{condition}", "gold": None if condition == "none" else rng.choice("ABC"),
                "condition": condition, "program_id": f"{prefix}{i}", "family": f"fam{i % 3}",
            })  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return rows


def _answers(rows, solved: int, wrong="A"):
    """Predictions solving the first ``solved`` programs (all four readings right) and missing the rest."""
    programs = list(dict.fromkeys(row["program_id"] for row in rows))
    good = set(programs[:solved])
    out = {}
    for row in rows:
        if row["gold"] is None:
            out[row["id"]] = "A"
        elif row["program_id"] in good:
            out[row["id"]] = row["gold"]
        else:  # one reading wrong is enough to miss the program; keep the others right
            first = row["condition"] == "closed_world"
            out[row["id"]] = ("B" if row["gold"] == wrong else wrong) if first else row["gold"]
    return out


def _write_submission(path, predictions, extra_lines=()):
    lines = [json.dumps({"id": key, "prediction": value}) for key, value in predictions.items()]
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path


METADATA = {
    "model_name": "tiny-model", "track": "standard", "prompt_setting": "zero-shot", "reasoning_mode": "direct",
    "external_tools": False, "temperature": 0, "samples_per_item": 1, "contact": "secret-contact@example.org",
}  # fmt: skip


def _write_metadata(path, **changes):
    path.write_text(json.dumps({**METADATA, **changes}), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def two_program_gold():
    """Gold rows of two programs under the four readings: an odd one, p1 (closed_world C, cred B, skept A, wfs C),
    and a control, p2 (A under every reading); ids ``p1-cred`` …, families ``odd`` and ``control``."""
    golds = {
        "p1": ("odd", {"closed_world": "C", "cred": "B", "skept": "A", "wfs": "C"}),
        "p2": ("control", {"closed_world": "A", "cred": "A", "skept": "A", "wfs": "A"}),
    }
    return [
        {"id": f"{p}-{c}", "program_id": p, "family": family, "condition": c, "gold": gold}
        for p, (family, readings) in golds.items()
        for c, gold in readings.items()
    ]


@pytest.fixture(scope="session", name="write_gold")
def write_gold_fixture():
    """``write_gold(path, n_programs=12, seed=0, prefix='p') -> rows``: a gold set of every condition."""
    return _write_gold


@pytest.fixture(scope="session", name="answers")
def answers_fixture():
    """``answers(rows, solved, wrong='A') -> {id: letter}``: the first ``solved`` programs right."""
    return _answers


@pytest.fixture(scope="session", name="write_submission")
def write_submission_fixture():
    """``write_submission(path, predictions, extra_lines=()) -> path``: a submission's JSONL."""
    return _write_submission


@pytest.fixture(scope="session", name="write_metadata")
def write_metadata_fixture():
    """``write_metadata(path, **changes) -> path``: a submission's metadata, changed as asked."""
    return _write_metadata


# A fifth reading (the well-founded semantics read two-valued) and its engine, for the tests that register one: its
# engine is imported by name in worker processes and on Ray's nodes, so it lives in a module they can import.
WFS2 = Reading(
    "wfs2",
    "wfs two-valued",
    "wfs2",
    {"T": "A", "F": "B"},
    5,
    False,  # JOINT stays the four readings of the paper
    (),
    instructions={
        "en": (
            "Use the well-founded semantics, reading every statement it leaves undefined as false. Answer A if the "
            "statement in the question is true, and B otherwise."
        ),
        "zh": "请使用良基语义，并把其中未定义的命题都当作假。若问题中的命题为真选 A，否则选 B。",
    },
    verdicts={
        "en": dict.fromkeys("TF", "under the two-valued well-founded semantics {claim}."),
        "zh": dict.fromkeys("TF", "在二值良基语义下，{claim}。"),
    },
    undefined_as="F",
)


def two_valued(solved, query):
    """The WFS label with undefined read as false; no effort of its own (the WFS engine's result is reused)."""
    return ("T" if solved.wfs.value(query) == "T" else "F"), {}


@pytest.fixture(scope="session")
def wfs2_reading():
    """``(reading, engine)``: the fifth reading above, not registered (a test registers it and unregisters it)."""
    return WFS2, two_valued
