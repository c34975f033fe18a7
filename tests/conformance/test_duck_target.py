"""A target written to the adapter guide of earlier releases (any object with ``start(node,
config)``, no kspec base class) still runs: through ``python:`` and through ``run_conformance``
(the ``kspec_conform`` fixture's path); a planted bug in it is still caught."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from kspec.conformance.adapters.base import Target, as_target
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import UnknownTarget, resolve_target

DUCK = textwrap.dedent('''
    from kspec.conformance.targets.mm2_policies import PolicyTarget

    class DuckTarget:                      # no base class, as the old guide showed
        protocol = "mm2"
        def __init__(self):
            self.inner = PolicyTarget()
        def start(self, node, config):
            return self.inner.start(node, config)

    class WrongHeartbeats(DuckTarget):     # a planted bug: the heartbeats topic is misnamed
        def start(self, node, config):
            inst = self.inner.start(node, config)
            class Wrong:
                def step(self, inp):
                    res = inst.step(inp)
                    if inp.get("type") == "HeartbeatsTopic":
                        res.observation["result"] = "heartbeat"
                    return res
                def close(self):
                    inst.close()
            return Wrong()

    class NotATarget:
        pass

    class OwnResult:                       # a result type of its own, with the two members
        def __init__(self, outputs, observation):
            self.outputs, self.observation = outputs, observation

    class OwnResultTarget(DuckTarget):
        def start(self, node, config):
            inst = self.inner.start(node, config)
            class Own:
                def step(self, inp):
                    res = inst.step(inp)
                    return OwnResult(res.outputs, res.observation)
                def close(self):
                    inst.close()
            return Own()
''')


@pytest.fixture()
def duck_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "duck_targets.py").write_text(DUCK, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "duck_targets"
    sys.modules.pop("duck_targets", None)


def test_duck_typed_target_runs_and_conforms(duck_module: str) -> None:
    target = resolve_target(f"python:{duck_module}:DuckTarget", "mm2")
    assert isinstance(target, Target) and target.unsupported == frozenset()
    assert run_conformance("mm2", target, examples=20, out_dir=None).verdict == "conforms"


def test_duck_typed_bug_is_caught_through_the_public_api(duck_module: str) -> None:
    module = __import__(duck_module)
    result = run_conformance("mm2", module.WrongHeartbeats(), examples=200, out_dir=None)
    assert result.verdict == "diverges"


def test_an_object_without_start_is_refused(duck_module: str) -> None:
    with pytest.raises(UnknownTarget, match="is not a target"):
        resolve_target(f"python:{duck_module}:NotATarget", "mm2")
    with pytest.raises(TypeError, match="no start"):
        as_target(object())


def test_own_result_type_with_outputs_and_observation_is_taken(duck_module: str) -> None:
    module = __import__(duck_module)
    assert run_conformance("mm2", module.OwnResultTarget(), examples=20, out_dir=None).verdict == "conforms"
