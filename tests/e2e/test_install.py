"""The First hour page's install route without the Debian script: pip installs the package into a fresh virtual
environment, and ``naf-bench certify`` runs there with the system's SWI-Prolog.

The environment sees the machine's packages (``--system-site-packages``: clingo, igraph and numpy are not
downloaded again, so the test runs offline), and the package is built from a copy of the source with
``--no-deps --no-build-isolation``: what is checked is that the wheel holds what the commands need (the Prolog
worker, the templates, the metric and task folders) and that its console script works from another folder."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SOURCE = ("naf_bench", "modellog_metric", "lm_eval_tasks", "setup.cfg", "pyproject.toml", "README.md", "LICENSE")


@pytest.mark.slow
def test_pip_installs_into_a_fresh_environment_and_certifies_with_the_system_swipl(tmp_path):
    if shutil.which("swipl") is None:
        pytest.skip("no swipl on PATH: the route installs SWI-Prolog from the system's packages first")
    source = tmp_path / "source"  # a copy: the build writes build/ and *.egg-info beside the sources
    source.mkdir()
    for name in SOURCE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {"PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    installed = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                                str(source)], env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]
    where = subprocess.run(
        [python, "-c", "import naf_bench; print(naf_bench.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), where  # the environment's copy, not the development install

    program = tmp_path / "odd.lp"
    program.write_text("q :- a.\na :- not b.\nb :- not c.\nc :- not a.\n")
    done = subprocess.run(
        [venv / "bin" / "naf-bench", "certify", str(program), "--query", "q", "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert '"signature": "FTuloop"' in done.stdout  # credulous F, skeptical T, WFS undefined, SLDNF loops
    assert '"sldnf": "loop"' in done.stdout  # the label only the SWI-Prolog worker gives
