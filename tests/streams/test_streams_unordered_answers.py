"""``allMetadata`` and ``allMetadataForStore`` answer a ``Collection`` whose order KIP-67 leaves
open (STREAMS-RULE-ALL-METADATA): a target that lists the hosts in another order conforms (Kafka
3.0-3.1 list them in HashMap order), and one that lists the wrong hosts is still caught."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.drivers.streams import StreamsDriver
from kspec.conformance.targets.streams_routers import ReferenceRouter, RouterTarget
from kspec.model.streams.metadata import StreamsMetadata


class ReversedRouter(ReferenceRouter):
    """Every collection answer in the opposite order: allowed."""

    def all_metadata(self, assignment: Any) -> list[StreamsMetadata]:
        return list(reversed(super().all_metadata(assignment)))

    def all_metadata_for_store(self, assignment: Any, store: str) -> list[StreamsMetadata]:
        return list(reversed(super().all_metadata_for_store(assignment, store)))


class DuplicatesFirstHost(ReversedRouter):
    """The first host twice: a different collection, however ordered."""

    def all_metadata(self, assignment: Any) -> list[StreamsMetadata]:
        found = super().all_metadata(assignment)
        return found + found[:1]


def test_another_order_conforms(tmp_path: Path) -> None:
    result = run_conformance("streams", RouterTarget("python:reversed", ReversedRouter), seed_value=0,
                             examples=60, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding


def test_another_collection_is_caught(tmp_path: Path) -> None:
    result = run_conformance("streams", RouterTarget("python:dup", DuplicatesFirstHost), seed_value=0,
                             examples=60, out_dir=tmp_path)
    assert result.verdict == "diverges"


def test_canonical_form_only_touches_collection_answers() -> None:
    answer = {"result": [{"host": "b:1"}, {"host": "a:1"}]}
    assert StreamsDriver.canonical_observation({"type": "AllMetadata"}, answer) == {
        "result": [{"host": "a:1"}, {"host": "b:1"}]}
    assert StreamsDriver.canonical_observation({"type": "MetadataForKey"}, answer) is answer
