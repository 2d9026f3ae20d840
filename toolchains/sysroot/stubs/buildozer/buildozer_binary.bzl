"""Offline stand-in for buildozer's module extension: Bazel's MODULE.tools asks
for it, nothing in this build calls buildozer."""

buildozer_binary = module_extension(implementation = lambda ctx: None)
