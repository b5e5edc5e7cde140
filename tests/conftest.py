import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no Hub here: every dataset is generated locally
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest

from naf_bench.syntax import parse_header, parse_program

GOLDEN_DIR = Path(__file__).parent / "golden"


def golden_cases():
    cases = []
    for path in sorted(GOLDEN_DIR.glob("*.lp")):
        text = path.read_text()
        header = parse_header(text)
        cases.append(
            pytest.param(parse_program(text), header["query"], header["expect"], int(header["models"]), id=path.stem)
        )
    return cases


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
