"""What a share target declares reaches the lockstep: ``unsupported`` categories are never
drawn, and ``model_config`` (``kafka_version``) makes the model run that release's rules."""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target
from kspec.conformance.drivers.runner import run_conformance
from kspec.model.core.codec import decode, encode
from kspec.model.share import shard
from kspec.model.share.records import SharePartitionKey, ShareSnapshot, ShareTombstone, ShareUpdate, StateBatch
from kspec.model.share.versions import minor_of, rules_of

CLASSES = (*shard.REQUEST_CLASSES, StateBatch, SharePartitionKey, ShareSnapshot, ShareUpdate, ShareTombstone)


class ModelShard:
    """A shard that is the model's node level at the release its configuration names."""

    def __init__(self, config: dict[str, JSON], seen: list[str]) -> None:
        rules = rules_of(minor_of(str(config["kafka_version"])))
        self.image = frozenset((str(t), int(p)) for t, p in config["image"])  # type: ignore[union-attr,misc]
        self.limit = int(config["snapshot_limit"])  # type: ignore[arg-type]
        self.state = shard.ShardState(snapshot_limit=self.limit, image=self.image, rules=rules)
        self.log: list[Any] = []
        self.seen = seen

    def step(self, inp: JSON) -> StepResult:
        assert isinstance(inp, dict)
        self.seen.append(str(inp["type"]))
        if inp["type"] == "Unload":
            self.state = shard.unload(self.state)
        elif inp["type"] == "Load":
            self.state = shard.load(self.log, self.limit, self.image, self.state.rules)
        elif inp["type"] == "MetadataUpdate":
            self.image = frozenset((str(t), int(p)) for t, p in inp["image"])  # type: ignore[union-attr,misc]
            self.state = shard.update_image(self.state, self.image)
        else:
            self.state, outs = shard.step(self.state, decode(inp, CLASSES))
            self.log += [o for o in outs if isinstance(o, ShareSnapshot | ShareUpdate | ShareTombstone)]
            return StepResult(encode(list(outs)), shard.observe(self.state))
        return StepResult([], shard.observe(self.state))

    def close(self) -> None:
        pass


class DeclaringTarget(Target):
    protocol = "share"

    def __init__(self, **declared: Any) -> None:
        self.name = "python:declaring"
        self.seen: list[str] = []
        self.versions: set[str] = set()
        for k, v in declared.items():
            setattr(self, k, v)

    def start(self, node: int, config: dict[str, JSON]) -> ModelShard:
        self.versions.add(str(config["kafka_version"]))
        return ModelShard(config, self.seen)

    def close(self) -> None:
        pass


def test_unsupported_request_kinds_are_never_sent() -> None:
    free = DeclaringTarget()
    assert run_conformance("share", free, examples=30, out_dir=None).verdict == "conforms"
    kinds = {"InitializeRequest", "DeleteRequest", "ReadSummaryRequest"}
    assert kinds <= set(free.seen)  # drawn when nothing says otherwise
    # A category names a request kind: no initialize, delete or read-summary of any key or epoch
    # (the probes' included) reaches a target that declares them unsupported.
    declared = DeclaringTarget(unsupported=frozenset({"initialize", "delete", "summary"}))
    result = run_conformance("share", declared, examples=30, out_dir=None)
    assert result.verdict == "conforms" and result.examples >= 30
    assert not kinds & set(declared.seen) and "WriteRequest" in declared.seen


def test_model_config_picks_the_release() -> None:
    target = DeclaringTarget(model_config={"kafka_version": "4.0"}, unsupported=frozenset({"initialize"}))
    result = run_conformance("share", target, examples=30, out_dir=None)
    assert result.verdict == "conforms" and target.versions == {"4.0"}
    # A shard with 4.3's rules held to the 4.0 model diverges: 4.0 writes need no initialize.
    wrong = DeclaringTarget(model_config={"kafka_version": "4.0"})
    wrong.start = lambda node, config: ModelShard({**config, "kafka_version": "4.3"}, wrong.seen)  # type: ignore[method-assign]
    assert run_conformance("share", wrong, examples=30, out_dir=None).verdict == "diverges"


def test_report_names_the_rule_set_that_judged() -> None:
    """A python:/exec: target that names no rule set is judged by the newest (4.4) and the report
    says so; one that names its rule set (``model_config``, or the exec hello's) is judged by it;
    ``--set kafka_version`` overrides both."""
    from kspec.conformance.commands.conform import judged_by
    from kspec.model.share.versions import LATEST

    assert judged_by("share", DeclaringTarget(), {}) == {
        "kafka_version": {"value": LATEST.version, "from": "default"}}
    named = DeclaringTarget(model_config={"kafka_version": "4.2"})
    assert judged_by("share", named, {}) == {"kafka_version": {"value": "4.2", "from": "target"}}
    assert judged_by("share", named, {"kafka_version": "4.1"}) == {"kafka_version": {"value": "4.1", "from": "--set"}}
