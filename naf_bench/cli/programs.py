"""Programs and their rows: ``certify``, ``export`` and ``generate`` (in one process, the pool or on Ray)."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

from naf_bench.cli.output import EXIT_CERTIFICATION, EXIT_PARSE, EXIT_SOLVER
from naf_bench.errors import CertificationError, ConfigError, ParseError, SolverError
from naf_bench.readings import READINGS


def _print_certificate(name: str, certificate) -> None:
    labels = certificate.labels
    models = certificate.n_stable_models
    count = f"more than {certificate.model_cap}" if models > certificate.model_cap else str(models)
    print(f"{name}  ?- {certificate.query}")
    print(f"  signature     {certificate.signature}")
    print("  " + "   ".join(f"{reading.title} {reading.label(labels)}" for reading in READINGS))
    print(f"  stable models {count}{' (incoherent: skeptical holds vacuously)' if certificate.incoherent else ''}")
    print(f"  checked       {', '.join(certificate.checks)}")


class _Progress:
    """The stage a certification is in, on stderr, once it has taken ``after`` seconds: a large program shows that
    it is being worked on, a small one prints nothing."""

    def __init__(self, name: str, after: float):
        self.name, self.after, self.start = name, after, time.monotonic()
        self.stage = self.shown = ""
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def __call__(self, stage: str) -> None:
        self.stage = stage
        self._show()

    def _show(self) -> None:
        with self._lock:
            elapsed = time.monotonic() - self.start
            if elapsed >= self.after and self.stage != self.shown:
                self.shown = self.stage
                print(f"{self.name}: {self.stage} ... ({elapsed:.0f} s)", file=sys.stderr, flush=True)

    def _watch(self) -> None:
        while not self._done.wait(0.25):
            self._show()

    def __enter__(self) -> _Progress:
        self._watcher.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._watcher.join()
        if self.shown:
            print(f"{self.name}: done in {time.monotonic() - self.start:.1f} s", file=sys.stderr, flush=True)


def _certify_text(name: str, text: str, query: str | None, args: argparse.Namespace, progress: _Progress) -> int:
    """Parse and certify one file's text for ``query`` (None: none was given, so ``q``), printing its certificate
    or its error; the exit status it earns."""
    from naf_bench.certify import certify
    from naf_bench.syntax.parse import parse_atom, parse_program

    try:
        progress("parsing")
        program = parse_program(text)
    except ParseError as exc:
        print(f"{name}:{exc.line}:{exc.column}: error: {exc.reason}", file=sys.stderr)
        print(f"  {exc.source_line}\n  {' ' * (exc.column - 1)}^", file=sys.stderr)
        return EXIT_PARSE
    if not program.rules:
        print(f"{name}: error: no rules (an empty program): nothing to certify", file=sys.stderr)
        return EXIT_PARSE
    assumed = query is None
    query = query or "q"
    try:
        parse_atom(query)
    except ParseError as exc:
        print(f"{name}: error: query {query!r}: {exc.reason}", file=sys.stderr)
        return EXIT_PARSE
    try:
        certificate = certify(program, query, inference_limit=args.inference_limit, progress=progress)
    except SolverError as exc:
        print(f"{name}: solver error: {exc}", file=sys.stderr)
        return EXIT_SOLVER
    except CertificationError as exc:
        print(f"{name}: certification failed: {exc}", file=sys.stderr)
        return EXIT_CERTIFICATION
    sys.stdout.flush()  # what is said of this file comes after the certificates of the files before it
    if assumed:
        print(f"{name}: note: no --query and no '% query:' header: certifying the query 'q'", file=sys.stderr)
    if query not in program.atoms:
        vacuous = "true only vacuously, as the program has no stable model" if certificate.incoherent else "false"
        print(
            f"{name}: warning: the query {query!r} appears nowhere in the program, so no rule derives it: "
            f"false under WFS and SLDNF (it fails at once), in no stable model (credulous false; skeptical "
            f"{vacuous}); check its spelling, or the file's '% query:' header",
            file=sys.stderr,
        )
    sys.stderr.flush()  # the warning before the certificate it is about
    if args.json:
        print(certificate.to_json())
    else:
        _print_certificate(name, certificate)
    return 0


def _certify(args: argparse.Namespace) -> int:
    from naf_bench.syntax.parse import parse_header

    status = 0
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
            text = data.decode("utf-8")
        except OSError as exc:
            print(f"{name}: error: {exc.strerror} (a program file in ASP syntax was expected)", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            print(f"{name}:{line}: error: not UTF-8 text (byte 0x{data[exc.start]:02x})", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        query = args.query or parse_header(text).get("query")
        with _Progress(name, args.progress_after) as progress:
            outcome = _certify_text(name, text, query, args, progress)
        if outcome == EXIT_SOLVER:
            return EXIT_SOLVER
        status = max(status, outcome)
    return status


def _export(args: argparse.Namespace) -> int:
    from naf_bench.data.hub import export

    out = export(
        args.out,
        tuple(args.configs),
        args.cache_dir,
        args.repo_id,
        args.num_proc,
        include_test_gold=args.include_test_gold,
    )
    print(
        f"wrote {out} (configs: {', '.join(args.configs)}); load it with datasets.load_dataset({str(out)!r}, "
        f"CONFIG), or upload it with scripts/push_to_hub.py and load {args.repo_id!r}"
    )
    return 0


def _generate(args: argparse.Namespace) -> int:
    from naf_bench.generate.config import get_config, parse_overrides

    overrides = parse_overrides(args.set)
    if args.seed is not None:
        overrides["seed"] = args.seed
    splits = get_config(args.config, **overrides).splits
    if args.split is not None and args.split not in splits:
        raise ConfigError(f"config {args.config!r} has no split {args.split!r}; expected one of {list(splits)}")
    if args.engine == "ray":
        return _generate_on_ray(args, overrides)
    if given := [flag for flag, value in RAY_ONLY.items() if getattr(args, value)]:
        raise ConfigError(f"{', '.join(given)}: only with --engine ray")
    if args.shard is None:
        from naf_bench.data.dataset import load_dataset

        parts = load_dataset(args.config, num_proc=args.num_proc, cache_dir=args.cache_dir, **overrides)
    else:
        import datasets

        from naf_bench.data.rows import build_rows
        from naf_bench.data.schema import features

        rows = build_rows(get_config(args.config, **overrides), args.num_proc, args.shard)
        parts = {split: datasets.Dataset.from_list(part, features=features()) for split, part in rows.items()}
    from naf_bench.data.rows import rows_json

    splits = [args.split] if args.split else list(parts)
    shard = f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else ""
    for split in splits:
        part = parts[split]
        if args.out is None:
            print(f"{args.config}/{split}{shard}: {part.num_rows} rows")
            continue
        out = Path(args.out if len(splits) == 1 else f"{Path(args.out).with_suffix('')}-{split}{Path(args.out).suffix}")
        if out.suffix == ".parquet":
            part.to_parquet(str(out))
        else:
            out.write_text(rows_json(part.to_list()), encoding="utf-8")
        print(f"wrote {out} ({part.num_rows} rows of {args.config}/{split}{shard})")
    return 0


RAY_ONLY = {"--address": "address", "--resume": "resume", "--include-test-gold": "include_test_gold",
            "--repo-id": "repo_id"}  # fmt: skip


def _generate_on_ray(args: argparse.Namespace, overrides: dict) -> int:
    for flag, value, reason in (
        ("--num-proc", args.num_proc, "the cluster's CPUs make chunks of every cell at once"),
        ("--shard", args.shard, "one run decides every cell, on every node"),
        ("--cache-dir", args.cache_dir, "the rows go to --out, nothing is cached"),
    ):
        if value is not None:
            raise ConfigError(f"{flag} is for one machine, not --engine ray: {reason}")
    if args.out is None:
        raise ConfigError("--engine ray needs --out DIR (a folder, or a URL such as s3://bucket/dir)")
    from naf_bench.data.distributed import generate_on_ray

    manifest = generate_on_ray(
        args.config,
        args.out,
        overrides,
        args.address,
        args.repo_id or "ORG/naf-bench",
        args.include_test_gold,
        args.split,
        args.resume,
    )
    for split, files in manifest["files"].items():
        if args.split in (None, split):
            rows = sum(entry["rows"] for entry in files)
            print(f"wrote {args.out}/data/{args.config}/{split}-*.parquet ({len(files)} files, {rows} rows)")
    print(f"load it with datasets.load_dataset({args.out!r}, {args.config!r})")
    return 0


def _shard(text: str) -> tuple[int, int]:
    index, _, total = text.partition("/")
    if not (index.isdigit() and total.isdigit() and int(index) < int(total)):
        raise argparse.ArgumentTypeError(f"expected I/N with 0 <= I < N, got {text!r}")
    return int(index), int(total)


def _add_certify(commands) -> None:
    from naf_bench.certify import FIRST_INFERENCE_LIMIT

    certify = commands.add_parser("certify", help="certify program files under the four readings of negation")
    certify.add_argument("files", nargs="+", metavar="FILE", help="ground normal program(s) in ASP syntax; - for stdin")
    certify.add_argument("--query", help="query atom (default: the file's '%% query:' header, else q)")
    certify.add_argument("--json", action="store_true", help="one JSON certificate per line")
    certify.add_argument(
        "--inference-limit",
        type=int,
        default=FIRST_INFERENCE_LIMIT,
        help="SWI-Prolog's first inference limit, raised tenfold while the exact procedure finds the tree finite",
    )
    certify.add_argument(
        "--progress-after",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="show the stage on stderr once parsing or certifying a file has taken this long (default 3)",
    )
    certify.set_defaults(run=_certify)


def _add_export(commands) -> None:
    from naf_bench.generate.config import CONFIGS

    export = commands.add_parser("export", help="write a Hub-style dataset folder (parquet + dataset card)")
    export.add_argument("--out", required=True, help="folder to write (name it naf-bench for the familiar load)")
    export.add_argument(
        "--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG", help="configs to write"
    )
    export.add_argument("--cache-dir", help="datasets cache folder (default: the datasets default)")
    export.add_argument(
        "--include-test-gold", action="store_true", help="keep the gold of hard test (withheld by default; private use)"
    )
    export.add_argument("--repo-id", default="ORG/naf-bench", help="Hub repository the card's snippets name")
    export.add_argument("--num-proc", type=int, help="processes that generate a config not yet cached")
    export.set_defaults(run=_export)


def _add_generate(commands) -> None:
    from naf_bench.generate.config import CONFIGS

    generate = commands.add_parser("generate", help="generate and certify a config's rows")
    generate.add_argument("config", choices=list(CONFIGS))
    generate.add_argument("--split", help="one split (default: all)")
    generate.add_argument("--seed", type=int, help="root seed")
    generate.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    generate.add_argument(
        "--out", help="FILE.jsonl or FILE.parquet (default: print the row counts); with --engine ray a folder"
    )
    generate.add_argument("--cache-dir", help="datasets cache folder")
    generate.add_argument("--num-proc", type=int, help="processes that certify and render where they pay (same rows)")
    generate.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="only the I-th of N ranges of cells (tiers), not cached: the N outputs, concatenated per split in "
        "order, are the config's rows (one machine each) unless a shard keeps a program another shard's earlier "
        "unit kept (see the README)",
    )
    generate.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="ray: generate and certify on a Ray cluster (pip install 'naf-bench[ray]'), --out a folder in the "
        "exported Hub layout with a manifest; the same rows as one process",
    )
    generate.add_argument("--address", help="with --engine ray: an existing cluster (auto, ray://HOST:10001)")
    generate.add_argument("--repo-id", help="with --engine ray: the Hub repository the card's snippets name")
    generate.add_argument(
        "--include-test-gold", action="store_true", help="with --engine ray: keep the gold export withholds"
    )
    generate.add_argument(
        "--resume",
        action="store_true",
        help="with --engine ray: keep the decision and every complete file the manifest records, make the rest",
    )
    generate.set_defaults(run=_generate)


def add_parsers(commands) -> None:
    """This group's commands, in the order the help lists them."""
    _add_certify(commands)
    _add_export(commands)
    _add_generate(commands)
