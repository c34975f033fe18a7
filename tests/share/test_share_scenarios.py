"""Datadriven scenarios for the share coordinator shard (tests/share/testdata/*.txt).

Commands (all keys optional except where a handler needs them):

    shard limit=N image=T/0,T/1 | image=none     a fresh shard (snapshot.update.records.per.snapshot=N)
          version=4.N                            with Kafka 4.N's rule set (default 4.3: -1 is "not set")
          deviations=NAME+NAME                   with these known deviations (conformance/deviations/share.toml)
    write group=g topic=T partition=0 leader=E state=S start=O batches=F-L:STATE:COUNT,...
    read group=g topic=T partition=0 leader=E
    initialize group=g topic=T partition=0 state=S start=O
    delete group=g topic=T partition=0
    summary group=g topic=T partition=0 leader=E
    unload | load                                  fail-over: a new shard replays the log
    state                                          the stored state (observe)

``topic=null`` sends a null topic id. Each request prints its outputs, records first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from datadriven import Case, run_file

from kspec.model.share.records import (
    STATE_NAMES,
    Record,
    ShareSnapshot,
    ShareTombstone,
    ShareUpdate,
    StateBatch,
)
from kspec.model.share.shard import (
    REFERENCE,
    DeleteRequest,
    Flaws,
    InitializeRequest,
    Output,
    ReadRequest,
    ReadResponse,
    ReadSummaryRequest,
    ReadSummaryResponse,
    ShardState,
    WriteRequest,
    load,
    observe,
    step_with,
    unload,
)
from kspec.model.share.versions import minor_of, rules_of, with_deviations

TESTDATA = Path(__file__).parent / "testdata"
STATE_CODES = {name: code for code, name in STATE_NAMES.items()}


def parse_batches(text: str) -> tuple[StateBatch, ...]:
    if not text:
        return ()
    out = []
    for part in text.split(","):
        rng, state, count = part.split(":")
        first, last = rng.split("-")
        code = STATE_CODES[state] if state in STATE_CODES else int(state)
        out.append(StateBatch(int(first), int(last), code, int(count)))
    return tuple(out)


def fmt_batches(batches: tuple[StateBatch, ...]) -> str:
    return " ".join(f"[{b.first_offset}..{b.last_offset} {STATE_NAMES.get(b.delivery_state, b.delivery_state)} "
                    f"x{b.delivery_count}]" for b in batches) or "[]"


def fmt_output(out: Output) -> str:
    if isinstance(out, ShareSnapshot):
        return (f"ShareSnapshot snapshot_epoch={out.snapshot_epoch} state_epoch={out.state_epoch} "
                f"leader_epoch={out.leader_epoch} start={out.start_offset} {fmt_batches(out.state_batches)}")
    if isinstance(out, ShareUpdate):
        return (f"ShareUpdate snapshot_epoch={out.snapshot_epoch} leader_epoch={out.leader_epoch} "
                f"start={out.start_offset} {fmt_batches(out.state_batches)}")
    if isinstance(out, ShareTombstone):
        return f"ShareTombstone {out.key.coordinator_key()}"
    head = f"{type(out).__name__} {out.error}"
    if out.error != "NONE":
        return head + (f" ({out.message})" if out.message else "")
    if isinstance(out, ReadResponse):
        return head + f" state_epoch={out.state_epoch} start={out.start_offset} {fmt_batches(out.state_batches)}"
    if isinstance(out, ReadSummaryResponse):
        return head + f" state_epoch={out.state_epoch} leader_epoch={out.leader_epoch} start={out.start_offset}"
    return head


def fmt_state(state: ShardState) -> str:
    obs = observe(state)
    rows = [f"active={obs['active']}"]
    for key, part in obs["partitions"].items():
        off = part["offset"]
        if off is None:
            rows.append(f"{key}: no offset")
        else:
            batches = tuple(StateBatch(*b) for b in off["state_batches"])
            rows.append(f"{key}: snapshot_epoch={off['snapshot_epoch']} state_epoch={off['state_epoch']} "
                        f"leader_epoch={off['leader_epoch']} start={off['start_offset']} {fmt_batches(batches)}")
        rows.append(f"  fences: leader_epoch={part['leader_epoch_fence']} state_epoch={part['state_epoch_fence']} "
                    f"update_count={part['update_count']}")
    return "\n".join(rows)


class Driver:
    """Keeps a shard and its log across the cases of one fixture file."""

    def __init__(self, flaws: Flaws = REFERENCE) -> None:
        self.flaws = flaws
        self.state = ShardState(snapshot_limit=500, image=frozenset({("T", 0)}))
        self.log: list[Record] = []

    def handle(self, case: Case) -> str:
        topic = case.arg("topic", "T")
        topic_id = None if topic == "null" else topic
        group, partition = case.arg("group", "g"), int(case.arg("partition", "0"))
        if case.command == "shard":
            image_arg = case.arg("image", "T/0")
            image = None if image_arg == "none" else frozenset(
                (p.split("/")[0], int(p.split("/")[1])) for p in image_arg.split(",") if p)
            rules = with_deviations(rules_of(minor_of(case.arg("version", "4.3"))),
                                    [n for n in case.arg("deviations", "").split("+") if n])
            self.state = ShardState(snapshot_limit=int(case.arg("limit", "500")), image=image, rules=rules)
            self.log = []
            return "ok"
        if case.command == "state":
            return fmt_state(self.state)
        if case.command == "unload":
            self.state = unload(self.state)
            return fmt_state(self.state)
        if case.command == "load":
            self.state = load(self.log, self.state.snapshot_limit, self.state.image, self.state.rules)
            return f"replayed {len(self.log)} records\n" + fmt_state(self.state)
        request: WriteRequest | ReadRequest | InitializeRequest | DeleteRequest | ReadSummaryRequest
        if case.command == "write":
            request = WriteRequest(group, topic_id, partition, int(case.arg("leader", "0")),
                                   int(case.arg("state", "0")), int(case.arg("start", "-1")),
                                   parse_batches(case.arg("batches", "")))
        elif case.command == "read":
            request = ReadRequest(group, topic_id, partition, int(case.arg("leader", "0")))
        elif case.command == "initialize":
            request = InitializeRequest(group, topic_id, partition, int(case.arg("state", "0")),
                                        int(case.arg("start", "0")))
        elif case.command == "delete":
            request = DeleteRequest(group, topic_id, partition)
        elif case.command == "summary":
            request = ReadSummaryRequest(group, topic_id, partition, int(case.arg("leader", "0")))
        else:
            raise ValueError(f"{case.path}:{case.line}: unknown command {case.command}")
        self.state, outputs = step_with(self.state, request, self.flaws)
        self.log.extend(o for o in outputs if isinstance(o, ShareSnapshot | ShareUpdate | ShareTombstone))
        return "\n".join(fmt_output(o) for o in outputs)


FIXTURES = sorted(TESTDATA.glob("*.txt"))


def test_fixtures_exist() -> None:
    names = {p.name for p in FIXTURES}
    assert {"seed_batch2.txt", "errors.txt", "snapshots.txt", "lifecycle.txt", "versions.txt"} <= names


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_scenario(path: Path, rewrite: bool) -> None:
    run_file(path, Driver().handle, rewrite)


def test_seed_fixture_fails_on_seed_code_path() -> None:
    """The seed's example loses batch 2's delivery count on the reviewed code path."""
    with pytest.raises(AssertionError) as err:
        run_file(TESTDATA / "seed_batch2.txt", Driver(Flaws(seed_bug=True)).handle, False)
    assert "[110..119 ACQUIRED x2]" in str(err.value)
