"""See BUILD.bazel: imported as `helpers` with platform/ as the import root."""
