"""Project-wide pytest configuration."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--rewrite", action="store_true", help="Rewrite datadriven fixtures' expected outputs.")


@pytest.fixture
def rewrite(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite datadriven fixtures."""
    return bool(request.config.getoption("--rewrite"))
