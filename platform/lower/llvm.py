"""Lowers a verified kernel to LLVM IR text for one flavor.

    text = lower(kernel, "llvm22")

Deterministic: values and labels are numbered in program order, declarations
are emitted sorted, globals are named by what they are and emitted in the
order of GLOBAL_KINDS, and nothing depends on hashing. Literals have one
spelling each (spelling.py). ../ir/SPELLING.md states all of these. Anything
the kernel's arch or the flavor cannot express raises ArchDomainError before
LLVM ever runs.
"""

from arch import arch as archs
from arch.lds_ops import LDS_OPS
from ir import types as T
from ir.core import Kernel, walk
from ir.verifier import verify
from lower import flavors, fp8_ir
from lower.flavors import ArchDomainError
from lower.spelling import literal, ltype, suffix
from lower.intrinsics import (
    BUFFER_FLAGS,
    BUFFER_SUFFIX,
    BUFFER_TYPES,
    MMA,
    SPLIT_BARRIER_GENERATIONS,
    WORKGROUP_ID,
    WORKITEM_ID,
    spell,
)

# The module's globals, in the order they are emitted; within a kind, by key:
#   lds:       @rocke.lds.N, the N-th mem.lds_alloc in program order (key N, an int);
#   fp8_table: @rocke.FMT.values, the decode table of fp8 format FMT (key FMT).
GLOBAL_KINDS = ("lds", "fp8_table")
# The metadata node of gpu.lds_barrier's fences (!0 is the module flag).
LDS_ONLY_MMRA = 1
# The node that keeps LLVM from unrolling a matrix loop, and the first loop id:
# loop n of the module (in lowering order) is !(MATRIX_LOOP_0 + n).
NO_UNROLL, MATRIX_LOOP_0 = 2, 3


class _Emitter:
    def __init__(self, kernel, flavor, arch):
        self.kernel = kernel
        self.flavor = flavor
        self.arch = arch
        self.lines = []
        self.values = {a: f"%arg.{a.name}" for a in kernel.args}
        self.next_value = 0
        self.next_label = 0
        self.label = "entry"
        self.declares = {}
        self.globals = {}  # (rank of kind in GLOBAL_KINDS, key) -> definition
        self.next_lds = 0
        self.lds_only_fences = False  # a gpu.lds_barrier needs its metadata node
        self.matrix_loops = 0  # scf.for ops holding a matrix.mma: each needs a loop id
        # The s_waitcnt every barrier starts with where the kernel writes LDS
        # asynchronously (arch/lds_ops.py: why), else None.
        self.barrier_wait = next(
            (
                LDS_OPS[o.name].barrier_wait
                for o in walk(kernel.body)
                if o.name in LDS_OPS and LDS_OPS[o.name].barrier_wait is not None
            ),
            None,
        )

    # -- plumbing ---------------------------------------------------------------

    def fresh(self):
        self.next_value += 1
        return f"%v{self.next_value - 1}"

    def new_label(self, stem):
        self.next_label += 1
        return f"{stem}{self.next_label - 1}"

    def emit(self, text):
        self.lines.append("  " + text)

    def start_block(self, label):
        self.lines.append(f"{label}:")
        self.label = label

    def inst(self, text):
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return name

    def arg(self, v):
        return f"{ltype(v.type)} {self.values[v]}"

    def call(self, ret, name, args, flags=""):
        """Calls an intrinsic, declaring it; returns the result name (None for void). `flags`: fast-math
        flags of the call, each followed by a space ("nnan ")."""
        # Each argument is "TYPE VALUE"; the declaration keeps the types.
        self.declares[name] = f"declare {ret} @{name}({', '.join(a.rsplit(' ', 1)[0] for a in args)})"
        text = f"call {flags}{ret} @{name}({', '.join(args)})"
        if ret == "void":
            self.emit(text)
            return None
        return self.inst(text)

    def add_global(self, kind, key, definition):
        self.globals[(GLOBAL_KINDS.index(kind), key)] = definition

    def domain_error(self, op, what, supported, none="none"):
        """ArchDomainError: op `op` cannot do `what` on this arch; `supported`
        lists where it can (`none` says so when it is empty)."""
        raise ArchDomainError(
            f"{op.name}: {what} on {self.arch.name} with {self.flavor.name}; supported on: {', '.join(supported) or none}. "
            "Choose a supported arch, or a different op for this one.",
            op.name,
            self.arch.name,
            supported,
        )

    # -- structure ------------------------------------------------------------

    def block(self, block):
        for op in block.ops:
            if op.name == "scf.yield":
                return [self.values[v] for v in op.operands]
            results = LOWER[op.name](self, op)
            for value, name in zip(op.results, results or ()):
                self.values[value] = name
        return []

    def module(self):
        self.block(self.kernel.body)
        k = self.kernel
        # No noalias: two pointer arguments may name the same buffer.
        params = ", ".join(f"{ltype(a.type)} noundef %arg.{a.name}" for a in k.args)
        size = k.attrs["workgroup_size"][0] * k.attrs["workgroup_size"][1] * k.attrs["workgroup_size"][2]
        fn_attrs = [
            f'"amdgpu-flat-work-group-size"="1,{size}"',
            f'"target-cpu"="{self.arch.name}"',
            '"uniform-work-group-size"="true"',
        ]
        if "waves_per_eu" in k.attrs:
            fn_attrs.append(f'"amdgpu-waves-per-eu"="{k.attrs["waves_per_eu"]}"')
        if k.attrs["wave_size"] == 64 and self.arch.wave_sizes[0] == 32:
            fn_attrs.append('"target-features"="+wavefrontsize64"')
        out = [
            f"; rocke kernel {k.name} for {self.arch.name}, lowered for {self.flavor.name}",
            f'target datalayout = "{self.flavor.datalayout}"',
            f'target triple = "{self.flavor.triple(self.arch.name)}"',
            "",
        ]
        out += [self.globals[key] for key in sorted(self.globals)]
        if self.globals:
            out.append("")
        out.append(f"define amdgpu_kernel void @{k.name}({params}) #0 {{")
        out.append("entry:")
        out += self.lines
        out += ["  ret void", "}", ""]
        out += [self.declares[key] for key in sorted(self.declares)]
        out += ["", f"attributes #0 = {{ {' '.join(sorted(fn_attrs))} }}", ""]
        out += [
            "!llvm.module.flags = !{!0}",
            f'!0 = !{{i32 1, !"amdhsa_code_object_version", i32 {self.flavor.code_object_version}}}',
        ]
        if self.lds_only_fences:
            out.append(f'!{LDS_ONLY_MMRA} = !{{!"amdgpu-synchronize-as", !"local"}}')
        if self.matrix_loops:
            out.append(f'!{NO_UNROLL} = !{{!"llvm.loop.unroll.disable"}}')
        for n in range(MATRIX_LOOP_0, MATRIX_LOOP_0 + self.matrix_loops):
            out.append(f"!{n} = distinct !{{!{n}, !{NO_UNROLL}}}")
        out.append("")
        return "\n".join(out)


# -- op lowerings: each takes (emitter, op) and returns the result names --------------


def _const(e, op):
    return [literal(op.attrs["value"], op.results[0].type)]


def _arith(int_op, float_op, int_intrinsic=None, float_intrinsic=None):
    """int_op/float_op: the instruction; the intrinsics (keys of
    flavor_facts.json "intrinsics"), when given, are called instead."""

    def lower(e, op):
        t = op.results[0].type
        a, b = (e.values[v] for v in op.operands)
        if t.is_float:
            if float_intrinsic:
                flags = "nnan " if op.attrs.get("nnan") else ""
                args = [f"{ltype(t)} {a}", f"{ltype(t)} {b}"]
                return [e.call(ltype(t), spell(float_intrinsic, suffix(t)), args, flags)]
            return [e.inst(f"{float_op} {ltype(t)} {a}, {b}")]
        if int_intrinsic:
            return [e.call(ltype(t), spell(int_intrinsic, suffix(t)), [f"{ltype(t)} {a}", f"{ltype(t)} {b}"])]
        return [e.inst(f"{int_op} {ltype(t)} {a}, {b}")]

    return lower


def _neg(e, op):
    t = op.results[0].type
    x = e.values[op.operands[0]]
    if t.is_float:
        return [e.inst(f"fneg {ltype(t)} {x}")]
    return [e.inst(f"sub {ltype(t)} {'zeroinitializer' if isinstance(t, T.VectorType) else 0}, {x}")]


_ICMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_FCMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}


def _cmp(e, op):
    a, b = op.operands
    pred = op.attrs["pred"]
    kind, table = ("fcmp", _FCMP) if a.type.is_float else ("icmp", _ICMP)
    return [e.inst(f"{kind} {table[pred]} {ltype(a.type)} {e.values[a]}, {e.values[b]}")]


def _select(e, op):
    c, a, b = op.operands
    return [e.inst(f"select i1 {e.values[c]}, {e.arg(a)}, {e.arg(b)}")]


def _convert(e, op):
    src, dst = op.operands[0].type, op.results[0].type
    x = e.values[op.operands[0]]
    if src is dst:
        return [x]
    if isinstance(src, T.VectorType) and (T.is_fp8(src) or T.is_fp8(dst)):
        return [_scalarized(e, x, src, dst)]
    return [_convert_value(e, x, src, dst)]


def _scalarized(e, x, src, dst):
    out = "poison"
    for i in range(src.n):
        elem = e.inst(f"extractelement {ltype(src)} {x}, i32 {i}")
        conv = _convert_value(e, elem, src.elem, dst.elem)
        out = e.inst(f"insertelement {ltype(dst)} {out}, {ltype(dst.elem)} {conv}, i32 {i}")
    return out


def _convert_value(e, x, src, dst):
    """Emit src -> dst; fp8 goes through f32."""
    if T.is_fp8(src):
        x, src = fp8_ir.decode(e, x, T.element(src).name), T.F32
    if T.is_fp8(dst):
        return fp8_ir.encode(e, _convert_value(e, x, src, T.F32), T.element(dst).name)
    s, d = T.element(src), T.element(dst)
    if src is dst:
        return x
    if s.is_int and d.is_int:
        op = ("zext" if s is T.I1 else "sext") if d.bits > s.bits else "trunc"
    elif s.is_float and d.is_float:
        if s.bits == d.bits:  # f16 <-> bf16 goes through f32
            wide = T.with_element(src, T.F32)
            return _convert_value(e, _convert_value(e, x, src, wide), wide, dst)
        op = "fpext" if d.bits > s.bits else "fptrunc"
    elif s.is_int:
        op = "uitofp" if s is T.I1 else "sitofp"
    else:
        op = "fptosi"
    return e.inst(f"{op} {ltype(src)} {x} to {ltype(dst)}")


def _bitcast(e, op):
    src, dst = op.operands[0].type, op.results[0].type
    x = e.values[op.operands[0]]
    if ltype(src) == ltype(dst):
        return [x]
    return [e.inst(f"bitcast {ltype(src)} {x} to {ltype(dst)}")]


def _math(intrinsic):
    def lower(e, op):
        t = op.results[0].type
        return [e.call(ltype(t), spell(intrinsic, suffix(t)), [e.arg(v) for v in op.operands])]

    return lower


def _build(e, op):
    t = op.results[0].type
    out = "poison"
    for i, v in enumerate(op.operands):
        out = e.inst(f"insertelement {ltype(t)} {out}, {e.arg(v)}, i32 {i}")
    return [out]


def _extract(e, op):
    return [e.inst(f"extractelement {e.arg(op.operands[0])}, i32 {op.attrs['index']}")]


def _insert(e, op):
    v, x = op.operands
    return [e.inst(f"insertelement {e.arg(v)}, {e.arg(x)}, i32 {op.attrs['index']}")]


def _shuffle(e, op):
    a, b = op.operands
    mask = ", ".join(f"i32 {i}" for i in op.attrs["mask"])
    return [e.inst(f"shufflevector {e.arg(a)}, {e.arg(b)}, <{len(op.attrs['mask'])} x i32> <{mask}>")]


def _id(table):
    def lower(e, op):
        return [e.call("i32", table[op.attrs["dim"]], [])]

    return lower


def _block_dim(e, op):
    return [str(e.kernel.attrs["workgroup_size"][op.attrs["dim"]])]


def _grid_dim(e, op):
    # hidden_block_count_{x,y,z}: the first three i32 of the implicit
    # arguments in code object v5 and later.
    base = e.call("ptr addrspace(4)", spell("implicitarg_ptr"), [])
    p = e.inst(f"getelementptr inbounds i8, ptr addrspace(4) {base}, i64 {4 * op.attrs['dim']}")
    return [e.inst(f"load i32, ptr addrspace(4) {p}, align 4")]


def _lane_id(e, op):
    lo = e.call("i32", spell("mbcnt_lo"), ["i32 -1", "i32 0"])
    if e.kernel.attrs["wave_size"] == 32:
        return [lo]
    return [e.call("i32", spell("mbcnt_hi"), ["i32 -1", f"i32 {lo}"])]


def _barrier(e, op, fence_tail=""):
    if e.barrier_wait is not None:  # the kernel's direct-to-LDS loads land before any wave goes on
        e.call("void", spell("waitcnt"), [f"i32 {e.barrier_wait}"])
    e.emit(f'fence syncscope("workgroup") release{fence_tail}')
    if e.arch.generation in SPLIT_BARRIER_GENERATIONS:
        e.call("void", spell("barrier_signal"), ["i32 -1"])
        e.call("void", spell("barrier_wait"), ["i16 -1"])
    else:
        e.call("void", spell("barrier"), [])
    e.emit(f'fence syncscope("workgroup") acquire{fence_tail}')
    return []


def _lds_barrier(e, op):
    # The fences carry AMDGPU's memory-model relaxation annotation "only LDS
    # is synchronized": on gfx12 the release then waits for LDS accesses
    # alone, not for global loads still in flight (measured: LLVM 20-24).
    e.lds_only_fences = True
    return _barrier(e, op, f", !mmra !{LDS_ONLY_MMRA}")


def _lds_op(e, op):
    """The intrinsic of an arch-limited memory op (arch/lds_ops.json), or
    ArchDomainError where the arch has no such instruction (LLVM would end
    in "Cannot select")."""
    entry = LDS_OPS[op.name]
    if e.arch.name not in entry.archs:
        e.domain_error(op, f"no instruction for {entry.intrinsic}", list(entry.archs))
    return entry.intrinsic


def _load_transpose(e, op):
    t = op.results[0].type
    return [e.call(ltype(t), f"{_lds_op(e, op)}.{suffix(t)}", [e.arg(op.operands[0])])]


def _load_to_lds(e, op):
    # 16 bytes per lane; no immediate offset; aux 0 (default cache policy).
    e.call("void", _lds_op(e, op), [e.arg(op.operands[0]), e.arg(op.operands[1]), "i32 16", "i32 0", "i32 0"])
    return []


def _buffer_load_to_lds(e, op):
    rsrc, voffset, soffset, dst = (e.arg(v) for v in op.operands)
    # 16 bytes per lane; no immediate offset; aux 0 (default cache policy).
    e.call("void", _lds_op(e, op), [rsrc, dst, "i32 16", voffset, soffset, "i32 0", "i32 0"])
    return []


def _sched_barrier(e, op):
    e.call("void", spell("sched_barrier"), ["i32 0"])  # mask 0: no instruction crosses
    return []


def _readfirstlane(e, op):
    t = op.results[0].type
    return [e.call(ltype(t), spell("readfirstlane", suffix(t)), [e.arg(op.operands[0])])]


def _bpermute(e, op):
    addr, v = op.operands
    x = e.values[v]
    if v.type is T.F32:
        x = e.inst(f"bitcast float {x} to i32")
    r = e.call("i32", spell("bpermute"), [f"i32 {e.values[addr]}", f"i32 {x}"])
    return [e.inst(f"bitcast i32 {r} to float") if v.type is T.F32 else r]


def _lds_alloc(e, op):
    n, e.next_lds = e.next_lds, e.next_lds + 1
    name = f"@rocke.lds.{n}"
    e.add_global(
        "lds", n, f"{name} = internal addrspace(3) global [{op.attrs['bytes']} x i8] poison, align {op.attrs['align']}"
    )
    return [name]


def _offset(e, op):
    p, off = op.operands
    return [e.inst(f"getelementptr inbounds i8, {e.arg(p)}, {e.arg(off)}")]


def _align(t):
    return T.element(t).nbytes


def _load(e, op):
    t = op.results[0].type
    return [e.inst(f"load {ltype(t)}, {e.arg(op.operands[0])}, align {_align(t)}")]


def _store(e, op):
    p, v = op.operands
    e.emit(f"store {e.arg(v)}, {e.arg(p)}, align {_align(v.type)}")
    return []


def _atomic_add(e, op):
    p, v = op.operands
    kind = "fadd" if v.type.is_float else "add"
    return [e.inst(f'atomicrmw {kind} {e.arg(p)}, {e.arg(v)} syncscope("agent") monotonic, align 4')]


def _rsrc(e, op):
    base, size = op.operands
    count = e.values[size]
    if e.flavor.rsrc_count_type == "i64":
        count = e.inst(f"zext i32 {count} to i64")
    flags = BUFFER_FLAGS[e.arch.generation]
    return [
        e.call(
            "ptr addrspace(8)",
            e.flavor.rsrc_intrinsic,
            [e.arg(base), "i16 0", f"{e.flavor.rsrc_count_type} {count}", f"i32 {flags}"],
        )
    ]


def _buffer_load(e, op):
    rsrc, off = op.operands
    t = op.results[0].type
    raw = BUFFER_TYPES[t.nbytes]
    r = e.call(raw, spell("buffer_load", BUFFER_SUFFIX[raw]), [e.arg(rsrc), e.arg(off), "i32 0", "i32 0"])
    return [r if raw == ltype(t) else e.inst(f"bitcast {raw} {r} to {ltype(t)}")]


def _buffer_store(e, op):
    rsrc, off, v = op.operands
    raw = BUFFER_TYPES[v.type.nbytes]
    x = e.values[v] if raw == ltype(v.type) else e.inst(f"bitcast {e.arg(v)} to {raw}")
    e.call("void", spell("buffer_store", BUFFER_SUFFIX[raw]), [f"{raw} {x}", e.arg(rsrc), e.arg(off), "i32 0", "i32 0"])
    return []


def _mma(e, op):
    op_id = op.attrs["op"]
    form = MMA.get((op_id, e.arch.generation))
    if form is None:
        have = sorted(f"{fam}" for (oid, fam) in MMA if oid == op_id)
        e.domain_error(op, f"{op_id} has no intrinsic", list(have), "no generation")
    form = form.for_flavor(e.flavor.name)
    a, b, c = op.operands
    ab = []
    for v in (a, b):
        x = e.values[v]
        if form.cast:
            x = e.inst(f"bitcast {e.arg(v)} to {form.ab}")
        ab.append(f"{form.ab} {x}")
    cc = f"{form.c} {e.values[c]}"
    args = {
        "mfma": [ab[0], ab[1], cc, "i32 0", "i32 0", "i32 0"],
        "wmma": [ab[0], ab[1], cc],
        "wmma8": ["i1 false", ab[0], "i1 false", ab[1], "i16 0", cc, "i1 false", "i1 false"],
        "wmma6": [ab[0], ab[1], "i16 0", cc, "i1 false", "i1 false"],
    }[form.form]
    return [e.call(form.c, form.intrinsic, args)]


def _loop_id(e, body):
    """The back edge's `, !llvm.loop !N` of a loop whose body holds a matrix op, else "".
    Its builder schedules it (b.unroll, sched_barrier): unrolled by LLVM (whole, when the
    trip count is small and known, or peeled), its loads lose the cover the builder gave them."""
    if not any(o.name == "matrix.mma" for o in walk(body)):
        return ""
    e.matrix_loops += 1
    return f", !llvm.loop !{MATRIX_LOOP_0 + e.matrix_loops - 1}"


def _for(e, op):
    lo, hi, step, *inits = op.operands
    body = op.regions[0]
    head, loop, done = e.new_label("for.head"), e.new_label("for.body"), e.new_label("for.exit")
    entry_label = e.label
    e.emit(f"br label %{head}")
    e.start_block(head)
    phi_at = len(e.lines)
    phis = [e.fresh() for _ in body.args]
    for arg, name in zip(body.args, phis):
        e.values[arg] = name
    cond = e.inst(f"icmp slt i32 {phis[0]}, {e.values[hi]}")
    e.emit(f"br i1 {cond}, label %{loop}, label %{done}")
    e.start_block(loop)
    yielded = e.block(body)
    nxt = e.inst(f"add i32 {phis[0]}, {e.values[step]}")
    latch = e.label
    e.emit(f"br label %{head}{_loop_id(e, body)}")
    incoming = [e.values[lo], *(e.values[v] for v in inits)]
    back = [nxt, *yielded]
    e.lines[phi_at:phi_at] = [
        f"  {name} = phi {ltype(arg.type)} [ {first}, %{entry_label} ], [ {again}, %{latch} ]"
        for name, arg, first, again in zip(phis, body.args, incoming, back)
    ]
    e.start_block(done)
    return phis[1:]


def _if(e, op):
    then, else_, end = e.new_label("if.then"), e.new_label("if.else"), e.new_label("if.end")
    e.emit(f"br i1 {e.values[op.operands[0]]}, label %{then}, label %{else_}")
    arms = []
    for label, region in ((then, op.regions[0]), (else_, op.regions[1])):
        e.start_block(label)
        values = e.block(region)
        arms.append((values, e.label))
        e.emit(f"br label %{end}")
    e.start_block(end)
    return [
        e.inst(f"phi {ltype(r.type)} [ {arms[0][0][i]}, %{arms[0][1]} ], [ {arms[1][0][i]}, %{arms[1][1]} ]")
        for i, r in enumerate(op.results)
    ]


LOWER = {
    "arith.const": _const,
    "arith.add": _arith("add", "fadd"),
    "arith.sub": _arith("sub", "fsub"),
    "arith.mul": _arith("mul", "fmul"),
    "arith.div": _arith("sdiv", "fdiv"),
    "arith.rem": _arith("srem", "frem"),
    "arith.udiv": _arith("udiv", None),
    "arith.urem": _arith("urem", None),
    "arith.min": _arith(None, None, "smin", "minnum"),
    "arith.max": _arith(None, None, "smax", "maxnum"),
    "arith.and": _arith("and", None),
    "arith.or": _arith("or", None),
    "arith.xor": _arith("xor", None),
    "arith.shl": _arith("shl", None),
    "arith.shr": _arith("ashr", None),
    "arith.neg": _neg,
    "arith.cmp": _cmp,
    "arith.select": _select,
    "arith.convert": _convert,
    "arith.bitcast": _bitcast,
    "math.exp": _math("exp"),
    "math.exp2": _math("exp2"),
    "math.log": _math("log"),
    "math.sqrt": _math("sqrt"),
    "math.rsqrt": _math("rsq"),
    "math.fma": _math("fma"),
    "vector.build": _build,
    "vector.extract": _extract,
    "vector.insert": _insert,
    "vector.shuffle": _shuffle,
    "gpu.thread_id": _id(WORKITEM_ID),
    "gpu.block_id": _id(WORKGROUP_ID),
    "gpu.block_dim": _block_dim,
    "gpu.grid_dim": _grid_dim,
    "gpu.lane_id": _lane_id,
    "gpu.barrier": _barrier,
    "gpu.lds_barrier": _lds_barrier,
    "gpu.sched_barrier": _sched_barrier,
    "lane.readfirstlane": _readfirstlane,
    "lane.bpermute": _bpermute,
    "mem.lds_alloc": _lds_alloc,
    "mem.offset": _offset,
    "mem.load": _load,
    "mem.store": _store,
    "mem.load_transpose": _load_transpose,
    "mem.load_to_lds": _load_to_lds,
    "mem.atomic_add": _atomic_add,
    "buffer.rsrc": _rsrc,
    "buffer.load": _buffer_load,
    "buffer.load_to_lds": _buffer_load_to_lds,
    "buffer.store": _buffer_store,
    "matrix.mma": _mma,
    "scf.for": _for,
    "scf.if": _if,
}


def lower(kernel, flavor_name):
    """LLVM IR text of `kernel` for `flavor_name` (llvm20, llvm22, llvm23, llvm24)."""
    text = lower_each(kernel, [flavor_name])[flavor_name]
    if isinstance(text, ArchDomainError):
        raise text
    return text


def lower_each(kernel, flavor_names, verified=False):
    """{flavor: the LLVM IR text of `kernel`, or the ArchDomainError lower(kernel,
    flavor) raises} for each of `flavor_names`. The kernel is verified once for
    all of them: verification does not depend on the flavor, and it costs far
    more than the lowering itself. An unknown flavor or an invalid kernel raises
    as lower() does.

    verified=True: `kernel` is one verify() has passed and that has not changed
    since, such as the one Builder.finish returns (a family's build): it is not
    verified again (the twin of the C++ lower_verified, which engine::emit and
    rocke-emit use)."""
    if not isinstance(kernel, Kernel):
        raise ArchDomainError(f"lower: expected a Kernel, got {type(kernel).__name__}", "kernel", type(kernel).__name__)
    chosen = {name: flavors.get(name) for name in flavor_names}
    if not verified:
        verify(kernel)
    arch = archs.get(kernel.arch)
    out = {}
    for name, flavor in chosen.items():
        try:
            flavors.check_arch(flavor, arch.name, f"kernel @{kernel.name}")
            out[name] = _Emitter(kernel, flavor, arch).module()
        except ArchDomainError as e:
            out[name] = e
    return out
