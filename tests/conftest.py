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
