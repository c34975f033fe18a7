"""The target-factory of the red-team modules: one ``python:`` target class per planted bug,
defined in the module that plants it (so ``python:redteam.MODULE:Class`` resolves) and named
after itself (``python:redteam.MODULE:Class``, what a run's report shows).

A module writes its bugs as data (bug name -> what the bug replaces) and calls :func:`register`
once, where sessions 8-10 repeated the same ``type(...)`` / ``globals()`` loop in every module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class SelfNamed:
    """Mixin for a target class: its ``name`` is ``python:MODULE:CLASS`` of the concrete class
    (the one :func:`register` defined in the bug's module), not of the base it inherits from."""

    name: str

    def __init__(self) -> None:
        self.name = f"python:{type(self).__module__}:{type(self).__name__}"


def register(namespace: dict[str, Any], base: type, bugs: Mapping[str, Any],
             attrs: Callable[[Any], tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """Define, in ``namespace`` (a module's ``globals()``), a subclass of ``base`` per bug:
    ``attrs(spec)`` gives the class name and the attributes the bug replaces (its ``__doc__`` too).
    Returns the module's ``TARGETS`` (bug name -> class name)."""
    targets: dict[str, str] = {}
    for bug, spec in bugs.items():
        name, body = attrs(spec)
        cls = type(name, (base,), {"__module__": namespace["__name__"], **body})
        namespace[name] = cls
        targets[bug] = name
    return targets


def subclass(namespace: dict[str, Any], name: str, base: type, **body: Any) -> type:
    """One class of ``namespace``'s module (a bug-free baseline named ``name``)."""
    cls = type(name, (base,), {"__module__": namespace["__name__"], **body})
    namespace[name] = cls
    return cls


def attribute_target(attr: str, **more: Callable[[type], Any]) -> Callable[[type], tuple[str, dict[str, Any]]]:
    """``register``'s ``attrs`` for bugs written as {bug: class} where the class replaces one
    attribute of the target (streams' ``metadata_class``, share's ``shard``, raft's ``replica``,
    voters' ``control``): the target is named after the class and takes its docstring; each of
    ``more`` (attribute -> function of the class) sets one attribute more (share's ``version``)."""
    return lambda cls: (cls.__name__ + "Target",
                        {attr: cls, "__doc__": cls.__doc__, **{k: f(cls) for k, f in more.items()}})


def switched(namespace: dict[str, Any], base: type, attr: str, impl: type,
             bugs: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """:func:`register` for bugs written as switches of one class (``impl.bugs``, each an ``if``
    at the place an implementer slips): per bug, a subclass of ``impl`` with only that bug on, in
    the ``attr`` slot of a subclass of ``base`` named after the bug in CamelCase that takes
    ``bugs[bug]``'s attributes (its ``__doc__`` too). Returns the module's ``TARGETS``."""
    def attrs(bug: str) -> tuple[str, dict[str, Any]]:
        on = type(f"{impl.__name__}_{bug.replace('-', '_')}", (impl,),
                  {"__module__": namespace["__name__"], "bugs": frozenset({bug})})
        return "".join(p.capitalize() for p in bug.split("-")), {attr: on, **bugs[bug]}
    return register(namespace, base, {bug: bug for bug in bugs}, attrs)


def slot_target(slots: Mapping[str, type]) -> tuple[str, dict[str, Any]]:
    """``register``'s ``attrs`` for bugs written as {slot of the target: class} (mm2's policy
    slots): the target is named after the first class and takes its docstring."""
    first = next(iter(slots.values()))
    return first.__name__ + "Target", {**slots, "__doc__": first.__doc__}
