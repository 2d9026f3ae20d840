"""Normalisation families. See BUILD.bazel: imported as `norm` with library/ as the import root."""
