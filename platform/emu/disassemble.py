"""The `llvm-objdump -d` text of many code objects from one run of the
flavor's llvm-objdump (Toolchain.objdump): its start-up costs three times a
kernel's disassembly, and a machine gate decodes a hundred kernels.

    texts = all_of([code_object, ...], "gfx942", toolchain)   # one text each, in order
"""

import os
import subprocess
import tempfile

from emu.errors import LoadError


def all_of(code_objects, cpu, toolchain):
    """The text Toolchain.disassemble gives of each linked code object for `cpu`, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, f"k{n}.hsaco") for n in range(len(code_objects))]
        for path, data in zip(paths, code_objects):
            with open(path, "wb") as f:
                f.write(data)
        proc = subprocess.run([toolchain.objdump, "-d", f"--mcpu={cpu}", *paths], capture_output=True, timeout=600)
    if proc.returncode != 0:
        raise LoadError(
            f"llvm-objdump --mcpu={cpu} failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace').strip()}"
        )
    text = proc.stdout.decode()
    # Each file's text starts at the line naming it.
    starts = [text.index(f"\n{path}:\tfile format ") for path in paths] + [len(text)]
    return [text[a:b] for a, b in zip(starts, starts[1:])]
