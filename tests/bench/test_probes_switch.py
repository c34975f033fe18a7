"""bench/_probes.py switches one probe of a driver off and back on (the probe-mutant benches'
"with the probe off" runs): inside ``probe_off`` the probe takes nothing, after it the driver is
as before, and the benches name only mutants of their own protocol that the catalogue holds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from kspec.conformance.drivers import mm2 as mm2_driver
from kspec.conformance.drivers import share as share_driver
from kspec.conformance.drivers import streams as streams_driver
from kspec.conformance.drivers.raft import RaftDriver
from kspec.conformance.drivers.share import ShareDriver
from kspec.conformance.drivers.streams import StreamsDriver
from kspec.conformance.drivers.voters import VotersDriver
from kspec.conformance.targets.mutants import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "bench"))  # the benches import _probes as a sibling
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "bench"))


PROBES = _load("_probes")
SWITCHED = [(protocol, probe) for protocol in ("raft", "voters", "share", "streams", "mm2")
            for probe in PROBES.probes(protocol)]


@pytest.mark.parametrize(("protocol", "probe"), SWITCHED)
def test_probe_off_restores_the_driver(protocol: str, probe: str) -> None:
    # ShareSystem: the share probe requests are switched in the model's mix (probe_actions)
    # share_driver: the path-end probes are switched in its PATH_END_PARTS table
    owners = (RaftDriver, VotersDriver, ShareDriver, StreamsDriver, PROBES.voters_log, PROBES.ShareSystem,
              mm2_driver, mm2_driver.Mm2Driver, streams_driver, share_driver)
    before = [dict(vars(o)) for o in owners], dict(share_driver.BOUNDS)
    with PROBES.probe_off(protocol, probe):
        during = [dict(vars(o)) for o in owners], dict(share_driver.BOUNDS)
        assert during != before  # something was switched
    assert ([dict(vars(o)) for o in owners], dict(share_driver.BOUNDS)) == before


def test_voters_probe_off_takes_nothing() -> None:
    # The started auto-join configuration: the join probe sends the observer's request; off, nothing.
    d = VotersDriver({"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False, "level": "replica",
                      "auto_join": True, "controller_auto_join": True})
    s = d.init_state()
    s = d.resolve(s, next(a for _, a in d.candidates(s)))  # the start-up
    assert d._join_probe(s)
    with PROBES.probe_off("voters", "VOTERS-DRIVE-JOIN-PROBE"):
        assert d._join_probe(s) == []
    assert d._join_probe(s)


@pytest.mark.parametrize("bench", ["probe_mutants", "voters_probe_mutants", "share_probe_mutants",
                                   "streams_probe_mutants", "mm2_probe_mutants"])
def test_benches_name_catalogued_mutants_and_known_probes(bench: str) -> None:
    module = _load(bench)
    protocol = {"probe_mutants": "raft"}.get(bench, bench.split("_")[0])
    for probe, name in [*module.PROBE_MUTANTS, *module.NOT_ALONE]:
        assert CATALOGUE[name].protocol == protocol
        assert probe in PROBES.probes(protocol)


def test_mm2_probe_off_takes_the_input_kind_away() -> None:
    # The odd heartbeats names' nodes and the "-." configuration go while off and come back after.
    declared = {"policy": "default", "separator": ".", "internal_rule": "4.x", "heartbeats_topic_name": True}
    assert "hb-empty" in mm2_driver.Mm2Driver(declared).nodes()
    with PROBES.probe_off("mm2", "MM2-DRIVE-HEARTBEATS-ODD-NAMES"):
        assert not any(n.startswith("hb-") for n in mm2_driver.Mm2Driver(declared).nodes())
    assert "hb-empty" in mm2_driver.Mm2Driver(declared).nodes()
    with PROBES.probe_off("mm2", "MM2-DRIVE-DOTTED-SEPARATOR"):
        assert all(c["separator"] != "-." for c in mm2_driver.CONFIGS)
    assert any(c["separator"] == "-." for c in mm2_driver.CONFIGS)
