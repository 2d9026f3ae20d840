"""The one table of semantics: normalised mnemonic -> binder.

A binder takes a decoded Instruction and the program's Context and returns
the instruction's step: a function of the wave that executes it and returns
None (go on), the index of the next instruction (a branch taken), or BLOCK
(the wave cannot go on yet: a barrier; the step runs again when it may).
Binders are written per instruction shape (a VALU op of two sources, a
compare, a buffer load ...) and each mnemonic's entry gives its shape the
operation: no chain of branches on mnemonics anywhere.

The encoding suffixes _e32, _e64, _sdwa and _dpp name one operation; they are
dropped here and the binder reads their modifiers (sdwa selects) itself.
"""

import functools
import re

TABLE: dict = {}
BLOCK = -1
END = -2

_SUFFIX = re.compile(r"_(e32|e64|sdwa|dpp|e64_dpp)$")


def normalize(mnemonic):
    return _SUFFIX.sub("", mnemonic)


def register(entries):
    """Add {mnemonic: binder}; a mnemonic may be registered once."""
    for name, binder in entries.items():
        if name in TABLE:
            raise ValueError(f"semantics for {name} registered twice")
        TABLE[name] = binder


def implemented(mnemonic):
    return normalize(mnemonic) in TABLE


# Instruction class of a mnemonic, for the figures: first matching prefix.
CLASSES = (
    ("v_mfma", "matrix"),
    ("v_wmma", "matrix"),
    ("v_smfmac", "matrix"),
    ("ds_", "lds"),
    ("buffer_", "vmem"),
    ("global_", "vmem"),
    ("flat_", "vmem"),
    ("scratch_", "vmem"),
    ("s_load", "smem"),
    ("s_buffer_load", "smem"),
    ("s_store", "smem"),
    ("s_waitcnt", "wait"),
    ("s_wait_", "wait"),
    ("s_barrier", "barrier"),
    ("s_cbranch", "branch"),
    ("s_branch", "branch"),
    ("s_", "salu"),
    ("v_", "valu"),
)


@functools.cache  # a handful of mnemonics, asked once per instruction of every kernel
def instruction_class(mnemonic):
    for prefix, name in CLASSES:
        if mnemonic.startswith(prefix):
            return name
    return "other"
