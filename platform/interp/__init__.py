"""See BUILD.bazel: imported as `interp` with platform/ as the import root."""
