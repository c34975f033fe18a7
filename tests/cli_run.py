"""Run ``kspec`` in process from a test: exit code, stdout and stderr."""

from __future__ import annotations

import pytest

from kspec.conformance.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``kspec ARGS`` as the shell would run it; the CLI always ends in SystemExit."""
    with pytest.raises(SystemExit) as info:
        main(args)
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err
