"""pytest setup for the kiln Python package: the package under test is the one in
the build tree (KILN_BUILD_DIR/python-bindings, put on sys.path by CTest), and
every test session gets its own empty compile cache, and every test runs with
KILN_STRICT=1 unless it is marked `fallback`."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD_DIR = os.environ.get("KILN_BUILD_DIR", os.path.join(SOURCE_ROOT, "build"))
PACKAGE_DIR = os.path.join(BUILD_DIR, "python-bindings")
if PACKAGE_DIR not in sys.path:
    sys.path.insert(0, PACKAGE_DIR)


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("kiln-cache")
    os.environ["KILN_CACHE_DIR"] = str(d)
    yield d


@pytest.fixture(scope="session")
def corpus():
    return os.path.join(SOURCE_ROOT, "test", "data", "corpus")


@pytest.fixture(scope="session")
def example_plugin():
    return os.path.join(BUILD_DIR, "lib", "libkiln_example_ops.so")


def pytest_configure(config):
    config.addinivalue_line("markers", "fallback: the test is about graphs running in eager, so "
                            "KILN_STRICT is off for it")


@pytest.fixture(autouse=True)
def _strict(request, monkeypatch):
    """Every test runs with KILN_STRICT=1 (a graph kiln cannot compile fails the
    test instead of passing in eager), except those marked `fallback`."""
    if request.node.get_closest_marker("fallback"):
        monkeypatch.delenv("KILN_STRICT", raising=False)
    else:
        monkeypatch.setenv("KILN_STRICT", "1")
    yield


@pytest.fixture(autouse=True)
def _reset_dynamo():
    import torch
    torch._dynamo.reset()
    yield
