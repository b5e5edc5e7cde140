"""A local OpenAI-compatible server for a model: ``transformers serve`` (transformers' ``serving`` extra) on a
free port of 127.0.0.1, for the endpoint tests, ``scripts/bench_api.py`` and the README's recipe.

``transformers serve`` loads a model folder with a ``config.json`` naming its architecture, which a GGUF file
does not bring: :func:`plain_copy` makes such a folder once from a GGUF file (loaded with ``gguf_file=``, then
saved unquantized, as a GGUF-quantized model refuses ``save_pretrained``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from naf_bench.errors import ConfigError


def plain_copy(folder: str | Path, gguf_file: str, out: str | Path) -> Path:
    """``out``: the model in ``folder/gguf_file`` saved as a plain transformers folder (weights in bfloat16,
    config, tokenizer with its chat template); made once, kept while its ``config.json`` is there.

    bfloat16, not the float32 the GGUF loader dequantizes to: half the disk and memory, the precision of a
    4- or 8-bit GGUF kept, and ``transformers serve`` (``--dtype auto``) and ``--model hf`` load it as saved."""
    out = Path(out)
    if (out / "config.json").is_file():
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    quantized = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file)
    config = quantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.load_state_dict(quantized.state_dict())  # cast to the model's bfloat16 as it is copied
    partial = out.with_name(out.name + ".partial")
    model.save_pretrained(partial)
    AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file).save_pretrained(partial)
    partial.replace(out)  # whole or absent (an empty folder may wait there): an interrupted copy is made again
    return out


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class TransformersServer:
    """``transformers serve FOLDER`` on 127.0.0.1 at a free port, as a context manager: entered once
    ``/v1/models`` answers (a :class:`ConfigError` with the server's last output if it has not within
    ``timeout`` seconds), stopped on exit. ``base_url`` is its ``/v1`` root; ``log`` its output file."""

    def __init__(self, model: str | Path, log: str | Path, timeout: float = 180.0, port: int | None = None):
        self.model, self.log, self.timeout = str(model), Path(log), timeout
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> TransformersServer:
        command = [
            sys.executable,
            "-m",
            "transformers.cli.transformers",
            "serve",
            self.model,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--device",
            "cpu",
            "--log-level",
            "warning",
        ]
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        with self.log.open("wb") as output:
            self.process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._fail(f"exited with status {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=5) as answer:
                    if answer.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self._fail(f"did not answer within {self.timeout:g} s")

    def _fail(self, reason: str):
        self.__exit__()
        tail = self.log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise ConfigError(f"transformers serve {self.model} {reason}; its output ends:\n{tail}")

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
