"""Apache Kafka's jars for a ``kafka:VERSION`` target, resolved by Maven into a cache directory.

Nothing Maven can fetch is committed: ``pom.xml`` (package data) is filled in with the
requested artifacts at VERSION and ``mvn dependency:copy-dependencies`` copies them with their
runtime dependencies into ``$KSPEC_KAFKA_CACHE/VERSION/<artifact set>/`` (default
``~/.cache/kspec/kafka``). A set resolved once is listed in a manifest and reused without
running Maven. Every failure (no ``mvn``, no ``java``, a version or artifact Maven cannot
resolve, Maven hanging) is a one-line :class:`TargetError` naming the version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from importlib import resources
from pathlib import Path

from kspec.conformance.adapters.base import TargetError

GROUP = "org.apache.kafka"
MANIFEST = "jars.txt"
# Kafka release versions and their pre-releases (3.9.0, 4.1.0, 4.2.0-rc1): the version is
# pasted into XML and a path, so nothing else gets through.
VERSION_RE = re.compile(r"^[0-9]+\.[0-9]+(\.[0-9]+)?([.-][A-Za-z0-9]+)*$")
# ``artifactId``, ``groupId:artifactId``, either with ``@classifier`` (``kafka-raft@test``: a
# test jar, for Kafka's own test doubles).
ARTIFACT_RE = re.compile(r"^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?(@[A-Za-z0-9_.-]+)?$")
DEFAULT_TIMEOUT = 600.0

# The last resolution's wall time (seconds; 0.0 when the cache answered), for the report.
last_resolve_seconds = 0.0


def cache_root() -> Path:
    """``$KSPEC_KAFKA_CACHE`` or ``~/.cache/kspec/kafka``."""
    env = os.environ.get("KSPEC_KAFKA_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "kspec" / "kafka"


def check_version(version: str) -> str:
    """The version, or TargetError when it cannot be a Kafka version string."""
    if not VERSION_RE.match(version):
        raise TargetError(f"kafka:{version}: not a Kafka version (expected e.g. 3.9.0 or 4.1.0)")
    return version


def supported_version(version: str, protocol: str, minimum: tuple[int, int], why: str) -> tuple[int, int]:
    """The version's (major, minor), or a one-line TargetError when it is not a Kafka version
    or is older than ``minimum`` (``why`` says what the adapter needs)."""
    check_version(version)
    vt = version_tuple(version)
    if vt < minimum:
        raise TargetError(f"kafka:{version}: not supported for {protocol} ({why})")
    return vt


def version_tuple(version: str) -> tuple[int, int]:
    """(major, minor) of a Kafka version string; TargetError when it has none."""
    m = re.match(r"^(\d+)\.(\d+)", version)
    if not m:
        raise TargetError(f"kafka:{version}: not a Kafka version (expected e.g. 3.9.1)")
    return int(m.group(1)), int(m.group(2))


def _coordinates(artifact: str) -> tuple[str, str]:
    """(groupId, artifactId[@classifier])."""
    if not ARTIFACT_RE.match(artifact):
        raise TargetError(f"kafka artifact {artifact!r}: expected artifactId or groupId:artifactId "
                          "(optionally @classifier)")
    group, _, name = artifact.rpartition(":")
    return (group or GROUP), name


def render_pom(version: str, artifacts: list[str]) -> str:
    """The pom that makes Maven resolve ``artifacts`` at ``version``."""
    deps = []
    for artifact in artifacts:
        group, name = _coordinates(artifact)
        name, _, classifier = name.partition("@")
        extra = f"<classifier>{classifier}</classifier>" if classifier else ""
        deps.append(f"    <dependency><groupId>{group}</groupId><artifactId>{name}</artifactId>"
                    f"<version>{version}</version>{extra}</dependency>")
    template = resources.files(__package__).joinpath("pom.xml").read_text(encoding="utf-8")
    return template.replace("@VERSION@", version).replace("@DEPENDENCIES@", "\n".join(deps))


def set_dir(version: str, artifacts: list[str], root: Path | None = None) -> Path:
    """Where one artifact set of one version is cached."""
    names = sorted(_coordinates(a)[1] for a in artifacts)
    return (root or cache_root()) / version / "+".join(names)


def cached(version: str, artifacts: list[str], root: Path | None = None) -> list[Path] | None:
    """The cached jars of the set, or None when it was never resolved (or a jar went missing)."""
    manifest = set_dir(version, artifacts, root) / MANIFEST
    if not manifest.is_file():
        return None
    jars = [manifest.parent / line for line in manifest.read_text().split() if line]
    return jars if jars and all(j.is_file() for j in jars) else None


def _tail(text: str) -> str:
    """The Maven line that says why, for a one-line error."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    for ln in lines:
        if "Could not resolve" in ln or "Could not find artifact" in ln or "not found" in ln:
            return ln.removeprefix("[ERROR] ")[:300]
    return (lines[0].removeprefix("[ERROR] ")[:300]) if lines else "no output"


def resolve(version: str, artifacts: list[str], *, root: Path | None = None,
            timeout: float = DEFAULT_TIMEOUT, mvn: str = "mvn") -> list[Path]:
    """The jar paths of ``artifacts`` (``artifactId`` in org.apache.kafka, or ``group:artifact``)
    at ``version`` with their runtime dependencies; runs Maven only on a cache miss."""
    global last_resolve_seconds
    check_version(version)
    if not artifacts:
        raise TargetError(f"kafka:{version}: no artifacts to resolve")
    hit = cached(version, artifacts, root)
    if hit is not None:
        last_resolve_seconds = 0.0
        return hit
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise TargetError(f"kafka:{version}: no Java found (java is not on PATH and JAVA_HOME is unset)")
    mvn_path = shutil.which(mvn)
    if mvn_path is None:
        raise TargetError(f"kafka:{version}: {mvn!r} not found on PATH; Maven resolves Kafka's jars")
    target = set_dir(version, artifacts, root)
    # Resolve into a scratch folder and rename, so an interrupted run never looks complete.
    scratch = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    (scratch / "jars").mkdir(parents=True)
    pom = scratch / "pom.xml"
    pom.write_text(render_pom(version, artifacts), encoding="utf-8")
    cmd = [mvn_path, "-B", "-q", "-f", str(pom), "dependency:copy-dependencies",
           "-DincludeScope=runtime", f"-DoutputDirectory={scratch / 'jars'}"]
    started = time.monotonic()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        shutil.rmtree(scratch, ignore_errors=True)
        raise TargetError(f"kafka:{version}: mvn did not finish resolving {', '.join(artifacts)} "
                          f"within {timeout:g}s") from None
    if done.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise TargetError(f"kafka:{version}: Maven cannot resolve {', '.join(artifacts)} at {version} "
                          f"({_tail(done.stdout + done.stderr)})")
    jars = sorted(p.name for p in (scratch / "jars").glob("*.jar"))
    if not jars:
        shutil.rmtree(scratch, ignore_errors=True)
        raise TargetError(f"kafka:{version}: Maven resolved {', '.join(artifacts)} but copied no jars")
    (scratch / "jars" / MANIFEST).write_text("\n".join(jars) + "\n")
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    (scratch / "jars").rename(target)
    shutil.rmtree(scratch, ignore_errors=True)
    last_resolve_seconds = time.monotonic() - started
    return [target / j for j in jars]
