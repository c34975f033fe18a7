"""Red-team targets: plain ``python:`` implementations of each protocol with realistic bugs
planted, written from the user-facing material only (README, docs/, spec/*.md, examples/), as
the people outside the project who measured kspec wrote theirs. One module per protocol; each
module's ``BUGS`` maps a bug's name to its target class (``python:redteam.PROTO:Class`` with
``bench/`` on ``PYTHONPATH``) and ``CORRECT`` names the bug-free target, which must conform.
``bench/redteam_power.py`` runs every bug at the default budget over seeds.

raft, voters and share subclass the project's independent reference replicas
(``conformance/targets/reference``: plain dicts, no model code) and re-implement one method
with the bug; mm2 and streams are written from scratch (``redteam.mm2`` reuses the example
policy of ``examples/python-mm2-target``, itself written from the adapter spec alone).
``raft_scratch`` (session 7) is a whole KRaft replica written from scratch (spec/raft.md and the
adapter docs; no reference or model code), its bugs switched on by subclasses;
``bench/redteam_power.py`` runs it beside ``raft`` (``--modules raft_scratch``).
Session 8 did the same for the other protocols: ``share_scratch`` (a whole shard) and
``voters_scratch`` (the log-level control-record state machine) from scratch, and
``mm2_scratch`` / ``streams_scratch``, new bug sets over session 5's from-scratch baselines.
"""
