"""naf_bench.solvers.swipl_worker: one swipl process answers requests sent in one write, in order; an error
reply, a request collected out of turn and a dead worker are each handled as documented."""

import re

import pytest

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl_worker import PrologWorker, Request, ask, swipl_version
from naf_bench.solvers.wfs_tabling import wfs_request
from naf_bench.syntax.parse import parse_program


@pytest.fixture
def worker():
    worker = PrologWorker()
    yield worker
    worker.close()


def test_requests_sent_together_are_answered_in_order_and_an_error_reply_is_a_solver_error(worker):
    first, bad, last = worker.submit(
        wfs_request(parse_program("a :- not b.")),
        Request("no_such_method", "1", str),
        wfs_request(parse_program("b :- not a.\na.")),
    )
    assert first() == {"a": "T", "b": "F"}
    with pytest.raises(SolverError, match=r"the SWI-Prolog worker failed: error \d+ failed"):
        bad()
    assert last() == {"b": "F", "a": "T"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", worker.version)


def test_requests_never_collected_are_superseded_by_the_next_submission_on_a_new_worker(worker):
    (forgotten,) = worker.submit(wfs_request(parse_program("a.")))
    pid = worker.process.pid
    (answered,) = worker.submit(wfs_request(parse_program("b :- not a.")))
    assert worker.process.pid != pid
    with pytest.raises(SolverError, match="superseded or is collected out of order"):
        forgotten()
    assert answered() == {"b": "T", "a": "F"}


def test_a_dead_worker_is_replaced_on_the_next_submission(worker):
    assert worker.submit(wfs_request(parse_program("a.")))[0]() == {"a": "T"}
    process = worker.process
    process.kill()
    process.wait()
    assert worker.submit(wfs_request(parse_program("a :- not a.")))[0]() == {"a": "u"}
    assert worker.process is not process


def test_closing_ends_the_process_politely(worker):
    worker.submit(wfs_request(parse_program("a.")))[0]()
    process = worker.process
    worker.close()
    assert worker.process is None and process.returncode == 0


def test_the_shared_worker_answers_one_request_and_reports_its_version():
    assert ask(wfs_request(parse_program("p :- not q."))) == {"p": "T", "q": "F"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", swipl_version())
