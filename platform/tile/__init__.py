"""See BUILD.bazel: imported as `tile` with platform/ as the import root."""
