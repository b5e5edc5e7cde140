"""The one row schema: each field's type and meaning in one table, read by the builder and the dataset card."""

from __future__ import annotations

from naf_bench.readings import effort_keys, label_keys

LABELS = "labels"  # one string per reading of the readings table (read when the schema is built)
EFFORT = "effort"  # one int64 per effort counter of the table's engines
MESSAGES = [{"role": "string", "content": "string"}]

# (name, type: a datasets dtype, a dict of them or a one-item list of one, meaning in the card)
FIELDS = (
    (
        "id",
        "string",
        "`nb-{config}-{family}-i{index}-{condition}::{condition}`: the authors' layout under an `nb-` prefix, "
        "so no id names one of the authors' programs (`-o{k}` marks rule order k); a split other than test adds its "
        "name after the config (`nb-hard-train-…`), so an id is unique across its config's splits",
    ),
    ("program_id", "string", "shared by all rows of one program (the authors' `rec_id`); JOINT groups by it"),
    ("config", "string", "the config the row belongs to"),
    (
        "family",
        "string",
        "divergence bin (control, even_one_sided, odd, even_both_sided; wfs44 adds control_false FFFF and "
        "even_conjunctive FFuloop) or leaderboard family "
        "(cnf, decided, loopy, parity, coupled, control; the id names the tier, e.g. cnf_n8)",
    ),
    ("condition", "string", "none (C0, no semantics named), closed_world (scored against SLDNF), cred, skept, wfs"),
    ("gold", "string", "A/B/C under the row's condition; null for `none`"),
    ("labels", LABELS, "certified labels: cred/skept T|F, wfs T|F|u, sldnf T|F|loop"),
    ("signature", "string", "cred+skept+wfs+sldnf, e.g. FTuloop"),
    (
        "distance",
        "int32",
        "divergence distance (Figure 1): how many of the cred, skept and wfs gold letters differ from the "
        "closed_world one, 0-3; 0 when the four readings agree (controls, decided), 2 on the four divergence bins",
    ),
    ("program", "string", "the program in ASP syntax, rules in the order the prompt lists them"),
    ("query", "string", "the queried atom"),
    ("depth", "int32", "length of the negated chain from the query (hard: of the padding chain)"),
    ("width", "int32", "number of shared subgoals (hard: of padding facts)"),
    (
        "cycle_len",
        "int32",
        "length of the negation cycle, 0 for controls (hard: the tier's size: variables, cycles or depth)",
    ),
    ("framing", "string", "abstract (proposition template), or the narrative escalation, sensor or audit"),
    ("language", "string", "en or zh"),
    ("order_id", "int32", "0 for the generated order, k > 0 for the k-th seeded permutation"),
    ("n_stable_models", "int32", "number of stable models (exact up to 1000)"),
    ("effort", EFFORT, "clingo choices/conflicts, WFS iterations, Prolog inferences, SLDNF fixpoint rounds"),
    ("certificate", "string", "the full certificate as JSON (naf_bench.Certificate.from_json)"),
    (
        "gold_trace",
        "string",
        "certified derivation in the controlled trace grammar, in the row's framing and language, "
        "citing rules by their number in the prompt (empty for `none`)",
    ),
    (
        "prompt",
        "string",
        "the full prompt; rules are numbered only where a trace is asked for (sft: the traced prompt with a "
        "worked example), letter-only prompts list them unnumbered as the authors' implementation does",
    ),
    (
        "messages",
        MESSAGES,
        "chat form: the prompt as the user turn and, for named conditions, the gold trace (ending in "
        "'ANSWER: X') as the assistant turn — ready for supervised fine-tuning",
    ),
    ("seed", "int64", "the item's seed, hashed from (root seed, config, split, bin, cell, attempt)"),
)

FIELD_DOCS = {name: doc for name, _, doc in FIELDS}


def features():
    """The one row schema shared by every config (the metric and the lm-eval tasks read it)."""
    import datasets

    def feature(kind):
        if kind == LABELS:
            return {key: datasets.Value("string") for key in label_keys()}
        if kind == EFFORT:
            return {key: datasets.Value("int64") for key in effort_keys()}
        if isinstance(kind, dict):
            return {key: feature(value) for key, value in kind.items()}
        if isinstance(kind, list):
            return [feature(kind[0])]
        return datasets.Value(kind)

    return datasets.Features({name: feature(kind) for name, kind, _ in FIELDS})
