"""The golden programs (``*.lp`` here, their expected labels in each file's header) as the parameters
``program, query, expect, models`` of any test here that asks for all four."""

from pathlib import Path

import pytest

from naf_bench.syntax import parse_header, parse_program

CASES = ("program", "query", "expect", "models")


def pytest_generate_tests(metafunc):
    if not set(CASES) <= set(metafunc.fixturenames):
        return
    cases = []
    for path in sorted(Path(__file__).parent.glob("*.lp")):
        text = path.read_text()
        header = parse_header(text)
        cases.append(
            pytest.param(parse_program(text), header["query"], header["expect"], int(header["models"]), id=path.stem)
        )
    metafunc.parametrize(CASES, cases)
