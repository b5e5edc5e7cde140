"""Gradio's upload folder under the service's rules, and the door in front of the app.

Gradio writes every ``POST /gradio_api/upload`` to its upload folder (``DIR/uploads`` here) before any handler
runs, and that route takes no token. So that uploads without a valid submission cannot fill the disk:

- ``Claimed``: a submit request hard-links its uploads to private ``.claim-*`` names while it reads them and
  removes them from the folder ``grace`` seconds after it ends (the store keeps its own copy of an accepted one),
  unless an upload that returned the same path is still waiting for its submit (``Door`` counts them: Gradio names
  an upload by its content, so identical uploads share a path);
- ``UploadFolder.clean``: removes every file that no request works on and that is older than ``max_age``
  seconds, on a timer; at start (no request can be working) it empties the folder, so nothing a killed server
  left (Gradio's ``tmp*`` files, upload copies, ``.claim-*`` links) outlives the next start;
- ``Door`` (ASGI middleware): admits an upload only when its declared length fits in what ``space`` leaves for
  unclaimed uploads (the folder's unclaimed bytes plus the uploads in flight), ends an upload that sends no byte
  for ``idle`` seconds (its space is free again: idle connections cannot hold the door), and answers every request
  for an endpoint the API does not offer, and every request Gradio would answer with a 500, with a refusal as
  JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
import uuid
from pathlib import Path

# cache path -> [requests working on it now, the inodes requests have claimed under it, time of the last claim]
_CLAIMS: dict[Path, list] = {}
# cache path -> uploads that returned it and whose submit has not claimed it yet
_PENDING: dict[Path, int] = {}
_CLAIMS_LOCK = threading.Lock()


class Claimed:
    """The uploads of one request, hard-linked to private names for as long as the request runs, then removed
    from Gradio's upload folder ``grace`` seconds later.

    Gradio's cache names an upload by its content and file name, so identical uploads (two teams' copies of one
    metadata file) share a path, and the later upload's request may not have started when the earlier one ends:
    the path is removed only once no request has claimed it for ``grace`` seconds and none works on it, and only
    if it is still a file a request has claimed (a newer identical upload renames a new inode onto it, which its
    own request claims and removes), and only once every upload that returned it was claimed (``_PENDING``: an
    identical upload whose submit still waits in the queue keeps it, however long it waits, within the folder's
    ``max_age``). Paths outside the folder are not ours to remove and are used as they are.
    """

    def __init__(self, *paths, grace: float = 0.0):
        from gradio.utils import get_upload_folder

        self.cache = Path(get_upload_folder()).resolve()
        self.paths = [None if p is None else Path(p).resolve() for p in paths]
        self.links: list[tuple[Path, Path] | None] = []
        self.grace = grace

    def __enter__(self) -> list[Path | None]:
        claimed = []
        for path in self.paths:
            if path is None or self.cache not in path.parents:
                self.links.append(None)
                claimed.append(path)
                continue
            private = path.with_name(f".claim-{uuid.uuid4().hex}-{path.name}")
            with _CLAIMS_LOCK:
                try:
                    os.link(path, private)
                except FileNotFoundError:  # removed before this request started (over ``grace`` or ``max_age``)
                    missing = True
                else:
                    missing = False
                    if _PENDING.get(path, 0) > 1:
                        _PENDING[path] -= 1
                    else:
                        _PENDING.pop(path, None)
                    claims = _CLAIMS.setdefault(path, [0, set(), 0.0])
                    claims[0] += 1
                    claims[1].add(private.stat().st_ino)
                    claims[2] = time.monotonic()
            if missing:
                self.__exit__()
                raise FileNotFoundError(path)
            self.links.append((path, private))
            claimed.append(private)
        return claimed

    def __exit__(self, *exc) -> None:
        for link in self.links:
            if link is None:
                continue
            path, private = link
            private.unlink(missing_ok=True)
            with _CLAIMS_LOCK:
                _CLAIMS[path][0] -= 1
            if self.grace > 0:
                timer = threading.Timer(self.grace, _remove, (path, self.grace))
                timer.daemon = True
                timer.start()
            else:
                _remove(path, 0.0)


def _remove(path: Path, grace: float) -> None:
    with _CLAIMS_LOCK:
        claims = _CLAIMS.get(path)
        if claims is None or claims[0] > 0 or time.monotonic() - claims[2] < grace or _PENDING.get(path):
            return  # removed already, claimed since, or uploaded again: the later request's own timer removes it
        del _CLAIMS[path]
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_ino in claims[1]:
                path.unlink()
        with contextlib.suppress(OSError):  # another upload shares the folder
            path.parent.rmdir()


def _working_inodes() -> set[int]:
    """The inodes a request works on now (their paths and their ``.claim-*`` links share them)."""
    with _CLAIMS_LOCK:
        paths = [path for path, claims in _CLAIMS.items() if claims[0] > 0]
    inodes = set()
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            inodes.add(path.stat().st_ino)
    return inodes


class UploadFolder:
    """Gradio's upload folder with a bound on what it keeps of uploads no request works on."""

    def __init__(self, root: str | Path, space: int, max_age: float):
        self.root = Path(root)
        self.space = space
        self.max_age = max_age
        self.in_flight = 0  # bytes of uploads admitted and not yet answered (the Door's event loop only)

    def _files(self):
        for folder, _, names in os.walk(self.root):
            for name in names:
                path = Path(folder) / name
                with contextlib.suppress(FileNotFoundError):
                    yield path, path.stat()

    def unclaimed_bytes(self) -> int:
        working = _working_inodes()
        return sum(info.st_size for _, info in self._files() if info.st_ino not in working)

    def clean(self, everything: bool = False) -> int:
        """Remove the files no request works on that are older than ``max_age`` (all files: ``everything``,
        for the start, when no request can be working) and the folders that leaves empty; returns how many
        files went."""
        working = set() if everything else _working_inodes()
        now = time.time()
        emptied, removed = set(), 0
        for path, info in list(self._files()):
            if everything or (info.st_ino not in working and now - info.st_mtime > self.max_age):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    emptied.add(path.parent)
                    removed += 1
                with _CLAIMS_LOCK:  # an upload never submitted: it waits no more
                    _PENDING.pop(path.resolve(), None)
        for folder in emptied - {self.root}:
            with contextlib.suppress(OSError):  # not empty: another upload shares it
                folder.rmdir()
        return removed

    def start_cleaner(self, every: float) -> threading.Thread:
        """Empty the folder now, then remove expired uploads every ``every`` seconds (a daemon thread)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.clean(everything=True)

        def loop():
            while True:
                time.sleep(every)
                self.clean()

        thread = threading.Thread(target=loop, name="upload-cleaner", daemon=True)
        thread.start()
        return thread


class Door:
    """ASGI middleware in front of the Gradio app (``launch(app_kwargs={"middleware": [...]})``)."""

    def __init__(self, app, folder: UploadFolder, api_names: frozenset[str], max_upload: int, idle: float = 30.0):
        self.app, self.folder, self.api_names, self.max_upload = app, folder, api_names, max_upload
        self.idle = idle

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        parts = scope["path"].strip("/").split("/")
        named = parts[:1] == ["gradio_api"] and len(parts) >= 3 and parts[1] in ("call", "run", "api")
        if named and parts[2] not in self.api_names:
            return await _refuse(send, 404, f"no endpoint {parts[2]!r}: the API offers {sorted(self.api_names)}")
        if parts == ["gradio_api", "upload"] and scope["method"] == "POST":
            return await self._upload(scope, receive, send)
        return await _without_500(self.app, scope, receive, send)

    async def _upload(self, scope, receive, send):
        headers = dict(scope["headers"])
        try:
            length = int(headers[b"content-length"])
        except (KeyError, ValueError):
            return await _refuse(send, 411, "an upload needs a Content-Length")
        if length > self.max_upload:
            return await _refuse(
                send,
                413,
                f"an upload is at most {self.max_upload:,} bytes; this one is {length:,}",
                [(b"connection", b"close")],
            )
        if self.folder.unclaimed_bytes() + self.folder.in_flight + length > self.folder.space:
            await _drain(receive)  # read and drop it, so that the client reads the answer (nothing is written)
            return await _refuse(
                send,
                503,
                "the server's space for uploads not yet submitted is full; try again in a few minutes",
                [(b"retry-after", str(int(self.folder.max_age)).encode())],
            )
        self.folder.in_flight += length
        body = []

        async def receive_or_end():
            try:
                return await asyncio.wait_for(receive(), self.idle)
            except asyncio.TimeoutError:  # no byte for ``idle`` seconds: the upload ends here
                return {"type": "http.disconnect"}

        async def count_then_send(message):
            if message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if not message.get("more_body"):  # counted before the client can read the paths and submit them
                    _count_pending(b"".join(body), self.folder.root.resolve())
            await send(message)

        try:
            await _without_500(self.app, scope, receive_or_end, count_then_send)
        finally:
            self.folder.in_flight -= length


def _count_pending(answer: bytes, root: Path) -> None:
    """Count each path an upload's answer (a JSON list of cache paths) returned as waiting for its submit."""
    try:
        paths = json.loads(answer)
    except ValueError:
        return
    if not isinstance(paths, list) or not all(isinstance(path, str) for path in paths):
        return  # a refusal, not the paths of an upload
    paths = [Path(path).resolve() for path in paths]
    with _CLAIMS_LOCK:
        for path in paths:
            if root in path.parents:
                _PENDING[path] = _PENDING.get(path, 0) + 1


async def _without_500(app, scope, receive, send):
    """Run ``app`` with a 500 or an exception before the answer began (Gradio's answer to a request it cannot
    route, e.g. an unknown function index) replaced by a refusal."""
    state = {"started": False, "replaced": False}

    async def wrapped(message):
        if message["type"] == "http.response.start" and message["status"] >= 500:
            state["replaced"] = True
            await _refuse(send, 400, UNROUTABLE)
        elif not state["replaced"]:
            state["started"] = True
            await send(message)

    try:
        await app(scope, receive, wrapped)
    except Exception:
        if state["started"] or state["replaced"]:
            raise
        await _refuse(send, 400, UNROUTABLE)


UNROUTABLE = "the request names no function of this app, or is malformed"


async def _drain(receive) -> None:
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body"):
            return


async def _refuse(send, status: int, reason: str, headers=()) -> None:
    body = json.dumps({"status": "refused", "reasons": [reason]}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})
