"""Kernel verification: attributes, scoping, every op's rule, matrix fragments,
and the arch's limits (platform/arch/archs.json: workgroup size, waves per
EU, LDS, the wave size each matrix op needs).

verify(kernel) raises VerifyError (only VerifyError) with a message of the
form "WHERE: expected X, got Y".
"""

import re

from arch import arch as archs
from ir import mma
from ir import types as T
from ir.core import MAX_NESTING, SHOWN, Kernel, VerifyError, attr_fact, walk
from ir.ops import OPS, is_int

# Kernel and argument names reach LLVM IR and the text form: ASCII identifiers only.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _workgroup_ok(v, arch):
    return (
        isinstance(v, list)
        and len(v) == 3
        and all(is_int(d) and d >= 1 for d in v)
        and v[0] * v[1] * v[2] <= arch.max_workgroup_size
    )


# Kernel attribute -> (check(value, arch), what it must be on arch). The arch
# is checked first: every other limit is its data.
KERNEL_ATTRS = {
    "wave_size": (
        lambda v, a: is_int(v) and v in a.wave_sizes,
        lambda a: f"a wave size of {a.name} ({', '.join(map(str, a.wave_sizes))})",
    ),
    "workgroup_size": (
        _workgroup_ok,
        lambda a: f"workgroup_size to be [x, y, z] of positive ints with x*y*z <= {a.max_workgroup_size} on {a.name}",
    ),
    "waves_per_eu": (
        lambda v, a: is_int(v) and a.waves_per_eu[0] <= v <= a.waves_per_eu[1],
        lambda a: f"waves_per_eu to be an int in {a.waves_per_eu[0]}..{a.waves_per_eu[1]} on {a.name}",
    ),
}
REQUIRED = ("arch", "wave_size", "workgroup_size")


def fail(where, what, got, value=SHOWN):
    raise VerifyError.expected(where, what, got, value)


def verify(kernel):
    if not isinstance(kernel, Kernel):
        fail("kernel", "a Kernel", type(kernel).__name__)
    if not isinstance(kernel.name, str) or not NAME.fullmatch(kernel.name):
        fail("kernel", "a name of ASCII letters, digits and _ (not first a digit)", repr(kernel.name), kernel.name)
    where = f"kernel @{kernel.name}"
    for key in REQUIRED:
        if key not in kernel.attrs:
            fail(where, f"attribute {key}", f"attributes {sorted(kernel.attrs)}", sorted(kernel.attrs))
    if not isinstance(kernel.attrs["arch"], str) or kernel.attrs["arch"] not in archs.ARCHS:
        fail(
            where,
            f"arch to be a known arch ({', '.join(sorted(archs.ARCHS))})",
            repr(kernel.attrs["arch"]),
            attr_fact(kernel.attrs["arch"]),
        )
    arch = archs.get(kernel.attrs["arch"])
    for key, value in kernel.attrs.items():
        if key == "arch":
            continue
        if key not in KERNEL_ATTRS:
            fail(where, f"an attribute among arch, {', '.join(KERNEL_ATTRS)}", key)
        check, what = KERNEL_ATTRS[key]
        if not check(value, arch):
            fail(where, what(arch), repr(value), attr_fact(value))
    _arguments(where, kernel.args)
    _block(kernel.body, set(kernel.args), arch, kernel.attrs["wave_size"], depth=1)
    _lds_total(where, kernel, arch)


def _arguments(where, args):
    for a in args:
        if not isinstance(a.type, (T.ScalarType, T.PtrType)) or getattr(a.type, "space", None) in ("lds", "buffer"):
            fail(where, "arguments of scalar or global/constant/private pointer type", f"%{a.name}: {a.type}")
        if T.is_fp8(a.type):
            fail(
                where,
                "no fp8 argument (fp8 is storage-only)",
                f"%{a.name}: {a.type}; pass it as i8 and arith.bitcast it, or as f32 and arith.convert it",
            )
    names = [a.name for a in args]
    if len(set(names)) != len(names) or not all(isinstance(n, str) and NAME.fullmatch(n) for n in names):
        fail(where, "distinct argument names of ASCII letters, digits and _ (not first a digit)", names)


def _block(block, scope, arch, wave_size, depth):
    if depth > MAX_NESTING:
        fail("region", f"regions nested at most {MAX_NESTING} deep", f"a region at depth {depth}")
    in_region = depth > 1
    scope = scope | set(block.args)  # a copy: what this block defines stays in it
    for i, op in enumerate(block.ops):
        rule = OPS.get(op.name)
        if rule is None:
            fail("op", "a known op", repr(op.name), op.name)
        for n, v in enumerate(op.operands):
            if v not in scope:
                fail(op.name, f"operand {n} defined before use in an enclosing block", repr(v))
        if op.name == "scf.yield" and not (in_region and i == len(block.ops) - 1):
            fail(op.name, "scf.yield only as the last op of a for or if region", f"position {i} of {len(block.ops)}")
        # LDS is allocated once per workgroup, not each time a region runs.
        if op.name == "mem.lds_alloc" and in_region:
            fail(
                op.name,
                "mem.lds_alloc only in the kernel's top-level block (LDS is static)",
                "one inside a for/if region; move it before the loop or if",
            )
        rule(op)
        if op.name == "matrix.mma":
            _fragments(op, arch, wave_size)
        for region in op.regions:
            _block(region, scope, arch, wave_size, depth + 1)
        scope.update(op.results)


def _fragments(op, arch, wave_size):
    op_id = op.attrs["op"]
    forms = {m.op: m for m in arch.matrix}
    if op_id not in forms:
        fail(op.name, f"an op id {arch.name} has ({', '.join(forms)})", op_id)
    if wave_size != forms[op_id].wave:
        fail(
            op.name,
            f"a wave{forms[op_id].wave} kernel for {op_id} on {arch.name}",
            f"wave_size {wave_size}; build the kernel with wave_size={forms[op_id].wave}",
        )
    want = mma.fragment_types(op_id, arch.generation)
    got = tuple(v.type for v in op.operands)
    if got != want:
        fail(op.name, f"{op_id} fragments on {arch.name} ({', '.join(map(str, want))})", ", ".join(map(str, got)))


def _lds_total(where, kernel, arch):
    # Each allocation padded to its alignment (LLVM's own layout can differ
    # by a few bytes of padding; exact when sizes are multiples of alignment).
    allocs = [op.attrs for op in walk(kernel.body) if op.name == "mem.lds_alloc"]
    total = sum(-(-a["bytes"] // a["align"]) * a["align"] for a in allocs)
    if total > arch.lds_bytes:
        fail(
            where,
            f"at most {arch.lds_bytes} bytes of LDS on {arch.name}",
            f"{total} bytes in {len(allocs)} mem.lds_alloc; use smaller tiles or an arch with more LDS",
        )
