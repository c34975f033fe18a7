"""The dataclasses a protocol's traces may name, found by walking its model package, so that
``codec.decode`` can rebuild inputs and actions from their ``type`` names."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil

from kspec.conformance import protocols


@functools.cache
def classes_of(protocol: str) -> dict[str, type]:
    """Every dataclass defined in or imported by the protocol's model modules, by class name."""
    table: dict[str, type] = {}
    declared = protocols.get(protocol)
    # A protocol's traces may also name another protocol's classes (voters runs on raft's).
    for package_name in (*declared.trace_packages, declared.model):
        package = importlib.import_module(package_name)
        modules = [package]
        path = package.__spec__.submodule_search_locations if package.__spec__ else None
        for info in pkgutil.iter_modules(path or [], package_name + "."):
            modules.append(importlib.import_module(info.name))
        for module in modules:
            for value in vars(module).values():
                if isinstance(value, type) and dataclasses.is_dataclass(value):
                    table.setdefault(value.__name__, value)
    return table
