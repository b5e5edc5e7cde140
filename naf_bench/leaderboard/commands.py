"""``naf-bench leaderboard``: one command group for the static board and the live submission service."""

from __future__ import annotations

import getpass
from datetime import timedelta
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.generate.bound import MIN_DRAWS
from naf_bench.leaderboard.service import Limits

# the subcommands; ``naf-bench leaderboard DIR --gold ... --out ...`` (no subcommand) is ``build``
SUBCOMMANDS = ("build", "serve", "add-team", "revoke-team", "withdraw", "freeze", "space", "new-set", "approve-model",
               "worker")  # fmt: skip


def with_default_subcommand(argv: list[str]) -> list[str]:
    """The old form ``leaderboard DIR ...`` as ``leaderboard build DIR ...``."""
    if len(argv) >= 2 and argv[0] == "leaderboard" and argv[1] not in SUBCOMMANDS and argv[1] not in ("-h", "--help"):
        return ["leaderboard", "build", *argv[1:]]
    return argv


def _store(args):
    from naf_bench.leaderboard.store import Store

    return Store(args.data)


def _serve(args) -> int:
    from naf_bench.leaderboard.app import serve
    from naf_bench.leaderboard.service import Service
    from naf_bench.leaderboard.space import restore_if_empty, start_backup

    restore_if_empty(args.data, args.backup_repo)
    limits = Limits(args.max_bytes, args.max_lines, args.max_line_bytes)
    service = Service(
        args.data,
        args.gold,
        args.dev_gold,
        limits,
        quota=args.quota or None,
        window=timedelta(hours=args.quota_hours),
        allowed_hosts=args.allow_endpoint_host,
    )
    if args.backup_repo:
        start_backup(service.store, args.backup_repo, every_minutes=args.backup_minutes)
    print(f"serving {args.data} on http://{args.host}:{args.port}", flush=True)
    serve(
        service,
        args.host,
        args.port,
        hub_sign_in=args.hub_sign_in,
        upload_grace=args.upload_grace,
        upload_space=args.upload_space,
        upload_max_age=args.upload_max_age,
        upload_idle=args.upload_idle,
    )
    return 0


def _add_team(args) -> int:
    from naf_bench.leaderboard.store import team_name

    store, name = _store(args), team_name(args.name)
    if args.hub_user:
        store.add_hub_user(name)
        print(f"approved the Hugging Face user {name!r}: they may sign in on the page")
        return 0
    token = store.add_team(name)
    print(f"team {name!r}; its token (shown once, only its hash is kept):\n{token}")
    return 0


def _revoke_team(args) -> int:
    cancelled = _store(args).revoke_team(args.name, hub=args.hub_user)
    print(
        f"revoked {'the Hugging Face user' if args.hub_user else 'the team'} {args.name!r}; "
        f"{len(cancelled)} queued job(s) cancelled"
    )
    return 0


def _withdraw(args) -> int:
    by = args.by
    if not by:
        try:
            by = getpass.getuser()
        except (KeyError, OSError):  # no user name in the environment or the password database
            raise ConfigError("say who withdraws the submission: --by NAME") from None
    _store(args).withdraw(args.submission, by=by, reason=args.reason)
    print(f"withdrew submission {args.submission} ({args.reason}); it stays in the store")
    return 0


def _freeze(args) -> int:
    print(f"frozen at {_store(args).freeze()}: no more uploads; the hidden set's full scores are published")
    return 0


def _space(args) -> int:
    from naf_bench.leaderboard.space import write_space

    out = write_space(args.out, requirement=args.requirement, title=args.title, hub_sign_in=args.hub_sign_in)
    print(f"wrote the Space in {out}")
    return 0


def _new_set(args) -> int:
    from naf_bench.generate.config import parse_overrides
    from naf_bench.leaderboard.secret import new_key, new_set, read_key

    overrides = parse_overrides(args.set)
    key = new_key(args.key) if args.new_key else read_key(args.key)
    if args.new_key:
        print(f"wrote a new key to {args.key} (only its owner may read it; keep it off the machines that serve)")
    manifest = new_set(key, args.config, args.out, overrides, attempts=args.attempts, verified=args.verified)
    print(
        f"hidden set {manifest['key_fingerprint']} of {args.config!r} ({manifest['split']}): "
        f"{manifest['programs']} programs, {manifest['rows']} rows, "
        f"none of the {manifest['public_programs_excluded']} public programs"
    )
    for tier in manifest["tiers"]:
        if tier["enumerable"]:
            reach = tier["reach"]
            left = (
                f"{reach['distinct'] - reach['excluded']:,} programs its draws reach"
                if reach["chao1"] is not None
                else f"more than {reach['at_least']:,.0f} programs ({reach['attempts']:,} draws, no repeat)"
            )
            print(
                f"enumerable: {tier['tier']} takes {tier['programs']} of the {left} beyond the public ones, "
                f"fewer than {manifest['min_reach']:,}: not for the verified track"
            )
    if not manifest["enumerable"]:
        print(
            f"no tier is enumerable: each tier's {args.attempts:,} draws repeated no program, so each reaches more "
            f"than {args.attempts**2 / 6:,.0f} programs"
        )
    print(f"wrote {Path(args.out) / 'gold.jsonl'} and {Path(args.out) / 'manifest.json'}")
    return 0


def _approve_model(args) -> int:
    from naf_bench.leaderboard.approvals import approve
    from naf_bench.leaderboard.store import MODELS

    if bool(args.team) == args.open:
        raise ConfigError("approve a model for one team (--team NAME) or for every team (--open)")
    store = _store(args)
    if args.team and args.team not in {team.name for team in store.teams() if team.kind == "token"}:
        raise ConfigError(f"no token team named {args.team!r}")
    model, stored = approve(args.model, store.root / MODELS)
    added = store.approve_model(model, str(stored), args.team)
    whom = f"the team {args.team!r}" if args.team else "every team"
    print(
        f"{'approved' if added else 'already approved'} for {whom}: {model} (submitted by this name; its files "
        f"checked and copied to {stored}, which is what runs, without trust_remote_code)"
    )
    return 0


def _worker(args) -> int:
    from naf_bench.leaderboard.secret import read_key
    from naf_bench.leaderboard.worker import Worker

    key = read_key(args.key) if args.key else None
    worker = Worker(
        args.data,
        args.hidden,
        key=key,
        work=args.work,
        timeout=args.timeout,
        limit=args.limit,
        max_gen_toks=args.max_gen_toks,
        stale=args.stale,
        beat=args.beat,
        attempts=args.attempts,
        allowed_hosts=args.allow_endpoint_host,
        log=lambda line: print(line, flush=True),
    )
    print(
        f"worker on {args.data}: hidden set {worker.manifest['key_fingerprint']} ({worker.manifest['config']})",
        flush=True,
    )
    worker.run(once=args.once, poll=args.poll)
    return 0


def _build(args) -> int:
    from naf_bench.leaderboard.service import export_board

    if args.data:
        if args.submissions:
            raise ConfigError("build takes a folder of submissions or --data DIR, not both")
        for path in export_board(args.data, args.gold, args.dev_gold, args.out, n_bootstrap=args.bootstrap):
            print(f"wrote {path}")
        return 0
    if not args.submissions:
        raise ConfigError("build needs a folder of submissions (SUBMISSIONS_DIR) or a service's --data DIR")
    return args.build_from_submissions(args)


def add_parser(commands, build_from_submissions) -> None:
    """Add ``leaderboard`` and its subcommands; ``build_from_submissions`` is the static board's command."""
    group = commands.add_parser("leaderboard", help="the leaderboard: static board, submission service, teams")
    sub = group.add_subparsers(dest="leaderboard_command", required=True, metavar="COMMAND")
    _add_build(sub, build_from_submissions)
    _add_serve(sub)
    _add_add_team(sub)
    _add_revoke_team(sub)
    _add_withdraw(sub)
    _add_freeze(sub)
    _add_new_set(sub)
    _add_approve_model(sub)
    _add_worker(sub)
    _add_space(sub)


def _add_build(sub, build_from_submissions) -> None:
    build = sub.add_parser(
        "build",
        help="write the static board: from a folder of submissions (<name>.jsonl + <name>.metadata.json), "
        "or from a service's --data under the live board's rules",
    )
    build.add_argument("submissions", nargs="?", metavar="SUBMISSIONS_DIR")
    build.add_argument("--data", help="a submission service's folder instead of SUBMISSIONS_DIR")
    build.add_argument(
        "--gold",
        required=True,
        help="gold rows JSONL (read from this path only): the rows `naf-bench generate` "
        "writes carry their gold letters, e.g. `naf-bench generate hard --split test --out gold.jsonl`",
    )
    build.add_argument("--dev-gold", help="with --data: the public dev set's gold rows (its site goes to SITE/dev)")
    build.add_argument("--out", required=True, metavar="SITE", help="folder for leaderboard.json, index.html, README")
    build.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the JOINT intervals")
    build.set_defaults(run=_build, build_from_submissions=build_from_submissions)


def _add_serve(sub) -> None:
    serve = sub.add_parser("serve", help="start the submission service (a Gradio app) on --data")
    serve.add_argument("--gold", required=True, help="the hidden set's gold rows (JSONL); never published")
    serve.add_argument("--dev-gold", help="the public dev set's gold rows: its full scores are shown at any time")
    serve.add_argument("--data", required=True, help="the service's folder (SQLite store and kept files)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=7860, help="port to listen on")
    serve.add_argument("--quota", type=int, default=3, help="uploads per team (all tracks) in --quota-hours (0: none)")
    serve.add_argument("--quota-hours", type=float, default=24.0, help="the window of --quota")
    defaults = Limits()
    serve.add_argument("--max-bytes", type=int, default=defaults.max_bytes, help="largest submission file")
    serve.add_argument("--max-lines", type=int, help="most lines in a file (default 10 x the hidden gold's rows)")
    serve.add_argument("--max-line-bytes", type=int, default=defaults.max_line_bytes, help="longest line")
    serve.add_argument("--hub-sign-in", action="store_true", help="also accept approved Hugging Face users")
    serve.add_argument(
        "--upload-grace",
        type=float,
        default=30.0,
        help="seconds after its request before a handled upload leaves Gradio's cache (identical uploads share a file)",
    )
    serve.add_argument(
        "--upload-space",
        type=int,
        default=200_000_000,
        help="bytes DIR/uploads may hold of uploads no submit has claimed; a bigger upload waits (HTTP 503)",
    )
    serve.add_argument(
        "--upload-max-age",
        type=float,
        default=300.0,
        help="seconds an upload no submit has claimed stays in DIR/uploads (DIR/uploads is emptied at start)",
    )
    serve.add_argument(
        "--backup-repo",
        help="private dataset repository to back up to (and restore from when --data is empty)",
    )
    serve.add_argument("--backup-minutes", type=float, default=10.0, help="minutes between backup commits")
    serve.add_argument(
        "--upload-idle",
        type=float,
        default=30.0,
        help="seconds an upload may send no byte before its connection is closed (its space is freed)",
    )
    _add_allow_endpoint_host(serve)
    serve.set_defaults(run=_serve)


def _add_add_team(sub) -> None:
    add = sub.add_parser("add-team", help="add a token team (prints its token once) or approve a Hub user")
    add.add_argument("name")
    add.add_argument("--hub-user", action="store_true", help="NAME is a Hugging Face user name to approve")
    add.add_argument("--data", required=True)
    add.set_defaults(run=_add_team)


def _add_revoke_team(sub) -> None:
    revoke = sub.add_parser("revoke-team", help="end a team: its token (or the Hub user) is refused from now on")
    revoke.add_argument("name")
    revoke.add_argument("--hub-user", action="store_true")
    revoke.add_argument("--data", required=True)
    revoke.set_defaults(run=_revoke_team)


def _add_withdraw(sub) -> None:
    withdraw = sub.add_parser("withdraw", help="hide a submission from the board (kept in the store, with who and why)")
    withdraw.add_argument("submission", type=int, help="the submission's number (in its acknowledgement)")
    withdraw.add_argument("--reason", required=True)
    withdraw.add_argument("--by", help="who withdraws it (default: this system user)")
    withdraw.add_argument("--data", required=True)
    withdraw.set_defaults(run=_withdraw)


def _add_freeze(sub) -> None:
    freeze = sub.add_parser("freeze", help="end the board: no more uploads, the hidden set's full scores published")
    freeze.add_argument("--data", required=True)
    freeze.set_defaults(run=_freeze)


def _add_new_set(sub) -> None:
    hidden = sub.add_parser(
        "new-set", help="generate a hidden set from a secret key: gold rows and a manifest (the key's fingerprint)"
    )
    hidden.add_argument("--key", required=True, metavar="KEYFILE", help="the secret key's file (hex)")
    hidden.add_argument(
        "--new-key", action="store_true", help="write a new key to KEYFILE first (refused if one is there)"
    )
    hidden.add_argument("--config", default="hard", help="the config the set is drawn like (its test split)")
    hidden.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="config override, e.g. programs_per_cell=2"
    )
    hidden.add_argument(
        "--attempts",
        type=int,
        default=MIN_DRAWS,
        help=f"attempts per tier to estimate what it can reach (a tier passes with no repeat in {MIN_DRAWS:,})",
    )
    hidden.add_argument(
        "--verified",
        action="store_true",
        help="for the verified track: refuse a config with an enumerable tier (draw like --config hidden)",
    )
    hidden.add_argument("--out", required=True, metavar="DIR", help="folder for gold.jsonl and manifest.json")
    hidden.set_defaults(run=_new_set)


def _add_approve_model(sub) -> None:
    approve = sub.add_parser(
        "approve-model",
        help="let teams submit a model for the verified track: a model folder, a .gguf file, or a "
        "Hub id pinned to a commit (ORG/NAME@COMMIT)",
    )
    approve.add_argument("model", metavar="PATH_OR_HUB_ID@COMMIT")
    approve.add_argument("--team", help="the token team that may submit it")
    approve.add_argument("--open", action="store_true", help="every team may submit it")
    approve.add_argument("--data", required=True)
    approve.set_defaults(run=_approve_model)


def _add_worker(sub) -> None:
    worker = sub.add_parser(
        "worker", help="run the model jobs teams submit, one at a time, on the hidden set; post the scores as verified"
    )
    worker.add_argument("--data", required=True, help="the service's folder (its store)")
    worker.add_argument("--hidden", required=True, metavar="HIDDEN_DIR", help="a new-set folder: the verified set")
    worker.add_argument(
        "--key", metavar="KEYFILE", help="a key file (as new-set --new-key writes): endpoint jobs' sets come from it"
    )
    worker.add_argument("--work", help="folder for the runs (prompts, outputs, logs; default HIDDEN_DIR/runs)")
    worker.add_argument("--once", action="store_true", help="stop when no job waits")
    worker.add_argument(
        "--timeout", type=float, help="seconds a job's run may take (default: 120 and 10 per program of the set)"
    )
    worker.add_argument("--limit", type=int, help="documents per task a job runs (default: all)")
    worker.add_argument("--max-gen-toks", type=int, help="tokens a job may generate per prompt")
    worker.add_argument("--stale", type=float, default=60.0, help="seconds without a heartbeat: its worker is dead")
    worker.add_argument("--beat", type=float, default=5.0, help="seconds between heartbeats")
    worker.add_argument(
        "--attempts", type=int, default=200, help="attempts per tier drawing an endpoint job's own set (as new-set's)"
    )
    worker.add_argument("--poll", type=float, default=5.0, help="seconds between looks for a job")
    _add_allow_endpoint_host(worker)
    worker.set_defaults(run=_worker)


def _add_allow_endpoint_host(parser) -> None:
    parser.add_argument(
        "--allow-endpoint-host",
        action="append",
        default=[],
        metavar="HOST",
        help="a host of your own networks (loopback, private, link-local, ...) that endpoint jobs may reach, by "
        "the name jobs give (repeatable; the server's and the worker's must agree); none by default",
    )


def _add_space(sub) -> None:
    space = sub.add_parser("space", help="write the service as a Hugging Face Space (app.py, requirements, card)")
    space.add_argument("--out", required=True)
    space.add_argument(
        "--requirement",
        default="naf-bench[leaderboard]",
        help="how the Space installs naf-bench: a version (naf-bench[leaderboard]==X) or a git URL (git+https://...)",
    )
    space.add_argument("--title", default="naf-bench leaderboard", help="the Space's title")
    space.add_argument("--hub-sign-in", action="store_true", help="turn on Sign in with Hugging Face (hf_oauth)")
    space.set_defaults(run=_space)
