"""Hypothesis fuzz of every reader and command with malformed input (issue #24 item 5): mutated
counterexamples, ITF traces, JSON Lines corpora, explore/simulate JSON, TLC output, raw bytes,
arbitrary JSON and hostile argument lists. Fails on any "internal error", traceback, exit code
other than 0/1/2 or a multi-line error. A few seconds here; bench/fuzz_inputs.py runs 100,000."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile_fuzz import Files, check_argv, check_file, hostile_argv, mutate, seed_documents

FUZZ = settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], Path, Files]:
    work = tmp_path_factory.mktemp("fuzz")
    docs = seed_documents(work / "seeds")
    cx, itf = work / "seed-cx.itf.json", work / "seed.itf.json"
    cx.write_bytes(docs["counterexample"])
    itf.write_bytes(docs["itf"])
    (work / "paths").mkdir()
    return docs, work, Files(work / "paths", cx, itf)


@pytest.fixture(autouse=True)
def in_scratch(seeds: tuple[dict[str, bytes], Path, Files]) -> Any:
    """Commands run in the scratch directory: a default output lands there, never in the repository."""
    cwd = os.getcwd()
    os.chdir(seeds[1])
    yield
    os.chdir(cwd)


KINDS = ["counterexample", "itf", "events", "explore_json", "tlc_error", "tlc_sim", "tlc_dump"]


@FUZZ
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 4))
def test_mutated_files(seeds: tuple[dict[str, bytes], Path, Files], kind: str, seed: int, rounds: int) -> None:
    docs, work, _ = seeds
    data = mutate(random.Random(seed), kind, docs[kind], rounds)
    assert check_file(kind, data, work) == []


@FUZZ
@given(data=st.binary(max_size=300))
def test_raw_bytes(seeds: tuple[dict[str, bytes], Path, Files], data: bytes) -> None:
    assert check_file("any", data, seeds[1]) == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8)
    | st.sampled_from(["#tup", "#set", "#map", "#bigint", "kspec-counterexample", "reference", "exec:true"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["#meta", "#tup", "#set", "#map", "#bigint", "kind", "protocol", "target", "config",
                         "states", "step", "node", "input", "trace", "violations", "action", "type", "src", "dst"]),
        inner, max_size=5),
    max_leaves=25)


@FUZZ
@given(doc=JSON)
def test_arbitrary_json(seeds: tuple[dict[str, bytes], Path, Files], doc: Any) -> None:
    assert check_file("any", json.dumps(doc).encode(), seeds[1]) == []


@FUZZ
@given(doc=st.fixed_dictionaries({"#meta": st.fixed_dictionaries(
    {"kind": st.just("kspec-counterexample"), "protocol": st.sampled_from(["raft", "share", "voters", "mm2", "x"]),
     "target": st.sampled_from(["reference", "mutant:nosuch", "exec:true", "python:os:getcwd"]),
     "config": st.dictionaries(st.sampled_from(["voters", "observers", "hosts", "instances", "level"]),
                               st.integers(-5, 40) | st.text(max_size=3), max_size=3)}),
    "states": st.lists(JSON, max_size=3)}))
def test_counterexample_shaped_json(seeds: tuple[dict[str, bytes], Path, Files], doc: Any) -> None:
    assert check_file("counterexample", json.dumps(doc).encode(), seeds[1]) == []


@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_hostile_argument_lists(seeds: tuple[dict[str, bytes], Path, Files], seed: int) -> None:
    assert check_argv(hostile_argv(random.Random(seed), seeds[2])) == []
