"""The real submission server in a subprocess on 127.0.0.1 (a loopback address only), as the tests, the
benchmark and the probe run it: ``naf-bench leaderboard serve`` with Gradio's analytics off."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from naf_bench.runs.serving import free_port

ROOT = Path(__file__).resolve().parents[2]  # so that the subprocess imports this checkout


class Server:
    """``naf-bench leaderboard serve`` on a free loopback port; ``start`` waits (bounded) until it answers."""

    def __init__(self, data, gold, *options, log=None):
        self.data, self.gold, self.options = Path(data), Path(gold), [str(o) for o in options]
        self.cache = self.data / "uploads"  # Gradio's upload folder, which ``serve`` sets
        self.log = Path(log or self.data.parent / "server.log")
        self.process = None
        self.port = free_port()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self, timeout: float = 120.0) -> Server:
        env = {
            **os.environ,
            "GRADIO_ANALYTICS_ENABLED": "False",
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
            "NO_PROXY": "127.0.0.1,localhost",
            "HF_HUB_OFFLINE": "1",
        }
        command = [
            sys.executable,
            "-m",
            "naf_bench.cli",
            "leaderboard",
            "serve",
            "--gold",
            str(self.gold),
            "--data",
            str(self.data),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            *self.options,
        ]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "config", timeout=2):
                    return self
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the server did not answer in {timeout} s:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def client(self):
        from gradio_client import Client

        return Client(self.url, verbose=False, download_files=False, analytics_enabled=False)
