"""How the commands end and print: their exit statuses, percentages, the records table and JSON written with --out."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from naf_bench.errors import CertificationError, ConfigError, NafBenchError, ParseError, SolverError
from naf_bench.readings import joint_conditions
from naf_bench.scoring.formatting import percent
from naf_bench.scoring.metrics import CLI, shown_in

EXIT_PARSE, EXIT_SOLVER, EXIT_CERTIFICATION = 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT (128 + 2)
# exit status of each error class at the command-line boundary (the first match in this order)
EXIT_STATUS = ((ParseError, EXIT_PARSE), (ConfigError, EXIT_PARSE), (SolverError, EXIT_SOLVER),
               (CertificationError, EXIT_CERTIFICATION), (NafBenchError, 1))  # fmt: skip


pct = partial(percent, missing="-")


def write_json(payload, out: str | None) -> None:
    """``payload`` as indented JSON in ``out``, when the command was given ``--out``."""
    if out:
        Path(out).write_text(json.dumps(payload, indent=1), encoding="utf-8")
        print(f"wrote {out}")


def print_records(records: list[dict]) -> None:
    """The records table: whole names, the metrics table's numbers for the CLI (JOINT, per-prompt accuracy,
    coverage), each JOINT reading, the extractor and the answers it could not read, and a trace line where there are
    traces."""
    shown = shown_in(CLI)
    width = max([len(r["name"]) for r in records] + [10])
    heads = " ".join(f"{metric.short:>7}" for metric in shown)
    header = "  ".join(f"{c:>12}" for c in joint_conditions())
    print(f"{'':{width}} {heads}  {header}  read by (unread)")
    for r in records:
        cells = [f"{pct(r['per_semantics'].get(c)):>12}" for c in joint_conditions()]
        head = [pct(r[metric.name]) for metric in shown]
        unread = "" if r.get("n_unread") is None else f" ({r['n_unread']:,})"
        read = f"  {r['extractor']}{unread}" if r.get("extractor") else ""
        print(f"{r['name']:{width}} " + " ".join(f"{x:>7}" for x in head) + "  " + "  ".join(cells) + read)
        if r.get("traces"):
            t = r["traces"]
            checked = f"{t['n_checkable']} of {t['n']} checkable"
            steps = f"proof accuracy n/a ({checked})"
            if t["n_checkable"]:
                rfwr = pct(t["rfwr"])
                steps = f"proof accuracy {pct(t['proof_accuracy'])}, right for the wrong reason {rfwr} ({checked})"
            print(
                f"{'':{width}} {steps}; reasoned soundly {pct(t['reasoned_soundly'])}, contradicted among correct "
                f"{pct(t['contradicted_among_correct'])} (trace audit)"
            )
