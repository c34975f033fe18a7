"""SHARE-DRIVE-TIE-UPDATE, SHARE-DRIVE-STALE-READ-WITHOUT-TOPIC and SHARE-DRIVE-IMAGE-WHILE-UNLOADED
(red team session 15): what the driver sends tells the reference shard from the mutant of the
same name, input by input, where the model's answer is the reference's."""

from __future__ import annotations

from typing import Any

from kspec.conformance.drivers.share import ReloadWithoutTopic, ShareDriver, StaleReadWithoutTopic
from kspec.conformance.targets.registry import resolve_target
from kspec.model.share.records import ShareUpdate
from kspec.model.share.system import DOOMED, Initialize, Read, Write


def first_difference(driver: ShareDriver, steps: list[tuple[Any, Any]], target: str) -> str | None:
    """Feed the events of ``steps`` ((state before, action) pairs) to ``target``; the first
    input whose outputs or observation differ from the model's, or None."""
    node = resolve_target(target, "share").start(0, driver.node_config(0))
    for before, action in steps:
        after = driver.resolve(before, action)
        assert after is not None
        for ev in driver.events(before, action, after):
            got = node.step(ev.input)
            outs = [driver.comparable(o) for o in got.outputs]
            if outs != [driver.comparable(o) for o in ev.model_outputs] or driver.canonical_observation(
                    ev.input, got.observation) != driver.canonical_observation(ev.input, ev.model_observation):
                return str(ev.input["type"])
    return None


def walk(driver: ShareDriver, state: Any, actions: list[Any]) -> list[tuple[Any, Any]]:
    steps = []
    for action in actions:
        steps.append((state, action))
        state = driver.resolve(state, action)
        assert state is not None, action
    return steps


def test_guided_tail_ties_a_stored_offset_in_an_update() -> None:
    driver = ShareDriver({"snapshot_every": 1})
    s0 = driver.init_state()
    prefix = walk(driver, s0, [Initialize(1, 0), Read(0)])
    end = driver.resolve(*prefix[-1])
    tail = driver.tie_probes(end)
    assert tail and isinstance(tail[-1][1], Write)
    steps = prefix + walk(driver, end, [a for _, a in tail])
    last = driver.resolve(*steps[-1])
    assert isinstance(last.log[-1], ShareUpdate)
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-update-tie-newer-wins") == "WriteRequest"
    # at snapshot limit 0 every write is a snapshot: nothing for the replay to tie
    assert ShareDriver({"snapshot_every": 0}).tie_probes(end) == []


def test_stale_read_without_topic_is_fenced_before_the_image() -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    # in category initialize here: it initializes g:U:0 first (a target declining initialize never gets it)
    assert ("initialize", StaleReadWithoutTopic()) in driver.candidates(s0)
    steps = [(s0, StaleReadWithoutTopic())]
    after = driver.resolve(s0, StaleReadWithoutTopic())
    assert after is not None and after.last_error == "FENCED_LEADER_EPOCH"
    assert after.shard.offset(DOOMED) is not None
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-read-image-before-fence") == "ReadRequest"


def test_reload_without_topic_deletes_it_while_unloaded() -> None:
    """SHARE-DRIVE-IMAGE-WHILE-UNLOADED: the composite deletes the topic during the fail-over, so
    a shard that drops a MetadataUpdate while unloaded answers the doomed key's read from the old
    image."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    steps = [(s0, ReloadWithoutTopic())]
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-image-dropped-while-unloaded") == "ReadRequest"
