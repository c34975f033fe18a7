"""Reference targets: independent, conforming implementations of each protocol."""
