"""The one error every LLVM flavor raises (re-exported by llvm.py)."""


class LlvmError(Exception):
    """The real LLVM rejected its input. The message carries LLVM's own words."""
