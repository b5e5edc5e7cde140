import math
import re

import numpy as np
import pytest

from naf_bench import ParseError
from naf_bench.scoring.consistency import (
    calibrate,
    calibration_offsets,
    compile_formula,
    compute_consistency,
    semantic_loss,
)
from naf_bench.scoring.constraints import constraint_formulas, row_events


@pytest.mark.parametrize(
    ("formula", "informativeness"),
    [
        ("(x1y1 & x2y2) -> x1y2", 0.193),  # transitivity (seed 002, Table 1)
        ("p1 -> p2", 0.415),  # forward implication
        ("p_x ^ p_not_x", 1.0),  # negation consistency
        ("atleast(1, a, b) & ~atleast(2, a, b)", 1.0),  # mutual exclusivity
    ],
)
def test_table_1_informativeness(formula, informativeness):
    assert round(compile_formula(formula).informativeness, 3) == informativeness


def test_exact_wmc_values():
    scores = compute_consistency(
        ["a -> b", "a ^ b", "a | ~a", "a & ~a", "atleast(2, a, b, c)", "(a <-> b) & true"],
        [{"a": 0.9, "b": 0.8}, {"a": 0.9, "b": 0.1}, {"a": 0.3}, {"a": 0.3},
         {"a": 0.5, "b": 0.5, "c": 0.5}, {"a": 0.2, "b": 0.4}],
    )  # fmt: skip
    assert np.allclose(scores["wmc"], [0.82, 0.82, 1.0, 0.0, 0.5, 0.56])
    assert np.allclose(scores["wmc0"], [0.75, 0.5, 1.0, 0.0, 0.5, 0.5])
    assert np.allclose(scores["rho"], [0.28, 0.64, 0.0, 0.0, 0.0, 0.12])
    assert scores["cacc"] == [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    assert scores["informativeness"][3] == math.inf
    assert math.isclose(scores["mean_cacc"], 0.5)


def test_batched_equals_naive_enumeration():
    rng = np.random.default_rng(0)
    formula = compile_formula("(a | b) & (c -> ~a) ^ d")
    batch = rng.random((50, 4))
    naive = []
    for probs in batch:
        total = 0.0
        for assignment in range(16):
            bits = [(assignment >> i) & 1 for i in range(4)]
            if formula.models[assignment]:
                total += math.prod(p if bit else 1 - p for p, bit in zip(probs, bits, strict=True))
        naive.append(total)
    assert np.allclose(formula.wmc(batch), naive)


@pytest.mark.parametrize(
    ("formula", "column", "message"),
    [
        ("a &", 4, "unexpected end of formula"),
        ("a & & b", 5, "expected an event, a constant or '('"),
        ("a -> (b", 8, "expected ')'"),
        ("atleast(x, a)", 9, "atleast needs a number first"),
        ("a $ b", 3, "unexpected '$'"),
        ("a b", 3, "unexpected 'b' after a complete formula"),
    ],
)
def test_formula_syntax_errors(formula, column, message):
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        compile_formula(formula)
    assert info.value.column == column


def test_bad_probabilities_raise_with_position():
    with pytest.raises(ValueError, match=r"event 'b' \(column 5\) has no probability in probabilities\[0\]"):
        compute_consistency(["a & b"], [{"a": 0.5}])
    with pytest.raises(ValueError, match=r"probability 1.5 is outside \[0, 1\]"):
        compute_consistency(["a"], [{"a": 1.5}])
    with pytest.raises(ValueError, match="probabilities has 2 entries but formulas has 1"):
        compute_consistency(["a"], [{"a": 0.5}, {"a": 0.5}])
    with pytest.raises(ValueError, match="needs offsets"):
        compute_consistency(["a"], [{"a": 0.5}], calibration="entropy")


def test_calibration():
    assert math.isclose(float(calibrate(0.5, 0.0)), 0.5)
    assert math.isclose(float(calibrate(0.2, math.log(4))), 0.5)  # odds 1/4 times e^C = 4
    uniform = calibration_offsets([0.25] * 4, top_p=0.95)
    assert math.isclose(uniform["entropy"], math.log(4)) and math.isclose(uniform["log_nucleus_size"], math.log(4))
    peaked = calibration_offsets([0.96, 0.02, 0.02], top_p=0.95)
    assert peaked["nucleus_entropy"] == 0.0 and peaked["log_nucleus_size"] == 0.0
    scores = compute_consistency(["a"], [{"a": {"p": 0.2, "entropy": math.log(4)}}], calibration="entropy")
    assert math.isclose(scores["wmc"][0], 0.5)


def test_semantic_loss_gradient_identity():
    torch = pytest.importorskip("torch")
    formula = "(a & b) -> c | ~d"
    compiled = compile_formula(formula)
    probs = torch.tensor([[0.9, 0.2, 0.7, 0.4], [0.1, 0.8, 0.3, 0.6]], dtype=torch.float64, requires_grad=True)
    loss = semantic_loss(formula, probs)
    assert torch.allclose(loss, -torch.log(torch.tensor(compiled.wmc(probs.detach().numpy()))))
    grad_loss = torch.autograd.grad(loss.sum(), probs)[0]
    wmc = torch.exp(-semantic_loss(formula, probs))
    grad_wmc = torch.autograd.grad(wmc.sum(), probs)[0]
    a = compiled.wmc0 / wmc.detach()  # A(F, theta) = WMC0 / WMC
    assert torch.allclose(grad_loss, -(a * 2**compiled.informativeness)[:, None] * grad_wmc)
    with pytest.raises(ValueError, match="must have shape"):
        semantic_loss(formula, probs[:, :2])


def test_constraint_families_from_rows():
    rows = [
        {"condition": "none", "gold": None},
        {"condition": "wfs", "gold": "C"},
        {"condition": "skept", "gold": "A"},
        {"condition": "wfs", "gold": "C"},
        {"condition": "closed_world", "gold": "C"},
        {"condition": "cred", "gold": "B"},
    ]
    formulas = constraint_formulas(rows)
    families = [family for family, _ in formulas]
    assert families.count("one_letter") == 6 and families.count("certified") == 5
    assert ("invariance", "(r1_A <-> r3_A) & (r1_B <-> r3_B) & (r1_C <-> r3_C)") in formulas
    assert ("inclusion", "r1_A -> r2_A") in formulas and ("inclusion", "r4_A -> r1_A") in formulas
    perfect = (
        [{"A": 0.0, "B": 0.0, "C": 1.0}] * 2 + [{"A": 1.0, "B": 0.0, "C": 0.0}] + [{"A": 0.0, "B": 0.0, "C": 1.0}] * 2
    )
    perfect += [{"A": 0.0, "B": 1.0, "C": 0.0}]
    scores = compute_consistency([f for _, f in formulas], [row_events(perfect)] * len(formulas))
    assert scores["wmc"] == [1.0] * len(formulas)
