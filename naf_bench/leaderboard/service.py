"""The submission service without its web front: checks an upload, scores it with the scoring core, keeps it
in the store, and says what the board shows. ``app.py`` is a Gradio view over this; tests and the probe call
it through the server as a submitter would.

An upload is refused, with every reason and the line it is on, and nothing of it kept, when: the token is
unknown or revoked; the board is frozen; the file is over the size, line-count or line-length limits, is not
UTF-8 JSON lines of ``{id, prediction, trace?}``, gives an id twice (the intake's one rule for duplicate ids,
:mod:`naf_bench.scoring.intake`), or holds no id of the gold (or mostly another set's); the
metadata is not valid against the leaderboard's schema; or the team is over its quota (the refusal gives the
next allowed time). Ids the gold does not have are reported and ignored, as ``naf-bench score`` does. An upload
is read once, from its bytes, into the intake's record (:func:`naf_bench.scoring.intake.read_submission`),
checked against the gold once, and that record is scored and its bytes kept; a partial upload (part of the
set) goes through the Ladder like any other.

What is published of the hidden set while the board is live is the Ladder's JOINT (``ladder.py``) of each
team with an interval that depends on it and the number of programs alone, and nothing else (no baseline);
the full scores (per reading, per family, coverage, the trace audit) and the baselines are published for the
public dev set at any time and for the hidden set once the board is frozen. No answer of the service names an
item's result, a gold letter or a label.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from naf_bench.errors import DataError
from naf_bench.leaderboard.board import baseline_rows as board_baselines
from naf_bench.leaderboard.board import submission_row
from naf_bench.leaderboard.ladder import MIN_GAIN, RELEASES, wilson_interval
from naf_bench.leaderboard.store import Accepted, Job, Store, StoreError, Team, now_utc
from naf_bench.scoring.intake import Gold, check, read_gold, read_submission
from naf_bench.scoring.metadata import TRACKS

HIDDEN, DEV = "test", "dev"
MAX_REASONS = 50  # a refusal lists this many reasons, then says how many more there were


@dataclass(frozen=True)
class Limits:
    """What an upload may be; ``max_lines`` None means 10 x the hidden gold's rows."""

    max_bytes: int = 20_000_000
    max_lines: int | None = None
    max_line_bytes: int = 65_536
    max_metadata_bytes: int = 65_536


class ModelJobs:
    """The verified track's side of a :class:`Service`: model jobs queued for the worker (``worker.py``), their
    states, and the boards of their results."""

    def submit_model(
        self: Service, team: Team | str, kind: str, model: str, base_url: str | None = None, key: str | None = None
    ) -> dict:
        """Queue a job (``kind`` "verified": an approved model; "endpoint": an OpenAI-compatible server's
        ``base_url``, served ``model`` and ``key``), counted in the team's quota with its uploads; the
        acknowledgement (after the commit) or the refusal. The key is never part of an answer."""
        from naf_bench.leaderboard.worker import check_endpoint_job

        if isinstance(team, str):
            return refused([team])
        model = (model or "").strip()
        if kind == "verified":
            if self.store.approved_model(model, team.id) is None:
                return refused(
                    [
                        f"{model!r} is not a model approved for your team (the maintainer approves a model "
                        "folder, a .gguf file or a Hub id pinned to a commit for a team, or for every team: "
                        "leaderboard approve-model)"
                    ]
                )
            base_url = key = None
        elif kind == "endpoint":
            base_url = (base_url or "").strip()
            key = (key or "").strip() or None
            if reasons := check_endpoint_job(base_url, model, key, self.allowed_hosts):
                return refused(reasons)
        else:
            return refused([f"kind: 'verified' (an approved model) or 'endpoint' (a server), not {kind!r}"])
        try:
            job = self.store.submit_job(
                team,
                kind=kind,
                model=model,
                base_url=base_url,
                settings={},
                key=key,
                quota=self.quota,
                window=self.window,
                now=self.clock(),
            )
        except StoreError as exc:
            return refused([str(exc)])
        if not isinstance(job, Job):
            return refused(
                [
                    f"over the quota of {job.quota} uploads and jobs per team in {_hours(self.window)}; "
                    f"the next is allowed from {job.next_allowed}"
                ]
            )
        return {"status": "queued", "job": job.id, "time": job.submitted_at, "kind": kind, "model": model}

    def jobs(self: Service, team: Team) -> list[dict]:
        """The team's jobs: kind, model (and endpoint URL without credentials), state, reason, attempts, times."""
        from naf_bench.runs.endpoints import public_url

        return [{**job, "base_url": job["base_url"] and public_url(job["base_url"])} for job in self.store.jobs(team)]

    def verified_board(self: Service, kind: str = "verified") -> dict:
        """The results of the worker's runs of ``kind`` ("verified" or "endpoint") each team shows, every column
        (a team never sees a verified set's prompts; an endpoint job's set was used once), with the set each was
        scored on: ranked by JOINT within each set."""
        rows = []
        for submission in self.store.shown_kind(kind):
            row = shown_row(submission["record"], submission["n_solved"], submission["n_programs"], True)
            row.update(team_kind=submission["team_kind"], submission=submission["id"], time=submission["submitted_at"])
            rows.append(row)
        rows.sort(key=lambda row: (row["set"], -(row["joint"] or 0), row["time"]))
        for position, row in enumerate(rows):
            first = position == 0 or rows[position - 1]["set"] != row["set"]
            row["rank"] = 1 if first else rows[position - 1]["rank"] + 1
        return {"kind": kind, "self_reported": False, "rows": rows}


class Service(ModelJobs):
    """One board: its gold (hidden test, optional public dev), its store under ``data_dir``, its rules."""

    def __init__(
        self,
        data_dir: str | Path,
        gold: str | Path,
        dev_gold: str | Path | None = None,
        limits: Limits = Limits(),
        quota: int | None = 3,
        window: timedelta = timedelta(hours=24),
        clock: Callable[[], datetime] = now_utc,
        min_gain: int = MIN_GAIN,
        releases: int = RELEASES,
        allowed_hosts=(),
    ):
        """``clock`` gives the time an upload is stored at and counted against the quota (a benchmark's own
        clock; the service's is the wall clock); ``min_gain`` and ``releases`` are the Ladder's (``ladder.py``);
        ``allowed_hosts``: the endpoint hosts of the maintainer's own networks that jobs may name
        (``guest.host_problem``)."""
        # named by their split in what a submitter reads, never by the server's path
        self.golds = {HIDDEN: _named_gold(gold, "the hidden test set")}
        if dev_gold is not None:
            self.golds[DEV] = _named_gold(dev_gold, "the dev set")
        self.ids = {split: {row["id"] for row in gold.rows} for split, gold in self.golds.items()}
        lines = limits.max_lines or 10 * len(self.golds[HIDDEN].rows)
        self.limits = Limits(limits.max_bytes, lines, limits.max_line_bytes, limits.max_metadata_bytes)
        self.quota = quota
        self.window = window
        self.clock = clock
        self.min_gain = min_gain
        self.allowed_hosts = tuple(allowed_hosts)
        self.releases = releases
        self.store = Store(data_dir, recover=True)
        self._baselines: dict[tuple[str, bool], list[dict]] = {}

    # -- identity -----------------------------------------------------------------------------------------------

    def team_for(self, token: str | None, hub_user: tuple[str, str] | None = None) -> Team | str:
        """The team of a token, or of a signed-in Hub user ``(stable id, user name)``; a reason when none."""
        if hub_user is not None and not token:
            team = self.store.team_for_hub_user(*hub_user)
            if team is None:
                return f"the Hugging Face user {hub_user[1]!r} is not approved for this board"
        elif not token:
            return "a team token is needed (the maintainer issues it with `naf-bench leaderboard add-team`)"
        else:
            team = self.store.team_for_token(token.strip())
            if team is None:
                return "unknown team token"
        return f"the team {team.name!r} was revoked" if team.revoked else team

    # -- submitting ---------------------------------------------------------------------------------------------

    def submit(self, submission: str | Path, metadata: str | Path, team: Team | str) -> dict:
        """The acknowledgement (after the commit) or the refusal of one upload, as JSON-ready data."""
        if isinstance(team, str):
            return refused([team])
        if frozen := self.store.frozen_at():
            return refused([f"the board was frozen at {frozen}: it takes no uploads"])
        data, reasons = self._check_file(Path(submission))
        if reasons:
            return refused(reasons)
        meta_bytes = Path(metadata).read_bytes()
        if len(meta_bytes) > self.limits.max_metadata_bytes:
            return refused([f"metadata: {len(meta_bytes):,} bytes; the limit is {self.limits.max_metadata_bytes:,}"])
        upload = read_submission(data, name=team.name, origin="the upload", metadata=meta_bytes)
        if problems := upload.line_problems(refused=True):
            return refused(problems)
        split = max(self.golds, key=lambda s: sum(key in self.ids[s] for key in upload.entries))
        try:
            checked = check(upload, self.golds[split])
        except DataError as exc:
            return refused([exc.reason])
        if upload.metadata_problems:
            return refused(
                [
                    f"metadata: {field}: {reason}" if field else f"metadata: {reason}"
                    for field, reason in upload.metadata_problems
                ]
            )
        meta = upload.metadata
        record, scores = submission_row(checked, n_bootstrap=0)
        solved = scores.solved()  # JOINT per program: what the Ladder compares
        try:
            outcome = self.store.accept(
                team,
                split=split,
                track=meta["track"],
                data=data,
                metadata_bytes=meta_bytes,
                metadata=meta,
                record=record,
                solved=solved,
                quota=self._quota(split),
                window=self.window,
                now=self.clock(),
                min_gain=self.min_gain,
                releases=self.releases,
            )
        except StoreError as exc:  # frozen between the check above and the commit
            return refused([str(exc)])
        if not isinstance(outcome, Accepted):
            return refused(
                [
                    f"over the quota of {outcome.quota} uploads per team (all tracks together) in "
                    f"{_hours(self.window)}; the next is allowed from {outcome.next_allowed}"
                ]
            )
        notes = []
        if checked.unknown:
            notes.append(
                f"{len(checked.unknown)} ids are not in the gold set and were ignored, e.g. {checked.unknown[:3]}"
            )
        unanswered = sum(1 for row in scores.rows if upload.entries.get(row["id"], {}).get("prediction") is None)
        if unanswered:
            notes.append(f"{unanswered} of the {len(scores.rows)} scored items have no prediction (unanswered)")
        return {
            "status": "accepted",
            "submission": outcome.submission_id,
            "time": outcome.submitted_at,
            "split": split,
            "track": meta["track"],
            "board_changed": outcome.replaced,
            "shown": self.standing(team, split),
            "notes": notes,
        }

    def full_scores(self, split: str) -> bool:
        """Whether a board of ``split`` publishes every column (the dev set; the hidden set once frozen)."""
        return split != HIDDEN or self.store.frozen_at() is not None

    def baseline_rows(self, split: str = HIDDEN) -> list[dict]:
        """The board's baseline rows: none for the hidden set while it is live
        (a constant answer's or the majority's score is an aggregate of the hidden labels), every column for the
        dev set and for the hidden set once frozen."""
        full = self.full_scores(split)
        if not full:
            return []
        if (split, full) not in self._baselines:
            rows = board_baselines(self.golds[split].rows, n_bootstrap=0)
            self._baselines[split, full] = [shown_row(r, r["joint_solved"], r["n_programs"], full) for r in rows]
        return self._baselines[split, full]

    def _quota(self, split: str) -> int | None:
        return self.quota if split == HIDDEN else None  # the dev set's answers are public

    def _check_file(self, path: Path) -> tuple[bytes, list[str]]:
        """The upload's bytes (read once, within the size limit) and the refusals that need only them: size, line
        count, line length (each naming its line)."""
        size = path.stat().st_size
        if size > self.limits.max_bytes:
            return b"", [f"the file is {size:,} bytes; the limit is {self.limits.max_bytes:,}"]
        if size == 0:
            return b"", ["the file is empty"]
        reasons = []
        data = path.read_bytes()
        lines = data.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        if len(lines) > self.limits.max_lines:
            reasons.append(f"the file has {len(lines):,} lines; the limit is {self.limits.max_lines:,}")
        for number, line in enumerate(lines, start=1):
            if len(line) > self.limits.max_line_bytes:
                reasons.append(f"line {number}: {len(line):,} bytes; the limit is {self.limits.max_line_bytes:,}")
        return data, reasons

    # -- views --------------------------------------------------------------------------------------------------

    def board(self, track: str, split: str = HIDDEN) -> dict:
        """The board as shown: the Ladder's JOINT for the hidden set while live, every column otherwise."""
        full = self.full_scores(split)
        rows = [self._shown(submission, full) for submission in self.store.shown(split, track)]
        rows.sort(key=lambda row: _standing(row["joint_solved"], row["n_programs"], row["time"], row["submission"]))
        for rank, row in enumerate(rows, start=1):
            row["rank"] = rank
        return {"track": track, "split": split, "frozen": self.store.frozen_at(), "full_scores": full, "rows": rows}

    def standing(self, team: Team, split: str) -> dict:
        """The row ``team`` shows on the boards of ``split``, as :meth:`board` shows it (its rank too), read alone:
        of the other rows on its board, only what ranks them is read."""
        submission = self.store.shown_of(team, split)
        row = self._shown(submission, self.full_scores(split))
        mine = _standing(submission["n_solved"], submission["n_programs"], submission["submitted_at"], submission["id"])
        row["rank"] = 1 + sum(_standing(*other) < mine for other in self.store.standings(split, submission["track"]))
        return row

    @staticmethod
    def _shown(submission: Mapping, full: bool) -> dict:
        """A stored submission's board row as the live rules show it (:func:`shown_row`), without its rank."""
        row = shown_row(submission["record"], submission["n_solved"], submission["n_programs"], full)
        row.update(team_kind=submission["team_kind"], submission=submission["id"], time=submission["submitted_at"])
        return row

    def history(self, team: Team | str) -> dict:
        """A team's own uploads: time, split, track, whether the shown score changed, withdrawn or not."""
        if isinstance(team, str):
            return refused([team])
        return {
            "status": "ok",
            "team": team.name,
            "uploads": [
                {
                    "submission": s["id"],
                    "time": s["submitted_at"],
                    "split": s["split"],
                    "track": s["track"],
                    "board_changed": s["replaced"],
                    "shown_now": s["shown"],
                    "withdrawn": s["withdrawn_reason"] if s["withdrawn_at"] else None,
                }
                for s in self.store.submissions(team)
                if s["track"] in TRACKS
            ],
            "jobs": self.jobs(team),
        }


# The columns of a board row (board.py) that the hidden set shows while the board is live; the others are emptied.
LIVE_COLUMNS = ("name", "model", "track", "baseline", "joint", "joint_solved", "n_programs", "metadata")


def shown_row(row: Mapping, solved: int, n_programs: int, full: bool) -> dict:
    """A board row as the live rules show it: JOINT as ``solved``/``n_programs`` with Wilson's interval (a function
    of those two alone) and, unless ``full``, no other score (emptied, so the page shows a dash)."""
    if full:
        shown = dict(row)
    else:
        shown = {key: {} if isinstance(value, dict) and key != "metadata" else None for key, value in row.items()}
        shown.update({key: row[key] for key in LIVE_COLUMNS if key in row})
    shown.update(joint=solved / n_programs if n_programs else None, joint_solved=solved, n_programs=n_programs)
    interval = wilson_interval(solved, n_programs)
    shown["joint_ci95"] = None if interval is None else list(interval)
    return shown


def _standing(solved: int, n_programs: int, time: str, submission: int) -> tuple:
    """What orders a board (the first ranks highest): the higher JOINT, then the earlier upload, then the earlier id."""
    return -(solved / n_programs if n_programs else 0.0), time, submission


def _hours(window: timedelta) -> str:
    hours = window.total_seconds() / 3600
    return f"{hours:g} hours" if hours != 1 else "1 hour"


def refused(reasons: list[str]) -> dict:
    shown = reasons[:MAX_REASONS]
    if len(reasons) > MAX_REASONS:
        shown.append(f"... and {len(reasons) - MAX_REASONS} more")
    return {"status": "refused", "reasons": shown}


def export_board(
    data_dir: str | Path, gold: str | Path, dev_gold: str | Path | None, out: str | Path, n_bootstrap: int = 1000
) -> list[Path]:
    """The static site of a service's folder (the board builder's page): the boards as the service shows them,
    the Ladder's JOINT with Wilson's interval for the hidden set until it is frozen; every column, with the
    program-clustered interval of the kept file re-scored, for the dev set and for the hidden set once frozen.
    The dev set's site is ``OUT/dev``."""
    from naf_bench.leaderboard.board import assemble_board, dataset_summary
    from naf_bench.leaderboard.site import write_site

    service = Service(data_dir, gold, dev_gold)
    written = []
    for split, answers in service.golds.items():
        rows = answers.rows
        full = service.full_scores(split)
        board_rows = []
        for track in TRACKS:
            for submission in service.store.shown(split, track):
                row = shown_row(submission["record"], submission["n_solved"], submission["n_programs"], full)
                if full:
                    kept = read_submission(
                        service.store.file_path(submission["file_sha256"]),
                        name=submission["team"],
                        metadata=submission["metadata"],
                    )
                    row = submission_row(check(kept, answers), n_bootstrap)[0]
                board_rows.append(row)
        baselines = board_baselines(rows, n_bootstrap) if full else []
        name = Path(gold if split == HIDDEN else dev_gold)
        board = assemble_board(board_rows, baselines, dataset_summary(rows, _set_name(name)))
        board["live"] = {"frozen": service.store.frozen_at(), "full_scores": full}
        written += write_site(board, Path(out) if split == HIDDEN else Path(out) / DEV)
    return written


def _named_gold(path: str | Path, name: str) -> Gold:
    gold = read_gold(path)
    return Gold(gold.rows, name, gold.layout)


def _set_name(gold: Path) -> str:
    return gold.parent.name if gold.name == "gold.jsonl" else gold.name.removesuffix(".jsonl")
