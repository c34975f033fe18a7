"""The ``kspec`` command line: one verb per module in ``kspec.conformance.commands``.

Exit codes (the CLI contract): 0 holds / conforms, 1 violation or divergence found, 2 usage or
input error, reported as one line on stderr with no traceback.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from kspec.conformance.clikit import InputError

# Each verb lives in its own module; a module registers its commands on ``cli``.
COMMAND_MODULES = [
    "kspec.conformance.commands.explore",
    "kspec.conformance.commands.simulate",
]

# Modules that other issues add; listed here so a missing one is skipped, not fatal.
OPTIONAL_COMMAND_MODULES = [
    "kspec.conformance.commands.targets",
    "kspec.conformance.commands.conform",
    "kspec.conformance.commands.replay",
    "kspec.conformance.commands.explain",
    "kspec.conformance.commands.tla",
    "kspec.conformance.commands.prove",
    "kspec.conformance.commands.validate",
    "kspec.conformance.commands.docs",
    "kspec.conformance.commands.deviations",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kspec")
def cli() -> None:
    """kspec: a reference model of Kafka's coordination protocols and a conformance suite."""


def _load_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name)
    for name in OPTIONAL_COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning every usage or input error into one line and exit 2."""
    _load_commands()
    try:
        code = cli.main(args=argv, prog_name="kspec", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as err:
        click.echo(err.ctx.get_help() if err.ctx else str(err))
        sys.exit(2)
    except click.UsageError as err:
        hint = f" (see 'kspec {err.ctx.info_name if err.ctx and err.ctx.parent else ''} --help')"
        click.echo(f"kspec: error: {err.format_message()}{hint.replace('kspec  ', 'kspec ')}", err=True)
        sys.exit(2)
    except InputError as err:
        click.echo(f"kspec: error: {err}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.Abort:
        click.echo("kspec: aborted", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("kspec: interrupted", err=True)
        sys.exit(2)
    except Exception as err:
        if os.environ.get("KSPEC_DEBUG"):
            raise
        click.echo(f"kspec: internal error: {type(err).__name__}: {err} (KSPEC_DEBUG=1 shows more)", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    # Run as a script, this module is ``__main__``; the verbs register on the importable
    # ``kspec.conformance.cli``, so delegate to that one.
    from kspec.conformance.cli import main as _main

    _main()
