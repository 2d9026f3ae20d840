"""The op registry: every op's name and the rule its instances must satisfy.

The counts, attributes and fp8 permission of every op are data: ops.json
(OPS.md), read here and checked by op_schema before the op's own rule. The
rules below keep what a schema cannot state: how types relate. Each raises
VerifyError("OP: expected X, got Y") through `expect`. The lowering, the
interpreter and the fuzz generator are tables keyed by the same names, and a
test checks that all of them cover exactly the ops of ops.json.
"""

import os

from ir import mma
from ir import op_schema
from ir import types as T
from ir.core import SHOWN, VerifyError, attr_fact

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops.json")
_DATA = op_schema.load(PATH)
TABLES = _DATA["tables"]

# Byte sizes a single memory access may move (global/LDS/buffer, 1 to 16 bytes).
ACCESS_BYTES = tuple(TABLES["access_bytes"])
CMP_PREDICATES = tuple(TABLES["cmp_predicates"])

# fp8 is a storage type: LLVM has no fp8 arithmetic (its values are i8
# codes), so only the ops ops.json marks fp8 may take or make one.
FP8_OPS = frozenset(name for name, entry in _DATA["ops"].items() if entry["fp8"])

_RULES: dict = {}


def register(*names):
    """Registers `rule` as the type rule of `names`, ops of ops.json."""

    def wrap(rule):
        for name in names:
            if name not in _DATA["ops"]:
                raise ValueError(
                    f"{PATH}: expected an entry for {name}, got a rule for it in ops.py and no entry; add it to ops.json"
                )
            _RULES[name] = rule
        return rule

    return wrap


def _checked(name):
    entry = _DATA["ops"][name]
    keys = frozenset(entry["attrs"])
    schema = op_schema.checker(entry, TABLES)

    def checked(op):
        expect(isinstance(op.attrs, dict), op, "attributes in a dict", type(op.attrs).__name__)
        if not keys.issuperset(op.attrs):
            extra = sorted(map(str, set(op.attrs) - keys))
            expect(False, op, f"attributes among ({', '.join(sorted(keys))})", ", ".join(extra))
        if not entry["fp8"]:
            _no_fp8(op)
        schema(op)
        rule = _RULES.get(name)
        if rule is not None:
            rule(op)

    return checked


def _no_fp8(op):
    for role, values in (("operand", op.operands), ("result", op.results)):
        for v in values:
            if T.is_fp8(v.type):
                raise VerifyError.expected(
                    op.name,
                    f"no fp8 {role} (fp8 is storage-only: {', '.join(sorted(FP8_OPS))} take it)",
                    f"{role} of type {v.type}; arith.convert it to f16 or f32 first, and back to fp8 to store",
                )


def expect(ok, op, what, got, value=SHOWN):
    if not ok:
        raise VerifyError.expected(op.name, what, got, value)


def attr(op, key, check, what):
    """A value rule beyond the schema's (it has checked presence and kind)."""
    expect(check(op.attrs[key]), op, f"{key} to be {what}", repr(op.attrs[key]), attr_fact(op.attrs[key]))
    return op.attrs[key]


def same_types(op, values, what="operands of one type"):
    if values and all(v.type is values[0].type for v in values):  # types are interned
        return
    kinds = [str(v.type) for v in values]
    expect(len(set(kinds)) == 1, op, what, ", ".join(kinds))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# -- arithmetic ---------------------------------------------------------------


@register("arith.const")
def _const(op):
    t = op.result.type
    expect(isinstance(t, T.ScalarType), op, "a scalar result", t)
    value = op.attrs["value"]
    if t.is_int:
        expect(is_int(value), op, f"an integer value for {t}", repr(value), attr_fact(value))
        lo, hi = T.int_range(t)  # one spelling per constant
        wraps = f"; as {t} it is spelled {value - (1 << t.bits)}" if t is not T.I1 and hi < value < 1 << t.bits else ""
        expect(lo <= value <= hi, op, f"a value in [{lo}, {hi}] for {t}", f"{value}{wraps}")
    else:
        expect(isinstance(value, float), op, f"a float value for {t}", repr(value), attr_fact(value))


@register("arith.add", "arith.sub", "arith.mul", "arith.div", "arith.rem", "arith.min")
def _binary(op):
    same_types(op, [*op.operands, op.result], "operands and result of one type")
    expect(
        T.is_numeric(op.result.type) and T.element(op.result.type) is not T.I1,
        op,
        "int or float operands",
        op.result.type,
    )


@register("arith.max")
def _max(op):
    _binary(op)
    if "nnan" in op.attrs:  # a promise about floats: an int has no NaN
        expect(op.result.type.is_float, op, "nnan on float operands only", op.result.type)


@register("arith.and", "arith.or", "arith.xor", "arith.shl", "arith.shr", "arith.udiv", "arith.urem")
def _bitwise(op):
    same_types(op, [*op.operands, op.result], "operands and result of one type")
    expect(op.result.type.is_int, op, "integer operands", op.result.type)


@register("arith.neg")
def _neg(op):
    same_types(op, [*op.operands, op.result], "operand and result of one type")
    expect(T.is_numeric(op.result.type), op, "a numeric operand", op.result.type)


@register("arith.cmp")
def _cmp(op):
    same_types(op, op.operands)
    a = op.operands[0].type
    expect(T.is_numeric(a), op, "numeric operands", a)
    want = T.with_element(a, T.I1)
    expect(op.result.type is want, op, f"result {want}", op.result.type)


@register("arith.select")
def _select(op):
    cond, a, b = op.operands
    expect(cond.type is T.I1, op, "an i1 condition", cond.type)
    same_types(op, [a, b, op.result], "both choices and the result of one type")


@register("arith.convert")
def _convert(op):
    src, dst = op.operands[0].type, op.result.type
    expect(T.is_numeric(src) and T.is_numeric(dst), op, "numeric types", f"{src} -> {dst}")
    expect(T.lanes(src) == T.lanes(dst), op, f"the same lane count as {src}", dst)


@register("arith.bitcast")
def _bitcast(op):
    src, dst = op.operands[0].type, op.result.type
    expect(T.is_numeric(src) and T.is_numeric(dst), op, "numeric types", f"{src} -> {dst}")
    # i1 has no byte size in LLVM: bitcast it neither from nor to i1.
    expect(
        T.element(src) is not T.I1 and T.element(dst) is not T.I1,
        op,
        "no i1 operand or result (use arith.convert)",
        f"{src} -> {dst}",
    )
    expect(src.nbytes == dst.nbytes, op, f"a type of {src.nbytes} bytes", dst)


# -- math -----------------------------------------------------------------------


@register("math.exp", "math.exp2", "math.log", "math.sqrt", "math.rsqrt")
def _unary_float(op):
    same_types(op, [*op.operands, op.result], "operand and result of one type")
    expect(op.result.type in (T.F32, T.F16), op, "f32 or f16", op.result.type)


@register("math.fma")
def _fma(op):
    same_types(op, [*op.operands, op.result], "operands and result of one type")
    expect(T.element(op.result.type) in (T.F32, T.F16), op, "f32 or f16 (or vectors of them)", op.result.type)


# -- vectors --------------------------------------------------------------------


@register("vector.build")
def _build(op):
    t = op.result.type
    expect(isinstance(t, T.VectorType), op, "a vector result", t)
    expect(len(op.operands) == t.n, op, f"{t.n} elements", len(op.operands))
    expect(all(v.type is t.elem for v in op.operands), op, f"{t.elem} elements", [str(v.type) for v in op.operands])


@register("vector.extract")
def _extract(op):
    v = op.operands[0].type
    expect(isinstance(v, T.VectorType), op, "a vector operand", v)
    attr(op, "index", lambda i: 0 <= i < v.n, f"an index in [0, {v.n})")
    expect(op.result.type is v.elem, op, f"result {v.elem}", op.result.type)


@register("vector.insert")
def _insert(op):
    v, x = op.operands[0].type, op.operands[1].type
    expect(isinstance(v, T.VectorType), op, "a vector operand", v)
    attr(op, "index", lambda i: 0 <= i < v.n, f"an index in [0, {v.n})")
    expect(x is v.elem and op.result.type is v, op, f"a {v.elem} element and result {v}", f"{x}, {op.result.type}")


@register("vector.shuffle")
def _shuffle(op):
    same_types(op, op.operands)
    v = op.operands[0].type
    expect(isinstance(v, T.VectorType), op, "vector operands", v)
    mask = attr(
        op,
        "mask",
        lambda m: 2 <= len(m) <= T.MAX_LANES and all(0 <= i < 2 * v.n for i in m),
        f"a list of 2 to {T.MAX_LANES} indices in [0, {2 * v.n})",
    )
    want = T.vector(v.elem, len(mask))
    expect(op.result.type is want, op, f"result {want}", op.result.type)


# -- GPU ids, lanes, barriers ---------------------------------------------------


@register("gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim", "gpu.lane_id")
def _id(op):
    expect(op.result.type is T.I32, op, "an i32 result", op.result.type)


@register("lane.readfirstlane")
def _readfirstlane(op):
    same_types(op, [*op.operands, op.result], "operand and result of one type")
    expect(op.result.type in (T.I32, T.F32), op, "i32 or f32", op.result.type)


@register("lane.bpermute")
def _bpermute(op):
    addr, v = op.operands
    expect(addr.type is T.I32, op, "an i32 byte address", addr.type)
    expect(
        v.type in (T.I32, T.F32) and op.result.type is v.type,
        op,
        "an i32 or f32 value and result",
        f"{v.type}, {op.result.type}",
    )


# -- memory ---------------------------------------------------------------------


def access(op, t, spaces, p):
    expect(isinstance(p, T.PtrType) and p.space in spaces, op, f"a pointer to {' or '.join(spaces)}", p)
    expect(T.is_numeric(t) and T.element(t) is not T.I1, op, "a numeric, non-i1 access type", t)
    expect(
        t.nbytes in ACCESS_BYTES,
        op,
        f"an access of {', '.join(map(str, ACCESS_BYTES))} bytes",
        f"{t} ({t.nbytes} bytes)",
    )


@register("mem.lds_alloc")
def _lds_alloc(op):
    expect(op.result.type is T.LDS, op, "a ptr<lds> result", op.result.type)


@register("mem.offset")
def _offset(op):
    p, off = op.operands
    expect(isinstance(p.type, T.PtrType) and p.type.space != "buffer", op, "a non-buffer pointer", p.type)
    expect(off.type in (T.I32, T.I64), op, "an i32 or i64 byte offset", off.type)
    expect(op.result.type is p.type, op, f"result {p.type}", op.result.type)


@register("mem.load")
def _load(op):
    access(op, op.result.type, TABLES["load_spaces"], op.operands[0].type)


@register("mem.store")
def _store(op):
    access(op, op.operands[1].type, TABLES["store_spaces"], op.operands[0].type)


# mem.load_transpose's results: 4 16-bit elements (ds_read_b64_tr_b16).
TRANSPOSE_TYPES = tuple(T.vector(e, 4) for e in (T.F16, T.BF16, T.I16))


@register("mem.load_transpose")
def _load_transpose(op):
    p = op.operands[0].type
    expect(p is T.LDS, op, "a ptr<lds> operand", p)
    expect(
        op.result.type in TRANSPOSE_TYPES,
        op,
        f"a result of type {', '.join(map(str, TRANSPOSE_TYPES))}",
        op.result.type,
    )


@register("mem.load_to_lds")
def _load_to_lds(op):
    src, dst = op.operands
    expect(src.type is T.GLOBAL, op, "a ptr<global> source", src.type)
    expect(dst.type is T.LDS, op, "a ptr<lds> destination", dst.type)


@register("mem.atomic_add")
def _atomic_add(op):
    p, v = op.operands
    expect(
        isinstance(p.type, T.PtrType) and p.type.space in TABLES["atomic_spaces"],
        op,
        f"a pointer to {' or '.join(TABLES['atomic_spaces'])}",
        p.type,
    )
    expect(
        v.type in (T.F32, T.I32) and op.result.type is v.type,
        op,
        "an f32 or i32 value and result",
        f"{v.type}, {op.result.type}",
    )


@register("buffer.rsrc")
def _rsrc(op):
    base, size = op.operands
    expect(base.type is T.GLOBAL, op, "a ptr<global> base", base.type)
    expect(size.type is T.I32, op, "an i32 byte count", size.type)
    expect(op.result.type is T.BUFFER, op, "a ptr<buffer> result", op.result.type)


@register("buffer.load")
def _buffer_load(op):
    expect(op.operands[1].type is T.I32, op, "an i32 byte offset", op.operands[1].type)
    access(op, op.result.type, ("buffer",), op.operands[0].type)


@register("buffer.load_to_lds")
def _buffer_load_to_lds(op):
    rsrc, voffset, soffset, dst = op.operands
    expect(rsrc.type is T.BUFFER, op, "a ptr<buffer> source", rsrc.type)
    expect(
        voffset.type is T.I32 and soffset.type is T.I32,
        op,
        "i32 lane and wave byte offsets",
        f"{voffset.type}, {soffset.type}",
    )
    expect(dst.type is T.LDS, op, "a ptr<lds> destination", dst.type)


@register("buffer.store")
def _buffer_store(op):
    expect(op.operands[1].type is T.I32, op, "an i32 byte offset", op.operands[1].type)
    access(op, op.operands[2].type, ("buffer",), op.operands[0].type)


# -- matrix cores ---------------------------------------------------------------


@register("matrix.mma")
def _mma(op):
    # Fragment lengths depend on the kernel's arch; verifier.py checks them.
    a, b, c = (v.type for v in op.operands)
    # The op ids are those of platform/arch/mma_forms.json, read by ir/mma.py.
    s = mma.shape(op.attrs["op"])
    expect(s is not None, op, "an op id like mma_16x16x16_f16_f32", repr(op.attrs["op"]), attr_fact(op.attrs["op"]))
    expect(
        isinstance(a, T.VectorType) and a.elem is s.a and isinstance(b, T.VectorType) and b.elem is s.a,
        op,
        f"A and B fragments of {s.a}",
        f"{a}, {b}",
    )
    expect(
        isinstance(c, T.VectorType) and c.elem is s.c and op.result.type is c,
        op,
        f"C and result fragments of {s.c}",
        f"{c}, {op.result.type}",
    )


# -- structured control flow ----------------------------------------------------


def yields(op, region, types_, what):
    last = region.ops[-1] if region.ops else None
    expect(
        last is not None and last.name == "scf.yield",
        op,
        f"{what} to end with scf.yield",
        last.name if last else "an empty region",
    )
    got = [v.type for v in last.operands]
    expect(got == list(types_), op, f"{what} to yield ({', '.join(map(str, types_))})", f"({', '.join(map(str, got))})")


@register("scf.for")
def _for(op):
    lo, hi, step, *inits = op.operands
    expect(
        lo.type is T.I32 and hi.type is T.I32 and step.type is T.I32,
        op,
        "i32 bounds and step",
        f"{lo.type}, {hi.type}, {step.type}",
    )
    carried = [v.type for v in inits]
    expect(
        [r.type for r in op.results] == carried,
        op,
        "one result per carried value, of its type",
        [str(r.type) for r in op.results],
    )
    body = op.regions[0]
    want = [T.I32, *carried]
    expect(
        [a.type for a in body.args] == want,
        op,
        f"body arguments ({', '.join(map(str, want))})",
        [str(a.type) for a in body.args],
    )
    yields(op, body, carried, "the body")


@register("scf.if")
def _if(op):
    expect(op.operands[0].type is T.I1, op, "an i1 condition", op.operands[0].type)
    results = [r.type for r in op.results]
    for region, what in zip(op.regions, ("the then-region", "the else-region")):
        expect(not region.args, op, f"{what} without arguments", len(region.args))
        yields(op, region, results, what)


OPS = {name: _checked(name) for name in sorted(_DATA["ops"])}
