"""conformance/protocols.py: every declared reference resolves to what it claims, the other lists
of protocols agree with it, and an unknown name is an error everywhere (never a fallback)."""

from __future__ import annotations

import sys
import types

import pytest

from kspec.conformance import protocols
from kspec.conformance.adapters.base import Target
from kspec.conformance.driver import Driver
from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.targets.mutants import CATALOGUE, Mutant, catalogue
from kspec.conformance.targets.registry import UnknownTarget, reference_target, resolve_target
from kspec.model import catalog
from kspec.model.catalog import UnknownProtocol
from kspec.model.proofs.catalog import OBLIGATION_MODULES
from kspec.tla.mappings import TLAMapping, get_mapping


@pytest.mark.parametrize("declared", protocols.BUILTIN, ids=lambda p: p.name)
def test_every_reference_resolves(declared: protocols.ConformanceProtocol) -> None:
    assert catalog.get_protocol(declared.name).name == declared.name
    assert issubclass(declared.driver_class(), Driver) and declared.driver_configs()
    assert declared.driver_class().protocol == declared.name
    target = declared.reference_target()
    assert isinstance(target, Target) and target.protocol == declared.name
    if declared.kafka is not None:  # the class only: no JVM is started
        cls = protocols.load(declared.kafka)
        if isinstance(cls, type):
            assert issubclass(cls, Target) and cls.protocol == declared.name
        else:  # a factory choosing the target by release or level (voters: replica or log)
            assert callable(cls)
    if declared.tla is not None:
        assert isinstance(get_mapping(declared.name, declared.tla), TLAMapping)
    table = declared.transition_table()
    assert table is None or (declared.initial_role in {a for a, _ in table})


def test_the_lists_agree() -> None:
    names = protocols.names()
    assert names == list(catalog.PROTOCOL_MODULES)[: len(names)]
    assert list(PROTOCOLS) == protocols.conformance_names()
    declared_proofs = sorted(m for p in protocols.BUILTIN for m in p.proofs)
    assert declared_proofs == sorted(OBLIGATION_MODULES)
    assert {m.protocol for m in CATALOGUE.values()} <= set(names)


def test_unknown_names_are_errors() -> None:
    with pytest.raises(UnknownProtocol, match="unknown protocol 'nosuch'"):
        protocols.get("nosuch")
    assert protocols.find("nosuch") is None
    with pytest.raises(UnknownTarget, match="no reference target for protocol 'nosuch'"):
        reference_target("nosuch")
    # A mutant of a protocol nobody declared is an error, not another protocol's target.
    with pytest.raises(UnknownProtocol):
        Mutant("x", "nosuch", object, "none").target()
    with pytest.raises(UnknownTarget):
        resolve_target("mutant:share-lower-count-wins", "raft")


def test_a_protocol_is_declared_once() -> None:
    raft = protocols.get("raft")
    clash = protocols.ConformanceProtocol("raft", "somewhere.else")
    with pytest.raises(ValueError, match="declared twice"):
        protocols.register(clash)
    assert protocols.get("raft") is raft
    assert set(catalogue()) >= set(CATALOGUE)


def test_declared_proofs_reach_kspec_prove(monkeypatch: pytest.MonkeyPatch) -> None:
    # A protocol's `proofs` are its only listing: registering it adds them to the catalogue that
    # `kspec prove` and the proofs page read (no second list to edit).
    from kspec.model.proofs import all_obligations, raft_quorum
    from kspec.model.proofs import catalog as proofs_catalog

    monkeypatch.setattr(proofs_catalog, "OBLIGATION_MODULES", list(proofs_catalog.OBLIGATION_MODULES))
    module = types.ModuleType("toy_proofs")
    module.OBLIGATIONS = raft_quorum.OBLIGATIONS[:1]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_proofs", module)
    before = len(all_obligations())
    protocols.register(protocols.ConformanceProtocol("toyproofs", "kspec.model.raft", proofs=("toy_proofs",)))
    try:
        assert "toy_proofs" in proofs_catalog.OBLIGATION_MODULES
        assert len(all_obligations()) == before + 1
    finally:
        protocols.unregister("toyproofs")
