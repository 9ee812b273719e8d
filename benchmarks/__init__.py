"""The benchmarks, run from a checkout: `python -m benchmarks.bench` (BENCHMARKS.md). Not part of
the installed package."""
