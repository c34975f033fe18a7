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
