"""A problems file: {"problems": [entry, ...]}, each entry an op and its fields.

    {"op": "conv_fwd", "n": 1, "c": 64, "k": 64, "spatial": [56, 56], "filter": [3, 3], "pad": [1, 1]}
    {"op": "gemm", "m": 128, "n": 2304, "k": 768, "dtype": "f16", "layout_b": "col"}
    {"op": "attention", "batch": 1, "heads": 12, "seq_q": 128, "seq_k": 128, "head_dim": 64, "dtype": "f16"}
    {"op": "pool", "n": 1, "c": 64, "spatial": [112, 112], "kind": "max", "window": [3, 3], "stride": [2, 2]}
    {"op": "softmax", "rows": 1536, "dim": 128, "dtype": "f16", "mask": true, "scale": 0.125}
    {"op": "layernorm", "rows": 128, "dim": 768, "residual": true}

Each op's fields, their defaults and an example are in problems.schema.json
beside this file, the format's written home (problems_schema_test ties it to
this reader and the planner). The conv ops give ConvSpec's fields
(conv/spec.py; conv_fwd also the epilogue's, which the gradients refuse),
gemm GemmSpec's problem fields (gemm/spec.py), attention, softmax,
layernorm and rmsnorm their specs' problem fields (the tile is the
planner's), pool PoolSpec's, with "global": true standing for a window of
the whole spatial extent. A field a spec holds as a decimal string (scale,
eps: a spec holds no floats) may be a JSON number, read as its shortest
decimal. Any entry may carry a "name" (the
layer's published name); one is made from its fields otherwise. The specs
validate every field and normalise JSON lists and numpy ints.

A bad entry is an EntryError naming it and its field, e.g.
"problems[3].stride: expected ints >= 1, got (0, 1)"; the others still read.
A file that is not such an object at all is a FileError, one line: bytes
that are not UTF-8, text that is not JSON, a key given twice in an object
(JSON readers differ on which one wins), nesting deeper than MAX_NESTING.
"""

import dataclasses
import itertools
import json
import re

from conv.spec import ConvSpec
from conv.spec import SpecError as ConvSpecError
from pool.spec import PoolSpec
from pool.spec import SpecError as PoolSpecError

CONV_OPS = ("conv_fwd", "conv_dgrad", "conv_wgrad")
EPILOGUE_FIELDS = ("bias", "activation", "residual", "scale")
GEMM_FIELDS = ("m", "n", "k", "dtype", "out", "layout_a", "layout_b", *EPILOGUE_FIELDS)
GEMM_REQUIRED = ("m", "n", "k", "dtype")
ATTENTION_FIELDS = (
    "batch",
    "heads",
    "kv_heads",
    "seq_q",
    "seq_k",
    "head_dim",
    "dtype",
    "causal",
    "mask",
    "scale",
    "layout",
    "lse",
)
ATTENTION_REQUIRED = ("batch", "heads", "seq_q", "seq_k", "head_dim", "dtype")
POOL_FIELDS = (
    "n",
    "c",
    "spatial",
    "kind",
    "window",
    "stride",
    "pad",
    "pad_end",
    "count_pad",
    "global",
    "layout",
    "dtype",
)
POOL_REQUIRED = ("n", "c", "spatial", "kind")
# What "global": true stands for: these are the whole spatial extent's, so the entry gives none of them.
POOL_GLOBAL_IMPLIES = ("window", "stride", "pad", "pad_end")
SOFTMAX_FIELDS = ("rows", "dim", "dtype", "mask", "scale")
SOFTMAX_REQUIRED = ("rows", "dim")
NORM_FIELDS = ("rows", "dim", "dtype", "eps", "affine", "residual", "residual_out")
NORM_REQUIRED = ("rows", "dim")
# A norm op -> its eps when the entry gives none (PyTorch's LayerNorm and the usual RMSNorm).
NORM_EPS = {"layernorm": "1e-5", "rmsnorm": "1e-6"}
OPS = (*CONV_OPS, "gemm", "attention", "pool", "softmax", *NORM_EPS)
# An op -> its fields a spec holds as decimal strings (a spec holds no floats): a JSON number given for one
# becomes its shortest decimal.
_DECIMALS = {
    **{op: ("scale",) for op in (*CONV_OPS, "gemm", "attention", "softmax")},
    **{op: ("eps",) for op in NORM_EPS},
}
# An op of dict fields -> (its fields, the required ones).
_FIELDS = {
    "gemm": (GEMM_FIELDS, GEMM_REQUIRED),
    "attention": (ATTENTION_FIELDS, ATTENTION_REQUIRED),
    "pool": (POOL_FIELDS, POOL_REQUIRED),
    "softmax": (SOFTMAX_FIELDS, SOFTMAX_REQUIRED),
    **{op: (NORM_FIELDS, NORM_REQUIRED) for op in NORM_EPS},
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_SPEC_FIELD = re.compile(r"^(?:ConvSpec|GemmSpec|AttentionSpec|PoolSpec|SoftmaxSpec|NormSpec)(?:\.(\w+))?: (.*)$", re.S)


class EntryError(ValueError):
    """One entry of the problems file is bad: names it, its field, what was given and what is allowed."""

    def __init__(self, index, field, message, arch=None, allowed=None):
        super().__init__(index, field, message, arch, allowed)
        self.index, self.field, self.message, self.arch = index, field, message, arch
        # What the field allows as data (a spec's choices or limit), where the refusal has it.
        self.allowed = allowed

    def __str__(self):
        where = f"problems[{self.index}]" + (f".{self.field}" if self.field else "")
        return f"{where}{f' on {self.arch}' if self.arch else ''}: {self.message}"


def spec_error(index, error, arch=None):
    """An EntryError from a spec's SpecError ("GemmSpec.k: expected ...", or
    "ConvSpec: expected ..." for a limit of no one field), naming the entry."""
    match = _SPEC_FIELD.match(str(error))
    field, message = match.groups() if match else (None, str(error))
    return EntryError(index, field, message, arch, getattr(error, "allowed", None))


@dataclasses.dataclass(frozen=True)
class Problem:
    index: int
    name: str
    op: str
    # ConvSpec for conv ops, PoolSpec for pool; for the others, the dict of fields given (the tile is per arch)
    spec: object


class FileError(ValueError):
    """The problems file as a whole is unusable (not the expected JSON object)."""


# Arrays and objects a problems file may nest: it needs 4 ({"problems":
# [{"spatial": [...]}]}); the bound keeps a hostile file from the parser's
# recursion limit.
MAX_NESTING = 32
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_DEPTH = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _nesting(data):
    """How deep the arrays and objects of JSON bytes `data` nest (brackets in strings do not count)."""
    brackets = _STRING.sub(b"", data).translate(None, b"".join(bytes([c]) for c in range(256) if c not in _DEPTH))
    return max(itertools.accumulate(_DEPTH[c] for c in brackets), default=0)


class _Repeated(dict):
    """A JSON object whose text gives the key `repeated` more than once."""

    repeated = None


def _object(pairs):
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen = set()
    out = _Repeated(obj)
    out.repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
    return out


def _repeated(doc):
    """(path, key) of the first object of `doc` that repeats a key, or None."""
    stack = [("", doc)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Repeated):
            return path, value.repeated
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        children = [(f"{path}.{k}" if isinstance(k, str) else f"{path}[{k}]", v) for k, v in items]
        stack += reversed(children)
    return None


def parse(data):
    """The JSON value of a problems file's bytes; FileError, one line, for
    bytes that are not UTF-8, text that is not JSON, a key twice in an
    object, or arrays and objects nested deeper than MAX_NESTING."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        got = f"the byte {data[e.start]:#04x} at byte {e.start} (line {line})"
        raise FileError(f"expected UTF-8 text, got {got}; save the file as UTF-8") from None
    depth = _nesting(data)
    if depth > MAX_NESTING:
        allowed = f"arrays and objects nested at most {MAX_NESTING} deep (a problems file needs 4)"
        raise FileError(f"expected {allowed}, got {depth} levels")
    try:
        doc = json.loads(text, object_pairs_hook=_object)
    except json.JSONDecodeError as e:
        raise FileError(f"expected JSON text, got an error at line {e.lineno} column {e.colno}: {e.msg}") from None
    found = _repeated(doc)
    if found:
        path, key = found
        where = path.lstrip(".") or "the top-level object"
        got = f"{json.dumps(key)} twice in {where}"
        fix = "keep one (JSON readers differ on which one wins)"
        raise FileError(f"expected each key once in an object, got {got}; {fix}")
    return doc


# A JSON value's kind, as a problems file's errors name it (bool before int, its base class).
_KINDS = (
    (dict, "an object"),
    (list, "an array"),
    (str, "a string"),
    (bool, "true or false"),
    (int | float, "a number"),
    (type(None), "null"),
)


def _kind(value):
    return next(kind for t, kind in _KINDS if isinstance(value, t))


def _got(doc):
    """What a document that is not {"problems": [...]} holds instead, in words."""
    if not isinstance(doc, dict):
        return _kind(doc)
    if not doc:
        return "an empty object"
    if "problems" not in doc:
        keys = ", ".join(json.dumps(k) for k in doc)
        return f'an object with the key{"s" * (len(doc) > 1)} {keys} and no "problems"'
    others = [json.dumps(k) for k in doc if k != "problems"]
    if others:
        return f'the key{"s" * (len(others) > 1)} {", ".join(others)} beside "problems"'
    return f'"problems" holding {_kind(doc["problems"])}, not an array'


def read(doc):
    """(problems, errors) of a parsed problems file: every good entry as a
    Problem, every bad one as an EntryError. FileError if `doc` is not
    {"problems": [...]}, saying what it is instead."""
    if not isinstance(doc, dict) or set(doc) != {"problems"} or not isinstance(doc["problems"], list):
        raise FileError(f'expected a JSON object {{"problems": [entry, ...]}} and nothing else, got {_got(doc)}')
    problems, errors = [], []
    for index, obj in enumerate(doc["problems"]):
        try:
            problems.append(entry(index, obj))
        except EntryError as e:
            errors.append(e)
    errors += duplicate_names((p.index, p.name) for p in problems)
    bad = {e.index for e in errors}
    return [p for p in problems if p.index not in bad], sorted(errors, key=lambda e: e.index)


def duplicate_names(named):
    """An EntryError for each entry whose name an earlier entry has; `named`
    is (index, name) pairs, an index any number of times (once per arch). The
    one home of this rule: `rocke build` (read) and the Bazel catalog's
    archive (which sees each entry only through its kernels) both call it."""
    pairs = sorted(set(named))
    first = {}
    for index, name in pairs:
        first.setdefault(name, index)
    return [
        EntryError(
            index,
            "name",
            f'expected a name no other entry has, got {name!r} (problems[{first[name]}] has it too; give one a "name")',
        )
        for index, name in pairs
        if first[name] != index
    ]


def fields(op):
    """(the fields, the required ones) an entry of `op` may give besides "op"
    and "name": for the conv ops, ConvSpec's."""
    if op in CONV_OPS:
        spec = dataclasses.fields(ConvSpec)
        return tuple(f.name for f in spec), tuple(f.name for f in spec if f.default is dataclasses.MISSING)
    return _FIELDS[op]


def entry(index, obj):
    """The Problem of entry `index` of a problems file (a parsed JSON object); EntryError if bad."""
    if not isinstance(obj, dict):
        raise EntryError(index, None, f'expected a JSON object with an "op" and its fields, got {obj!r}')
    fields = dict(obj)
    op = fields.pop("op", None)
    if op not in OPS:
        raise EntryError(index, "op", f"expected one of {', '.join(OPS)}, got {op!r}")
    name = fields.pop("name", None)
    if name is not None and (not isinstance(name, str) or not _NAME.fullmatch(name)):
        raise EntryError(index, "name", f"expected letters, digits and _ (not first a digit, at most 64), got {name!r}")
    for key in _DECIMALS.get(op, ()):
        if isinstance(fields.get(key), float | int) and not isinstance(fields[key], bool):
            fields[key] = shortest_decimal(fields[key])
    if op in CONV_OPS:
        try:
            spec = ConvSpec.from_json(fields)
        except ConvSpecError as e:
            raise spec_error(index, e) from None
        return Problem(index, name or conv_name(op, spec), op, spec)
    allowed, required = _FIELDS[op]
    for key in fields:
        if key not in allowed:
            raise EntryError(
                index,
                key,
                f"expected one of the fields op, name, {', '.join(allowed)}, got the unknown field {key!r}",
            )
    for key in required:
        if key not in fields:
            raise EntryError(index, key, "expected a value (the field is required), got none")
    if op == "attention":
        fields.setdefault("kv_heads", fields["heads"])
        return Problem(index, name or attention_name(fields), op, fields)
    if op == "pool":
        return _pool(index, name, fields)
    if op == "softmax":
        return Problem(index, name or softmax_name(fields), op, fields)
    if op in NORM_EPS:
        fields.setdefault("dtype", "f16")
        fields.setdefault("eps", NORM_EPS[op])
        return Problem(index, name or norm_name(op, fields), op, fields)
    if "out" not in fields:
        fields["out"] = "f32" if fields["dtype"] == "fp8" else fields["dtype"]
    return Problem(index, name or gemm_name(fields), op, fields)


def _pool(index, name, fields):
    """The Problem of a pool entry: "global" turned into the window of the whole spatial extent."""
    whole = fields.pop("global", False)
    if not isinstance(whole, bool):
        raise EntryError(index, "global", f"expected true or false, got {whole!r}")
    if whole:
        given = [key for key in POOL_GLOBAL_IMPLIES if key in fields]
        if given:
            raise EntryError(
                index,
                given[0],
                f'expected no {given[0]} with "global": true (a global pool\'s window is the whole spatial extent), '
                f"got {fields[given[0]]!r}; drop it, or drop global",
            )
        if fields["kind"] != "avg":
            raise EntryError(index, "kind", f'expected "avg" with "global": true, got {fields["kind"]!r}')
        fields["window"] = fields["spatial"]
    elif "window" not in fields:
        raise EntryError(index, "window", 'expected a value (required unless "global": true), got none')
    try:
        spec = PoolSpec.from_json(fields)
    except PoolSpecError as e:
        raise spec_error(index, e) from None
    return Problem(index, name or pool_name(spec, whole), "pool", spec)


def shortest_decimal(x):
    """A JSON number as the shortest decimal that reads back as it: 1 -> "1", 0.5 -> "0.5", 1e-05 -> "1e-05"."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def epilogue_tags(fields):
    """Name tags of the epilogue fields that are not their defaults ("bias_relu" for bias and relu)."""
    bias, activation = fields.get("bias", False), fields.get("activation", "none")
    tags = ["bias_relu"] if bias is True and activation == "relu" else ["bias"] * (bias is True)
    if activation != "none" and tags != ["bias_relu"]:
        tags.append(str(activation))
    residual = fields.get("residual", "none")
    if residual != "none":
        tags.append(
            {"before_activation": "residual_pre", "after_activation": "residual_post"}.get(residual, "residual")
        )
    scale = str(fields.get("scale", "1"))
    if scale != "1":
        tags.append("scale" + re.sub(r"[^A-Za-z0-9]", "_", scale))
    return tags


def _dims(values):
    return "x".join(str(v) for v in values)


def conv_name(op, spec):
    """A short name from a conv spec's fields: sizes, then each field that is not its default."""
    parts = [op, f"n{spec.n}c{spec.c}_{_dims(spec.spatial)}", f"k{spec.k}", f"f{_dims(spec.filter)}"]
    for tag, field, default in (("s", "stride", 1), ("p", "pad", 0), ("d", "dilation", 1)):
        values = getattr(spec, field)
        if any(v != default for v in values):
            parts.append(tag + _dims(values))
    if spec.groups != 1:
        parts.append(f"g{spec.groups}")
    parts += [spec.layout.lower(), spec.dtype] + epilogue_tags(dataclasses.asdict(spec))
    return "_".join(parts)


def gemm_name(fields):
    """A short name from a GEMM's fields."""
    layouts = (
        str(fields.get("layout_a", "row"))[:1] + str(fields.get("layout_b", "row"))[:1]
    )  # checked later, by GemmSpec
    parts = ["gemm", f"{fields['m']}x{fields['n']}x{fields['k']}", str(fields["dtype"]), layouts, str(fields["out"])]
    return "_".join(parts + epilogue_tags(fields))


def attention_name(fields):
    """A short name from an attention problem's fields."""
    heads = f"h{fields['heads']}" + ("" if fields["kv_heads"] == fields["heads"] else f"kv{fields['kv_heads']}")
    parts = [
        "attention",
        f"b{fields['batch']}",
        heads,
        f"{fields['seq_q']}x{fields['seq_k']}",
        f"d{fields['head_dim']}",
    ]
    parts.append(str(fields["dtype"]))
    return "_".join(
        parts
        + [flag for flag in ("causal",) if fields.get(flag)]
        + (["padding"] if fields.get("mask") == "padding" else [])
    )


def pool_name(spec, whole):
    """A short name from a pool spec: kind, sizes, the window (or global), then each field not its default."""
    parts = ["pool", spec.kind, f"n{spec.n}c{spec.c}_{_dims(spec.spatial)}"]
    if whole:
        parts.append("global")
    else:
        parts.append(f"w{_dims(spec.window)}")
        if spec.stride != spec.window:
            parts.append(f"s{_dims(spec.stride)}")
        if any(spec.pad) or spec.pad_end != spec.pad:
            parts.append(f"p{_dims(spec.pad)}" + ("" if spec.pad_end == spec.pad else f"e{_dims(spec.pad_end)}"))
    return "_".join(parts + (["count_pad"] if spec.count_pad else []) + [spec.layout.lower(), spec.dtype])


def softmax_name(fields):
    """A short name from a softmax problem's fields (the scale's point spelled p)."""
    parts = ["softmax", f"{fields['rows']}x{fields['dim']}", str(fields.get("dtype", "f16"))]
    parts += ["mask"] if fields.get("mask") else []
    scale = str(fields.get("scale", "1"))
    return "_".join(parts + ([] if scale == "1" else ["scale" + scale.replace(".", "p")]))


def norm_name(op, fields):
    """A short name from a layernorm or rmsnorm problem's fields."""
    parts = [op, f"{fields['rows']}x{fields['dim']}", str(fields["dtype"])]
    flags = [flag for flag in ("residual", "residual_out") if fields.get(flag)]
    return "_".join(parts + flags + ([] if fields.get("affine", True) else ["plain"]))
