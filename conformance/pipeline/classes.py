"""The dataclasses a protocol's traces may name, found by walking its model package, so that
``codec.decode`` can rebuild inputs and actions from their ``type`` names."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil

from kspec.model.catalog import PROTOCOL_MODULES

# Protocols whose traces also name another protocol's classes (voters runs on raft's).
EXTRA_PACKAGES = {"voters": ("kspec.model.raft",)}


@functools.cache
def classes_of(protocol: str) -> dict[str, type]:
    """Every dataclass defined in or imported by the protocol's model modules, by class name."""
    table: dict[str, type] = {}
    for package_name in (*EXTRA_PACKAGES.get(protocol, ()), PROTOCOL_MODULES[protocol]):
        package = importlib.import_module(package_name)
        modules = [package]
        for info in pkgutil.iter_modules(package.__path__, package_name + "."):
            modules.append(importlib.import_module(info.name))
        for module in modules:
            for value in vars(module).values():
                if isinstance(value, type) and dataclasses.is_dataclass(value):
                    table.setdefault(value.__name__, value)
    return table
