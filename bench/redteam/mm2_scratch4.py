"""MirrorMaker 2 replication policies, session 11's planted bugs (none of sessions 5 and 8-10 nor
of the catalogue), over every configuration the driver draws.

Written as an outsider porting ``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` from
spec/mm2.md and the adapter protocol: a substring test where the identity policy tests a suffix,
the 3.x rule mixed into one policy only, names pushed through an ASCII codec, a "tidy" join that
skips empty pieces, internal names built with ``formatRemoteTopic``, a configured separator
trimmed like other settings, a multi-character separator split on its first character,
``originalTopic`` as the last piece of a split, and "a remote copy of an internal topic is
internal too".

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch4:Correct
"""

from __future__ import annotations

from redteam._targets import register, slot_target, subclass
from redteam.mm2 import SEPARATOR, IdentityPolicy, Policy, java_split
from redteam.mm2_scratch import AnyTarget

# ---------------------------------------------------------------------------- bugs


class IdentityHeartbeatContains(IdentityPolicy):
    """Identity: a topic "looks like heartbeats" when the name *contains* ``heartbeats``
    (``contains`` for ``endsWith``), so ``heartbeats-archive`` is read with the default policy's
    rules."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        return self.heartbeats_topic() in topic


class Identity3xUses4xRule(IdentityPolicy):
    """The 3.x internal-topic rule mixed into the default policy only: the identity policy under
    a 3.x rule set answers with 4.x's rule (``orders.internal`` is not internal)."""


class FormatAsciiReplace(Policy):
    """``formatRemoteTopic`` builds the name in an ASCII buffer (``encode("ascii", "replace")``):
    a character outside ASCII becomes ``?``."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return super().format_remote_topic(source, topic).encode("ascii", "replace").decode("ascii")


class FormatEmptyTopicBareAlias(Policy):
    """``formatRemoteTopic(a, "")`` answers ``a`` ("nothing to prefix"), where Kafka joins
    ``a + separator``."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return source if topic == "" else super().format_remote_topic(source, topic)


class CheckpointsViaFormatRemote(Policy):
    """The checkpoints name built with ``formatRemoteTopic(alias, "checkpoints.internal")`` (code
    reuse): the replication separator before ``checkpoints``, where KIP-949 asks for the internal
    one."""

    def checkpoints_topic(self, alias: str) -> str:
        return self.format_remote_topic(alias, f"checkpoints{self.isep}internal")


class IdentityCheckpointsViaFormatRemote(CheckpointsViaFormatRemote, IdentityPolicy):
    """The same slip in the identity policy, whose ``formatRemoteTopic`` keeps the name."""


class SeparatorTrimmed(Policy):
    """The configured separator trimmed like the other settings (``strip()``): a separator with
    spaces (`` . ``, ``" - "``) loses them; an all-blank one falls back to the default ``.``."""

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        if SEPARATOR in props:
            trimmed = props[SEPARATOR].strip() or "."
            self.isep = trimmed if self.isep == self.sep else self.isep
            self.sep = trimmed


class SplitFirstChar(Policy):
    """``topicSource`` splits on the separator's first character (a ``char`` separator in the
    port's tokenizer): with ``__`` a topic ``my_topic`` comes from ``my``."""

    def split(self, topic: str) -> list[str]:
        return java_split(topic, self.sep[:1])


class OriginalLastPiece(Policy):
    """``originalTopic`` as the last non-empty piece of the split (the name "without its
    prefixes"): a remote name's trailing separators, which are part of the original, are lost."""

    def original_topic(self, topic: str) -> str:
        if self.topic_source(topic) is None:
            return topic
        pieces = [p for p in topic.split(self.sep) if p]
        return pieces[-1] if pieces else topic


class InternalTestsOriginal(Policy):
    """``isInternalTopic``'s ``__`` / ``.`` prefix test applied to ``originalTopic`` ("a remote copy
    of an internal topic is internal too"): ``A.__consumer_offsets`` is internal."""

    def is_internal_topic(self, topic: str) -> bool:
        original = self.original_topic(topic)
        return super().is_internal_topic(topic) or original.startswith(("__", "."))


class CheckpointsJoinSkipsEmpty(Policy):
    """Internal names joined with a helper that drops empty pieces (``sep.join(filter(None,
    ...))``): the empty alias's checkpoints and offset-syncs topics lose a separator."""

    def checkpoints_topic(self, alias: str) -> str:
        return self.isep.join(p for p in (alias, "checkpoints", "internal") if p)

    def offset_syncs_topic(self, alias: str) -> str:
        return self.isep.join(p for p in ("mm2-offset-syncs", alias, "internal") if p)


Correct = subclass(globals(), "Correct", AnyTarget)
CORRECT = "Correct"
# bug name -> {slot of AnyTarget: class}: the slots the bug replaces.
BUGS: dict[str, dict[str, type[Policy]]] = {
    "identity-heartbeat-contains": {"identity": IdentityHeartbeatContains},
    "identity3x-uses-4x-rule": {"identity3x": Identity3xUses4xRule},
    "format-ascii-replace": {"default": FormatAsciiReplace},
    "format-empty-topic-bare-alias": {"default": FormatEmptyTopicBareAlias},
    "checkpoints-via-format-remote": {"default": CheckpointsViaFormatRemote,
                                      "identity": IdentityCheckpointsViaFormatRemote},
    "split-first-char": {"default": SplitFirstChar},
    "original-last-piece": {"default": OriginalLastPiece},
    "internal-tests-original": {"default": InternalTestsOriginal},
    "checkpoints-join-skips-empty": {"default": CheckpointsJoinSkipsEmpty},
}
# Written, then left out: a separator is trimmed only when it holds blanks, and a blank is not a
# legal topic-name character (Kafka's [a-zA-Z0-9._-]), so every remote name such a configuration
# makes is one no cluster can hold; outside the domain the driver draws. Not measured.
OUT_OF_DOMAIN: dict[str, dict[str, type[Policy]]] = {"separator-trimmed": {"default": SeparatorTrimmed}}
TARGETS = register(globals(), Correct, BUGS, slot_target)
