"""ModelLog (seed 002): evaluation as weighted model counting over constraints on a model's predictions.

Formulas over named prediction events: ``&``, ``|``, ``~``, ``->``, ``<->``, ``^`` (xor), ``true``/``false``
(or ``1``/``0``), parentheses and ``atleast(k, f1, f2, ...)``; precedence ``~`` > ``&`` > ``|`` > ``^`` > ``->``
(right-associative) > ``<->``. Each formula is compiled once into the set of its models (a boolean mask over
all assignments of its events) and evaluated on whole batches of probability vectors with numpy (torch for
the differentiable semantic loss).

- WMC(F, p) = sum over models I of prod_{P true in I} p(P) * prod_{P false in I} (1 - p(P)), events independent.
- WMC0(F) = #models / 2^|vars|, the uninformed prior (every event at 1/2); I(F) = -log2 WMC0(F).
- rho = (WMC - WMC0) / (1 - WMC0); CAcc = [WMC > WMC0]. A tautology (WMC0 = 1) gives WMC = 1 for every
  model: nothing can be gained over chance, so rho = 0 and CAcc = 0 by definition. An unsatisfiable formula
  (WMC0 = 0) gives rho = 0, CAcc = 0 and I = inf.
- Calibration (Eq. 4): p_hat = sigmoid(logit(p) + C) with C the entropy of the top-p nucleus
  (``nucleus_entropy``), of the full distribution (``entropy``), or the log nucleus size (``log_nucleus_size``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from naf_bench.errors import ParseError

CALIBRATIONS = ("none", "nucleus_entropy", "entropy", "log_nucleus_size")
MAX_EVENTS = 22
MAX_NESTING = 64  # parentheses, '~' and atleast( nested deeper are a ParseError (the parser recurses on them)
CHUNK = 1 << 22  # numbers held at once per chunk of items (float64: 32 MB), whatever the batch
_FORMULA_TOKEN = re.compile(r"\s*(?:(<->|->|[&|~^(),])|(\d+)|([A-Za-z_][A-Za-z0-9_.]*))")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, int]] = []
        position = 0
        while position < len(text):
            match = _FORMULA_TOKEN.match(text, position)
            if not match or match.end() == position:
                if text[position:].strip() == "":
                    break
                column = position + len(text[position:]) - len(text[position:].lstrip()) + 1
                raise ParseError(f"unexpected {text[column - 1]!r} in formula", 1, column, text)
            value = match.group(1) or match.group(2) or match.group(3)
            self.tokens.append((value, match.start(match.lastindex) + 1))
            position = match.end()
        self.index = 0
        self.depth = 0

    def nest(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ParseError(f"formula nested deeper than {MAX_NESTING} levels", 1, column, self.text)

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def take(self, literal: str | None = None, description: str | None = None) -> tuple[str, int]:
        """The next token; it must equal ``literal`` when given (``description`` names it in errors)."""
        wanted = description or repr(literal)
        if self.index >= len(self.tokens):
            raise ParseError(f"unexpected end of formula, expected {wanted}", 1, len(self.text) + 1, self.text)
        token = self.tokens[self.index]
        if literal is not None and token[0] != literal:
            raise ParseError(f"expected {wanted}, got {token[0]!r}", 1, token[1], self.text)
        self.index += 1
        return token

    def parse(self):
        node = self.iff()
        if self.peek() is not None:
            value, column = self.tokens[self.index]
            raise ParseError(f"unexpected {value!r} after a complete formula", 1, column, self.text)
        return node

    def chain(self, operator: str, kind: str, operand):
        """``a op b op ...`` as one n-ary node (no tree as deep as the formula is long)."""
        operands = [operand()]
        while self.peek() == operator:
            self.take()
            operands.append(operand())
        return operands[0] if len(operands) == 1 else (kind, tuple(operands))

    def iff(self):
        return self.chain("<->", "iff", self.implies)

    def implies(self):  # right-associative: the n-ary node is folded from the right
        return self.chain("->", "implies", self.xor)

    def xor(self):
        return self.chain("^", "xor", self.disjunction)

    def disjunction(self):
        return self.chain("|", "or", self.conjunction)

    def conjunction(self):
        return self.chain("&", "and", self.unary)

    def unary(self):
        depth = self.depth
        negations = 0
        while self.peek() == "~":
            self.nest(self.take()[1])
            negations += 1
        node = self.atom()
        self.depth = depth
        return ("not", node) if negations % 2 else node

    def atom(self):
        value, column = self.take(description="an event, a constant or '('")
        if value == "(":
            self.nest(column)
            node = self.iff()
            self.take(")")
            self.depth -= 1
            return node
        if value in ("true", "1"):
            return ("const", True)
        if value in ("false", "0"):
            return ("const", False)
        if value == "atleast":
            self.nest(column)
            self.take("(")
            k_token, k_column = self.take(description="a number")
            if not k_token.isdigit():
                raise ParseError(f"atleast needs a number first, got {k_token!r}", 1, k_column, self.text)
            operands = []
            while self.peek() == ",":
                self.take()
                operands.append(self.iff())
            self.take(")")
            if not operands:
                raise ParseError("atleast needs at least one formula", 1, column, self.text)
            self.depth -= 1
            return ("atleast", int(k_token), tuple(operands))
        if value[0].isdigit() or value in ("<->", "->", "&", "|", "^", ")", ","):
            raise ParseError(f"expected an event, a constant or '(', got {value!r}", 1, column, self.text)
        return ("var", value, column)


def _variables(node, found: dict[str, int]) -> None:
    kind = node[0]
    if kind == "var":
        found.setdefault(node[1], node[2])
    elif kind == "not":
        _variables(node[1], found)
    elif kind == "atleast":
        for operand in node[2]:
            _variables(operand, found)
    elif kind != "const":
        for operand in node[1]:
            _variables(operand, found)


_FOLD = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor, "iff": np.equal}


def _evaluate(node, columns: dict[str, np.ndarray], size: int) -> np.ndarray:
    kind = node[0]
    if kind == "var":
        return columns[node[1]]
    if kind == "const":
        return np.full(size, node[1])
    if kind == "not":
        return ~_evaluate(node[1], columns, size)
    if kind == "atleast":
        count = sum(_evaluate(operand, columns, size).astype(np.int64) for operand in node[2])
        return count >= node[1]
    values = [_evaluate(operand, columns, size) for operand in node[1]]
    if kind == "implies":  # a -> b -> c is a -> (b -> c)
        result = values[-1]
        for value in reversed(values[:-1]):
            result = ~value | result
        return result
    result = values[0]
    for value in values[1:]:
        result = _FOLD[kind](result, value)
    return result


@dataclass(frozen=True)
class Formula:
    """A compiled formula: its events (in first-occurrence order) and its models as a boolean mask."""

    text: str
    events: tuple[str, ...]
    columns: tuple[int, ...]  # 1-based column of each event's first occurrence
    models: np.ndarray  # bool, index a has event i true iff bit i of a is set

    @property
    def wmc0(self) -> float:
        return float(self.models.mean())

    @property
    def informativeness(self) -> float:
        wmc0 = self.wmc0
        return math.inf if wmc0 == 0 else -math.log2(wmc0) + 0.0

    def wmc(self, probabilities: np.ndarray) -> np.ndarray:
        """WMC for a batch: ``probabilities`` has shape (batch, len(events)), columns in ``events`` order.

        Events split into a low and a high half: the weight of assignment (high, low) is H[high] * L[low],
        so WMC = H^T M L with M the models as a 2^high x 2^low matrix, one matrix product per chunk of
        rows; memory stays near :data:`CHUNK` numbers whatever the batch size.
        """
        probabilities = np.asarray(probabilities, dtype=np.float64)
        n_low = len(self.events) // 2
        models = self.models.reshape(-1, 1 << n_low).astype(np.float64)
        step = max(1, CHUNK >> n_low)
        out = np.empty(len(probabilities))
        for start in range(0, len(probabilities), step):
            chunk = probabilities[start : start + step]
            low, high = assignment_weights(chunk[:, :n_low]), assignment_weights(chunk[:, n_low:])
            out[start : start + step] = ((high @ models) * low).sum(axis=1)
        return out


@lru_cache(maxsize=64)  # a mask is up to 2^MAX_EVENTS bytes (4 MB)
def compile_formula(text: str) -> Formula:
    """Parse and compile once (cached): ParseError with the column on bad syntax."""
    tree = _Parser(text).parse()
    found: dict[str, int] = {}
    _variables(tree, found)
    if len(found) > MAX_EVENTS:
        raise ValueError(f"formula has {len(found)} events; exact counting is limited to {MAX_EVENTS}")
    size = 2 ** len(found)
    indices = np.arange(size)
    columns = {event: ((indices >> i) & 1).astype(bool) for i, event in enumerate(found)}
    models = np.asarray(_evaluate(tree, columns, size), dtype=bool)
    models.setflags(write=False)
    return Formula(text, tuple(found), tuple(found.values()), models)


def assignment_weights(probabilities):
    """Probability of every assignment (bit i = event i), batched; numpy arrays or torch tensors."""
    batch = probabilities.shape[0]
    if isinstance(probabilities, np.ndarray):
        weights, concat = np.ones((batch, 1)), lambda low, high: np.concatenate([low, high], axis=1)
    else:
        import torch

        weights = torch.ones((batch, 1), dtype=probabilities.dtype, device=probabilities.device)
        concat = lambda low, high: torch.cat([low, high], dim=1)  # noqa: E731
    for i in range(probabilities.shape[1]):
        p = probabilities[:, i : i + 1]
        weights = concat(weights * (1 - p), weights * p)
    return weights


def calibrate(p, offset):
    """Eq. 4: sigmoid(logit(p) + C), numerically safe at p in {0, 1}."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return 1 / (1 + np.exp(-(np.log(p) - np.log1p(-p) + offset)))


def calibration_offsets(distribution, top_p: float = 0.95) -> dict[str, float]:
    """C for each calibration, from one next-token probability distribution (entropies in nats)."""
    probs = np.sort(np.asarray(distribution, dtype=np.float64))[::-1]
    probs = probs / probs.sum()
    size = int(np.searchsorted(np.cumsum(probs), top_p) + 1)
    nucleus = probs[:size] / probs[:size].sum()
    positive = probs[probs > 0]
    return {
        "none": 0.0,
        "nucleus_entropy": float(-(nucleus * np.log(nucleus)).sum()),
        "entropy": float(-(positive * np.log(positive)).sum()),
        "log_nucleus_size": float(math.log(size)),
    }


def _number(value, where: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: probability {value!r} is not a number") from None


def _event_probability(value, calibration: str, where: str) -> float:
    if isinstance(value, Mapping):
        if "p" not in value:
            raise ValueError(f"{where}: an event given as a mapping needs 'p' (and calibration offsets)")
        p = _number(value["p"], where)
        if calibration != "none":
            if calibration not in value:
                raise ValueError(f"{where}: calibration {calibration!r} needs the offset {calibration!r}")
            p = float(calibrate(p, _number(value[calibration], f"{where} offset {calibration!r}")))
    else:
        if calibration != "none":
            raise ValueError(
                f"{where}: calibration {calibration!r} needs offsets; give {{'p': ..., {calibration!r}: C}}"
            )
        p = _number(value, where)
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        raise ValueError(f"{where}: probability {p} is outside [0, 1]")
    return p


def compute_consistency(
    formulas: Sequence[str],
    probabilities: Sequence[Mapping[str, object]],
    calibration: str = "none",
) -> dict:
    """Per-item lists and means of wmc, wmc0, rho, cacc and informativeness.

    ``probabilities[i]`` maps each event of ``formulas[i]`` to its probability, or to a mapping with ``p`` and
    calibration offsets (as :func:`naf_bench.scoring.lm.letter_probabilities` returns them).
    """
    if len(formulas) != len(probabilities):
        raise ValueError(f"probabilities has {len(probabilities)} entries but formulas has {len(formulas)}")
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    n = len(formulas)
    wmc = np.zeros(n)
    wmc0 = np.zeros(n)
    groups: dict[str, list[int]] = {}
    for i, text in enumerate(formulas):
        groups.setdefault(text, []).append(i)
    for text, items in groups.items():
        formula = compile_formula(text)
        batch = np.empty((len(items), len(formula.events)))
        for row, i in enumerate(items):
            for column, (event, position) in enumerate(zip(formula.events, formula.columns, strict=True)):
                if event not in probabilities[i]:
                    raise ValueError(
                        f"formulas[{i}]: event {event!r} (column {position}) has no probability in probabilities[{i}]"
                    )
                where = f"probabilities[{i}][{event!r}]"
                batch[row, column] = _event_probability(probabilities[i][event], calibration, where)
        wmc[items] = formula.wmc(batch)
        wmc0[items] = formula.wmc0
    return summarize(wmc, wmc0)


def summarize(wmc: np.ndarray, wmc0: np.ndarray) -> dict:
    informative = (wmc0 > 0) & (wmc0 < 1)
    rho = np.where(informative, (wmc - wmc0) / np.where(informative, 1 - wmc0, 1), 0.0)
    cacc = (informative & (wmc > wmc0)).astype(float)
    info = np.where(wmc0 > 0, -np.log2(np.where(wmc0 > 0, wmc0, 1)) + 0.0, np.inf)
    per_item = {"wmc": wmc, "wmc0": wmc0, "rho": rho, "cacc": cacc, "informativeness": info}
    result = {name: values.tolist() for name, values in per_item.items()}
    for name, values in per_item.items():
        result[f"mean_{name}"] = float(values.mean()) if len(values) else None
    return result


def semantic_loss(formula: str, probabilities, eps: float = 1e-12):
    """-log WMC(F, p) in torch, batched and differentiable; ``probabilities``: (batch, events) tensor."""
    import torch

    compiled = compile_formula(formula)
    if probabilities.ndim != 2 or probabilities.shape[1] != len(compiled.events):
        raise ValueError(f"probabilities must have shape (batch, {len(compiled.events)}) for events {compiled.events}")
    mask = torch.as_tensor(np.array(compiled.models), device=probabilities.device)
    step = max(1, CHUNK >> len(compiled.events))
    chunks = [probabilities[i : i + step] for i in range(0, len(probabilities), step)]
    wmc = torch.cat([(assignment_weights(chunk) * mask).sum(dim=1) for chunk in chunks])
    return -torch.log(wmc.clamp_min(eps))
