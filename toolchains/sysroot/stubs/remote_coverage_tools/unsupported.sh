#!/bin/sh
echo "rocke: bazel coverage is not supported: Bazel's coverage tools live on mirror.bazel.build, which this network cannot reach." >&2
exit 1
