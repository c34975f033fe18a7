"""One JVM per process, started by JPype with the jars of one Kafka version.

JPype cannot restart a JVM nor load two versions of a class side by side, so the first
``kafka:VERSION`` target a process uses fixes the version: asking for another one is a
:class:`TargetError` that says to use a new process. Jars of a second artifact set of the
same version (the share coordinator after mm2's client) join through JPype's dynamic class
path, which it allows after start-up.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kspec.conformance.adapters.base import TargetError

_version: str | None = None
_classpath: list[str] = []
# Seconds startJVM took in this process (0.0 until started), for the report.
start_seconds = 0.0


def started_version() -> str | None:
    """The Kafka version this process's JVM was started for, or None."""
    return _version


def check(version: str) -> None:
    """TargetError when this process's JVM runs another Kafka version (call before resolving)."""
    if _version is not None and _version != version:
        raise TargetError(f"kafka:{version}: this process already runs a JVM with Kafka {_version}; "
                          "JPype cannot restart a JVM, so use one Kafka version per process")


def ensure(version: str, jars: list[Path]) -> None:
    """Start the JVM with ``jars`` for ``version``, or add them to the running one."""
    global _version, start_seconds
    try:
        import jpype
    except ImportError as err:
        raise TargetError(f"kafka:{version}: JPype is not installed ({err})") from None
    paths = [str(j) for j in jars]
    if jpype.isJVMStarted():
        if _version is None:
            raise TargetError(f"kafka:{version}: a JVM not started by kspec is already running in this "
                              "process; JPype cannot restart it (run the kafka target in a new process)")
        check(version)
        # Same version, another artifact set: the shared jars (kafka-clients) are the same
        # files, so adding only the new ones keeps one copy of each class.
        known = {Path(p).name for p in _classpath}
        for p in paths:
            if Path(p).name not in known:
                jpype.addClassPath(p)
                _classpath.append(p)
        return
    started = time.monotonic()
    try:
        # convertStrings=False: Java strings stay Java strings until we say str(), so a Java
        # null and the string "None" cannot be confused.
        jpype.startJVM("-Xmx256m", "-Xss4m", classpath=paths, convertStrings=False)
    except Exception as err:  # JVMNotFoundException, OSError: one line, not a traceback
        raise TargetError(f"kafka:{version}: cannot start a JVM ({type(err).__name__}: {err})") from None
    start_seconds = time.monotonic() - started
    _version = version
    _classpath.extend(paths)


def jclass(version: str, name: str) -> Any:  # a JPype class: its members are the Java class's, known at run time
    """The Java class ``name``; TargetError naming the version when this Kafka does not have it."""
    import jpype

    try:
        return jpype.JClass(name)
    except Exception as err:
        raise TargetError(f"kafka:{version}: class {name} not found ({type(err).__name__})") from None


class JavaClasses:
    """The Kafka classes of one version a target's glue looks up once, through JPype.

    Each target's class table (raft, voters, share, streams) subclasses this and fills itself
    in its constructor; the lookups they share live here: a class by name, the first of the
    names a class has had across releases, whether a class has a method, a private member made
    accessible, and the do-nothing ``ExternalKRaftMetrics`` the 4.x raft classes need.
    """

    def __init__(self, version: str) -> None:
        import jpype

        self.jpype: Any = jpype
        self.version = version

    def c(self, name: str) -> Any:
        """The Java class ``name``; TargetError naming the version when this Kafka lacks it."""
        return jclass(self.version, name)

    def first(self, *names: str) -> Any:
        """The first of ``names`` this Kafka has (a class renamed or moved between releases);
        TargetError naming the last when it has none."""
        for name in names[:-1]:
            try:
                return jclass(self.version, name)
            except TargetError:
                continue
        return jclass(self.version, names[-1])

    def record(self, name: str) -> Any:
        """A record class: ``common.record`` to 4.2, ``common.record.internal`` from 4.3."""
        return self.first(f"org.apache.kafka.common.record.{name}", f"org.apache.kafka.common.record.internal.{name}")

    def log_context_class(self) -> Any:
        """``LogContext``: ``common.utils`` to 4.3, ``common.utils.internals`` from 4.4."""
        return self.first("org.apache.kafka.common.utils.LogContext",
                          "org.apache.kafka.common.utils.internals.LogContext")

    @staticmethod
    def has_method(cls: Any, name: str, params: int | None = None) -> bool:
        """Whether the Java class ``cls`` has a public method ``name`` (taking ``params`` arguments)."""
        return any(str(m.getName()) == name and (params is None or m.getParameterCount() == params)
                   for m in cls.class_.getMethods())

    @staticmethod
    def accessible(member: Any) -> Any:
        """A private field, method or constructor, made accessible for reflection."""
        member.setAccessible(True)
        return member

    def field(self, cls: Any, name: str, missing_ok: bool = False) -> Any:
        """The private field ``name`` of ``cls`` (a Java class or its name), made accessible;
        None when missing and ``missing_ok``, else TargetError naming class and field."""
        cls = self.c(cls) if isinstance(cls, str) else cls
        try:
            f = cls.class_.getDeclaredField(name)
        except Exception:
            if missing_ok:
                return None
            raise TargetError(f"kafka:{self.version}: {cls.class_.getName()} has no field {name}") from None
        return self.accessible(f)

    def no_external_metrics(self) -> Any:
        """A do-nothing ``ExternalKRaftMetrics`` (4.0+): the broker's metric of ignored static
        voters, which no target observes."""
        jpype = self.jpype

        @jpype.JImplements("org.apache.kafka.raft.ExternalKRaftMetrics")
        class _NoExternalMetrics:
            @jpype.JOverride
            def setIgnoredStaticVoters(self, ignored: Any) -> None:
                """Not observed."""

        return _NoExternalMetrics()


class MetadataLogClasses(JavaClasses):
    """The classes both KRaft targets (raft, voters) use around the ``__cluster_metadata`` log,
    looked up once: the mock log, the record, serde and common classes, and the partition, log
    context and serde instances."""

    def __init__(self, version: str, vt: tuple[int, int]) -> None:
        super().__init__(version)
        c = self.c
        self.vt = vt
        self.MockLog = c("org.apache.kafka.raft.MockLog")
        self.StringSerde = c("org.apache.kafka.raft.internals.StringSerde")
        self.LeaderChangeMessage = c("org.apache.kafka.common.message.LeaderChangeMessage")
        self.MemoryRecords = self.record("MemoryRecords")
        self.SimpleRecord = self.record("SimpleRecord")
        self.Compression = self.first("org.apache.kafka.common.compress.Compression",  # 3.8+
                                      "org.apache.kafka.common.record.CompressionType").NONE
        self.MemoryPool = c("org.apache.kafka.common.memory.MemoryPool")
        self.LogContext = self.log_context_class()
        self.TopicPartition = c("org.apache.kafka.common.TopicPartition")
        self.Uuid = c("org.apache.kafka.common.Uuid")
        self.ByteBuffer = c("java.nio.ByteBuffer")
        self.Optional = c("java.util.Optional")
        self.Integer = c("java.lang.Integer")
        self.tp = self.TopicPartition("__cluster_metadata", 0)
        self.log_context = self.LogContext()
        self.serde = self.StringSerde()
