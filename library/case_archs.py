"""The archs every family's cases target, in case order: case_archs.json beside this file.

gfx942 and gfx950 (CDNA3/4), gfx1201 (RDNA4) and gfx1250. llvm20 does not
know gfx1250, so those cases are its expected rejections. A case's id names
its arch, so the list names golden entries: editing it moves goldens.
"""

import json
import os

from arch import arch as archs

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "case_archs.json")


def load(path):
    """The file's archs, as a tuple; ValueError naming the file unless each is a distinct arch of archs.json."""
    with open(path, encoding="utf-8") as f:
        listed = json.load(f)["archs"]
    unknown = [a for a in listed if a not in archs.ARCHS]
    if not listed or unknown or len(set(listed)) != len(listed):
        raise ValueError(
            f"{path}: archs: expected distinct archs of {', '.join(archs.ARCHS)}, got {listed!r}; fix the list"
        )
    return tuple(listed)


ARCHS = load(PATH)
