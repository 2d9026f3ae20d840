"""Attention families. See BUILD.bazel: imported as `attention` with library/ as the import root."""
