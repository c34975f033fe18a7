"""murmur2 against Kafka's own test vectors (testdata/murmur2.txt), and differentially against
the conformance router's independent transcription."""

from __future__ import annotations

from pathlib import Path

from datadriven import Case, run_file
from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.conformance.targets.streams_routers import java_murmur2
from kspec.model.streams.murmur2 import murmur2, partition_for_key, to_positive

HERE = Path(__file__).parent

# The six vectors of UtilsTest.testMurmur2 (apache/kafka,
# clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java), also in the fixture.
KAFKA_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


def _key(case: Case) -> bytes:
    if any(a.startswith("hex=") for a in case.args):
        return bytes.fromhex(case.arg("hex", ""))
    return case.arg("key").encode("ascii")


def handle(case: Case) -> str:
    if case.command == "murmur2":
        return str(murmur2(_key(case)))
    if case.command == "partition":
        return str(partition_for_key(_key(case), int(case.arg("n"))))
    raise ValueError(f"{case.path}:{case.line}: unknown command {case.command!r}")


def test_murmur2_fixtures(rewrite: bool) -> None:
    run_file(HERE / "testdata" / "murmur2.txt", handle, rewrite)


def test_kafka_vectors() -> None:
    for key, expected in KAFKA_VECTORS.items():
        assert murmur2(key) == expected, key
        assert java_murmur2(key) == expected, key


def test_fixture_holds_every_kafka_vector() -> None:
    text = (HERE / "testdata" / "murmur2.txt").read_text()
    for key, expected in KAFKA_VECTORS.items():
        assert f"murmur2 key={key.decode()}\n----\n{expected}\n" in text


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40))
def test_model_matches_independent_transcription(data: bytes) -> None:
    h = murmur2(data)
    assert h == java_murmur2(data)
    assert -(2**31) <= h < 2**31


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=20), st.integers(min_value=1, max_value=1000))
def test_partition_in_range(data: bytes, n: int) -> None:
    assert 0 <= partition_for_key(data, n) < n


def test_to_positive_is_not_abs() -> None:
    assert to_positive(-(2**31)) == 0
    assert to_positive(-1) == 2**31 - 1
    assert to_positive(5) == 5
