"""Generation on a Ray cluster: exactly the rows one process makes, written as a Hub dataset folder.

Attempt *i* of a cell (a unit in one split) is a function of (seed, config, split, cell, *i*) alone; only which
attempts are kept depends on the walk. So:

1. Chunks of a cell's attempts are made on the workers (assembled, keyed, certified: ``Cell.attempt``), many
   cells at once, submitted by the cell's keeper (:class:`_Keeper`, an actor), which owns their results.
2. A cell's keeping is decided in attempt order by :class:`CellWalk` (the one walk of a cell, which one process
   and the local pool take too), in its keeper, against its *exclusions*: the keys it meets that cells earlier in
   the walk kept (none at first). A cell that kept too few gets more chunks.
3. Keys that meet across cells are found by a partitioned pass over the keys each cell's walk met, hashed into
   one part per keeper, each keeper one part: where a key meets, the walk's order decides which cell keeps the
   program, and the later cells get the key among their exclusions (:func:`exclusions`, as in the local pool).
   Cells whose exclusions changed are decided again, until none changes; then each cell's decision is the walk's
   (the first cell's never changes, and each next one is right once the cells before it are).
4. After each pass, the cells before the first one whose exclusions changed are final: their files are rendered
   on the workers from the instances their chunks brought (:func:`naf_bench.data.rows.unit_rows`, the function the
   local pool renders with) and written as Parquet under temporary names while later cells are decided, so each
   file is rendered once; the driver renames them and makes any whose write failed again from their kept
   attempts (:func:`naf_bench.data.rows.kept_rows`), each renamed when complete. The
   manifest records the seed, the overrides, the code version, the decision and each complete file, so
   ``resume`` rewrites only what is missing.

The driver holds neither keys nor rows: it reads counts, digests and the decision (the kept attempts).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
import uuid
from dataclasses import dataclass, replace

from naf_bench.errors import ConfigError, NafBenchError
from naf_bench.generate.algorithm import Attempt, CellWalk, Instance, exclusions
from naf_bench.generate.config import CONFIGS, GenerationConfig, get_config
from naf_bench.readings import READINGS

CHUNK_ATTEMPTS = 48  # attempts a task makes: ~0.2 s of work, so a cell's chunks spread over the cluster
MAX_KEEPERS = 16  # actors that keep the cells' attempts and keys (one per CPU up to this), one part of the pass each
FILE_PROGRAMS = 500  # kept programs per Parquet file (at most; a file never spans two units)
MANIFEST = "manifest.json"


class ManifestError(ConfigError):
    """An output folder's manifest was made by another seed, other overrides or another code version."""


def _ray():
    try:
        import ray
    except ImportError:
        raise ConfigError("--engine ray needs Ray: pip install 'naf-bench[ray]' (or pip install 'ray[data]')") from None
    return ray


def code_identity() -> dict:
    """What makes the rows besides the config: the package, dataset and row-code versions."""
    from naf_bench.data.dataset import DATASET_VERSION, code_version
    from naf_bench.version import __version__

    return {"naf_bench": __version__, "dataset_version": DATASET_VERSION, "code_version": code_version()}


# ---------------------------------------------------------------------------------------------------- workers


def _task(handed, *args):
    """A Ray task: ``handed(*args)``, a function the driver handed with its readings table (``READINGS.handing``),
    which the worker (a process Ray reuses across tasks and generations) adopts first."""
    return handed(*args)


def _chunk(
    config: GenerationConfig, s: int, position: int, start: int, stop: int
) -> tuple[list[Attempt], list[Instance]]:
    """Attempts ``start``..``stop - 1`` of a cell as two objects (a task of two returns): what the walk reads of
    each (no instance), and the instances of those that can be kept, in attempt order. The keeper reads the first;
    the second it hands, unread, to the task that renders the cell's files once it has decided it."""
    cell = config.cell(config.units()[position], config.splits[s])
    made = [cell.attempt(index) for index in range(start, stop)]
    # the keeper places these by the same test (``orders == "ok"``, the attempts that carry an instance)
    return [replace(a, instance=None) for a in made], [a.instance for a in made if a.orders == "ok"]


class _Keeper:
    """One keeper of the walk's cells (a Ray actor; cell ``order`` goes to keeper ``order % keepers``), and of one
    partition of the keys. It submits its cells' chunk tasks itself, so it owns their results (the driver never
    holds an attempt or a key), keeps each cell's attempts for the passes that decide it again, decides a cell
    by :class:`CellWalk` over them (more chunks when it kept too few, sized by its rate so far), and keeps the
    keys each decision looked up, hashed into one part per keeper for the pass across cells. Once a cell's
    decision is final (:meth:`write_final`), its files are rendered from the instances the chunks made (not
    made again; the keeper holds references to them, never the instances) and written under temporary names,
    while later cells are decided; the driver renames them."""

    def __init__(self, config: GenerationConfig, handed: tuple, part: int, parts: int, out: str, gold: bool):
        ray = _ray()
        self.config, self.part, self.parts, self.out = config, part, parts, out
        self.config_ref = ray.put(config)
        self.chunk, self.write = (ray.put(function) for function in handed)  # with the driver's readings table
        self.task = ray.remote(_task)
        self.spans: dict[tuple[int, int], list[dict]] = {}  # a cell's files: name, start, size, withheld
        for s, files in enumerate(_file_spans(config, gold).values()):
            for span in files:
                self.spans.setdefault((s, span["position"]), []).append(span)
        self.written: dict[str, tuple[str, object]] = {}  # a file's decision digest and its write task
        self.peers: list = []
        self.attempts: dict[int, list[Attempt]] = {}  # a cell's attempts 0, 1, ... made so far (no instances)
        self.pending: dict[int, list] = {}  # a cell's chunks submitted and not yet read (in attempt order)
        self.instances: dict[int, dict[int, tuple]] = {}  # a cell's attempt -> its chunk's instances, its place
        self.kept: dict[int, tuple] = {}  # a cell not yet written: its split, unit and last decision's kept attempts
        self.looked: dict[int, list[list[tuple[str, int, bool]]]] = {}  # a cell's looked-up keys, per part
        self.conflicts: dict[int, set[str]] = {}  # this part's keys that cells earlier in the walk kept

    async def meet_peers(self, peers: list) -> None:
        self.peers = peers

    async def decide(self, order: int, s: int, position: int) -> dict:
        """Cell ``order``'s decision against the keys earlier cells kept (the last pass's, from every part): a
        summary for the driver (the kept attempts, counts, the exclusions' digest; no keys)."""
        import asyncio

        conflicts = await asyncio.gather(*(self._conflicts_of(j, order) for j in range(self.parts)))
        cell = self.config.cell(self.config.units()[position], self.config.splits[s])
        walk = CellWalk(cell, {key for keys in conflicts for key in keys})
        made = self.attempts.setdefault(order, [])
        pending = self.pending.setdefault(order, [])
        instances = self.instances.setdefault(order, {})
        while not walk.take(made[walk.stats.attempts :]).done and not walk.exhausted:
            if pending:
                decisions, chunk_instances = pending.pop(0)
                chunk = await decisions
                keepable = [a.index for a in chunk if a.orders == "ok"]  # those the chunk made an instance of
                instances.update((index, (chunk_instances, place)) for place, index in enumerate(keepable))
                made.extend(chunk)
            else:  # as many as it wants at first (one attempt keeps one program at most), then as its rate says
                rate = max(len(walk.kept), 1) / walk.stats.attempts if walk.stats.attempts else 1.0
                stop = min(walk.budget, len(made) + max(1, math.ceil((walk.count - len(walk.kept)) / rate)))
                chunk_task = self.task.options(num_returns=2)
                for start in range(len(made), stop, CHUNK_ATTEMPTS):
                    end = min(stop, start + CHUNK_ATTEMPTS)
                    pending.append(chunk_task.remote(self.chunk, self.config_ref, s, position, start, end))
        buckets: list[list[tuple[str, int, bool]]] = [[] for _ in range(self.parts)]
        for key, kept in walk.met:
            buckets[_partition(key, self.parts)].append((key, order, kept))
        self.looked[order] = buckets
        self.kept[order] = s, position, walk.kept if walk.done else None
        return {
            "kept": [a.index for a in walk.kept],
            "attempts": walk.stats.attempts,
            "done": walk.done,
            "exhausted": walk.exhausted,
            "error": str(walk.error()) if walk.exhausted else None,
            "exclusions": _exclusion_digest([_keys_digest(keys) for keys in conflicts]),
        }

    async def write_final(self, orders: list[int]) -> None:
        """Write the files of these cells, whose decisions are final (no cell before them in the walk changes any
        more), from their kept attempts' instances, and drop the references to them (each file is rendered
        once)."""
        for order in orders:
            s, position, kept = self.kept.pop(order)
            instances = self.instances.pop(order)
            del self.attempts[order], self.pending[order]  # a final cell is not decided again
            if kept is not None:
                self._write(s, position, kept, instances)

    def _write(self, s: int, position: int, kept: list[Attempt], instances: dict[int, tuple]) -> None:
        """The cell's files from its kept attempts' instances, each under a temporary name, unless written so: the
        task gets the chunks' instances (Ray hands it the objects; this keeper never reads them) and each kept
        attempt's place among them."""
        for span in self.spans[s, position]:
            attempts = [a.index for a in kept[span["start"] : span["start"] + span["size"]]]
            digest = _span_digest(attempts, span["withheld"])
            if self.written.get(span["name"], ("",))[0] != digest:
                chunks: dict = {}  # a chunk's instances (a reference) -> its number in this task
                places = [(chunks.setdefault(instances[a][0], len(chunks)), instances[a][1]) for a in attempts]
                self.written[span["name"]] = (
                    digest,
                    self.task.remote(
                        self.write,
                        self.config_ref,
                        s,
                        position,
                        attempts,
                        span["start"],
                        self.out,
                        span["name"],
                        span["withheld"],
                        places,
                        *chunks,
                    ),
                )

    async def files(self) -> dict[str, dict]:
        """The files written from instances (each left under its temporary name), once written: name, rows,
        bytes, hash, the temporary name and the decision digest; a write that failed is left to the driver."""
        from ray.exceptions import RayError

        files = {}
        for name, (digest, ref) in self.written.items():
            try:
                files[name] = {**(await ref), "digest": digest}
            except RayError:  # the driver makes the file again from its kept attempts
                continue
        return files

    async def meet(self) -> dict[int, str]:
        """This part of the pass across cells: every cell's looked-up keys hashed here (from every keeper); where a
        key meets, the earliest cell in the walk that kept it keeps it, and each later cell that met it gets it
        among its exclusions. Returns the digest of each cell's exclusions from this part."""
        import asyncio

        parts = await asyncio.gather(*(self._looked_up(i) for i in range(self.parts)))
        self.conflicts = exclusions(entry for part in parts for entry in part)
        return {order: _keys_digest(keys) for order, keys in self.conflicts.items()}

    async def looked_up(self, part: int) -> list[tuple[str, int, bool]]:
        """The keys this keeper's cells looked up that hash to ``part``."""
        return [entry for buckets in self.looked.values() for entry in buckets[part]]

    async def conflicts_of(self, order: int) -> set[str]:
        return self.conflicts.get(order, set())

    async def _looked_up(self, keeper: int):
        """Keeper ``keeper``'s looked-up keys of this part."""
        peer = self.peers[keeper]
        return await (self.looked_up(self.part) if keeper == self.part else peer.looked_up.remote(self.part))

    async def _conflicts_of(self, keeper: int, order: int):
        """Cell ``order``'s exclusions from keeper ``keeper``'s part."""
        peer = self.peers[keeper]
        return await (self.conflicts_of(order) if keeper == self.part else peer.conflicts_of.remote(order))


def _partition(key: str, partitions: int) -> int:
    return int(key[:8], 16) % partitions


def _keys_digest(keys: set[str]) -> str:
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest() if keys else ""


def _exclusion_digest(per_partition: list[str]) -> str:
    return hashlib.sha256("\x1f".join(per_partition).encode()).hexdigest()


def _write_file(
    config: GenerationConfig,
    s: int,
    position: int,
    attempts: list[int],
    start: int,
    out: str,
    name: str,
    withheld: bool,
    places: list[tuple[int, int]] | None = None,
    *chunks: list[Instance],
) -> dict:
    """One Parquet file of a unit's kept programs, rendered here, written under a temporary name and renamed.
    The programs are the kept ``attempts`` made again, or (a keeper's, writing once it has decided the cell)
    ``chunks[c][i]`` for each ``(c, i)`` of ``places``, the chunks' instances: that file is left under its
    temporary name, returned, for the driver to rename."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from naf_bench.data.hub import withhold_gold
    from naf_bench.data.rows import kept_rows, unit_rows
    from naf_bench.data.schema import features

    split = config.splits[s]
    if places is None:
        rows = kept_rows(config, split, position, attempts, start)
    else:
        rows = unit_rows(config, split, position, [chunks[c][i] for c, i in places], start)
    if withheld:
        rows = [withhold_gold(row) for row in rows]
    table = pa.Table.from_pylist(rows, schema=features().arrow_schema)  # as the builder's (dataset._rows_table)
    fs, folder = _filesystem(out)
    final = f"{folder}/data/{config.name}/{name}"
    temporary = f"{folder}/data/{config.name}/.{name}.{uuid.uuid4().hex}.tmp"
    pq.write_table(table, temporary, filesystem=fs)
    info = {"name": name, "rows": table.num_rows, "num_bytes": table.nbytes, **_file_digest(fs, temporary)}
    if places is not None:
        return {**info, "temporary": temporary}
    fs.move(temporary, final)
    return info


def _span_digest(attempts: list[int], withheld: bool) -> str:
    """What a file's rows depend on beside the config and its place: its kept attempts, and the gold withheld."""
    return hashlib.sha256(json.dumps([attempts, withheld]).encode()).hexdigest()


def _preflight(identity) -> dict:
    """What a node has: SWI-Prolog, naf-bench's version and row code under the driver's readings table
    (``identity``: :func:`code_identity` handed with it, ``READINGS.handing``), or why it cannot read that table (a
    registered reading's engine does not import)."""
    import socket

    from naf_bench.solvers.swipl import swipl_executable

    try:
        swipl = swipl_executable()
    except NafBenchError as exc:
        swipl = f"missing ({exc})"
    try:
        here, table = identity(), ""
    except ConfigError as exc:
        here, table = code_identity(), str(exc)
    return {"node": socket.gethostname(), "swipl": swipl, "readings": table, **here}


# ---------------------------------------------------------------------------------------------------- files


def _filesystem(out: str):
    """A pyarrow filesystem and the folder's path in it: a local path, or a URL such as ``s3://bucket/dir``."""
    from pyarrow import fs

    if "://" in out:
        filesystem, path = fs.FileSystem.from_uri(out)
        return filesystem, path.rstrip("/")
    return fs.LocalFileSystem(), os.path.abspath(out)


def _file_digest(fs, path: str) -> dict:
    digest = hashlib.sha256()
    size = 0
    with fs.open_input_stream(path) as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
            size += len(block)
    return {"sha256": digest.hexdigest(), "size": size}


def _read_json(fs, path: str) -> dict | None:
    from pyarrow import fs as pafs

    if fs.get_file_info(path).type != pafs.FileType.File:
        return None
    with fs.open_input_stream(path) as stream:
        return json.loads(stream.read().decode("utf-8"))


def _write_text(fs, path: str, text: str) -> None:
    temporary = f"{path}.{uuid.uuid4().hex}.tmp"
    with fs.open_output_stream(temporary) as stream:
        stream.write(text.encode("utf-8"))
    fs.move(temporary, path)


# ---------------------------------------------------------------------------------------------------- driver


@dataclass
class _Cell:
    """The driver's view of one cell: where it is in the walk, and its keeper's last summary of it."""

    order: int
    s: int
    position: int
    count: int
    summary: dict | None = None


def _manifest_problems(manifest: dict, expected: dict) -> list[str]:
    names = {"seed": "seed", "overrides": "overrides", "code": "code version"}
    return [
        f"{names[key]} {manifest.get(key)!r} there, {expected[key]!r} here"
        for key in names
        if manifest.get(key) != expected[key]
    ]


def generate_on_ray(
    config: str,
    out: str,
    overrides: dict | None = None,
    address: str | None = None,
    repo_id: str = "ORG/naf-bench",
    include_test_gold: bool = False,
    split: str | None = None,
    resume: bool = False,
    progress: bool = True,
) -> dict:
    """Generate and certify a config on Ray and write it to ``out`` in the exported Hub layout
    (``data/<config>/<split>-NNNNN-of-MMMMM.parquet``, the card listing every config in ``out``, LICENSE), with
    exactly the rows ``naf-bench export`` writes (the same gold withheld unless ``include_test_gold``).

    ``address``: an existing cluster (``auto``, ``ray://host:10001``); without it a local Ray is started with
    this machine's CPUs and a capped object store, and stopped at the end (a Ray already started in this
    process is used as it is). ``split`` writes one split (every split is still decided: later splits skip
    earlier splits' programs). ``resume`` keeps the decision and every complete file a manifest records and
    makes the rest; a manifest of another seed, other overrides or another code version is refused. Returns
    the manifest.
    """
    ray = _ray()
    overrides = dict(overrides or {})
    generation = get_config(config, **overrides)
    if split is not None and split not in generation.splits:
        raise ConfigError(f"config {config!r} has no split {split!r}; expected one of {list(generation.splits)}")
    fs, folder = _filesystem(out)
    manifest_path = f"{folder}/data/{config}/{MANIFEST}"
    expected = {"seed": generation.seed, "overrides": _jsonable(overrides), "code": code_identity()}
    manifest = _read_json(fs, manifest_path) if resume else None
    if manifest is not None:
        if problems := _manifest_problems(manifest, expected):
            raise ManifestError(
                f"{manifest_path} was made with {'; '.join(problems)}: use another folder, or drop "
                "--resume to make it again"
            )
        if manifest.get("include_test_gold") != include_test_gold:
            raise ManifestError(f"{manifest_path} was made with include_test_gold={manifest.get('include_test_gold')}")
    started = False
    if not ray.is_initialized():
        if address is None:
            start_local_ray()
        else:
            ray.init(address=address)
        started = True
    try:
        _check_nodes(ray)
        fresh = manifest is None or "files" not in manifest
        fs.create_dir(f"{folder}/data/{config}", recursive=True)
        for info in fs.get_file_info(_selector(f"{folder}/data/{config}")):
            old = info.base_name.endswith(".parquet") or info.base_name == MANIFEST
            if info.base_name.endswith(".tmp") or (fresh and old):
                fs.delete_file(info.path)  # a killed generation's temporaries; in a fresh one, this config's old files
        written: dict[str, dict] = {}  # files the keepers wrote under temporary names as they decided cells
        if fresh:
            decision, passes, written = _decide_all(ray, generation, progress, out, include_test_gold)
            manifest = {
                **expected,
                "config": config,
                "include_test_gold": include_test_gold,
                "passes": passes,
                "files": _plan(generation, decision, include_test_gold),
            }
            _write_text(fs, manifest_path, json.dumps(manifest, indent=1))
        _write_files(ray, generation, manifest, out, fs, folder, manifest_path, split, progress, written)
        _write_card(fs, folder, repo_id, generation)
        return manifest
    finally:
        if started:
            ray.shutdown()


def start_local_ray(**options) -> None:
    """Start a local Ray capped to this machine (:func:`local_ray_options`, updated by ``options``) whose workers
    import what this process imports: its ``sys.path`` is their ``PYTHONPATH``, set in the environment the local
    raylet is started with (and so every worker it starts), this process's own restored after. Not a
    ``runtime_env``: Ray starts the workers of one besides those it prestarts, two processes more (a 2,000-program
    ``sft``: 22.3 s with one, 19.8-20.3 s without)."""
    ray = _ray()
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(sys.path)
    try:
        ray.init(**{**local_ray_options(), **options})
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def local_ray_options() -> dict:
    """A local Ray capped to this machine: its CPUs, an object store of at most 1 GiB (an eighth of memory)."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "num_cpus": os.cpu_count(),
        "object_store_memory": min(1 << 30, memory // 8),
        "include_dashboard": False,
        "log_to_driver": False,
    }


def _jsonable(overrides: dict) -> dict:
    return {key: list(value) if isinstance(value, tuple) else value for key, value in sorted(overrides.items())}


def _selector(path: str):
    from pyarrow import fs

    return fs.FileSelector(path, allow_not_found=True)


def _check_nodes(ray) -> None:
    """One task per alive node, before any work: each must have SWI-Prolog and this naf-bench's row code, and
    import every reading's engine."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = code_identity()
    identity = ray.put(READINGS.handing(code_identity))
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    task = ray.remote(num_cpus=0)(_preflight)
    reports = ray.get(
        [
            task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote(
                identity
            )
            for node in nodes
        ]
    )
    problems = node_problems(nodes, reports, here)
    if problems:
        raise ConfigError("nodes not ready: " + "; ".join(problems))


def node_problems(nodes: list[dict], reports: list[dict], here: dict) -> list[str]:
    """What each node (``ray.nodes()`` entries) lacks, from its preflight report: SWI-Prolog, a reading's engine,
    or this row code."""
    problems = []
    for node, report in zip(nodes, reports, strict=True):
        name = f"{report['node']} ({node['NodeManagerAddress']})"
        if report["swipl"].startswith("missing"):
            problems.append(f"{name}: SWI-Prolog {report['swipl']}")
        if report["readings"]:
            problems.append(f"{name}: {report['readings']}")
        elif any(report[key] != here[key] for key in here):
            problems.append(
                f"{name}: naf-bench {report['naf_bench']} with row code {report['code_version']}, "
                f"not {here['naf_bench']} with {here['code_version']}"
            )
    return problems


def _decide_all(
    ray, config: GenerationConfig, progress: bool, out: str, include_test_gold: bool
) -> tuple[list[list[list[int]]], int, dict[str, dict]]:
    """The kept attempts of every cell (per split, per unit), exactly as the one-process walk keeps them, how
    many passes across cells that took (one: no cell met another's program), and the files the keepers wrote
    under temporary names as they decided cells (:meth:`_Keeper.files`). The cells' attempts and keys stay in
    the keepers (:class:`_Keeper`); the driver reads summaries and digests."""
    count = max(1, min(MAX_KEEPERS, int(ray.cluster_resources().get("CPU", 1))))
    keeper = ray.remote(num_cpus=0, scheduling_strategy="SPREAD")(_Keeper)
    handed = READINGS.handing(_chunk), READINGS.handing(_write_file)
    keepers = [keeper.remote(config, handed, j, count, out, include_test_gold) for j in range(count)]
    ray.get([k.meet_peers.remote(keepers) for k in keepers])
    units = config.units()
    cells = [
        _Cell(s * len(units) + p, s, p, unit.counts[s])
        for s in range(len(config.splits))
        for p, unit in enumerate(units)
    ]
    bar = _bar(sum(cell.count for cell in cells), "programs kept", progress)
    started = time.perf_counter()

    def run(todo: list[_Cell]) -> None:
        waiting = {keepers[cell.order % count].decide.remote(cell.order, cell.s, cell.position): cell for cell in todo}
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=1)
            cell = waiting.pop(ready[0])
            cell.summary = ray.get(ready[0])
            if bar is not None:
                bar.update(len(cell.summary["kept"]))
                attempts = sum(c.summary["attempts"] for c in cells if c.summary)
                bar.set_postfix_str(f"{attempts / (time.perf_counter() - started):.0f} attempts/s")

    try:
        run(cells)
        passes = final = 0
        while True:
            passes += 1
            # the partitioned pass: every cell's looked-up keys meet in their key's part, one keeper each
            digests = ray.get([k.meet.remote() for k in keepers])
            changed = [
                cell
                for cell in cells
                if _exclusion_digest([part.get(cell.order, "") for part in digests]) != cell.summary["exclusions"]
            ]
            # the cells before the first changed one are final: their files are rendered now, once
            first = changed[0].order if changed else len(cells)
            ray.get(
                [
                    k.write_final.remote([c.order for c in cells[final:first] if c.order % count == j])
                    for j, k in enumerate(keepers)
                ]
            )
            final = first
            if not changed:
                break
            if bar is not None:
                bar.update(-sum(len(cell.summary["kept"]) for cell in changed))
            run(changed)
        written = {name: file for files in ray.get([k.files.remote() for k in keepers]) for name, file in files.items()}
    finally:
        for k in keepers:
            ray.kill(k)
    if bar is not None:
        bar.close()
    for cell in cells:  # the walk stops at the first cell that runs out of attempts
        if cell.summary["exhausted"]:
            raise ConfigError(cell.summary["error"])
    kept = [[cells[s * len(units) + p].summary["kept"] for p in range(len(units))] for s in range(len(config.splits))]
    return kept, passes, written


def _file_spans(config: GenerationConfig, include_test_gold: bool) -> dict[str, list[dict]]:
    """Each split's files in order, known before any decision (every cell keeps its count): a unit's programs
    in spans of at most :data:`FILE_PROGRAMS`, each a name, the unit's position, the span's start and size, and
    whether the gold is withheld."""
    from naf_bench.data.hub import WITHHELD

    plan = {}
    for s, split in enumerate(config.splits):
        spans = [
            (position, start, min(FILE_PROGRAMS, unit.counts[s] - start))
            for position, unit in enumerate(config.units())
            for start in range(0, unit.counts[s], FILE_PROGRAMS)
        ]
        withheld = not include_test_gold and split in WITHHELD.get(config.name, ())
        plan[split] = [
            {
                "name": f"{split}-{i:05d}-of-{len(spans):05d}.parquet",
                "position": position,
                "start": start,
                "size": size,
                "withheld": withheld,
            }
            for i, (position, start, size) in enumerate(spans)
        ]
    return plan


def _plan(config: GenerationConfig, decision: list, include_test_gold: bool) -> dict:
    """Each split's files in order (:func:`_file_spans`) with their kept attempts."""
    plan = _file_spans(config, include_test_gold)
    for s, spans in enumerate(plan.values()):
        for span in spans:
            size = span.pop("size")
            span["attempts"] = decision[s][span["position"]][span["start"] : span["start"] + size]
    return plan


def _write_files(ray, config, manifest, out, fs, folder, manifest_path, split, progress, written) -> None:
    """Every planned file not already complete (its name, rows and hash as the manifest records them): renamed
    from ``written`` (the keepers' files, under temporary names) where it was written for the kept attempts the
    decision kept, else made again from them."""
    write = ray.remote(_task)
    handed, config_ref = ray.put(READINGS.handing(_write_file)), ray.put(config)
    todo = {}
    for s, name in enumerate(config.splits):
        if split is not None and name != split:
            continue
        for entry in manifest["files"][name]:
            path = f"{folder}/data/{config.name}/{entry['name']}"
            if "sha256" in entry and _complete(fs, path, entry):
                continue
            for key in ("rows", "num_bytes", "sha256", "size"):
                entry.pop(key, None)
            made = written.pop(entry["name"], None)
            if made is not None and made["digest"] == _span_digest(entry["attempts"], entry["withheld"]):
                fs.move(made["temporary"], path)
                entry.update({key: made[key] for key in ("rows", "num_bytes", "sha256", "size")})
                continue
            if made is not None:
                written[entry["name"]] = made  # for a decision that did not stand: deleted below
            ref = write.remote(
                handed,
                config_ref,
                s,
                entry["position"],
                entry["attempts"],
                entry["start"],
                out,
                entry["name"],
                entry["withheld"],
            )
            todo[ref] = entry
    for made in written.values():
        fs.delete_file(made["temporary"])
    _write_text(fs, manifest_path, json.dumps(manifest, indent=1))
    bar = _bar(len(todo), "files", progress)
    while todo:
        ready, _ = ray.wait(list(todo), num_returns=1)
        entry = todo.pop(ready[0])
        entry.update(ray.get(ready[0]))
        _write_text(fs, manifest_path, json.dumps(manifest, indent=1))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()


def _complete(fs, path: str, entry: dict) -> bool:
    from pyarrow import fs as pafs

    info = fs.get_file_info(path)
    return (
        info.type == pafs.FileType.File
        and info.size == entry["size"]
        and _file_digest(fs, path) == {"sha256": entry["sha256"], "size": entry["size"]}
    )


def _write_card(fs, folder: str, repo_id: str, written: GenerationConfig) -> None:
    """The card of every config in the folder (``export``'s card), and LICENSE."""
    from naf_bench.data.hub import LICENSE_TEXT, SplitFiles, dataset_card

    entries = []
    for name, base in CONFIGS.items():
        manifest = _read_json(fs, f"{folder}/data/{name}/{MANIFEST}")
        config = written if name == written.name else base
        if manifest is not None:
            files = [
                SplitFiles(
                    split,
                    sum(f["num_bytes"] for f in fl),
                    sum(f["rows"] for f in fl),
                    sum(f["size"] for f in fl),
                    fl[0]["withheld"],
                )
                for split, fl in manifest["files"].items()
                if fl and all("sha256" in f for f in fl)
            ]
        else:
            files = _exported_files(fs, folder, base)
        if files:
            entries.append((config, files))
    _write_text(fs, f"{folder}/README.md", str(dataset_card(entries, repo_id)))
    _write_text(fs, f"{folder}/LICENSE", LICENSE_TEXT)


def _exported_files(fs, folder: str, config: GenerationConfig) -> list:
    """The splits ``export`` wrote for a config (no manifest): rows, bytes and whether the gold is withheld."""
    import pyarrow.parquet as pq

    from naf_bench.data.hub import WITHHELD, SplitFiles

    files = []
    for split in config.splits:
        paths = sorted(
            info.path
            for info in fs.get_file_info(_selector(f"{folder}/data/{config.name}"))
            if info.base_name.startswith(f"{split}-") and info.base_name.endswith(".parquet")
        )
        if not paths:
            continue
        rows = num_bytes = size = 0
        withheld = split in WITHHELD.get(config.name, ())
        for path in paths:
            with fs.open_input_file(path) as handle:
                metadata = pq.ParquetFile(handle).metadata
                rows += metadata.num_rows
                num_bytes += sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
                size += handle.size()
            if withheld:
                gold = pq.read_table(path, columns=["gold"], filesystem=fs)["gold"]
                withheld = gold.null_count == len(gold)
        files.append(SplitFiles(split, num_bytes, rows, size, withheld))
    return files


def _bar(total: int, unit: str, progress: bool):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=f" {unit}", dynamic_ncols=True)
