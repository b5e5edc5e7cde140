"""naf-bench: does a language model follow a *specified* semantics of negation?

The package's words, each with one meaning:

reading
    One semantics of default negation: a row of the readings table (:mod:`naf_bench.readings`) with its engine,
    e.g. ``cred`` (credulous stable models), ``skept``, ``wfs``, ``closed_world`` (SLDNF).
condition
    What a prompt asks the model to apply: a reading's name, or ``none`` (C0: no semantics named, no gold).
    A row's ``condition`` column; :func:`naf_bench.readings.all_conditions` lists them.
label, label key
    A reading's answer for the query on a program (``T``, ``F``, ``u``, ``loop``), stored in a certificate's
    ``labels`` under the reading's label key (``sldnf`` for ``closed_world``, else the reading's name).
signature
    A certificate's labels concatenated in the table's order (:attr:`Certificate.signature`, e.g. ``FTuloop``).
bin
    A divergence bin of the main sets (control, even_one_sided, odd, even_both_sided, …): the signature a
    program must have and the core that gives it (:mod:`naf_bench.generate.bins`).
family
    An entry of the family registry (:data:`naf_bench.generate.registry.FAMILIES`): every bin, and every
    leaderboard family (cnf, decided, loopy, parity, coupled, control). A row's ``family`` column holds the one
    its program was drawn from, so a bin there too.
tier
    A size level of a leaderboard family (``TIER_SIZES``), named in the row id, e.g. ``cnf_n8``.
run
    One model's answers on a set: ``naf-bench run`` (lm-eval) writes one; a submission, an lm-eval output
    folder or an imported ``runs/<model>.jsonl`` holds one. Fine-tuning a model (:mod:`naf_bench.training`) is a
    *training run*, always called so.
submission
    A run as a JSONL file of ``{"id", "prediction"[, "trace"]}`` lines (and its metadata), read once into
    :class:`naf_bench.scoring.intake.Submission` and checked against its gold into ``Checked``.
record
    A frozen, typed score of a run (:class:`naf_bench.scoring.evaluation.RunRecord`, the label and proof
    records): what the CLI, reports, the board and the metric module write, each a view of the scoring core.
worker
    Four kinds: a pool worker (a fresh interpreter answering jobs, :mod:`naf_bench.data.pool`), a Ray task
    (:mod:`naf_bench.data.distributed`), the SWI-Prolog worker that tables and runs SLDNF
    (:mod:`naf_bench.solvers.swipl_worker`), and the verified track's worker that runs models on hidden sets
    (:mod:`naf_bench.leaderboard.worker`).
the authors
    The NAF-Bench authors: their published files (:mod:`naf_bench.data.authors`), their extractor
    (``authors``), their leaderboard's definitions. ``references`` is the evaluate module's: gold letters.
"""

from naf_bench.certify import Certificate, certify
from naf_bench.data.dataset import load_dataset
from naf_bench.errors import CertificationError, ConfigError, NafBenchError, ParseError, SolverError
from naf_bench.readings import LiveView, label_keys
from naf_bench.syntax import Literal, Program, Rule, canonical_key, parse_program, render_asp, render_prolog
from naf_bench.version import __version__

SEMANTICS = LiveView(label_keys)  # the certificate's label keys (naf_bench.readings.label_keys), live

__all__ = [
    "SEMANTICS",
    "Certificate",
    "CertificationError",
    "ConfigError",
    "Literal",
    "NafBenchError",
    "ParseError",
    "Program",
    "Rule",
    "SolverError",
    "__version__",
    "canonical_key",
    "certify",
    "load_dataset",
    "parse_program",
    "render_asp",
    "render_prolog",
]
