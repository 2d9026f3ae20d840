"""Pooling families. See BUILD.bazel: imported as `pool` with library/ as the import root."""
