"""Resolving Kafka's jars with Maven: the pom, the cache, and one-line errors that never hang."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets import registry
from kspec.conformance.targets.kafka import artifacts

VERSION = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "4.0.0")


def test_pom_names_each_artifact_at_the_version() -> None:
    pom = artifacts.render_pom("3.9.0", ["connect-mirror-client", "org.slf4j:slf4j-api"])
    assert "<groupId>org.apache.kafka</groupId><artifactId>connect-mirror-client</artifactId>" \
           "<version>3.9.0</version>" in pom
    assert "<groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId>" in pom
    assert "@" not in pom.replace("@VERSION@", "")  # every placeholder filled


@pytest.mark.parametrize("bad", ["latest", "3.9.0</version>", "../3.9.0", ""])
def test_a_bad_version_is_refused_before_maven_runs(bad: str, tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="not a Kafka version"):
        artifacts.resolve(bad, ["connect-mirror-client"], root=tmp_path, mvn="/nonexistent/mvn")


def test_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KSPEC_KAFKA_CACHE", str(tmp_path))
    assert artifacts.cache_root() == tmp_path
    assert artifacts.set_dir("3.9.0", ["connect-mirror-client"]) == tmp_path / "3.9.0" / "connect-mirror-client"
    monkeypatch.delenv("KSPEC_KAFKA_CACHE")
    assert artifacts.cache_root() == Path.home() / ".cache" / "kspec" / "kafka"


def test_missing_maven_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(TargetError) as err:
        artifacts.resolve("3.9.0", ["connect-mirror-client"], root=tmp_path, mvn="no-such-mvn-kspec")
    assert str(err.value) == "kafka:3.9.0: 'no-such-mvn-kspec' not found on PATH; Maven resolves Kafka's jars"


def test_maven_that_hangs_is_cut_off(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(TargetError, match=r"kafka:3\.9\.0: mvn did not finish .* within 0\.5s"):
        artifacts.resolve("3.9.0", ["connect-mirror-client"], root=tmp_path, timeout=0.5)
    assert time.monotonic() - started < 30
    assert not list(tmp_path.rglob("*.jar")), "an interrupted resolution leaves no jars behind"


def test_a_version_maven_cannot_resolve_names_it(tmp_path: Path) -> None:
    # connect-mirror-client first shipped in 2.4.0: Maven Central has no 2.0.0.
    with pytest.raises(TargetError) as err:
        artifacts.resolve("2.0.0", ["connect-mirror-client"], root=tmp_path, timeout=120)
    message = str(err.value)
    assert message.startswith("kafka:2.0.0: Maven cannot resolve connect-mirror-client at 2.0.0")
    assert "\n" not in message


def test_registry_turns_a_bad_kafka_version_into_unknown_target() -> None:
    with pytest.raises(registry.UnknownTarget, match="kafka:nope: not a Kafka version"):
        registry.resolve_target("kafka:nope", "mm2")


def test_resolved_jars_are_cached_and_reused() -> None:
    first = artifacts.resolve(VERSION, ["connect-mirror-client"])
    names = {j.name for j in first}
    assert f"connect-mirror-client-{VERSION}.jar" in names
    assert f"kafka-clients-{VERSION}.jar" in names
    again = artifacts.resolve(VERSION, ["connect-mirror-client"], mvn="/nonexistent/mvn")  # no Maven needed
    assert again == first
    assert artifacts.last_resolve_seconds == 0.0


def test_missing_java_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither java nor mvn on it
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(TargetError) as err:
        artifacts.resolve("3.9.0", ["connect-mirror-client"], root=tmp_path)
    assert str(err.value) == "kafka:3.9.0: no Java found (java is not on PATH and JAVA_HOME is unset)"
