"""mkdocs hook: the protocol, spec, TLA+, proof and CLI pages, generated at every build.

The pages come from ``kspec.conformance.explain.site`` (spec/, tla/ and the model itself) and
are handed to mkdocs as generated files, so nothing generated is ever written into docs/.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

from kspec.conformance.explain.site import generate_pages, nav

_pages: dict[str, str] = {}


def on_config(config: Any) -> Any:
    """Generate the pages once per build and put their sections into the nav, after the
    hand-written introduction pages."""
    _pages.clear()
    _pages.update(generate_pages())
    items = list(config["nav"] or [])
    at = next((i for i, item in enumerate(items) if isinstance(item, dict) and "Adapter guide" in item), len(items))
    config["nav"] = items[:at] + nav(_pages) + items[at:]
    return config


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages to the site."""
    for path, content in _pages.items():
        files.append(File.generated(config, path, content=content))
    return files
