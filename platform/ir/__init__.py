"""See BUILD.bazel: imported as `ir` with platform/ as the import root."""
