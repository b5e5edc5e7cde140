"""The harness tests: inspect_ai and lighteval pin what the test extra pins, so they run in the environment
``bash scripts/harness_envs.sh --test`` creates (CI runs it); elsewhere they skip, saying so."""

import importlib.util

import pytest

HARNESS_ENV = "inspect-ai and lighteval are not installed here: `bash scripts/harness_envs.sh --test` runs these tests"


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("inspect_ai") and importlib.util.find_spec("lighteval"):
        return
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.skip(reason=HARNESS_ENV))


@pytest.fixture(scope="session")
def stub_server():
    """One logging OpenAI-compatible stub for the session, named by STUB_BASE_URL (inspect's ``openai-api/stub``
    provider): inspect keeps a model's client for the rest of the process, so a second server would go unused."""
    from .stub_server import StubServer

    with StubServer() as running, pytest.MonkeyPatch.context() as patch:
        patch.setenv("STUB_BASE_URL", running.base_url)
        patch.setenv("STUB_API_KEY", "unused")
        yield running


@pytest.fixture
def stub(stub_server):
    """The session's stub with no request logged yet."""
    stub_server.requests.clear()
    return stub_server
