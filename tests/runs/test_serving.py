"""naf_bench.runs.serving, its pure parts: a free port of 127.0.0.1, a server's address before it starts, and a plain
copy made once (no GGUF conversion, no server here)."""

import socket

from naf_bench.runs.serving import TransformersServer, free_port, plain_copy


def test_a_free_port_can_be_listened_on():
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
        listener.listen()


def test_a_server_is_addressed_at_its_v1_root_before_it_starts(tmp_path):
    server = TransformersServer(tmp_path / "model", tmp_path / "serve.log", timeout=5, port=8123)
    assert (server.model, server.base_url) == (str(tmp_path / "model"), "http://127.0.0.1:8123/v1")
    assert server.process is None  # nothing runs until the server is entered
    assert TransformersServer("m", tmp_path / "log").base_url.startswith("http://127.0.0.1:")


def test_a_plain_copy_with_its_config_is_kept_and_not_made_again(tmp_path):
    out = tmp_path / "plain"
    out.mkdir()
    (out / "config.json").write_text("{}")
    assert plain_copy(tmp_path / "no-gguf-here", "absent.gguf", out) == out  # the GGUF is never opened
    assert sorted(path.name for path in out.iterdir()) == ["config.json"]
