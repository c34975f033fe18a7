"""SHARE-DRIVE-MIN-EPOCH: from rule set 4.4 the driver's probe requests carry Integer.MIN_VALUE as a
leader and a state epoch (a negative epoch that is not the old sentinel -1), each refused
INVALID_REQUEST with nothing recorded; rule sets before 4.4 get none (their -1 is "not set")."""

from __future__ import annotations

from kspec.model.share.system import MIN_EPOCH, ShareSystem


def _min_epoch_requests(minor: int) -> list[tuple[str, object]]:
    system = ShareSystem(kafka_minor=minor, probes=True)
    state = system.init_states()[0]
    return [(kind, a) for kind, a in system.probe_actions(state)
            if MIN_EPOCH in (getattr(a, "leader_epoch", None), getattr(a, "state_epoch", None))]


def test_min_epoch_probe_requests_from_4_4_only() -> None:
    sent = _min_epoch_requests(4)
    assert sorted((kind, type(a).__name__) for kind, a in sent) == [
        ("epochs", "Read"), ("epochs", "Write"), ("epochs", "Write"), ("initialize", "Initialize")]
    assert _min_epoch_requests(3) == []


def test_min_epoch_requests_are_refused_and_change_nothing() -> None:
    system = ShareSystem(kafka_minor=4, probes=True)
    state = system.init_states()[0]
    for _, action in _min_epoch_requests(4):
        after = system.next_state(state, action)  # type: ignore[arg-type]
        assert after is not None and after.shard == state.shard, action
        (event,) = system.events_of(state, action, after)  # type: ignore[arg-type]
        which = "The leader epoch" if getattr(action, "leader_epoch", None) == MIN_EPOCH else "The state epoch"
        assert [(o.error, o.message.split(" cannot")[0]) for o in event["outputs"]] == [("INVALID_REQUEST", which)]
