"""See BUILD.bazel: imported as `family` with platform/ as the import root."""
