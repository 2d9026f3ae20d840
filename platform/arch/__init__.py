"""See BUILD.bazel: imported as `arch` with platform/ as the import root."""
