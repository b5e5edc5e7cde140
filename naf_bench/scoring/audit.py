"""Trace audit of free-form reasoning (seed 000, appendix "Trace Analysis").

The audit reads what a response *asserts* about two atoms, the query and the bridge atom (where the
negation cycle, or the negation, meets the query's positive chain), and compares it with the certificate of
the row it scores. It reads assertions only:

- the text is normalised: ``<think>`` tags dropped (their reasoning kept), markdown emphasis, code spans and
  LaTeX (``$q$``, ``\\(q\\)``, ``\\text{undefined}``) unwrapped, quoted passages (``"q is true"``) removed;
- it is split into clauses at line breaks, sentence ends, ``;`` and right arrows (``->``, ``⇒``), and a clause
  is skipped when it is a question, restates a rule (``if``, ``:-``, ``<-``, "iff", "when", "unless"), is
  hypothetical or hedged ("suppose", "assume", "were", "would", "whether", "probably", ``to be``), or
  under WFS / closed-world reads an atom inside one model ("in model 1", "case 2", "in one of them");
- a value is bound to an atom only when it follows it ("cq is **undefined**", "x0, x1 and x2 are all
  undefined", "t6(true)", "x0=T") or "makes"/"leaves" it ("making q undefined"); a denial in front of the atom
  ("no rule makes cq true") binds nothing;
- under credulous / skeptical reading, atoms take values inside models, so the verdict on the query is an
  *entailment* statement: "q holds in some / at least one / every stable model", "q is skeptically true",
  "q is not in every answer set", or that no stable model exists (credulous false, skeptical vacuously true).

The last assertion on an atom counts. Structural checkpoints: the negation cycle registered (two of its atoms
named with a cycle word), for an incoherent program "no stable model" stated, for a coherent program with
several stable models under skeptical reading more than one model considered.

Classes (each with a reason): ``sound`` — the query verdict is stated and agrees with certification, and so
does every other verdict read and checkpoint; ``contradicted`` — a stated verdict disagrees, or a checkpoint is
demonstrably missing from a trace long enough to state it; ``unverifiable`` — nothing disagrees but the query
verdict is not stated; ``no_derivation`` — no value for the query or the bridge atom at all.

Every step is a single pass over the text (no pattern with nested or adjacent quantifiers over the same
characters), so the audit is linear in the length of the response.
"""

from __future__ import annotations

import re

from naf_bench.certify import Certificate
from naf_bench.readings import READINGS
from naf_bench.syntax.ast import Program
from naf_bench.syntax.graph import is_recursive, strongly_connected_components
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.structure import dependencies, relevant_atoms


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


AUDIT_CLASSES = ("sound", "contradicted", "unverifiable", "no_derivation")
NOT_TRUE = "not_T"  # "cq is not true / not derivable": false, undefined or a loop; contradicts only true
VERBOSE_CHARS = 250  # a trace this long had room to state a checkpoint

_TAGS = (("—", " , "), (" -- ", " , "),
         ("<think>", "\n"), ("</think>", "\n"), ("**", ""), ("__", " "), ("`", ""), ("$", ""), ("\\(", " "),
         ("\\)", " "), ("\\[", " "), ("\\]", " "), ("\\text{", " "), ("\\mathrm{", " "), ("\\mathit{", " "),
         ("\\textbf{", " "), ("\\,", " "), ("\\;", " "), ("\\neg", " not "), ("\\lnot", " not "), ("¬", " not "),
         ("<->", " iff "), ("↔", " iff "), ("⇔", " iff "), ("\\leftrightarrow", " iff "), (":-", " if "),
         ("<-", " if "), ("←", " if "), ("⇐", " if "), ("\\leftarrow", " if "), ("->", "\n"), ("→", "\n"),
         ("⇒", "\n"), ("=>", "\n"), ("⟹", "\n"), ("\\Rightarrow", "\n"), ("\\rightarrow", "\n"), ("\\to ", "\n"),
         ("\\implies", "\n"), ("∧", " and "), ("&", " and "), ("\\land", " and "), ("\\wedge", " and "), ("{", " { "),
         ("}", " } "), ("’", "'"), ("*", " "))  # fmt: skip
_QUOTATION = re.compile(r'"[^"\n]{0,200}"|“[^”\n]{0,200}”')
_CLAUSE_END = re.compile(r"[\n;!?]|\.(?:\s|$)")
_WORD_TOKEN = re.compile(r"[a-z0-9_]+|[=(){},:']")

_SKIP = _words(
    "determine determining evaluate evaluating compute computing consider considering trace tracing if "
    "iff when whenever unless suppose supposing assume assuming assumption were would whether "
    "hypothetically imagine try trying attempt attempting could might may maybe perhaps probably likely "
    "possibly seems guess candidate want wants need needs require requires required let"
)
_MODEL_WORDS = _words("case scenario branch model world assignment option alternative interpretation")
_LOCAL_MODEL = (("in", "one"), ("in", "another"), ("in", "the", "other"), ("in", "the", "first"),
                ("in", "the", "second"), ("in", "either"), ("in", "both"))  # fmt: skip
_COPULA = _words(
    "is are = : ( ) was becomes become remains remain stays stay be evaluates evaluated to comes out "
    "also therefore thus hence now definitely indeed all both then itself themselves still considered "
    "classified as assigned left set its value truth of must will get gets again clearly certainly "
    "necessarily ultimately finally"
)
_GLUE = _words(", and proposition propositions the atoms also finally ultimately then")
_DENIAL = _words("no neither nor cannot without missing lack lacks lacking never")  # and "not" right before the atom
_EPISTEMIC = _words("conclude affirm establish assert say claim confirm guarantee")
_MAKERS = _words("makes making make made leaves leaving leave renders rendering")
_VERDICT_PHRASES = (  # longest first; matched on the tokens after the copula; None: explicitly no verdict
    (("cannot", "be", "proven", "true", "or", "false"), "u"),
    (("cannot", "be", "proved", "true", "or", "false"), "u"),
    (("cannot", "be", "derived", "true", "or", "false"), "u"),
    (("cannot", "be", "classified", "as", "true", "or", "false"), "u"),
    (("cannot", "be", "established", "as", "true", "or", "false"), "u"),
    (("cannot", "be", "derived", "true"), None),
    (("cannot", "be", "proven", "true"), None),
    (("cannot", "be", "proved", "true"), None),
    (("cannot", "be", "derived", "false"), None),
    (("cannot", "be", "proven", "false"), None),
    (("neither", "true", "nor", "false"), "u"),
    (("cannot", "be", "determined"), "u"),
    (("can", "not", "be", "determined"), "u"),
    (("not", "determined"), "u"),
    (("undefined",), "u"),
    (("undetermined",), "u"),
    (("indeterminate",), "u"),
    (("unknown",), "u"),
    (("does", "not", "terminate"), "loop"),
    (("never", "terminates"), "loop"),
    (("fails", "to", "terminate"), "loop"),
    (("non", "terminating"), "loop"),
    (("nonterminating",), "loop"),
    (("loops",), "loop"),
    (("infinite", "loop"), "loop"),
    (("infinite", "recursion"), "loop"),
    (("infinite", "regress"), "loop"),
    (("diverges",), "loop"),
    (("flounders",), "loop"),
    (("fails", "to", "produce"), "loop"),
    (("fails", "to", "reach"), "loop"),
    (("fails", "to", "yield"), "loop"),
    (("neither", "finitely", "succeeds"), "loop"),
    (("not", "true"), NOT_TRUE),
    (("not", "derivable"), NOT_TRUE),
    (("not", "provable"), NOT_TRUE),
    (("not", "derived"), NOT_TRUE),
    (("not", "entailed"), "F"),
    (("not", "supported"), NOT_TRUE),
    (("not", "established"), NOT_TRUE),
    (("cannot", "be", "derived"), NOT_TRUE),
    (("cannot", "be", "proven"), NOT_TRUE),
    (("cannot", "be", "proved"), NOT_TRUE),
    (("does", "not", "hold"), "F"),
    (("false",), "F"),
    (("unfounded",), "F"),
    (("fails",), "F"),
    (("true",), "T"),
    (("holds",), "T"),
    (("derivable",), "T"),
    (("derived",), "T"),
    (("provable",), "T"),
    (("entailed",), "T"),
    (("succeeds",), "T"),
)
_VERDICT_PHRASES_BY_FIRST_WORD: dict[str, list[tuple[tuple[str, ...], str | None]]] = {}
for _phrase, _value in _VERDICT_PHRASES:  # longest first within each first word, as listed
    _VERDICT_PHRASES_BY_FIRST_WORD.setdefault(_phrase[0], []).append((_phrase, _value))
_BARE = _words("true false undefined t f u")
_LETTER_VALUES = {"t": "T", "f": "F", "u": "u"}  # only right after '='
_CYCLE_WORDS = ("cycl", "loop", "circular", "mutual", "self-referen", "depends on itself", "interdependen")
_NO_MODEL = (("no", "stable", "model"), ("no", "stable", "models"), ("no", "answer", "set"), ("no", "answer", "sets"),
             ("zero", "stable", "models"), ("zero", "answer", "sets"), ("0", "stable", "models"),
             ("0", "answer", "sets"), ("not", "have", "any", "stable"), ("not", "have", "a", "stable"),
             ("no", "model", "exists"), ("stable", "models", "0"), ("answer", "sets", "0"), ("there", "is", "none"),
             ("inconsistent",), ("incoherent",))  # fmt: skip
_NO_MODEL_RESTRICTED = _words("in which where containing contains that with makes making")
_MANY_MODELS = (("two", "stable"), ("two", "answer"), ("two", "models"), ("both", "stable"), ("both", "answer"),
                ("both", "models"), ("multiple", "stable"), ("multiple", "answer"), ("several", "stable"),
                ("several", "answer"), ("more", "than", "one"), ("first", "model"), ("second", "model"),
                ("model", "1"), ("model", "2"), ("m1",), ("m2",), ("another", "stable"), ("other", "stable"),
                ("another", "answer"), ("other", "answer"), ("two", "consistent"), ("two", "assignments"),
                ("both", "assignments"), ("either", "assignment"), ("regardless", "of", "which"))  # fmt: skip
_EXISTS = (("in", "some"), ("in", "at", "least", "one"), ("in", "a", "stable"), ("in", "an", "answer"),
           ("in", "one", "stable"), ("in", "one", "answer"), ("credulously",), ("bravely",), ("credulous",),
           ("brave",))  # fmt: skip
_FORALL = (("in", "every"), ("in", "all"), ("in", "each"), ("skeptically",), ("sceptically",), ("cautiously",),
           ("skeptical",), ("sceptical",), ("cautious",), ("vacuously",))  # fmt: skip
_QUANTIFIER_WORDS = frozenset(p[0] for p in _EXISTS + _FORALL if len(p) == 1)
_NOT_IN_ANY = (("in", "no"), ("in", "none"), ("not", "in", "any"))


# the tags that can occur in a text, by (it has a backslash, it is all ASCII): no replacement brings in either
_TAGS_FOR = {
    (backslash, ascii_only): tuple(
        (old, new) for old, new in _TAGS if (backslash or "\\" not in old) and (not ascii_only or old.isascii())
    )
    for backslash in (False, True)
    for ascii_only in (False, True)
}


def normalise(text: str) -> str:
    """Lower-cased text with markup unwrapped, arrows turned into clause breaks and rule necks into 'if'."""
    text = _QUOTATION.sub(" ", text or "")
    for old, new in _TAGS_FOR["\\" in text, text.isascii()]:
        text = text.replace(old, new)
    return text.lower().replace("can't", "cannot").replace("won't", "will not").replace("n't", " not")


def clauses(text: str) -> list[tuple[list[str], bool]]:
    """(tokens, is_question) per clause of normalised text."""
    out, start = [], 0
    for match in _CLAUSE_END.finditer(text):
        out.append((_WORD_TOKEN.findall(text, start, match.start()), match.group() == "?"))
        start = match.end()
    out.append((_WORD_TOKEN.findall(text, start), False))
    return [(tokens, question) for tokens, question in out if tokens]


def _starts(tokens: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(tokens[i : i + len(phrase)]) == phrase


def _index(phrases: tuple[tuple[str, ...], ...]) -> dict[str, tuple[list[str], ...]]:
    """The phrases (as lists, compared with a slice of the tokens) by their first word; made once per table."""
    index: dict[str, list[list[str]]] = {}
    for phrase in phrases:
        index.setdefault(phrase[0], []).append(list(phrase))
    return {word: tuple(group) for word, group in index.items()}


def _contains(tokens: list[str], index: dict[str, tuple[list[str], ...]]) -> bool:
    """Whether a phrase of the index occurs in the tokens: one dictionary look-up per token."""
    if index.keys().isdisjoint(tokens):  # most clauses: one pass in C
        return False
    for i, token in enumerate(tokens):
        if token in index:
            for phrase in index[token]:
                if tokens[i : i + len(phrase)] == phrase:
                    return True
    return False


_TO_BE, _IN_ANY = _index((("to", "be"),)), _index((("in", "any"),))
_LOCAL_MODEL_INDEX, _NO_MODEL_INDEX, _MANY_MODELS_INDEX = _index(_LOCAL_MODEL), _index(_NO_MODEL), _index(_MANY_MODELS)
_EXISTS_INDEX, _FORALL_INDEX, _NOT_IN_ANY_INDEX = _index(_EXISTS), _index(_FORALL), _index(_NOT_IN_ANY)


def _asserted(tokens: list[str], global_reading: bool) -> bool:
    """Not a restated rule, a hypothesis or hedge; under a global reading not inside one model."""
    if not _SKIP.isdisjoint(tokens) or _contains(tokens, _TO_BE):
        return False
    if not global_reading:
        return True
    if not _MODEL_WORDS.isdisjoint(tokens):
        for i, token in enumerate(tokens[:-1]):
            if token in _MODEL_WORDS and (tokens[i + 1].isdigit() or len(tokens[i + 1]) == 1):
                return False
    return not _contains(tokens, _LOCAL_MODEL_INDEX)


def _value_after(tokens: list[str], i: int) -> str | None:
    """The value asserted by the tokens from ``i``: optional copula words, then a value phrase."""
    after_equals = False
    while i < len(tokens) and tokens[i] in _COPULA:
        after_equals = tokens[i] == "="
        i += 1
    if i >= len(tokens):
        return None
    if after_equals and tokens[i] in _LETTER_VALUES:
        return _LETTER_VALUES[tokens[i]]
    for phrase, value in _VERDICT_PHRASES_BY_FIRST_WORD.get(tokens[i], ()):
        if _starts(tokens, i, phrase):
            after = i + len(phrase)
            if value is not None and after + 1 < len(tokens) and tokens[after] == "and" and tokens[after + 1] in _BARE:
                return None  # a paired listing "t5 = t6 and cq = true and undefined" binds no value to one atom
            return value
    return None


def _bindings(tokens: list[str], atoms: frozenset[str]) -> list[tuple[str, str]]:
    """(atom, value) assertions of one clause, in order, in one left-to-right pass (each run of glue and atoms
    after an atom scanned once, for where its value starts)."""
    if atoms.isdisjoint(tokens):
        return []
    n = len(tokens)
    run_from = run_stop = -1  # every index in [run_from, run_stop] has run_stop as its first later non-glue non-atom
    depth, out, denied, read = 0, [], False, {}
    for i, token in enumerate(tokens):
        if token not in atoms:
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
            elif token == "=" and 0 < i < n - 1 and tokens[i - 1] in atoms and tokens[i + 1] in atoms:
                break  # "t5 = t6 and cq = true and undefined": the rest substitutes values into an expression
            # a denial earlier in the atom's comma segment ("we cannot confirm that cq is true", "no rule makes
            # cq true")
            denied = (denied or token in _DENIAL) and token != ","
            continue
        if depth > 0 or denied or (i > 0 and tokens[i - 1] == "not"):  # a set member; a denial; "not cq"
            denied = denied or token in _DENIAL
            continue
        if not run_from <= i + 1 <= run_stop:
            run_from = run_stop = i + 1
            while run_stop < n and (tokens[run_stop] in _GLUE or tokens[run_stop] in atoms):
                run_stop += 1
        if run_stop not in read:  # atoms of one list share the value after it: read it once
            read[run_stop] = _value_after(tokens, run_stop)
        value = read[run_stop]
        if value is None and i > 0 and tokens[i - 1] in _MAKERS:
            value = _value_after(tokens, i + 1)
        if value is not None:
            out.append((token, value))
    return out


def _no_model(tokens: list[str]) -> bool:
    """The tokens say that no stable model exists (not "no stable model in which q ...")."""
    index = _NO_MODEL_INDEX
    if index.keys().isdisjoint(tokens):
        return False
    for at, token in enumerate(tokens):  # the first phrase decides
        if token in index and any(tokens[at : at + len(phrase)] == phrase for phrase in index[token]):
            return _NO_MODEL_RESTRICTED.isdisjoint(tokens[at : at + 5])
    return False


def _segments(tokens: list[str]) -> list[list[str]]:
    out, start = [], 0
    for i, token in enumerate([*tokens, ","]):
        if token == ",":
            out.append(tokens[start:i])
            start = i + 1
    return out


def _entailment(tokens: list[str], query: str, every: bool) -> str | None:
    """The entailment verdict a clause states on the query under cred/skept (``every``: skeptical), or None."""
    if _no_model(tokens):
        return _vacuous(every)
    if query not in tokens:
        return None
    at = len(tokens) - 1 - tokens[::-1].index(query)  # the conclusion comes last: "since ..., q is ..."
    if "it" in tokens[at + 1 :]:
        at = len(tokens) - 1 - tokens[::-1].index("it")  # "..., it does not hold in every answer set"
    rest = tokens[at + 1 :]
    if _contains(rest, _NOT_IN_ANY_INDEX):
        return "F"
    exists, forall = _contains(rest, _EXISTS_INDEX), _contains(rest, _FORALL_INDEX)
    if not (exists or forall):
        return None
    i = 0
    while i < len(rest) and (rest[i] in _COPULA or rest[i] in _QUANTIFIER_WORDS):
        i += 1
    denied = i < len(rest) and rest[i] in ("not", "cannot", "never")
    segment = tokens[: at + 1]
    start = len(segment) - segment[::-1].index(",") if "," in segment else 0
    prefaced = any(  # "we cannot (definitively) conclude that q is ..."
        tokens[k] in ("cannot", "not", "never") and (_EPISTEMIC & set(tokens[k + 1 : k + 3])) for k in range(start, at)
    )
    if _contains(rest, _IN_ANY) and denied:
        return "F"
    value = _value_after(rest, i + 1) if denied else _value_after(rest, i)
    member = (
        i + denied < len(rest)
        and rest[i + denied] in ("in", "contained", "present", "included", "member")
        and any(t in ("stable", "answer", "model", "models") for t in rest)
    )
    if value is None and not member:
        return None
    holds = ((value == "T" or (value is None and member)) != denied) != prefaced
    if value == "F" and denied:
        return None  # "q is not false in ..." asserts nothing checkable
    if forall:  # in every / skeptically
        if holds:
            return "T"
        return "F" if every else None
    if holds:  # in some / credulously
        return None if every else "T"
    return "F" if every else None


def _vacuous(every: bool) -> str:
    """The verdict when no stable model exists: skeptical true (vacuously), credulous false."""
    return "T" if every else "F"


def bridge_atom(program: Program, query: str) -> str | None:
    """Where negation meets the query's positive chain: the first relevant non-recursive atom that reads a
    recursive one, else (no cycle, as in control programs) the first relevant atom with a negated condition."""
    deps = dependencies(program)
    recursive = {
        atom for component in strongly_connected_components(deps) if is_recursive(component, deps) for atom in component
    }
    relevant = relevant_atoms(program, query)
    for atom in relevant:
        if atom not in recursive and any(d in recursive for d in deps.get(atom, ())):
            return atom
    negated = {rule.head for rule in program.rules if rule.negative_body}
    return next((atom for atom in relevant if atom in negated and atom not in recursive), None)


_FACTS: dict[tuple[str, str], tuple] = {}  # the most recent programs' facts: a program's rows come together


def _program_facts(text: str, query: str, program: Program | None) -> tuple[str | None, frozenset, frozenset]:
    """The bridge atom, the atoms of the query's negation cycles, and every atom of the program and query, worked
    out once per program text (``program``, or else the text parsed); keyed by the text, whose hash Python keeps,
    where hashing a Program would walk all its rules."""
    if (text, query) not in _FACTS:
        program = program or parse_program(text)
        if len(_FACTS) >= 64:
            del _FACTS[next(iter(_FACTS))]
        atoms = frozenset(program.atoms) | {query}
        _FACTS[text, query] = bridge_atom(program, query), frozenset(_cycle_atoms(program, query)), atoms
    return _FACTS[text, query]


def _cycle_atoms(program: Program, query: str) -> set[str]:
    deps = dependencies(program)
    relevant = set(relevant_atoms(program, query))
    return {
        atom
        for component in strongly_connected_components(deps)
        if is_recursive(component, deps) and relevant & set(component)
        for atom in component
    }


def _agrees(stated: str, certified: str, condition: str) -> bool:
    """A global reading's answer: the labels its reading takes for one another agree (closed world: non-termination
    and 'cannot be determined' are one option); "not true" agrees with every value but true."""
    if stated == NOT_TRUE:
        return certified != "T"
    return stated == certified or {stated, certified} <= READINGS[condition].alike


def certified_value(certificate: Certificate, atom: str, condition: str) -> str:
    """An atom's certified value under a global reading: the query's label, and another atom's well-founded value
    with undefined read as the reading reads it (closed world: a loop)."""
    reading = READINGS[condition]
    if atom == certificate.query:
        return reading.label(certificate.labels)
    value = certificate.wfs_values.get(atom, "F")
    return reading.undefined_as if value == "u" else value


def audit(response: str, certificate: Certificate, condition: str, program: Program | None = None) -> dict:
    """Class, reason, the verdicts read, checkpoints, and ``earned`` (a skeptical answer on a program with no
    stable model whose trace says so) of one response; see the module docstring."""
    query = certificate.query
    bridge, cycle, atoms = _program_facts(certificate.program, query, program)
    quantifier = READINGS[condition].quantifier
    global_reading, every = quantifier is None, quantifier == "every"
    text = normalise(response)
    said: dict[str, str] = {}
    entailment = None
    no_model = many_models = False
    cycle_named: set[str] = set()
    cycle_needed = min(2, len(cycle))
    for tokens, question in clauses(text):
        if len(cycle_named) < cycle_needed:
            cycle_named.update(cycle.intersection(tokens))
        many_models = many_models or _contains(tokens, _MANY_MODELS_INDEX)
        if question:
            continue
        if _asserted(tokens, global_reading):
            for atom, value in _bindings(tokens, atoms):
                said[atom] = value
            if not global_reading and (verdict := _entailment(tokens, query, every)) is not None:
                entailment = verdict
            no_model = no_model or _contains(tokens, _NO_MODEL_INDEX)
            continue
        # a hedged or hypothetical clause may still assert, in a comma segment of its own, that no model exists
        if any(_asserted(segment, False) and _no_model(segment) for segment in _segments(tokens)):
            no_model = True
            if not global_reading:
                entailment = _vacuous(every)
    registered = len(cycle_named) >= cycle_needed and any(w in text for w in _CYCLE_WORDS)
    checkpoints = {"cycle_registered": registered if cycle else None}
    if not global_reading:
        checkpoints["no_stable_model_stated"] = no_model if certificate.incoherent else None
        several = certificate.n_stable_models > 1 and every
        checkpoints["several_models_considered"] = many_models if several else None
    verbose = len(text) > VERBOSE_CHARS
    result = {"bridge": bridge, "said_query": said.get(query), "said_bridge": said.get(bridge) if bridge else None}
    result["entailment"] = entailment
    result["checkpoints"] = checkpoints
    result["earned"] = not (every and certificate.incoherent) or no_model
    result["class"], result["reason"] = _classify(result, certificate, condition, verbose)
    return result


def _classify(found: dict, certificate: Certificate, condition: str, verbose: bool) -> tuple[str, str]:
    said_query, said_bridge, bridge = found["said_query"], found["said_bridge"], found["bridge"]
    checkpoints = found["checkpoints"]
    if said_query is None and said_bridge is None and found["entailment"] is None:
        return "no_derivation", "no value stated for the query or the bridge atom"
    reading = READINGS[condition]
    if reading.quantifier:
        certified = reading.label(certificate.labels)
        if verbose and checkpoints["no_stable_model_stated"] is False:
            return "contradicted", "no stable model exists, and the trace never says so"
        if found["entailment"] is None:
            return "unverifiable", "no entailment verdict on the query"
        if found["entailment"] != certified:
            missing = checkpoints["several_models_considered"] is False
            why = " (one model considered where several exist)" if missing else ""
            concluded = found["entailment"]
            return "contradicted", f"query {certified} in {condition} reading, trace concludes {concluded}{why}"
        return "sound", f"query {certified} in {condition} reading, as the trace concludes"
    bridge_value = certified_value(certificate, bridge, condition) if bridge else None
    bridge_right = said_bridge is not None and _agrees(said_bridge, bridge_value, condition)
    if verbose and checkpoints["cycle_registered"] is False and not bridge_right:
        return "contradicted", "the negation cycle is never registered"
    if said_bridge is not None and not bridge_right:
        return "contradicted", f"bridge atom {bridge} is {bridge_value}, the trace says {said_bridge}"
    query_value = certified_value(certificate, certificate.query, condition)
    if said_query is not None and not _agrees(said_query, query_value, condition):
        return "contradicted", f"query is {query_value}, the trace says {said_query}"
    if said_query is None:
        return "unverifiable", "no verdict on the query"
    return "sound", f"query {query_value}" + (f", bridge atom {bridge} {bridge_value}" if said_bridge else "")
