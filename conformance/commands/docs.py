"""``kspec docs build [--out DIR]``: build the docs site (mkdocs build --strict)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, check_writable_dir, emit_json, existing_file, json_option

ROOT = Path(__file__).resolve().parents[2]


@cli.group("docs")
def docs_group() -> None:
    """The documentation site (mkdocs-material, pages generated from spec/ and the model)."""


class _Collect(logging.Handler):
    """Keeps mkdocs's warnings and errors (the first one explains a failed strict build)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    @property
    def first(self) -> str:
        return self.messages[0] if self.messages else ""


@docs_group.command("build")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the site into this directory (default: site/ next to mkdocs.yml).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
              default=ROOT / "mkdocs.yml", show_default="mkdocs.yml of the project", help="The mkdocs config.")
@json_option
def build_cmd(out: Path | None, config_file: Path, as_json: bool) -> None:
    """Build the site strictly: any warning (a broken link, a missing page) fails the build."""
    import yaml
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    existing_file(config_file, "--config")
    # Resolved before the chdir below, so a relative --config (or --out) means what the user typed.
    options: dict[str, object] = {"config_file": str(config_file.resolve()), "strict": True}
    if out is not None:
        options["site_dir"] = str(check_writable_dir(out.resolve()))
    cwd = os.getcwd()
    # Hooks and docs_dir are relative to the config file's folder.
    os.chdir(config_file.resolve().parent)
    # Warnings stay on with --json: strict counts the warnings it sees, so hiding them would turn
    # strict off. They are collected rather than printed, and the first one is the error's line.
    logger = logging.getLogger("mkdocs")
    seen = _Collect()
    saved = logger.level, logger.propagate, list(logger.handlers)
    logger.setLevel(logging.WARNING)
    logger.handlers, logger.propagate = [seen], False
    try:
        config = load_config(**options)  # type: ignore[arg-type]
        build(config)
    except (Abort, ConfigurationError, OSError, ValueError, yaml.YAMLError) as err:
        told = str(err).strip()
        reason = seen.first or (told.splitlines()[-1] if told else type(err).__name__)
        raise InputError(f"mkdocs build --strict of {config_file} failed: {' '.join(reason.split())[:300]}") \
            from None
    finally:
        logger.setLevel(saved[0])
        logger.propagate, logger.handlers = saved[1], saved[2]
        os.chdir(cwd)
    site = Path(config["site_dir"])
    files = sorted(str(p) for p in site.rglob("*") if p.is_file())
    pages = [f for f in files if f.endswith(".html")]
    if as_json:
        emit_json({"site_dir": str(site), "pages": len(pages), "files": files})
    else:
        click.echo(f"built {len(pages)} pages ({len(files)} files) into {site}")
