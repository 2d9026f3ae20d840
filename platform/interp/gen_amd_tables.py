"""Writes AMD's own matrix-core lane tables to platform/interp/testdata/.

    PYTHONPATH=platform:. python3 platform/interp/gen_amd_tables.py \\
        --calculator-git-dir DIR --python PY [--out platform/interp/testdata]

DIR is a clone (or bare mirror) of AMD's Matrix Instruction Calculator,
github.com/ROCm/amd_matrix_instruction_calculator; its HEAD is extracted to a
temporary folder and run as an external program with PY, an interpreter that
has the calculator's one dependency (`tabulate`) installed. None of the
calculator's code is in this repository: the tables are its output.

For every arch of platform/arch/archs.json the calculator knows (it rejects
gfx950 and gfx1250), grouped by the architecture it reports (cdna2, cdna3,
rdna3, rdna4), and for every matrix op of that arch's generation
(platform/arch/mma_forms.json) whose
instruction that architecture lists, the calculator's --matrix-layout --csv
of A, B, C and D becomes one table: lane l, element v of the LLVM vector
operand -> (row, column) of the matrix, as the calculator prints it
(A[i][k], B[k][j], C[i][j], D[i][j]). One file per architecture,
amd_layouts_<architecture>.json, states the command that made it and the
calculator's commit; layouts_test and tile's fragments_test check the
interpreter's and the tile's layouts against it.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from arch import arch as arch_table
from files.atomic import write_atomic

_REPO = "ROCm/amd_matrix_instruction_calculator"

# op id -> the instruction's spelling in each architecture that has it (cdna2
# writes 16x16x16f16 and ..bf16_1k, cdna3 16x16x16_f16 and .._bf16). K=32
# f16/bf16 are CDNA4 and gfx1250 instructions, which the calculator lacks today.
MNEMONICS = {
    "mma_16x16x16_f16_f32": ("v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_f16"),
    "mma_16x16x16_bf16_f32": ("v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16", "v_wmma_f32_16x16x16_bf16"),
    "mma_32x32x8_f16_f32": ("v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16"),
    "mma_32x32x8_bf16_f32": ("v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16"),
    "mma_16x16x32_f16_f32": ("v_mfma_f32_16x16x32_f16", "v_wmma_f32_16x16x32_f16"),
    "mma_16x16x32_bf16_f32": ("v_mfma_f32_16x16x32_bf16", "v_wmma_f32_16x16x32_bf16"),
    "mma_16x16x32_fp8_f32": ("v_mfma_f32_16x16x32_fp8_fp8",),
}

MATRICES = ("A", "B", "C", "D")
_COLUMN = re.compile(r"v(\d+)(?:\.\[(\d+):(\d+)\])?$")
_ENTRY = re.compile(r"([ABCD])\[(\d+)\]\[(\d+)\]$")


class CalculatorError(RuntimeError):
    """The calculator failed or printed something this script cannot read."""


class Calculator:
    def __init__(self, python, script):
        self.python, self.script = python, script

    def run(self, *args, check=True):
        proc = subprocess.run([self.python, self.script, *args], capture_output=True, text=True)
        if check and proc.returncode:
            raise CalculatorError(
                f"matrix_calculator.py {' '.join(args)} failed (exit {proc.returncode}): {proc.stdout}{proc.stderr}"
            )
        return proc

    def architecture(self, arch):
        """(architecture name, instructions) for an arch the calculator knows, else None."""
        proc = self.run("--architecture", arch, "--list-instructions", check=False)
        if proc.returncode:
            return None
        head, *rest = proc.stdout.splitlines()
        match = re.match(r"Available instructions in the (\S+) architecture:$", head)
        if not match:
            raise CalculatorError(f"--list-instructions for {arch}: expected a heading, got {head!r}")
        return match.group(1).lower(), {line.strip() for line in rest if line.strip()}


def query(architecture, instruction, wave, matrix):
    return [
        "--architecture",
        architecture,
        "--instruction",
        instruction,
        "--wavefront",
        str(wave),
        f"--{matrix}-matrix",
        "--matrix-layout",
        "--csv",
    ]


def element_index(column):
    """Element v of the LLVM vector for a CSV column: 'v1' (32-bit), 'v1.[31:16]', 'v0.[15:8]'."""
    match = _COLUMN.match(column)
    if not match:
        raise CalculatorError(f"expected a register column such as v0 or v0.[15:0], got {column!r}")
    reg, hi, lo = match.groups()
    if hi is None:
        return int(reg)
    width = int(hi) - int(lo) + 1
    return int(reg) * (32 // width) + int(lo) // width


def parse_layout(text, matrix):
    """Lanes (a list, lane order) of [row, col] pairs in element order, from --matrix-layout --csv."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith("lane,")), None)
    if start is None:
        raise CalculatorError(f"expected a CSV table starting with 'lane,', got {text[:200]!r}")
    columns = [element_index(c) for c in lines[start].split(",")[1:]]
    if sorted(columns) != list(range(len(columns))):
        raise CalculatorError(f"expected register columns covering elements 0..{len(columns) - 1}, got {columns}")
    lanes = []
    for line in lines[start + 1 :]:
        lane, *cells = line.split(",")
        if int(lane) != len(lanes) or len(cells) != len(columns):
            raise CalculatorError(f"expected lane {len(lanes)} with {len(columns)} entries, got {line!r}")
        row = [None] * len(columns)
        for v, cell in zip(columns, cells):
            match = _ENTRY.match(cell)
            if not match or match.group(1) != matrix:
                raise CalculatorError(f"expected an entry {matrix}[r][c], got {cell!r} in lane {lane}")
            row[v] = [int(match.group(2)), int(match.group(3))]
        lanes.append(row)
    return lanes


def tables(calc, archs):
    """architecture -> its file's content (without the provenance)."""
    by_architecture = {}
    for arch in sorted(archs):
        known = calc.architecture(arch)
        if known:
            name, instructions = known
            entry = by_architecture.setdefault(name, {"archs": [], "instructions": instructions})
            entry["archs"].append(arch)
    out = {}
    for name, entry in sorted(by_architecture.items()):
        generations = {archs[a].generation for a in entry["archs"]}
        if len(generations) != 1:
            raise CalculatorError(
                f"{name}: expected the archs {entry['archs']} to share one generation, got {sorted(generations)}"
            )
        generation = generations.pop()
        waves = {m.op: m.wave for info in archs.values() if info.generation == generation for m in info.matrix}
        ops, missing = {}, []
        for op in sorted(waves):
            if op not in MNEMONICS:
                raise CalculatorError(f"{op}: expected an entry in MNEMONICS (gen_amd_tables.py), got none")
            listed = [m for m in MNEMONICS[op] if m in entry["instructions"]]
            if len(listed) > 1:
                raise CalculatorError(f"{op}: expected one instruction in {name}, got {listed}")
            if not listed:
                missing.append(op)
                continue
            args = {m: query(name, listed[0], waves[op], m) for m in MATRICES}
            ops[op] = {
                "instruction": listed[0],
                "wave": waves[op],
                "queries": {m: "matrix_calculator.py " + " ".join(a) for m, a in args.items()},
            }
            for m in MATRICES:
                ops[op][m] = parse_layout(calc.run(*args[m]).stdout, m)
        out[name] = {
            "architecture": name,
            "archs": entry["archs"],
            "generation": generation,
            "not_in_calculator": missing,
            "ops": ops,
        }
    return out


def dump(value, indent=0):
    """Deterministic JSON: sorted keys, one lane per line."""
    pad = " " * indent
    if isinstance(value, dict):
        items = [f"{pad}  {json.dumps(k)}: {dump(value[k], indent + 2)}" for k in sorted(value)]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and isinstance(value[0], list):
        rows = [f"{pad}  {json.dumps(row, separators=(',', ':'))}" for row in value]
        return "[\n" + ",\n".join(rows) + f"\n{pad}]"
    return json.dumps(value)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calculator-git-dir", required=True, help="a clone or mirror of " + _REPO)
    p.add_argument("--python", required=True, help="an interpreter with tabulate installed")
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata"))
    args = p.parse_args(argv)
    git = ["git", "--git-dir", args.calculator_git_dir]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run([*git, "archive", "HEAD"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        calc = Calculator(args.python, os.path.join(tmp, "matrix_calculator.py"))
        version = calc.run("--version").stdout.strip()
        files = tables(calc, arch_table.ARCHS)
    # The same words on every machine: DIR and PY are the two inputs, the
    # calculator's commit (recorded beside it) is what pins the output.
    command = "PYTHONPATH=platform:. python3 platform/interp/gen_amd_tables.py --calculator-git-dir DIR --python PY"
    os.makedirs(args.out, exist_ok=True)
    for name, content in files.items():
        content["generated_by"] = {
            "command": command,
            "calculator": {"repository": _REPO, "commit": commit, "version": version},
        }
        path = os.path.join(args.out, f"amd_layouts_{name}.json")
        write_atomic(path, (dump(content) + "\n").encode())
        print(f"wrote {path}: {len(content['ops'])} ops for {', '.join(content['archs'])}")


if __name__ == "__main__":
    main(sys.argv[1:])
