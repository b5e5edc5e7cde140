"""Engines: two independent ones per semantics, each returning a typed result."""
