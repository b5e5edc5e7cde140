"""The ``naf-bench`` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from naf_bench.errors import CertificationError, ParseError, SolverError

EXIT_PARSE, EXIT_SOLVER, EXIT_CERTIFICATION = 2, 3, 4


def _print_certificate(name: str, certificate) -> None:
    labels = certificate.labels
    models = certificate.n_stable_models
    count = f"more than {certificate.model_cap}" if models > certificate.model_cap else str(models)
    print(f"{name}  ?- {certificate.query}")
    print(f"  signature     {certificate.signature}")
    print(f"  credulous {labels['cred']}   skeptical {labels['skept']}   wfs {labels['wfs']}   sldnf {labels['sldnf']}")
    print(f"  stable models {count}{' (incoherent: skeptical holds vacuously)' if certificate.incoherent else ''}")
    print(f"  checked       {', '.join(certificate.checks)}")


def _certify(args: argparse.Namespace) -> int:
    from naf_bench.certify import certify
    from naf_bench.syntax.parse import parse_atom, parse_header, parse_program

    status = 0
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"{name}: error: {exc.strerror}", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        query = args.query or parse_header(text).get("query", "q")
        try:
            program = parse_program(text)
        except ParseError as exc:
            print(f"{name}:{exc.line}:{exc.column}: error: {exc.reason}", file=sys.stderr)
            print(f"  {exc.source_line}\n  {' ' * (exc.column - 1)}^", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        try:
            parse_atom(query)
        except ParseError as exc:
            print(f"{name}: error: query {query!r}: {exc.reason}", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        try:
            certificate = certify(program, query, inference_limit=args.inference_limit)
        except SolverError as exc:
            print(f"{name}: solver error: {exc}", file=sys.stderr)
            return EXIT_SOLVER
        except CertificationError as exc:
            print(f"{name}: certification failed: {exc}", file=sys.stderr)
            status = max(status, EXIT_CERTIFICATION)
            continue
        if args.json:
            print(certificate.to_json())
        else:
            _print_certificate(name, certificate)
    return status


def _export(args: argparse.Namespace) -> int:
    from naf_bench.dataset import export

    out = export(args.out, tuple(args.configs), cache_dir=args.cache_dir)
    print(f"wrote {out} (configs: {', '.join(args.configs)}); load it with datasets.load_dataset({str(out)!r}, CONFIG)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from naf_bench.solvers.sldnf import INFERENCE_LIMIT

    parser = argparse.ArgumentParser(prog="naf-bench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    certify = commands.add_parser("certify", help="certify program files under the four readings of negation")
    certify.add_argument("files", nargs="+", metavar="FILE", help="ground normal program(s) in ASP syntax; - for stdin")
    certify.add_argument("--query", help="query atom (default: the file's '%% query:' header, else q)")
    certify.add_argument("--json", action="store_true", help="one JSON certificate per line")
    certify.add_argument("--inference-limit", type=int, default=INFERENCE_LIMIT, help="SWI-Prolog loop budget")
    certify.set_defaults(run=_certify)

    from naf_bench.generate.config import CONFIGS

    export = commands.add_parser("export", help="write a Hub-style dataset folder (parquet + dataset card)")
    export.add_argument("--out", required=True, help="folder to write (name it naf-bench for the familiar load)")
    export.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG")
    export.add_argument("--cache-dir", help="datasets cache folder (default: the datasets default)")
    export.set_defaults(run=_export)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
