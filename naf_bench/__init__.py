"""naf-bench: does a language model follow a *specified* semantics of negation?"""

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
