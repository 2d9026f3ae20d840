"""Kernel verification: attributes, scoping, every op's rule, matrix fragments.

verify(kernel) raises VerifyError (only VerifyError) with a message of the
form "WHERE: expected X, got Y".
"""

from arch import arch as archs
from ir import mma
from ir import types as T
from ir.core import Kernel, VerifyError
from ir.ops import OPS

MAX_WORKGROUP = 1024
# Kernel attribute -> (check, what it must be). Required ones come first.
KERNEL_ATTRS = {
    "arch": (lambda v: isinstance(v, str) and v in archs.ARCHS, f"a known arch ({', '.join(sorted(archs.ARCHS))})"),
    "wave_size": (lambda v: v in (32, 64), "32 or 64"),
    "workgroup_size": (
        lambda v: isinstance(v, list) and len(v) == 3 and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in v) and v[0] * v[1] * v[2] <= MAX_WORKGROUP,
        f"[x, y, z] of positive ints with x*y*z <= {MAX_WORKGROUP}",
    ),
    "waves_per_eu": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 10, "an int in 1..10"),
}
REQUIRED = ("arch", "wave_size", "workgroup_size")


def fail(where, what, got):
    raise VerifyError(f"{where}: expected {what}, got {got}")


def verify(kernel):
    if not isinstance(kernel, Kernel):
        fail("kernel", "a Kernel", type(kernel).__name__)
    where = f"kernel @{kernel.name}"
    for key in REQUIRED:
        if key not in kernel.attrs:
            fail(where, f"attribute {key}", f"attributes {sorted(kernel.attrs)}")
    for key, value in kernel.attrs.items():
        if key not in KERNEL_ATTRS:
            fail(where, f"an attribute among {', '.join(KERNEL_ATTRS)}", key)
        check, what = KERNEL_ATTRS[key]
        if not check(value):
            fail(where, f"{key} to be {what}", repr(value))
    arch = archs.get(kernel.attrs["arch"])
    if kernel.attrs["wave_size"] not in arch.wave_sizes:
        fail(where, f"a wave size of {arch.name} ({', '.join(map(str, arch.wave_sizes))})", kernel.attrs["wave_size"])
    for a in kernel.args:
        if not isinstance(a.type, (T.ScalarType, T.PtrType)) or getattr(a.type, "space", None) in ("lds", "buffer"):
            fail(where, "arguments of scalar or global/constant/private pointer type", f"%{a.name}: {a.type}")
    names = [a.name for a in kernel.args]
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        fail(where, "distinct identifier argument names", names)
    _block(kernel.body, set(kernel.args), arch, in_region=False)


def _block(block, scope, arch, in_region):
    scope = scope | set(block.args)
    for i, op in enumerate(block.ops):
        rule = OPS.get(op.name)
        if rule is None:
            fail("op", "a known op", repr(op.name))
        for n, v in enumerate(op.operands):
            if v not in scope:
                fail(op.name, f"operand {n} defined before use in an enclosing block", repr(v))
        if op.name == "scf.yield" and not (in_region and i == len(block.ops) - 1):
            fail(op.name, "scf.yield only as the last op of a for or if region", f"position {i} of {len(block.ops)}")
        rule(op)
        if op.name == "matrix.mma":
            _fragments(op, arch)
        for region in op.regions:
            _block(region, scope, arch, in_region=True)
        scope = scope | set(op.results)


def _fragments(op, arch):
    op_id = op.attrs["op"]
    if op_id not in [m.op for m in arch.matrix]:
        fail(op.name, f"an op id {arch.name} has ({', '.join(m.op for m in arch.matrix)})", op_id)
    want = mma.fragment_types(op_id, arch.family)
    got = tuple(v.type for v in op.operands)
    if got != want:
        fail(op.name, f"{op_id} fragments on {arch.name} ({', '.join(map(str, want))})", ", ".join(map(str, got)))
