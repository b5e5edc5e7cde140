from pathlib import Path

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
