"""The example protocol: a lease register, declared once for kspec (CONTRIBUTING.md, "Adding a
protocol"). An entry point in the group ``kspec.protocols`` naming ``lease_protocol:DECLARATION``
registers it, as ``tests/conformance/test_example_protocol.py`` does."""

from kspec.conformance.protocols import ConformanceProtocol

DECLARATION = ConformanceProtocol(
    "lease", "lease_protocol.model", "a toy lease register",
    driver="lease_protocol.driver:LeaseDriver", configs="lease_protocol.driver:CONFIGS",
    reference="lease_protocol.targets:reference", mutant_target="lease_protocol.targets:mutant",
    mutants="lease_protocol.targets:mutants", transitions="lease_protocol.model:TRANSITIONS", initial_role="free")
