"""Locating SWI-Prolog; a missing installation is reported when first needed, never at import."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from naf_bench.errors import SolverError

PROLOG_DIR = Path(__file__).parent / "prolog"
# SWI-Prolog is one worker process (naf_bench.solvers.swipl_worker) per process: one certification at a time.
SWIPL_LOCK = threading.RLock()
INSTALL_HINT = "install SWI-Prolog: apt-get install swi-prolog-nox (Debian/Ubuntu) or see swi-prolog.org"


def swipl_executable() -> str:
    path = shutil.which("swipl")
    if path is None:
        raise SolverError(f"SWI-Prolog ('swipl') was not found on PATH: {INSTALL_HINT}")
    return path
