"""Benchmarks printed by ``make bench``: figures, never pass/fail."""
