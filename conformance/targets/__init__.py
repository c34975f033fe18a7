"""Conformance targets: reference implementations and deliberately wrong mutants, as plain classes."""
