"""Certification of large programs (issue 53): known labels of long chains and rings, no Python recursion on program
size, SWI-Prolog's SLDNF rerun under a raised limit, a worker dying while a long request is written, and the progress
the command line shows. The program over atom numbers, the well-founded model by component and the collector's
pause are tested with their modules (tests/syntax/test_ast.py, tests/solvers/test_wfs.py, test_collector.py)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from naf_bench import certify
from naf_bench.cli import main
from naf_bench.solvers import swipl_worker
from naf_bench.solvers.sldnf import sldnf_request, solve_sldnf, solve_sldnf_again
from naf_bench.solvers.wfs import solve_wfs, solve_wfs_alternating
from naf_bench.solvers.wfs_tabling import wfs_request
from naf_bench.syntax.parse import parse_program

ROOT = Path(__file__).parents[2]


def negation_chain(n: int) -> str:
    return "q :- not p1.\n" + "".join(f"p{i} :- not p{i + 1}.\n" for i in range(1, n))


def ring(n: int) -> str:
    return "q :- not p1.\n" + "".join(f"p{i} :- not p{i + 1}.\n" for i in range(1, n - 1)) + f"p{n - 1} :- not q.\n"


def test_long_chains_and_rings_have_their_labels():
    chain = parse_program(negation_chain(301))
    assert solve_wfs(chain) == solve_wfs_alternating(chain)
    assert solve_wfs(chain).iterations == 301 + 4  # an alternation per negation, on an odd chain
    big = parse_program(negation_chain(8001))  # p8001 false, so every other atom up to q true
    wfs = solve_wfs(big)
    assert (wfs.values["q"], wfs.values["p1"], wfs.values["p8000"], wfs.iterations) == ("T", "F", "T", 8005)
    certificate = certify(big)
    assert certificate.signature == "TTTT"
    assert certificate.effort["prolog_inferences"] == solve_sldnf(big, "q", 100_000).inferences
    assert certificate.checks[-2] == "sldnf:swi-prolog=exact-reference (inference limit raised to 100000)"
    even, odd = certify(ring(4000)), certify(ring(4001))
    assert (even.signature, even.n_stable_models, set(even.wfs_values.values())) == ("TFuloop", 2, {"u"})
    assert (odd.signature, odd.n_stable_models, odd.incoherent) == ("FTuloop", 0, True)


def test_a_raised_limit_reruns_the_loaded_clauses_or_sends_them_again():
    chain = parse_program("q :- p1.\n" + "".join(f"p{i} :- p{i + 1}.\n" for i in range(1, 3000)) + "p3000.\n")
    first = solve_sldnf(chain, "q", 1_000)
    assert first.label == "loop"  # 3,000 calls deep: not within 1,000 inferences
    again = solve_sldnf_again(chain, "q", 10_000, first)
    assert (again.label, again.inferences) == ("T", solve_sldnf(chain, "q", 10_000).inferences)
    solve_sldnf(parse_program("q :- not r.\n"), "q", 1_000)  # the worker now holds other clauses
    resent = solve_sldnf_again(chain, "q", 10_000, first)
    assert (resent.label, resent.inferences) == ("T", again.inferences) and resent.loaded > again.loaded


def test_a_worker_that_dies_while_a_long_request_is_written_is_replaced():
    program = parse_program(negation_chain(5000))  # requests of about 200 KB: written by a thread
    certify("a.", "a")
    before = swipl_worker._worker.process
    collect_tabled, collect_prolog = swipl_worker.submit(wfs_request(program), sldnf_request(program, "q", 1_000))
    assert swipl_worker._worker._writer is not None
    os.kill(before.pid, signal.SIGKILL)  # while the thread writes, or after
    assert collect_tabled() == solve_wfs(program).values
    assert collect_prolog().label == "loop"
    assert before.returncode == -signal.SIGKILL and swipl_worker._worker.process is not before


def test_no_engine_recurses_in_python_on_program_size(tmp_path):
    (tmp_path / "chain.lp").write_text(negation_chain(5000))
    (tmp_path / "ring.lp").write_text(ring(5000))
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from naf_bench import certify\n"
        "certify('q :- not p.')\n"  # the engines started (clingo, the worker) before the limit
        "sys.setrecursionlimit(150)\n"
        "chain, cycle = (Path(name).read_text() for name in sys.argv[1:])\n"
        "print(certify(chain).signature, certify(cycle).signature, certify(chain.replace('not ', '')).signature)\n"
    )
    done = subprocess.run(
        [sys.executable, "-", str(tmp_path / "chain.lp"), str(tmp_path / "ring.lp")],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["FFFF", "TFuloop", "FFFF"]


def test_certify_shows_its_stages_once_it_has_taken_a_while(tmp_path, capsys):
    path = tmp_path / "chain.lp"
    path.write_text(negation_chain(2000))
    assert main(["certify", str(path), "--query", "q", "--progress-after", "0"]) == 0
    err = capsys.readouterr().err.splitlines()
    stages = [line.split(": ", 1)[1].rsplit(" ... ", 1)[0] for line in err[:-1]]
    assert stages[:4] == [
        "parsing",
        "sending the program to SWI-Prolog (tabling, SLDNF)",
        "well-founded model (alternating fixpoint by component)",
        "stable models (clingo)",
    ]
    assert "cross-checks" in stages and err[-1].startswith(f"{path}: done in ")
    assert main(["certify", str(path), "--query", "q"]) == 0  # a second's work: nothing shown at the default 3 s
    assert capsys.readouterr().err == ""
