"""See BUILD.bazel: imported as `lower` with platform/ as the import root."""
