"""Adapters: how the conformance harness talks to a target implementation."""
