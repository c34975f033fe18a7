"""Known deviations: what a Kafka release does that its protocol does not allow.

The model is the protocol as the KIPs and the Raft paper define it; a release that does
something else *diverges*, and the divergence is a finding, never a per-release rule. Those
findings that are understood are catalogued here, as data (``<protocol>.toml`` next to this
module), so that a run can say which known deviation a divergence is, and a user who knows a
deviation can accept it explicitly (``kspec conform --accept NAME``): the run then holds the
target to the model with that deviation allowed (its ``model_variant``), and the report lists
what was accepted. Nothing is accepted by default.

An entry::

    [[deviation]]
    name = "voters-trim-at-snapshot-end"     # unique across protocols, kebab-case
    spec_id = "VOTERS-CTRL-TRIM"             # the rule the release breaks
    summary = "one sentence: what the release does, against what the protocol says"
    releases = ["3.9.1", "4.1.0"]            # every release that ships the code (not only where a run showed it)
    fixed_in = "4.5.0"                        # optional
    kafka_issue = "KAFKA-12345"               # optional
    model_variant = "kafka-trim-at-snapshot-end"   # a ProtocolInfo.variants name allowing it
    counterexample = "tests/voters/testdata/..."   # optional, repository-relative
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
REQUIRED = ("name", "spec_id", "summary", "releases", "model_variant")
OPTIONAL = ("fixed_in", "kafka_issue", "counterexample", "target_error")
MAX_ACCEPT_FILE = 1 << 20  # an --accept @FILE is a list of names; a bigger file is not one


class DeviationError(ValueError):
    """A catalogue entry or an accepted name that does not hold together (one line)."""


@dataclass(frozen=True, slots=True)
class Deviation:
    """One known deviation of a release from its protocol."""

    name: str
    protocol: str
    spec_id: str
    summary: str
    releases: tuple[str, ...]
    model_variant: str
    fixed_in: str | None = None
    kafka_issue: str | None = None
    counterexample: str | None = None
    # A regular expression over a target failure's detail: a release that throws on an input
    # the protocol allows fails the run instead of answering; a failure matching it is this
    # deviation (a divergence, not an error verdict). Its model variant leaves that input out.
    target_error: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "protocol": self.protocol, "spec_id": self.spec_id, "summary": self.summary,
                "releases": list(self.releases), "model_variant": self.model_variant, "fixed_in": self.fixed_in,
                "kafka_issue": self.kafka_issue, "counterexample": self.counterexample,
                "target_error": self.target_error}

    def line(self) -> str:
        """One line for reports: name, spec ID, Kafka issue."""
        issue = f", {self.kafka_issue}" if self.kafka_issue else ""
        return f"{self.name} ({self.spec_id}{issue}): {self.summary}"


def _entry(protocol: str, path: Path, index: int, raw: object) -> Deviation:
    where = f"{path.name}: deviation {index + 1}"
    if not isinstance(raw, dict):
        raise DeviationError(f"{where}: not a table")
    unknown = sorted(set(raw) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise DeviationError(f"{where}: unknown keys {', '.join(unknown)}")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise DeviationError(f"{where}: missing {', '.join(missing)}")
    for key in (*REQUIRED, *OPTIONAL):
        value = raw.get(key)
        if key == "releases":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise DeviationError(f"{where}: releases is not a list of version strings")
        elif value is not None and not isinstance(value, str):
            raise DeviationError(f"{where}: {key} is not a string")
    if raw.get("target_error") is not None:
        try:
            re.compile(raw["target_error"])
        except re.error as err:
            raise DeviationError(f"{where}: target_error is not a regular expression ({err})") from None
    if not NAME.match(raw["name"]):
        raise DeviationError(f"{where}: name {raw['name']!r} is not kebab-case (a-z, 0-9, -)")
    return Deviation(raw["name"], protocol, raw["spec_id"], raw["summary"], tuple(raw["releases"]),
                     raw["model_variant"], raw.get("fixed_in"), raw.get("kafka_issue"), raw.get("counterexample"),
                     raw.get("target_error"))


@cache
def _load_all() -> dict[str, Deviation]:
    found: dict[str, Deviation] = {}
    for path in sorted(HERE.glob("*.toml")):
        protocol = path.stem
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise DeviationError(f"{path.name}: {err}") from None
        entries = doc.get("deviation", [])
        if not isinstance(entries, list):
            raise DeviationError(f"{path.name}: 'deviation' is not an array of tables")
        for i, raw in enumerate(entries):
            dev = _entry(protocol, path, i, raw)
            if dev.name in found:
                raise DeviationError(f"{path.name}: deviation {dev.name!r} is catalogued twice")
            found[dev.name] = dev
    return found


def catalogue(protocol: str | None = None) -> dict[str, Deviation]:
    """The catalogued deviations (of one protocol, or all), by name, in file order."""
    return {n: d for n, d in _load_all().items() if protocol is None or d.protocol == protocol}


def accepted_names(values: tuple[str, ...] | list[str]) -> list[str]:
    """``--accept`` values as names: each value is a name, a comma-separated list, or ``@FILE``
    (one name per line, ``#`` comments). A DeviationError names an unreadable file."""
    names: list[str] = []
    for value in values:
        if value.startswith("@"):
            path = Path(value[1:])
            try:
                if not path.is_file():
                    raise DeviationError(f"--accept {value}: not a regular file")
                if path.stat().st_size > MAX_ACCEPT_FILE:
                    raise DeviationError(f"--accept {value}: larger than {MAX_ACCEPT_FILE} bytes")
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                raise DeviationError(f"--accept {value}: {err}") from None
            for number, line in enumerate(text.splitlines(), 1):
                name = line.split("#", 1)[0].strip()
                if name:
                    if not NAME.match(name):
                        raise DeviationError(f"--accept {value}: line {number}: {name[:80]!r} is not a deviation name")
                    names.append(name)
        else:
            names += [n.strip() for n in value.split(",") if n.strip()]
    return list(dict.fromkeys(names))


def resolve_accepted(protocol: str, names: list[str] | tuple[str, ...]) -> tuple[Deviation, ...]:
    """The deviations ``names`` accept for ``protocol``; a DeviationError for an unknown name
    or one that belongs to another protocol."""
    known = catalogue(protocol)
    everything = catalogue()
    found: list[Deviation] = []
    for name in names:
        if name in known:
            found.append(known[name])
        elif name in everything:
            raise DeviationError(f"--accept: {name!r} is a {everything[name].protocol} deviation, not {protocol}")
        else:
            listing = ", ".join(known) or "none catalogued"
            raise DeviationError(f"--accept: unknown {protocol} deviation {name[:80]!r} (known: {listing})")
    return tuple(found)


def failure_deviation(protocol: str, detail: str, names: list[str] | tuple[str, ...]) -> str | None:
    """The first of ``names`` (catalogued deviations of ``protocol``) whose ``target_error``
    matches a target failure's ``detail``: the release threw where the protocol answers."""
    known = catalogue(protocol)
    for name in names:
        dev = known.get(name)
        if dev is not None and dev.target_error and re.search(dev.target_error, detail):
            return name
    return None


def observed_on(protocol: str, version: str) -> list[Deviation]:
    """The catalogued deviations of ``protocol`` seen on release ``version``."""
    return [d for d in catalogue(protocol).values() if version in d.releases]
