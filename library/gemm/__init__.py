"""GEMM families. See BUILD.bazel: imported as `gemm` with library/ as the import root."""
