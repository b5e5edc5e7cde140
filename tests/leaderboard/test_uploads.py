"""naf_bench.leaderboard.uploads: what the upload folder keeps (a claimed upload is not counted against the space and
leaves once handled; an expired one is cleaned), and what the door refuses before the app sees a request."""

import asyncio
import json
import os
import time

from naf_bench.leaderboard.uploads import UNROUTABLE, Claimed, Door, UploadFolder


def upload(folder, name, data):
    path = folder / "0123abcd" / name  # Gradio puts each upload in a folder named by its content
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_claimed_upload_is_not_unclaimed_space_and_leaves_the_folder_once_handled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "uploads"))
    folder = UploadFolder(tmp_path / "uploads", space=100, max_age=300.0)
    submission = upload(folder.root, "s.jsonl", b"0123456789")
    elsewhere = tmp_path / "m.json"
    elsewhere.write_text("{}")
    assert folder.unclaimed_bytes() == 10
    with Claimed(submission, elsewhere, None) as (private, outside, missing):
        assert private.name.startswith(".claim-") and private.name.endswith("-s.jsonl")
        assert private.read_bytes() == b"0123456789"
        assert (outside, missing) == (elsewhere.resolve(), None)  # not in the folder: used as it is
        assert folder.unclaimed_bytes() == 0  # the upload and its private link are one file a request works on
    assert not submission.exists() and not submission.parent.exists() and not private.exists()
    assert elsewhere.read_text() == "{}"


def test_clean_removes_only_expired_uploads_and_at_start_everything(tmp_path):
    folder = UploadFolder(tmp_path / "uploads", space=100, max_age=60.0)
    old, new = upload(folder.root, "old.jsonl", b"x"), upload(folder.root, "new.jsonl", b"yy")
    os.utime(old, (time.time() - 61, time.time() - 61))
    assert folder.clean() == 1
    assert (old.exists(), new.exists()) == (False, True)
    assert folder.clean(everything=True) == 1
    assert list(folder.root.iterdir()) == []  # the emptied upload folders went too


def asgi(door, path, method="GET", headers=(), body=b""):
    """The status, headers and JSON body ``door`` answers to one HTTP request."""
    sent = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "path": path, "method": method, "headers": list(headers)}
    asyncio.run(door(scope, receive, send))
    headers, body = dict(sent[0]["headers"]), b"".join(message.get("body", b"") for message in sent[1:])
    assert (headers[b"content-type"], headers[b"content-length"]) == (b"application/json", str(len(body)).encode())
    return sent[0]["status"], headers, json.loads(body)


async def failing_app(scope, receive, send):
    raise RuntimeError("no such function")


def test_the_door_refuses_unoffered_endpoints_unmeasured_or_big_uploads_and_a_full_folder(tmp_path):
    folder = UploadFolder(tmp_path / "uploads", space=100, max_age=300.0)
    upload(folder.root, "waiting.jsonl", b"x" * 90)
    door = Door(failing_app, folder, frozenset({"submit", "board"}), max_upload=50)
    status, _, answer = asgi(door, "/gradio_api/call/secret")
    assert (status, answer) == (
        404,
        {"status": "refused", "reasons": ["no endpoint 'secret': the API offers ['board', 'submit']"]},
    )
    status, _, answer = asgi(door, "/gradio_api/upload", "POST")
    assert (status, answer["reasons"]) == (411, ["an upload needs a Content-Length"])
    status, headers, answer = asgi(door, "/gradio_api/upload", "POST", [(b"content-length", b"51")])
    assert (status, headers[b"connection"], answer["reasons"]) == (
        413,
        b"close",
        ["an upload is at most 50 bytes; this one is 51"],
    )
    status, headers, answer = asgi(door, "/gradio_api/upload", "POST", [(b"content-length", b"11")])
    assert (status, headers[b"retry-after"]) == (503, b"300")  # 90 unclaimed + 11 > 100
    assert answer["reasons"][0].startswith("the server's space for uploads not yet submitted is full")
    assert asgi(door, "/gradio_api/upload", "POST", [(b"content-length", b"10")])[:3:2] == (
        400,
        {"status": "refused", "reasons": [UNROUTABLE]},
    )  # (admitted: the app's failure is answered as a refusal, and the space is free again)
    assert folder.in_flight == 0
