"""The submission service's store: one SQLite database (WAL) under DIR for teams, submissions and scores,
and each accepted file kept byte for byte under its content hash in ``DIR/files``.

Every change is one transaction. An upload is written as: take the write lock (``BEGIN IMMEDIATE``), check
the quota and the Ladder inside it, write the files (temporary name, fsync, rename), insert the row, commit;
only then is it acknowledged. A process killed anywhere before the commit leaves no row, and at most a
complete file that no row names, which the server removes when it next opens the store (``recover=True``).
The quota and the Ladder's state are per team and split, not per track: a track is the submitter's
declaration, and two Ladders would let one file, sent once per track, be read twice. Tokens are stored only
as their SHA-256; the metadata's contact stays here and is never published.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import threading
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path

from naf_bench.errors import DataError, NafBenchError
from naf_bench.leaderboard.ladder import MIN_GAIN, RELEASES, ladder_accepts, shown_positions

DATABASE = "board.sqlite"
FILES = "files"
KEYS = "keys"  # endpoint jobs' keys, one file each (mode 0600), while the job is queued or running
MODELS = "models"  # approved models' checked copies, one folder each (models.py)
SCHEMA_VERSION = 2
MAX_NAME = 64  # characters in a team's name

_SCHEMA = """
CREATE TABLE IF NOT EXISTS teams (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('token', 'hub')),
    name TEXT NOT NULL,
    token_sha256 TEXT UNIQUE,
    hub_sub TEXT UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT,
    UNIQUE (kind, name)
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id),
    split TEXT NOT NULL,
    track TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    file_sha256 TEXT NOT NULL,
    metadata_sha256 TEXT NOT NULL,
    metadata TEXT NOT NULL,
    record TEXT NOT NULL,
    solved TEXT NOT NULL,
    n_solved INTEGER NOT NULL,
    n_programs INTEGER NOT NULL,
    replaced INTEGER NOT NULL,
    shown INTEGER NOT NULL,
    withdrawn_at TEXT,
    withdrawn_by TEXT,
    withdrawn_reason TEXT
);
CREATE INDEX IF NOT EXISTS submissions_by_team ON submissions (team_id, split, track, submitted_at);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS approved_models (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    team_id INTEGER REFERENCES teams (id),
    stored TEXT NOT NULL,
    approved_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id),
    kind TEXT NOT NULL CHECK (kind IN ('verified', 'endpoint')),
    model TEXT NOT NULL,
    base_url TEXT,
    settings TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    reason TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    submitted_at TEXT NOT NULL,
    started_at TEXT,
    heartbeat_at TEXT,
    ended_at TEXT,
    submission_id INTEGER REFERENCES submissions (id)
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, id);
"""


REVOKED = "the team was revoked"  # the reason of its jobs that were queued, or running, then


class StoreError(NafBenchError):
    """A maintainer's command on the store that cannot be done (unknown team, a name already taken, ...)."""


@dataclass(frozen=True)
class Team:
    id: int
    kind: str  # "token" or "hub"
    name: str  # what the board shows: the team's name, or the Hub user name the maintainer approved
    revoked: bool


@dataclass(frozen=True)
class Accepted:
    submission_id: int
    submitted_at: str
    replaced: bool  # whether the board's shown score for the team changed with this upload
    file_sha256: str


@dataclass(frozen=True)
class Job:
    id: int
    team_id: int
    team: str
    kind: str  # "verified" (weights the maintainer approved) or "endpoint" (an OpenAI-compatible server)
    model: str
    base_url: str | None
    settings: dict
    state: str
    attempts: int
    submitted_at: str


@dataclass(frozen=True)
class OverQuota:
    quota: int
    next_allowed: str  # ISO time (UTC) of the next upload the quota allows


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def team_name(name: str) -> str:
    """A team's (or Hub user's) name as the board shows it: NFKC-normalised, trimmed, 1 to MAX_NAME printable
    characters (no control, format or bidirectional control character)."""
    name = unicodedata.normalize("NFKC", name).strip()
    if not name:
        raise StoreError("a team needs a name (1 to 64 printable characters)")
    if len(name) > MAX_NAME:
        raise StoreError(f"a team's name is at most {MAX_NAME} characters; this one has {len(name):,}")
    if not name.isprintable():
        bad = next(c for c in name if not c.isprintable())
        raise StoreError(
            f"a team's name has printable characters only; this one has {bad!a} at position {name.index(bad) + 1}"
        )
    return name


@cache
def _confusable_classes() -> dict[str, str]:
    """Each character of Unicode's confusables (UTS #39, as the ``confusable_homoglyphs`` package ships them) and
    the one character that stands for every character confusable with it (their classes joined)."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            char = parent[char]
        return char

    for char, homoglyphs in confusables_data.items():
        for glyph in homoglyphs:
            other = glyph["c"].strip("\u200e\u200f")  # marks around right-to-left glyphs in the data
            if len(other) == 1:
                a, b = sorted((root(char), root(other)))
                parent[b] = a
    return {char: root(char) for char in parent}


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, each character replaced by its confusable class's, case folded; two
    names with one skeleton are confusable (``аlpha`` with a Cyrillic a, ``alpha``; ``Alpha``, ``alpha``)."""
    classes = _confusable_classes()
    shape = "".join(classes.get(char, char) for char in unicodedata.normalize("NFKC", name)).casefold()
    return "".join(classes.get(char, char) for char in shape)  # again: a folded letter may look like another


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Store:
    """The service's state under ``data_dir``; safe to share between the server's threads."""

    def __init__(self, data_dir: str | Path, recover: bool = False):
        self.root = Path(data_dir)
        self.files = self.root / FILES
        (self.files / "tmp").mkdir(parents=True, exist_ok=True)
        self.path = self.root / DATABASE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # an acknowledged upload survives the machine, not only the process
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        if "stored" not in {row["name"] for row in self._db.execute("PRAGMA table_info(approved_models)")}:
            # schema 1 approved paths it never copied: those approvals are dropped, to be given again (models.py)
            self._db.execute("DROP TABLE approved_models")
            self._db.executescript(_SCHEMA)
        (self.root / KEYS).mkdir(mode=0o700, exist_ok=True)
        if recover:
            self._remove_unnamed_files()
            self._remove_stray_keys()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- transactions -------------------------------------------------------------------------------------------

    def _transaction(self):
        store = self

        class _Transaction:
            def __enter__(self):
                store._lock.acquire()
                try:
                    store._db.execute("BEGIN IMMEDIATE")
                except BaseException:
                    store._lock.release()
                    raise
                return store._db

            def __exit__(self, kind, value, traceback):
                try:
                    store._db.execute("COMMIT" if kind is None else "ROLLBACK")
                finally:
                    store._lock.release()
                return False

        return _Transaction()

    def _read(self, sql: str, params=()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # -- files --------------------------------------------------------------------------------------------------

    def file_path(self, sha256: str) -> Path:
        return self.files / sha256[:2] / sha256

    def _keep(self, data: bytes) -> str:
        """Write ``data`` under its SHA-256 (temporary name, fsync, rename) and return the hash."""
        digest = hashlib.sha256(data).hexdigest()
        final = self.file_path(digest)
        if final.exists():
            return digest
        final.parent.mkdir(exist_ok=True)
        temporary = self.files / "tmp" / uuid.uuid4().hex
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, final)
        directory = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return digest

    def _remove_unnamed_files(self) -> None:
        """Files of uploads that never committed (the process died in between): no row names them."""
        for leftover in (self.files / "tmp").iterdir():
            leftover.unlink()
        named = {
            digest
            for row in self._read("SELECT file_sha256, metadata_sha256 FROM submissions")
            for digest in (row["file_sha256"], row["metadata_sha256"])
        }
        for folder in self.files.iterdir():
            if folder.name != "tmp":
                for kept in folder.iterdir():
                    if kept.name not in named:
                        kept.unlink()

    # -- teams --------------------------------------------------------------------------------------------------

    def add_team(self, name: str) -> str:
        """A token team; returns its token, which is never stored (only its hash)."""
        name = team_name(name)
        token = secrets.token_urlsafe(32)
        self._add("token", name, token_sha256=token_hash(token))
        return token

    def add_hub_user(self, username: str) -> None:
        """Approve a Hugging Face user; the user's stable id is bound at the first sign-in."""
        self._add("hub", team_name(username))

    def _add(self, kind: str, name: str, token_sha256: str | None = None) -> None:
        with self._transaction() as db:
            for (other,) in db.execute("SELECT name FROM teams WHERE kind = ?", (kind,)):
                if skeleton(other) == skeleton(name):
                    raise StoreError(
                        f"there is already a {kind} team named {other!r}"
                        + ("" if other == name else f" ({name!a} looks like it: names are compared as they look)")
                    )
            db.execute(
                "INSERT INTO teams (kind, name, token_sha256, created_at) VALUES (?, ?, ?, ?)",
                (kind, name, token_sha256, _iso(now_utc())),
            )

    def revoke_team(self, name: str, hub: bool = False) -> list[int]:
        """Refuse the team from now on and cancel its queued jobs (a running one is not posted); the jobs
        cancelled."""
        moment = _iso(now_utc())
        with self._transaction() as db:
            row = db.execute(
                "SELECT id FROM teams WHERE kind = ? AND name = ? AND revoked_at IS NULL",
                ("hub" if hub else "token", name),
            ).fetchone()
            if row is None:
                raise StoreError(f"no active {'Hub user' if hub else 'token team'} named {name!r}")
            db.execute("UPDATE teams SET revoked_at = ? WHERE id = ?", (moment, row["id"]))
            cancelled = [
                job for (job,) in db.execute("SELECT id FROM jobs WHERE team_id = ? AND state = 'queued'", (row["id"],))
            ]
            db.execute(
                "UPDATE jobs SET state = 'failed', reason = ?, ended_at = ? WHERE team_id = ? AND state = 'queued'",
                (REVOKED, moment, row["id"]),
            )
        for job in cancelled:
            self.key_path(job).unlink(missing_ok=True)
        return cancelled

    def team_for_token(self, token: str) -> Team | None:
        rows = self._read("SELECT * FROM teams WHERE kind = 'token' AND token_sha256 = ?", (token_hash(token),))
        return _team(rows[0]) if rows else None

    def team_for_hub_user(self, sub: str, username: str) -> Team | None:
        """The approved Hub team of the user with stable id ``sub``: bound to it at the first sign-in of the
        approved ``username``; later, only ``sub`` counts (a renamed account keeps its team, a new account that
        takes the old name gets none)."""
        with self._transaction() as db:
            rows = db.execute("SELECT * FROM teams WHERE kind = 'hub' AND hub_sub = ?", (sub,)).fetchall()
            if rows:
                return _team(rows[0])
            rows = db.execute(
                "SELECT * FROM teams WHERE kind = 'hub' AND name = ? AND hub_sub IS NULL", (username,)
            ).fetchall()
            if not rows:
                return None
            db.execute("UPDATE teams SET hub_sub = ? WHERE id = ?", (sub, rows[0]["id"]))
            return _team(rows[0])

    def teams(self) -> list[Team]:
        return [_team(row) for row in self._read("SELECT * FROM teams ORDER BY id")]

    # -- submissions --------------------------------------------------------------------------------------------

    def accept(
        self,
        team: Team,
        *,
        split: str,
        track: str,
        data: bytes,
        metadata_bytes: bytes,
        metadata: Mapping,
        record: Mapping,
        solved: Mapping[str, bool],
        quota: int | None = None,
        window: timedelta = timedelta(hours=24),
        now: datetime | None = None,
        min_gain: int = MIN_GAIN,
        releases: int = RELEASES,
    ) -> Accepted | OverQuota:
        """Keep an upload that passed every check, in one transaction; refuse it over the quota (nothing kept).
        The quota counts the team's uploads to ``split`` on every track and its model jobs; the Ladder
        (``ladder.py``) compares the upload with the team's shown submission on ``split``, on whichever track that
        one was."""
        moment = now or now_utc()
        with self._transaction() as db:
            if self._state(db, "frozen_at"):
                raise StoreError("the board is frozen: it takes no uploads")
            if quota is not None and (over := _over_quota(db, team.id, split, quota, window, moment)):
                return over
            return self._insert(
                db, team.id, split, track, data, metadata_bytes, metadata, record, solved, moment, min_gain, releases
            )

    def _insert(
        self,
        db,
        team_id,
        split,
        track,
        data,
        metadata_bytes,
        metadata,
        record,
        solved,
        moment,
        min_gain,
        releases=RELEASES,
    ):
        """Keep a scored submission inside the caller's transaction, the Ladder of ``(team, split)`` deciding
        whether it is shown, once the team's state on ``split`` has changed ``releases`` times (withdrawn
        submissions too: what they showed was seen) never again."""
        shown = db.execute(  # one Ladder state per team and split, whichever track the upload declares
            "SELECT id, solved FROM submissions WHERE team_id = ? AND split = ? AND shown = 1", (team_id, split)
        ).fetchone()
        (released,) = db.execute(
            "SELECT COUNT(*) FROM submissions WHERE team_id = ? AND split = ? AND replaced = 1", (team_id, split)
        ).fetchone()
        replaced = released < releases and ladder_accepts(
            solved, None if shown is None else json.loads(shown["solved"]), min_gain
        )
        if replaced and shown is not None:
            db.execute("UPDATE submissions SET shown = 0 WHERE id = ?", (shown["id"],))
        file_digest = self._keep(data)
        metadata_digest = self._keep(metadata_bytes)
        cursor = db.execute(
            "INSERT INTO submissions (team_id, split, track, submitted_at, file_sha256, metadata_sha256,"
            " metadata, record, solved, n_solved, n_programs, replaced, shown)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                team_id,
                split,
                track,
                _iso(moment),
                file_digest,
                metadata_digest,
                json.dumps(metadata),
                json.dumps(record),
                json.dumps(dict(solved), sort_keys=True),
                sum(map(bool, solved.values())),
                len(solved),
                int(replaced),
                int(replaced),
            ),
        )
        return Accepted(cursor.lastrowid, _iso(moment), replaced, file_digest)

    def withdraw(self, submission_id: int, by: str, reason: str) -> None:
        """Hide a submission from the board (it stays here, with who and why); the team's shown score is the
        Ladder's over its other submissions."""
        with self._transaction() as db:
            row = db.execute("SELECT * FROM submissions WHERE id = ?", (submission_id,)).fetchone()
            if row is None:
                raise StoreError(f"no submission {submission_id}")
            if row["withdrawn_at"]:
                raise StoreError(f"submission {submission_id} was withdrawn already ({row['withdrawn_reason']})")
            db.execute(
                "UPDATE submissions SET withdrawn_at = ?, withdrawn_by = ?, withdrawn_reason = ?, shown = 0"
                " WHERE id = ?",
                (_iso(now_utc()), by, reason, submission_id),
            )
            rest = db.execute(
                "SELECT id, solved FROM submissions WHERE team_id = ? AND split = ? AND withdrawn_at IS NULL "
                "ORDER BY id",
                (row["team_id"], row["split"]),
            ).fetchall()
            replaced = shown_positions(json.loads(r["solved"]) for r in rest)
            last = max((i for i, r in enumerate(replaced) if r), default=None)
            for i, r in enumerate(rest):
                db.execute("UPDATE submissions SET shown = ? WHERE id = ?", (int(i == last), r["id"]))

    def submissions(self, team: Team | None = None) -> list[dict]:
        """Every submission (or a team's), oldest first, with its team; includes the private columns."""
        return self._submissions(*(("WHERE s.team_id = ?", (team.id,)) if team else ("", ())))

    def shown(self, split: str, track: str) -> list[dict]:
        """The submission each team shows on the board of ``split`` and ``track`` (a team shows one submission per
        split: on the board of that submission's track)."""
        return self._submissions("WHERE s.split = ? AND s.track = ? AND s.shown = 1", (split, track))

    def shown_of(self, team: Team, split: str) -> dict | None:
        """The submission ``team`` shows on the boards of ``split`` (on its track's), or None."""
        found = self._submissions("WHERE s.team_id = ? AND s.split = ? AND s.shown = 1", (team.id, split))
        return found[0] if found else None

    def standings(self, split: str, track: str) -> list[tuple[int, int, str, int]]:
        """(programs solved, programs, time, id) of each submission shown on the board of ``split`` and ``track``:
        what ranks it, without its record."""
        rows = self._read(
            "SELECT n_solved, n_programs, submitted_at, id FROM submissions "
            "WHERE split = ? AND track = ? AND shown = 1",
            (split, track),
        )
        return [tuple(row) for row in rows]

    def _submissions(self, where: str, params: tuple) -> list[dict]:
        """The submissions ``where`` selects, oldest first, each with its team's name and kind."""
        rows = self._read(
            "SELECT s.*, t.name AS team, t.kind AS team_kind FROM submissions s JOIN teams t ON t.id = s.team_id "
            f"{where} ORDER BY s.id",
            params,
        )
        return [_submission(row) for row in rows]

    # -- model jobs (the verified track) ------------------------------------------------------------------------

    def approve_model(self, model: str, stored: str, team: str | None = None) -> bool:
        """Let the token team named ``team`` (None: every team) submit ``model`` (the name it was approved by: a
        local path or ``HUB_ID@COMMIT``), whose checked copy is the folder ``stored`` (``models.py``); False when
        it was approved so already."""
        with self._transaction() as db:
            team_id = None
            if team is not None:
                row = db.execute("SELECT id FROM teams WHERE kind = 'token' AND name = ?", (team,)).fetchone()
                if row is None:
                    raise StoreError(f"no token team named {team!r}")
                team_id = row["id"]
            if db.execute(
                "SELECT 1 FROM approved_models WHERE model = ? AND team_id IS ? AND stored = ?",
                (model, team_id, stored),
            ).fetchone():
                return False
            db.execute("DELETE FROM approved_models WHERE model = ? AND team_id IS ?", (model, team_id))
            db.execute(
                "INSERT INTO approved_models (model, team_id, stored, approved_at) VALUES (?, ?, ?, ?)",
                (model, team_id, stored, _iso(now_utc())),
            )
            return True

    def approved_model(self, model: str, team_id: int) -> Path | None:
        """The checked copy of ``model`` as approved for the team ``team_id`` or for every team; None when it is
        not approved for it."""
        rows = self._read(
            "SELECT stored FROM approved_models WHERE model = ? AND (team_id = ? OR team_id IS NULL)"
            " ORDER BY team_id IS NULL LIMIT 1",
            (model, team_id),
        )
        return Path(rows[0]["stored"]) if rows else None

    def approved_models(self) -> list[str]:
        return [row["model"] for row in self._read("SELECT DISTINCT model FROM approved_models ORDER BY model")]

    def key_path(self, job_id: int) -> Path:
        """Where an endpoint job's key waits for the worker (mode 0600; removed when the job ends)."""
        return self.root / KEYS / str(job_id)

    def submit_job(
        self,
        team: Team,
        *,
        kind: str,
        model: str,
        settings: Mapping,
        base_url: str | None = None,
        key: str | None = None,
        quota: int | None = None,
        window: timedelta = timedelta(hours=24),
        now: datetime | None = None,
        split: str = "test",
    ) -> Job | OverQuota:
        """Queue a model job in one transaction, counted in the team's quota of ``split`` with its uploads; an
        endpoint's ``key`` goes to :meth:`key_path` (written and fsynced before the commit; a key no live job
        names is removed when the store is next opened with ``recover``)."""
        moment = now or now_utc()
        with self._transaction() as db:
            if self._state(db, "frozen_at"):
                raise StoreError("the board is frozen: it takes no jobs")
            if quota is not None and (over := _over_quota(db, team.id, split, quota, window, moment)):
                return over
            cursor = db.execute(
                "INSERT INTO jobs (team_id, kind, model, base_url, settings, state, submitted_at)"
                " VALUES (?, ?, ?, ?, ?, 'queued', ?)",
                (team.id, kind, model, base_url, json.dumps(dict(settings), sort_keys=True), _iso(moment)),
            )
            if key is not None:
                _write_private(self.key_path(cursor.lastrowid), key.encode("utf-8"))
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (cursor.lastrowid,)).fetchone()
            return _job(row, team.name)

    def claim_job(self, stale: timedelta, now: datetime | None = None, max_attempts: int = 2) -> Job | None:
        """The next job for a worker, marked running under a new attempt: a running one whose worker stopped beating
        for ``stale`` (it died), or else the oldest queued job of the team whose last job started longest ago
        (round-robin by team: one team's many jobs never keep another's waiting). A job whose worker died
        ``max_attempts`` times is failed with that reason instead. None when there is nothing to run."""
        moment = now or now_utc()
        ended = []
        with self._transaction() as db:
            dead = "state = 'running' AND heartbeat_at < ?"
            limit = _iso(moment - stale)
            for row in db.execute(
                f"SELECT id, attempts FROM jobs WHERE {dead} AND attempts >= ?", (limit, max_attempts)
            ).fetchall():
                reason = f"the worker running it stopped (killed or crashed) on each of its {row['attempts']} attempts"
                db.execute(
                    "UPDATE jobs SET state = 'failed', reason = ?, ended_at = ? WHERE id = ?",
                    (reason, _iso(moment), row["id"]),
                )
                ended.append(row["id"])
            row = db.execute(f"SELECT * FROM jobs WHERE {dead} ORDER BY id LIMIT 1", (limit,)).fetchone()
            if row is None:  # NULL (a team none of whose jobs started) sorts first
                row = db.execute(
                    "SELECT j.* FROM jobs j WHERE j.state = 'queued' ORDER BY (SELECT MAX(k.started_at) FROM jobs k "
                    "WHERE k.team_id = j.team_id), j.id LIMIT 1"
                ).fetchone()
            if row is not None:
                db.execute(
                    "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, heartbeat_at = ?"
                    " WHERE id = ?",
                    (_iso(moment), _iso(moment), row["id"]),
                )
                row = db.execute(
                    "SELECT j.*, t.name AS team FROM jobs j JOIN teams t ON t.id = j.team_id WHERE j.id = ?",
                    (row["id"],),
                ).fetchone()
        for job_id in ended:
            self.key_path(job_id).unlink(missing_ok=True)
        return None if row is None else _job(row, row["team"])

    def beat(self, job: Job, now: datetime | None = None) -> bool:
        """The worker running ``job`` is alive; False when the job is no longer this attempt's."""
        with self._transaction() as db:
            return bool(
                db.execute(
                    "UPDATE jobs SET heartbeat_at = ? WHERE id = ? AND state = 'running' AND attempts = ?",
                    (_iso(now or now_utc()), job.id, job.attempts),
                ).rowcount
            )

    def post_job(
        self,
        job: Job,
        *,
        split: str,
        data: bytes,
        metadata_bytes: bytes,
        metadata: Mapping,
        record: Mapping,
        solved: Mapping[str, bool],
        min_gain: int = MIN_GAIN,
    ) -> Accepted | None:
        """Post a job's result as a submission of its team on ``split`` (its kind's own Ladder state) and mark the
        job done, in one transaction; None, posting nothing, when this attempt no longer holds the job (another
        worker took it over, or it ended; a job is posted at most once) or its team was revoked meanwhile (the job
        fails)."""
        moment = now_utc()
        with self._transaction() as db:
            if not self._holds(db, job):
                return None
            if db.execute("SELECT revoked_at FROM teams WHERE id = ?", (job.team_id,)).fetchone()["revoked_at"]:
                db.execute(
                    "UPDATE jobs SET state = 'failed', reason = ?, ended_at = ? WHERE id = ?",
                    (REVOKED, _iso(moment), job.id),
                )
                accepted = None
            else:
                accepted = self._insert(
                    db, job.team_id, split, job.kind, data, metadata_bytes, metadata, record, solved, moment, min_gain
                )
                db.execute(
                    "UPDATE jobs SET state = 'done', ended_at = ?, submission_id = ? WHERE id = ?",
                    (_iso(moment), accepted.submission_id, job.id),
                )
        self.key_path(job.id).unlink(missing_ok=True)
        return accepted

    def fail_job(self, job: Job, reason: str, shown_from: datetime | None = None) -> bool:
        """End ``job`` with ``reason`` (one a team may read), shown to the team from ``shown_from`` on (until then
        the job shows as running: when it failed tells nothing); False when this attempt no longer holds it."""
        with self._transaction() as db:
            if not self._holds(db, job):
                return False
            db.execute(
                "UPDATE jobs SET state = 'failed', reason = ?, ended_at = ? WHERE id = ?",
                (reason, _iso(max(shown_from or now_utc(), now_utc())), job.id),
            )
        self.key_path(job.id).unlink(missing_ok=True)
        return True

    @staticmethod
    def _holds(db, job: Job) -> bool:
        row = db.execute("SELECT state, attempts FROM jobs WHERE id = ?", (job.id,)).fetchone()
        return row is not None and row["state"] == "running" and row["attempts"] == job.attempts

    def jobs(self, team: Team | None = None, now: datetime | None = None) -> list[dict]:
        """Every job (or a team's), oldest first: what a team may see of each (never a key); a job that ended
        later than ``now`` (a failure shown from its limit on: ``fail_job``) shows as running."""
        where, params = ("WHERE team_id = ?", (team.id,)) if team else ("", ())
        rows = self._read(
            "SELECT id, kind, model, base_url, state, reason, attempts, submitted_at, started_at, ended_at,"
            f" submission_id FROM jobs {where} ORDER BY id",
            params,
        )
        moment = _iso(now or now_utc())
        jobs = [dict(row) for row in rows]
        for job in jobs:
            if job["ended_at"] and job["ended_at"] > moment:
                job.update(state="running", reason=None, ended_at=None)
        return jobs

    def shown_kind(self, kind: str) -> list[dict]:
        """The results of the worker's runs of ``kind`` each team shows, one per set it was scored on."""
        return self._submissions("WHERE s.track = ? AND s.shown = 1 AND s.withdrawn_at IS NULL", (kind,))

    def _remove_stray_keys(self) -> None:
        """Keys of jobs that ended, or of a job whose submission never committed."""
        live = {str(row["id"]) for row in self._read("SELECT id FROM jobs WHERE state IN ('queued', 'running')")}
        for path in (self.root / KEYS).iterdir():
            if path.name not in live:
                path.unlink()

    # -- board state --------------------------------------------------------------------------------------------

    @staticmethod
    def _state(db, key: str) -> str | None:
        row = db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return None if row is None else row["value"]

    def freeze(self) -> str:
        """Freeze the board: no more uploads; the hidden set's full scores are published from now on."""
        with self._transaction() as db:
            if frozen := self._state(db, "frozen_at"):
                raise StoreError(f"the board was frozen already, at {frozen}")
            frozen = _iso(now_utc())
            db.execute("INSERT INTO state (key, value) VALUES ('frozen_at', ?)", (frozen,))
            return frozen

    def frozen_at(self) -> str | None:
        with self._lock:
            return self._state(self._db, "frozen_at")

    # -- backup -------------------------------------------------------------------------------------------------

    def snapshot(self, destination: str | Path) -> Path:
        """A consistent copy of the database made with SQLite's backup API (never the live files)."""
        destination = Path(destination)
        destination.parent.mkdir(parents=True, exist_ok=True)
        partial = destination.with_name(destination.name + ".partial")
        target = sqlite3.connect(partial)
        try:
            with self._lock:
                self._db.backup(target)
        finally:
            target.close()
        os.replace(partial, destination)
        return destination


def restore(snapshot: str | Path, files: str | Path, data_dir: str | Path) -> None:
    """Rebuild an empty DIR from a database snapshot and the folder of kept files the backup holds; every file a
    row names must be there with its hash, or nothing is written."""
    data_dir = Path(data_dir)
    if data_dir.exists() and any(data_dir.iterdir()):
        raise DataError(data_dir, "restore writes only into an empty folder")
    source = sqlite3.connect(f"file:{Path(snapshot).resolve()}?mode=ro", uri=True)
    try:
        named = "SELECT file_sha256 FROM submissions UNION SELECT metadata_sha256 FROM submissions"
        digests = [digest for (digest,) in source.execute(named)]
        kept = {}
        for digest in digests:
            path = Path(files) / digest[:2] / digest
            if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                raise DataError(path, "a kept file the snapshot names is missing or damaged; nothing restored")
            kept[digest] = path.read_bytes()
        (data_dir / FILES).mkdir(parents=True, exist_ok=True)
        target = sqlite3.connect(data_dir / DATABASE)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=WAL")
        finally:
            target.close()
    finally:
        source.close()
    for digest, data in kept.items():
        out = data_dir / FILES / digest[:2] / digest
        out.parent.mkdir(exist_ok=True)
        out.write_bytes(data)


def _over_quota(db, team_id: int, split: str, quota: int, window: timedelta, moment: datetime) -> OverQuota | None:
    """The refusal when the team's uploads to ``split`` and its model jobs in the window reach ``quota``."""
    since = _iso(moment - window)
    recent = sorted(
        [
            row[0]
            for row in db.execute(
                "SELECT submitted_at FROM submissions WHERE team_id = ? AND split = ? AND submitted_at > ?",
                (team_id, split, since),
            )
        ]
        + [
            row[0]
            for row in db.execute(
                "SELECT submitted_at FROM jobs WHERE team_id = ? AND submitted_at > ?", (team_id, since)
            )
        ]
    )
    if len(recent) < quota:
        return None
    first = datetime.fromisoformat(recent[len(recent) - quota])
    return OverQuota(quota, _iso(first + window))


def _write_private(path: Path, data: bytes) -> None:
    """A new file only its owner may read, fsynced."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _job(row, team: str) -> Job:
    return Job(
        row["id"],
        row["team_id"],
        team,
        row["kind"],
        row["model"],
        row["base_url"],
        json.loads(row["settings"]),
        row["state"],
        row["attempts"],
        row["submitted_at"],
    )


def _team(row) -> Team:
    return Team(row["id"], row["kind"], row["name"], row["revoked_at"] is not None)


def _submission(row) -> dict:
    out = dict(row)
    for key in ("metadata", "record", "solved"):
        out[key] = json.loads(out[key])
    out["replaced"] = bool(out["replaced"])
    out["shown"] = bool(out["shown"])
    return out
