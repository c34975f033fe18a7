"""Kafka's own raft test doubles for a release whose test jars Maven does not serve (4.2.2, 4.4.0).

The raft targets drive ``KafkaRaftClient`` over Kafka's test doubles (``MockLog``,
``MockNetworkChannel``, ``MockTime``, ...), which ship in the ``test`` jars of kafka-raft and
kafka-clients. When Maven serves no test jar for a release, the doubles are compiled with
``javac`` from the published test sources (classifier ``test-sources``) of the release its line
names (``raft_releases.ReleaseLine.test_sources``), against this release's own main jars: the
classes are Kafka's, and a release whose API moved away from those sources fails to compile,
which is a one-line TargetError naming the first javac error (no silent stand-in).

The result goes into the same cache directory as the jars Maven would have given
(``artifacts.set_dir``), with a manifest, so every later run (and the voters targets, which use
the same artifact set) finds it without Maven or javac; ``SOURCE`` there says where the doubles
came from.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from importlib import resources
from pathlib import Path

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.kafka import artifacts

# The classes the raft targets construct; javac compiles what they use from the same sources.
ROOTS = (
    "org/apache/kafka/raft/MockLog.java",
    "org/apache/kafka/raft/MockQuorumStateStore.java",
    "org/apache/kafka/raft/MockNetworkChannel.java",
    "org/apache/kafka/raft/MockMessageQueue.java",
    "org/apache/kafka/raft/MockExpirationService.java",
    "org/apache/kafka/raft/MockableRandom.java",
    "org/apache/kafka/common/utils/MockTime.java",
)
# 4.4's request completion (KAFKA-20714) does not fit 4.3's channel and queue (raft_releases).
CHANNEL_AND_QUEUE = ("org/apache/kafka/raft/MockNetworkChannel.java", "org/apache/kafka/raft/MockMessageQueue.java")
# Kafka's test sources reach a JUnit test class for a constant (MockNetworkChannel's listener
# name is VoterSetTest's), so JUnit is on the compile class path; nothing of it runs.
JUNIT = ("org.junit.jupiter", ("junit-jupiter-api", "junit-jupiter-params"), "5.11.4")
JAR = "kspec-test-doubles.jar"


def _maven(pom_deps: list[str], into: Path, version: str, timeout: float) -> list[Path]:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise TargetError(f"kafka:{version}: 'mvn' not found on PATH; Maven resolves Kafka's jars")
    template = resources.files(__package__).joinpath("pom.xml").read_text(encoding="utf-8")
    pom = into / "pom.xml"
    pom.write_text(template.replace("@VERSION@", version).replace("@DEPENDENCIES@", "\n".join(pom_deps)),
                   encoding="utf-8")
    jars = into / "fetched"
    jars.mkdir()
    cmd = [mvn, "-B", "-q", "-f", str(pom), "dependency:copy-dependencies", "-DincludeScope=runtime",
           f"-DoutputDirectory={jars}"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              check=False)
    except subprocess.TimeoutExpired:
        raise TargetError(f"kafka:{version}: mvn did not finish within {timeout:g}s") from None
    if done.returncode != 0:
        raise TargetError(f"kafka:{version}: {artifacts._tail(done.stdout + done.stderr)}")
    return sorted(jars.glob("*.jar"))


def _dep(group: str, name: str, version: str, classifier: str = "") -> str:
    extra = f"<classifier>{classifier}</classifier>" if classifier else ""
    return (f"    <dependency><groupId>{group}</groupId><artifactId>{name}</artifactId>"
            f"<version>{version}</version>{extra}</dependency>")


def relocate(sources: Path, jars: list[Path]) -> int:
    """Rewrite the donor sources' imports of Kafka classes that this release moved to another
    package (4.4: ``common.utils.LogContext`` to ``common.utils.internals``): an import naming a
    class found neither in the sources nor in the jars becomes the one class of that simple name
    the jars have. Returns how many imports changed; nothing else of the sources is touched."""
    present: set[str] = set()
    by_simple: dict[str, list[str]] = {}
    for jar in jars:
        with zipfile.ZipFile(jar) as z:
            for entry in z.namelist():
                if entry.startswith("org/apache/kafka/") and entry.endswith(".class") and "$" not in entry:
                    fqn = entry[:-6].replace("/", ".")
                    present.add(fqn)
                    by_simple.setdefault(fqn.rsplit(".", 1)[1], []).append(fqn)
    changed = 0
    for src in sources.rglob("*.java"):
        text = src.read_text(encoding="utf-8")
        new = re.sub(r"^import (org\.apache\.kafka\.[\w.]+\.)(\w+);$",
                     lambda m: _moved(m, sources, present, by_simple), text, flags=re.M)
        if new != text:
            changed += sum(a != b for a, b in zip(text.splitlines(), new.splitlines(), strict=False))
            src.write_text(new, encoding="utf-8")
    return changed


def _moved(m: re.Match[str], sources: Path, present: set[str], by_simple: dict[str, list[str]]) -> str:
    fqn = m.group(1) + m.group(2)
    if fqn in present or (sources / (fqn.replace(".", "/") + ".java")).is_file():
        return m.group(0)
    found = by_simple.get(m.group(2), [])
    return f"import {found[0]};" if len(found) == 1 else m.group(0)


def build(version: str, wanted: list[str], donor: str, *, roots: tuple[str, ...] = ROOTS,
          root: Path | None = None, timeout: float = artifacts.DEFAULT_TIMEOUT) -> list[Path]:
    """The jars of ``wanted`` at ``version``, the ``@test`` ones replaced by the doubles
    (``roots`` and what they use) compiled from ``donor``'s test sources against ``version``'s
    main jars (see the module docstring)."""
    hit = artifacts.cached(version, wanted, root)
    if hit is not None:
        return hit
    if shutil.which("javac") is None:
        raise TargetError(f"kafka:{version}: Maven serves no test jar for {version} and javac (which compiles "
                          f"Kafka's test doubles from {donor}'s test sources) is not on PATH")
    main = [a for a in wanted if "@" not in a]
    main_jars = artifacts.resolve(version, main, root=root, timeout=timeout)
    target = artifacts.set_dir(version, wanted, root)
    scratch = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    try:
        deps = [_dep(artifacts.GROUP, name, donor, "test-sources") for name in ("kafka-raft", "kafka-clients")]
        deps += [_dep(JUNIT[0], name, JUNIT[2]) for name in JUNIT[1]]
        fetched = _maven(deps, scratch, version, timeout)
        sources = scratch / "src"
        for jar in fetched:
            if jar.name.endswith("-test-sources.jar"):
                with zipfile.ZipFile(jar) as z:
                    z.extractall(sources)
        missing = [r for r in roots if not (sources / r).is_file()]
        if missing:
            raise TargetError(f"kafka:{version}: {donor}'s test sources have no {missing[0]}")
        relocated = relocate(sources, main_jars)
        compile_cp = [str(j) for j in main_jars] + [str(j) for j in fetched
                                                    if not j.name.startswith("kafka-")]
        classes = scratch / "classes"
        cmd = ["javac", "-nowarn", "-proc:none", "-implicit:class", "-encoding", "UTF-8", "-d", str(classes),
               "-sourcepath", str(sources), "-cp", os.pathsep.join(compile_cp), *[str(sources / r) for r in roots]]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              check=False)
        if done.returncode != 0:
            first = next((ln for ln in done.stderr.splitlines() if ": error:" in ln), done.stderr.strip()[:200])
            first = first.replace(str(sources) + os.sep, "")
            raise TargetError(f"kafka:{version}: Maven serves no test jar for {version}, and Kafka's test doubles "
                              f"from {donor}'s test sources do not compile against {version}: {first}")
        out = scratch / "jars"
        out.mkdir()
        for j in main_jars:
            shutil.copy2(j, out / j.name)
        with zipfile.ZipFile(out / JAR, "w", zipfile.ZIP_DEFLATED) as z:
            for cls in sorted(classes.rglob("*.class")):
                z.write(cls, cls.relative_to(classes).as_posix())
        (out / "SOURCE").write_text(f"{JAR}: Kafka's test doubles compiled by javac from the {donor} test sources "
                                    f"of kafka-raft and kafka-clients against the {version} jars ({relocated} imports "
                                    "of classes the release moved rewritten)\n")
        names = sorted(p.name for p in out.glob("*.jar"))
        (out / artifacts.MANIFEST).write_text("\n".join(names) + "\n")
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        out.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return [target / n for n in names]
