"""Project-wide pytest configuration."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--rewrite", action="store_true", help="Rewrite datadriven fixtures' expected outputs.")


@pytest.fixture
def rewrite(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite datadriven fixtures."""
    return bool(request.config.getoption("--rewrite"))


# The suite runs on a shared 2-core machine next to TLC, Spark and the JVM: wall-clock
# deadlines would make property tests flaky, and timing is measured in bench/, not here.
from hypothesis import settings  # noqa: E402

settings.register_profile("kspec", deadline=None)
settings.load_profile("kspec")
