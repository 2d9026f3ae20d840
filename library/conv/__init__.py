"""Convolution families. See BUILD.bazel: imported as `conv` with library/ as the import root."""
