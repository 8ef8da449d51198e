"""Benchmarks of the agent loop's own overhead; run with `make bench`."""
