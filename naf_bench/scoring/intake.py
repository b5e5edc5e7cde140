"""What naf-bench is given, checked before anything is scored: the one place that opens an input file (a
missing, a folder or an empty one is refused, naming what was expected), reads a submission (a path or an
upload's bytes, with its metadata) into one :class:`Submission` and a gold file (naf-bench's rows, or one of the
NAF-Bench authors' layouts) into one :class:`Gold`, and checks a submission's ids against the gold they are scored
on once (:func:`check`: a submission of another set, or of no id of the set, is refused; where the caller gives
:func:`naf_bench.data.gold.whose`, saying which set its ids name). Finding the gold a submission belongs to
builds datasets: :mod:`naf_bench.data.gold` does it. ``naf-bench score``, ``leaderboard build`` and the service
take the :class:`Checked` record, never the file again.

Duplicate ids: a file that gives one id twice is not a valid submission. ``score`` reports each duplicate
(with the line of the first), scores the first answer and exits 1; the board and the service refuse the file
(the NAF-Bench authors' ``evaluate.py`` keeps the last answer instead, silently).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from naf_bench.errors import ConfigError, DataError
from naf_bench.readings import answer_letters
from naf_bench.scoring.metadata import parse_metadata, validate_metadata

SUBMISSION = "a submission (one JSON line {id, prediction} per answer)"
GOLD = "gold rows (JSONL: `naf-bench generate CONFIG --out FILE.jsonl`, or import-authors' gold.jsonl)"
RUN = "a run (a submission JSONL file or an lm-eval output folder)"
AUTHORS = "an import-authors output folder (<subset>/gold.jsonl and <subset>/runs/*.jsonl)"
RESULTS = "scores (the JSON of `naf-bench score --out` or `baselines --out`) or an lm-eval output folder"
SUBMISSION_KIND = "a submission ({id, prediction} lines)"  # what describe() says of one
UNKNOWN_IDS_SHOWN = 5  # per-id lines of ids not in the gold; the rest are counted
NO_GOLD_ID = "no id of the gold set: nothing to score"


def input_file(path: str | Path, what: str) -> Path:
    """``path`` when it is a file with something in it, else a DataError naming it and ``what`` was expected."""
    path = Path(path)
    if path.is_dir():
        raise DataError(path, f"a folder, where {what} was expected")
    if not path.is_file():
        raise DataError(path, f"no such file ({what} was expected)")
    with open(path, "rb") as file:  # the first non-blank chunk ends the scan: a large file is not read whole
        while chunk := file.read(1 << 16):
            if chunk.strip():
                return path
    raise DataError(path, f"empty file, where {what} was expected")


@dataclass(frozen=True)
class Layout:
    """A gold layout of the NAF-Bench authors: its shape, and where its fields are in naf-bench's names."""

    name: str
    shape: type | None  # dict: a JSON object by id; list: a JSON list; None: JSON lines
    fields: tuple[str, ...]  # what every record of it has (a JSON object's key is its id field)
    id: str
    program: str | None  # the field of the program id (None: the id without its '-<cond>::<cond>' ending)
    family: str


AUTHORS_LAYOUTS = (
    Layout("the NAF-Bench authors' leaderboard set (their leaderboard/data/<set>.jsonl)", None,
           ("id", "rec_id", "axis", "cond", "gold"), "id", "rec_id", "axis"),
    Layout("the NAF-Bench authors' leaderboard dev set (their leaderboard/data/dev.jsonl)", None,
           ("id", "cond", "divergence_bin", "gold"), "id", None, "divergence_bin"),
    Layout("the NAF-Bench authors' evaluate.py gold (a JSON object {task_id: {gold, cond, divergence_bin, rec_id}})",
           dict, ("task_id", "gold", "cond", "divergence_bin", "rec_id"), "task_id", "rec_id", "divergence_bin"),
    Layout("the NAF-Bench authors' prompt set (their data/<set>_set.json)", list,
           ("task_id", "rec_id", "cond", "gold", "divergence_bin"), "task_id", "rec_id", "divergence_bin"),
    Layout("the NAF-Bench authors' certified prompt set (their data/<set>.json)", list,
           ("task_id", "rec_id", "cond", "gold", "family"), "task_id", "rec_id", "family"),
)  # fmt: skip
GOLD_FIELDS = ("id", "program_id", "family", "condition", "gold")  # what scoring reads of a naf-bench row


@dataclass(frozen=True)
class Gold:
    """Gold rows and where they come from: ``name`` is a config split (``hard/test``) or a file, ``layout`` the
    authors' layout it was read in (None: naf-bench's rows)."""

    rows: list[dict]
    name: str
    layout: Layout | None = None

    @property
    def notes(self) -> list[str]:
        if self.layout is None:
            return []
        return [
            f"{self.name}: read as {self.layout.name}: the authors' gold letters, not certified by naf-bench "
            "(`naf-bench import-authors` certifies them and keeps each row's certificate, which trace "
            "scores need)"
        ]


def read_gold(path: str | Path) -> Gold:
    """The gold rows of a file: naf-bench rows (JSONL with ``id``, ``program_id``, ``family``, ``condition``,
    ``gold``), or one of :data:`AUTHORS_LAYOUTS`; a DataError names the file, its line and what to do."""
    path = input_file(path, GOLD)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text (byte {exc.start + 1})") from None
    whole = _json(text)
    if isinstance(whole, dict) and whole and all(isinstance(v, dict) for v in whole.values()) and "id" not in whole:
        shape, records = dict, [(n, {"task_id": key, **value}) for n, (key, value) in enumerate(whole.items(), 1)]
    elif isinstance(whole, list):
        shape, records = list, list(enumerate(whole, start=1))
    else:
        shape, records = None, list(_json_lines(path, text))
    if not records:
        raise DataError(path, f"no gold rows, where {GOLD} was expected")
    first = records[0][1]
    layout = next((x for x in AUTHORS_LAYOUTS if x.shape is shape and _has(first, x.fields)), None)
    if layout is None and (shape is not None or not _has(first, GOLD_FIELDS)):
        raise DataError(path, f"{_unknown_layout(first)}; expected {GOLD}", 1 if shape is None else None)

    def refused(number: int, reason: str) -> DataError:  # a JSON line by its number, a JSON record by its place
        return DataError(path, reason, number) if shape is None else DataError(path, f"record {number}: {reason}")

    rows, seen = [], set()
    for number, record in records:
        if not _has(record, layout.fields if layout else GOLD_FIELDS):
            raise refused(number, f"row needs {', '.join(layout.fields if layout else GOLD_FIELDS)}")
        row = _row(record, layout)
        if row["gold"] is not None and row["gold"] not in answer_letters():
            raise refused(number, f"gold {row['gold']!r} is not A, B, C or null")
        if row["id"] in seen:
            raise refused(number, f"duplicate id {row['id']!r}")
        seen.add(row["id"])
        rows.append(row)
    return Gold(rows, str(path), layout)


def _json(text: str):
    """The file as one JSON value, or None when it is not one (JSON lines, or malformed)."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None


def _json_lines(path: Path, text: str):
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(path, f"malformed JSON ({exc.msg}, column {exc.colno})", number) from None


def _has(record, fields: tuple[str, ...]) -> bool:
    return isinstance(record, dict) and all(key in record for key in fields)


def _row(record: dict, layout: Layout | None) -> dict:
    """A naf-bench gold row of a record in ``layout`` (None: already one)."""
    if layout is None:
        return record
    task_id = record[layout.id]
    condition = record["cond"]
    program = record[layout.program] if layout.program else task_id.removesuffix(f"-{condition}::{condition}")
    return {
        "id": task_id,
        "program_id": program,
        "family": record[layout.family],
        "condition": condition,
        "gold": record["gold"],
    }


def _unknown_layout(record) -> str:
    if not isinstance(record, dict):
        return f"a {type(record).__name__}, not a gold row"
    if "prediction" in record:
        return f"{SUBMISSION_KIND}, not gold rows"
    return f"not a gold row (fields {sorted(record)[:12]})"


def describe(path: str | Path) -> str | None:
    """What a JSON or JSON-lines file holds, by its first record, where it is one naf-bench reads: a submission,
    gold rows (ours or an authors' layout), or scores; None otherwise."""
    try:
        with open(path, encoding="utf-8") as file:
            first = file.readline()
    except (OSError, UnicodeDecodeError):
        return None
    record = _json(first)
    if not isinstance(record, dict):
        return None
    if "prediction" in record and "id" in record:
        return SUBMISSION_KIND
    if _has(record, GOLD_FIELDS) or any(_has(record, layout.fields) for layout in AUTHORS_LAYOUTS):
        return "gold rows"
    return None


# -- a submission -----------------------------------------------------------------------------------------------

_BLANK = object()


def _record(number: int, raw: bytes) -> tuple[object, str | None]:
    """One line's JSON value and None, or None and its problem; ``_BLANK`` and None for a blank line."""
    try:
        line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        return None, f"line {number}: not UTF-8 (byte 0x{raw[exc.start]:02x} at byte column {exc.start + 1})"
    if not line.strip():
        return _BLANK, None
    try:
        return json.loads(line), None
    except json.JSONDecodeError as exc:
        stripped = line.rstrip()
        if stripped.endswith(",") and _json(stripped[:-1]) is not None:
            return None, f"line {number}: a comma after the JSON object (JSON lines end without one); remove it"
        return None, f"line {number}: malformed JSON ({exc.msg}, column {exc.colno})"
    except RecursionError:
        return None, f"line {number}: JSON nested too deeply"


# a file's first bytes -> what it is, where one JSON object per line was expected
_PACKED = ((b"\x1f\x8b", "a gzip file: decompress it first (gunzip -k FILE) and give the .jsonl"),
           (b"PK\x03\x04", "a zip archive: extract the .jsonl and give that"))  # fmt: skip


def _file_problem(source: Path | bytes) -> str | None:
    """What a whole file is, where it is not JSON lines: a compressed file, or one JSON array of the answers."""
    if isinstance(source, bytes):
        head = source[:4096]
    else:
        with open(source, "rb") as file:
            head = file.read(4096)
    for magic, what in _PACKED:
        if head.startswith(magic):
            return what
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        return (
            "a JSON array, where one JSON object per line was expected: write each answer on a line of its own "
            "(jq -c '.[]' FILE > FILE.jsonl)"
        )
    return None


def _lines(source: Path | bytes):
    """``(line number, byte offset, bytes)`` of each line, read as the file is (never the whole file at once)."""
    offset = 0
    with io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            yield number, offset, raw.removesuffix(b"\n")
            offset += len(raw)


class SubmittedTrace:
    """A submission line's trace, left in its file (or the upload's bytes) until it is scored (``str()`` reads
    it): a submission's traces are never all in memory as text, only where each line is."""

    __slots__ = ("offset", "path", "size")

    def __init__(self, path: str | Path | bytes, offset: int, size: int):
        self.path, self.offset, self.size = path, offset, size

    def __str__(self) -> str:
        if isinstance(self.path, bytes):
            return json.loads(self.path[self.offset : self.offset + self.size])["trace"]
        with open(self.path, "rb") as file:
            file.seek(self.offset)
            return json.loads(file.read(self.size))["trace"]

    def __repr__(self) -> str:
        where = f"<{len(self.path)} bytes>" if isinstance(self.path, bytes) else repr(str(self.path))
        return f"SubmittedTrace({where}, {self.offset}, {self.size})"


@dataclass(frozen=True)
class Submission:
    """A submission read once: its answers by id (``{"prediction", "trace"}``; a null prediction is an item
    left unanswered), the problems of its lines (each naming its line), its duplicate ids (line, id, line of
    the first, whose answer is the one kept), and its metadata where it has one (``metadata_problems``: every
    (field, reason) the schema or the JSON refuses)."""

    name: str
    origin: str  # the path, or what the bytes were
    entries: dict[str, dict]
    malformed: list[tuple[int, str]]  # (line, problem); line 0: the whole file (a gzip file, a JSON array)
    duplicates: list[tuple[int, str, int]]
    data: bytes | None = None  # the upload's bytes (what the store keeps); None for a file read in place
    metadata: dict | None = None
    metadata_bytes: bytes | None = None
    metadata_problems: list[tuple[str, str]] = field(default_factory=list)
    line_of: dict[str, int] = field(default_factory=dict)  # the line each kept answer is on

    def line_problems(self, refused: bool) -> list[str]:
        """Every problem of its lines in line order, a duplicate saying what was done with it: the file
        ``refused`` (the board, the service), or its first answer kept (``score``)."""
        done = "the file is refused" if refused else "kept the first"
        duplicates = [
            (number, f"line {number}: duplicate id {key!r} (first on line {first}); {done}")
            for number, key, first in self.duplicates
        ]
        return [text for _, text in sorted(self.malformed + duplicates)]

    def malformed_summary(self, shown: int = 3) -> str:
        """Its malformed lines counted, the first few cited: what a refusal of the file adds."""
        if self.malformed[0][0] == 0:
            return self.malformed[0][1]
        lines = "; ".join(text for _, text in self.malformed[:shown])
        more = f"; and {len(self.malformed) - shown} more" if len(self.malformed) > shown else ""
        return f"{len(self.malformed)} malformed line{'s' * (len(self.malformed) != 1)}: {lines}{more}"

    def refusal(self, error: ConfigError | DataError) -> ConfigError | DataError:
        """``error`` (a refusal of the file's ids) with its malformed lines counted and cited: an unreadable line may
        be why its ids name no set."""
        if not self.malformed:
            return error
        if isinstance(error, DataError):
            return DataError(error.path, f"{error.reason}; also {self.malformed_summary()}", error.line)
        return ConfigError(f"{error}; also {self.malformed_summary()}")


def read_submission(
    source: str | Path | bytes,
    *,
    name: str | None = None,
    origin: str | None = None,
    metadata: Mapping | str | Path | bytes | None = None,
) -> Submission:
    """A submission's :class:`Submission`: ``source`` is its file or an upload's bytes; ``metadata`` a mapping,
    a file, the bytes of one, or None (none given: ``score`` needs none). Nothing is dropped silently."""
    if not isinstance(source, bytes):
        source = Path(source)
    origin = origin or str(source if isinstance(source, Path) else "the upload")
    name = name or (source.name.removesuffix(".jsonl") if isinstance(source, Path) else "submission")
    entries: dict[str, dict] = {}
    first_line: dict[str, int] = {}
    malformed, duplicates = [], []
    if problem := _file_problem(source):  # the whole file's problem (line 0), where its lines are not JSON lines
        malformed.append((0, problem))
    for number, offset, raw in _lines(source) if not malformed else ():
        record, problem = _record(number, raw)
        if record is _BLANK:
            continue
        if problem is None:
            problem = _entry_problem(number, record)
        if problem:
            malformed.append((number, problem))
        elif record["id"] in entries:
            duplicates.append((number, record["id"], first_line[record["id"]]))
        else:
            first_line[record["id"]] = number
            trace = SubmittedTrace(source, offset, len(raw)) if record.get("trace") else record.get("trace")
            entries[record["id"]] = {"prediction": record["prediction"], "trace": trace}
    meta, meta_bytes, meta_problems = None, None, []
    if isinstance(metadata, Mapping):
        meta, meta_problems = dict(metadata), validate_metadata(metadata)
    elif metadata is not None:
        meta_bytes = metadata if isinstance(metadata, bytes) else _metadata_file(metadata)
        meta, meta_problems = parse_metadata(meta_bytes)
    return Submission(
        name,
        origin,
        entries,
        malformed,
        duplicates,
        source if isinstance(source, bytes) else None,
        meta,
        meta_bytes,
        meta_problems,
        first_line,
    )


def _entry_problem(number: int, record) -> str | None:
    if not isinstance(record, dict):
        return f"line {number}: a JSON {_json_kind(record)}, where an object {{id, prediction}} was expected"
    if "id" not in record:
        return f"line {number}: needs a string 'id'{_instead(record, 'id')}"
    if not isinstance(record["id"], str):
        return (
            f"line {number}: id {json.dumps(record['id'])} is a JSON {_json_kind(record['id'])}; ids are strings "
            '(the gold rows\' ids, e.g. "nb-hard-cnf_n8-i0-wfs::wfs")'
        )
    if "prediction" not in record:
        return f"line {number}: id {record['id']!r} has no 'prediction'{_instead(record, 'prediction')}"
    if not isinstance(record["prediction"], str | None):
        return (
            f"line {number}: id {record['id']!r}: 'prediction' is a JSON {_json_kind(record['prediction'])}; "
            "give the model's text (a string), or null: unanswered"
        )
    if "trace" in record and not isinstance(record["trace"], str):
        return f"line {number}: id {record['id']!r} has a 'trace' that is not a string"
    return None


def _json_kind(value) -> str:
    kinds = ((bool, "boolean"), (int | float, "number"), (str, "string"), (list, "array"), (dict, "object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def _instead(record: dict, expected: str) -> str:
    """The fields a line has instead of the one expected, named (``"answer"`` where ``"prediction"`` was meant)."""
    others = [key for key in record if key not in ("id", "prediction", "trace")]
    if len(others) == 1:
        return f" (it has {others[0]!r}: name that field {expected!r})"
    return f" (its fields: {', '.join(repr(key) for key in others[:5])})" if others else ""


def _metadata_file(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise DataError(path, "no metadata file (every submission needs <name>.metadata.json)") from None


@dataclass(frozen=True)
class Checked:
    """A :class:`Submission` checked against its :class:`Gold` once: the ids it gives that the gold lacks
    (``unknown``, sorted; ignored), and the gold's scored ids it gives no line for (``missing``: unanswered)."""

    submission: Submission
    gold: Gold
    unknown: list[str]
    missing: list[str]
    n_prompts: int  # the gold's scored prompts (those with a gold letter)

    @property
    def n_given(self) -> int:
        """How many of the gold's scored prompts the submission has a line for."""
        return self.n_prompts - len(self.missing)

    @property
    def n_answered(self) -> int:
        """How many of the gold's scored prompts it gives a prediction for (not null)."""
        entries = self.submission.entries
        return sum(
            1
            for row in self.gold.rows
            if row["gold"] is not None and entries.get(row["id"], {}).get("prediction") is not None
        )

    @property
    def partial(self) -> bool:
        """Whether it answers only part of the set (a line for fewer than all its scored prompts)."""
        return bool(self.missing)

    def id_problems(self) -> list[str]:
        """Its ids' problems as ``score`` reports them: unknown ids (the first few, then a count), missing ones."""
        entries = self.submission.entries
        problems = [f"unknown id {key!r} (not in the gold set)" for key in self.unknown[:UNKNOWN_IDS_SHOWN]]
        if len(self.unknown) > UNKNOWN_IDS_SHOWN:
            more, shown = len(self.unknown) - UNKNOWN_IDS_SHOWN, len(self.unknown)
            problems.append(
                f"... and {more} more unknown ids ({shown} of {len(entries)} submitted ids are not in "
                f"{self.gold.name}; they are not scored)"
            )
        if self.missing:
            problems.append(
                f"{len(self.missing)} gold ids have no prediction (scored as unanswered), e.g. {self.missing[:3]}"
            )
        return problems

    def counts(self) -> dict[str, int]:
        """What a board row says of its ids: unknown (ignored), missing (unanswered), and the set's size."""
        return {"n_unknown_ids": len(self.unknown), "n_missing": len(self.missing), "n_given": self.n_given}


def check(submission: Submission, gold: Gold, explain: Callable[[list[str], Gold], str] | None = None) -> Checked:
    """``submission``'s ids against ``gold``; a DataError when most of them are not the gold's (another set's
    answers; with ``explain``, what it says of the ids not in the gold: :func:`naf_bench.data.gold.whose` says which
    set they name and how to score them) or none of the gold's scored ids is among them (:data:`NO_GOLD_ID`)."""
    ids = submission.entries
    known = {row["id"] for row in gold.rows}
    unknown = sorted(key for key in ids if key not in known)
    if ids and len(unknown) * 2 > len(ids):
        found = len(ids) - len(unknown)
        if explain is not None:
            reason = f"{found} of {len(ids)} submitted ids are in {gold.name}; {explain(unknown, gold)}"
        else:
            reason = NO_GOLD_ID if not found else f"{found} of {len(ids)} submitted ids are in {gold.name}"
        raise DataError(submission.origin, reason)
    scored = [row["id"] for row in gold.rows if row["gold"] is not None]
    missing = sorted(set(scored) - set(ids))
    if len(missing) == len(scored):
        raise DataError(submission.origin, NO_GOLD_ID)
    return Checked(submission, gold, unknown, missing, len(scored))
