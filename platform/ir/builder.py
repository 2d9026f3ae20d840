"""The builder: how families write kernels.

Two kinds of control flow:
  - Python-time: a plain Python `if` is a static if, and `for i in
    b.unroll(n)` (or any Python loop) unrolls; neither appears in the IR.
  - Run-time: `b.for_range(...)` and `b.if_(...)` create scf.for and scf.if
    with yielded values.

    b = KernelBuilder("axpy", arch="gfx942", workgroup_size=(256, 1, 1))
    x, y, n = b.arg("x", T.GLOBAL), b.arg("y", T.GLOBAL), b.arg("n", T.I32)
    i = b.add(b.mul(b.block_id(0), 256), b.thread_id(0))
    with b.if_(b.cmp("lt", i, n)) as br:
        ...
    kernel = b.finish()

Every op is checked by its rule as it is created, so a mistake raises
VerifyError at the line that made it; finish() verifies the whole kernel.
"""

import contextlib

from arch import arch as archs
from ir import types as T
from ir.core import Block, Kernel, Op, Value, VerifyError, walk
from ir.ops import OPS
from ir.verifier import verify


class KernelBuilder:
    def __init__(self, name, arch, workgroup_size, wave_size=None, waves_per_eu=None):
        info = archs.get(arch)
        attrs = {
            "arch": arch,
            "wave_size": wave_size if wave_size is not None else info.wave_sizes[0],
            "workgroup_size": list(workgroup_size),
        }
        if waves_per_eu is not None:
            attrs["waves_per_eu"] = waves_per_eu
        self.kernel = Kernel(name, [], attrs, Block())
        self._blocks = [self.kernel.body]

    # -- structure ------------------------------------------------------------

    @property
    def arch(self):
        return archs.get(self.kernel.attrs["arch"])

    @property
    def wave_size(self):
        return self.kernel.attrs["wave_size"]

    @property
    def workgroup_size(self):
        return tuple(self.kernel.attrs["workgroup_size"])

    def arg(self, name, type_):
        value = Value(type_, name)
        self.kernel.args.append(value)
        return value

    def emit(self, name, operands, result_types, attrs=None, regions=(), check=True):
        op = Op(name, tuple(operands), tuple(Value(t) for t in result_types), dict(attrs or {}), tuple(regions))
        if name not in OPS:
            raise VerifyError.expected("op", "a known op", repr(name), name)
        if check:
            OPS[name](op)
        self._blocks[-1].ops.append(op)
        return op

    def _value(self, name, operands, result_type, attrs=None):
        return self.emit(name, operands, [result_type], attrs).results[0]

    def finish(self):
        if len(self._blocks) != 1:
            raise VerifyError.expected(
                f"kernel @{self.kernel.name}", "every for/if closed", f"{len(self._blocks) - 1} open"
            )
        # An if without results may omit its else arm: give it an empty one.
        for op in walk(self.kernel.body):
            if op.name == "scf.if" and not op.results and not op.regions[1].ops:
                op.regions[1].ops.append(Op("scf.yield", (), (), {}))
        verify(self.kernel)
        return self.kernel

    @staticmethod
    def unroll(n):
        """Python-time loop: the body is emitted n times."""
        return range(n)

    # -- the semantic layer: Python numbers become constants -----------------

    def const(self, value, type_):
        if type_.is_float:
            value = float(value)
        return self._value("arith.const", [], type_, {"value": value})

    def _coerce(self, x, like):
        if isinstance(x, Value):
            return x
        if isinstance(x, (int, float)) and not isinstance(x, bool) and isinstance(like, T.ScalarType):
            return self.const(x, like)
        raise VerifyError.expected("operand", f"a Value or a Python number for a {like} operand", repr(x))

    def _pair(self, a, b):
        if not isinstance(a, Value) and not isinstance(b, Value):
            raise VerifyError.expected("operand", "at least one Value", f"{a!r} and {b!r}")
        like = a.type if isinstance(a, Value) else b.type
        return self._coerce(a, like), self._coerce(b, like)

    @staticmethod
    def _binary(name):
        def method(self, a, b):
            a, b = self._pair(a, b)
            return self._value(name, [a, b], a.type)

        method.__name__ = name.split(".")[1]
        return method

    add = _binary("arith.add")
    sub = _binary("arith.sub")
    mul = _binary("arith.mul")
    div = _binary("arith.div")
    rem = _binary("arith.rem")
    udiv = _binary("arith.udiv")
    urem = _binary("arith.urem")
    min = _binary("arith.min")
    max = _binary("arith.max")

    def max_nnan(self, a, b):
        """max of two floats neither of which is NaN (arith.max {nnan = true}): LLVM need not quiet them first."""
        a, b = self._pair(a, b)
        return self._value("arith.max", [a, b], a.type, {"nnan": True})

    and_ = _binary("arith.and")
    or_ = _binary("arith.or")
    xor = _binary("arith.xor")
    shl = _binary("arith.shl")
    shr = _binary("arith.shr")

    @staticmethod
    def _unary(name):
        def method(self, a):
            return self._value(name, [a], a.type)

        method.__name__ = name.split(".")[1]
        return method

    neg = _unary("arith.neg")
    exp = _unary("math.exp")
    exp2 = _unary("math.exp2")
    log = _unary("math.log")
    sqrt = _unary("math.sqrt")
    rsqrt = _unary("math.rsqrt")
    readfirstlane = _unary("lane.readfirstlane")
    del _binary, _unary

    def cmp(self, pred, a, b):
        a, b = self._pair(a, b)
        return self._value("arith.cmp", [a, b], T.with_element(a.type, T.I1), {"pred": pred})

    def select(self, cond, a, b):
        a, b = self._pair(a, b)
        return self._value("arith.select", [cond, a, b], a.type)

    def convert(self, x, type_):
        return x if x.type is type_ else self._value("arith.convert", [x], type_)

    def bitcast(self, x, type_):
        return self._value("arith.bitcast", [x], type_)

    def fma(self, a, b, c):
        return self._value("math.fma", [a, b, c], a.type)

    # -- vectors ----------------------------------------------------------------

    def build(self, elems):
        return self._value("vector.build", elems, T.vector(elems[0].type, len(elems)))

    def extract(self, v, index):
        return self._value("vector.extract", [v], v.type.elem, {"index": index})

    def insert(self, v, x, index):
        return self._value("vector.insert", [v, self._coerce(x, v.type.elem)], v.type, {"index": index})

    def shuffle(self, a, b, mask):
        return self._value("vector.shuffle", [a, b], T.vector(a.type.elem, len(mask)), {"mask": list(mask)})

    # -- GPU --------------------------------------------------------------------

    def thread_id(self, dim):
        return self._value("gpu.thread_id", [], T.I32, {"dim": dim})

    def block_id(self, dim):
        return self._value("gpu.block_id", [], T.I32, {"dim": dim})

    def block_dim(self, dim):
        return self._value("gpu.block_dim", [], T.I32, {"dim": dim})

    def grid_dim(self, dim):
        return self._value("gpu.grid_dim", [], T.I32, {"dim": dim})

    def lane_id(self):
        return self._value("gpu.lane_id", [], T.I32)

    def barrier(self):
        self.emit("gpu.barrier", [], [])

    def lds_barrier(self):
        """A workgroup barrier that orders LDS accesses only: global loads
        in flight may stay in flight across it (gpu.barrier waits for them
        on gfx12)."""
        self.emit("gpu.lds_barrier", [], [])

    def sched_barrier(self):
        """No effect on what the kernel computes: LLVM's scheduler moves no
        instruction across this point (to keep loads issued before the
        matrix work that follows)."""
        self.emit("gpu.sched_barrier", [], [])

    def bpermute(self, addr, v):
        return self._value("lane.bpermute", [self._coerce(addr, T.I32), v], v.type)

    # -- memory -----------------------------------------------------------------

    def lds_alloc(self, nbytes, align=16):
        return self._value("mem.lds_alloc", [], T.LDS, {"bytes": nbytes, "align": align})

    def offset(self, p, byte_offset):
        return self._value("mem.offset", [p, self._coerce(byte_offset, T.I32)], p.type)

    def load(self, p, type_):
        return self._value("mem.load", [p], type_)

    def store(self, p, v):
        self.emit("mem.store", [p, v], [])

    def load_transpose(self, p, elem):
        """ds_read_b64_tr_b16 (gfx950): each lane of a 16-lane group names 8
        bytes of LDS; lane i of the group gets element i % 4 of the 8 bytes
        lanes 4j + i // 4 named, for j = 0..3 (a 4 x 16 tile read by rows
        comes back by columns). A vector<4 x elem>, elem a 16-bit type."""
        return self._value("mem.load_transpose", [p], T.vector(elem, 4))

    def load_to_lds(self, src, dst):
        """global_load_lds_dwordx4 (gfx950): lane L of each wave copies the 16
        bytes at its `src` to LDS at `dst` + 16 * L, `dst` the same in every
        lane of the wave. Asynchronous: a barrier orders it before reads."""
        self.emit("mem.load_to_lds", [src, dst], [])

    def load_wide(self, p, vtype):
        """A vector load of any width, as loads of at most 16 bytes joined by shuffles."""
        if vtype.nbytes <= 16:
            return self.load(p, vtype)
        half = T.vector(vtype.elem, vtype.n // 2)
        lo, hi = self.load_wide(p, half), self.load_wide(self.offset(p, half.nbytes), half)
        return self.shuffle(lo, hi, list(range(vtype.n)))

    def store_wide(self, p, v):
        """A vector store of any width, as stores of at most 16 bytes."""
        if v.type.nbytes <= 16:
            return self.store(p, v)
        n = v.type.n // 2
        self.store_wide(p, self.shuffle(v, v, list(range(n))))
        self.store_wide(self.offset(p, v.type.nbytes // 2), self.shuffle(v, v, list(range(n, 2 * n))))

    def atomic_add(self, p, v):
        return self._value("mem.atomic_add", [p, v], v.type)

    def buffer_rsrc(self, base, nbytes):
        return self._value("buffer.rsrc", [base, self._coerce(nbytes, T.I32)], T.BUFFER)

    def buffer_load(self, rsrc, byte_offset, type_):
        return self._value("buffer.load", [rsrc, self._coerce(byte_offset, T.I32)], type_)

    def buffer_load_to_lds(self, rsrc, voffset, soffset, dst):
        """buffer_load_dwordx4 ... lds (gfx950): mem.load_to_lds through a
        buffer. Lane L copies the 16 bytes at byte `voffset` + `soffset` of
        the buffer to LDS at `dst` + 16 * L; `soffset` and `dst` the same in
        every lane of the wave. The interpreter reads zeros past the
        buffer's end, counting `soffset` (whether gfx950 counts it is not
        measured here; copy.DirectCopy never leaves its buffer).
        Asynchronous: a barrier orders it before reads."""
        self.emit("buffer.load_to_lds", [rsrc, self._coerce(voffset, T.I32), self._coerce(soffset, T.I32), dst], [])

    def buffer_store(self, rsrc, byte_offset, v):
        self.emit("buffer.store", [rsrc, self._coerce(byte_offset, T.I32), v], [])

    def mma(self, op_id, a, b, c):
        return self._value("matrix.mma", [a, b, c], c.type, {"op": op_id})

    # -- run-time control flow ----------------------------------------------------

    def yield_(self, *values):
        self.emit("scf.yield", values, [])

    @contextlib.contextmanager
    def _region(self, block, op, results):
        self._blocks.append(block)
        try:
            yield
        finally:
            self._blocks.pop()
        if not block.ops or block.ops[-1].name != "scf.yield":
            if results:
                raise VerifyError.expected(
                    op.name, f"the region to end with b.yield_({len(results)} values)", "no yield"
                )
            block.ops.append(Op("scf.yield", (), (), {}))

    @contextlib.contextmanager
    def for_range(self, lo, hi, step=1, inits=()):
        """Run-time loop over [lo, hi) by step, carrying `inits`:

        with b.for_range(0, n, 1, [acc]) as loop:
            b.yield_(b.add(loop.iters[0], x))
        acc = loop.results[0]
        """
        lo, hi, step = (self._coerce(v, T.I32) for v in (lo, hi, step))
        body = Block([Value(T.I32)] + [Value(v.type) for v in inits], [])
        op = self.emit("scf.for", [lo, hi, step, *inits], [v.type for v in inits], regions=(body,), check=False)
        loop = _Loop(body.args[0], body.args[1:], op.results)
        with self._region(body, op, inits):
            yield loop
        OPS[op.name](op)

    def if_(self, cond, result_types=()):
        """Run-time if with optional yielded values:

        br = b.if_(cond, [T.F32])
        with br.then_():
            b.yield_(x)
        with br.else_():
            b.yield_(y)
        value = br.results[0]
        """
        op = self.emit("scf.if", [cond], result_types, regions=(Block(), Block()), check=False)
        return _If(self, op)


class _Loop:
    def __init__(self, iv, iters, results):
        self.iv = iv
        self.iters = list(iters)
        self.results = list(results)


class _If:
    def __init__(self, builder, op):
        self.b = builder
        self.op = op
        self.results = list(op.results)

    def then_(self):
        return self._arm(0)

    def else_(self):
        return self._arm(1)

    @contextlib.contextmanager
    def _arm(self, index):
        with self.b._region(self.op.regions[index], self.op, self.results):
            yield
        if index == 1:
            OPS[self.op.name](self.op)

    # `with b.if_(cond):` is a one-armed if without results.
    def __enter__(self):
        self._cm = self.then_()
        return self._cm.__enter__()

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)
