"""The LLVM flavor facts: one JSON data file (flavor_facts.json), read by
Python here and by the C++ mirror through headers generated from it
(platform/arch/cpp:flavor_cpus_data, platform/lower/cpp:flavor_facts_data).
FLAVOR_FACTS.md (beside this file) says why it lives here, its schema and its
canonical form.

    from arch import flavor_facts
    f = flavor_facts.FLAVORS["llvm24"]
    f.version, f.cpus, f.triple("gfx950")      # "24.0.0", (...), "amdgpu9.50-amd-amdhsa"
    flavor_facts.GENERATIONS["gfx12"].barrier      # "split"
    flavor_facts.BUFFER_ACCESS[8]               # Access(type="<2 x i32>", suffix="v2i32")
    flavor_facts.INTRINSICS["smin"]             # Intrinsic(name="llvm.smin", overloaded=True)

toolchains/llvm:conformance_test asserts every measured fact against the real
LLVM of each flavor; the lowering (platform/lower) emits from these tables.
"""

import dataclasses
import json
import os
import re
import types

from arch.schema import Schema

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flavor_facts.json")

# How the target triple is spelled: "amdgcn" is amdgcn-amd-amdhsa for every
# arch; "subarch" is amdgpuX.YY-amd-amdhsa (llvm24 warns on the plain one).
TRIPLE_KINDS = ("amdgcn", "subarch")
# What compiling a gfx950 kernel with a triple does: "ok" (exit 0, no
# warning), "warn" (exit 0 with a deprecation warning), "reject" (an error).
TRIPLE_VERDICTS = ("ok", "reject", "warn")
# The record-count operand type of llvm.amdgcn.make.buffer.rsrc.
COUNT_TYPES = ("i32", "i64")
# "single": one s.barrier; "split": s.barrier.signal then s.barrier.wait.
BARRIERS = ("single", "split")
AXES = 3  # x, y, z


class FlavorFactsError(ValueError):
    """flavor_facts.json breaks its schema."""


@dataclasses.dataclass(frozen=True)
class Flavor:
    name: str  # llvmNN, NN the major version
    version: str  # what the tool must report
    datalayout: str  # the target machine's, as the module states it
    triple_kind: str  # one of TRIPLE_KINDS
    # Code object version, stated as a module flag so every flavor agrees
    # with the default of 22-24 (LLVM 20 would otherwise emit 5).
    code_object_version: int
    rsrc_intrinsic: str  # make.buffer.rsrc's name on this LLVM
    rsrc_count_type: str  # one of COUNT_TYPES
    cpus: tuple  # the archs this LLVM compiles, sorted; the lowering accepts exactly these
    reports_occupancy: bool  # whether its assembly carries "; Occupancy: N"
    triples: types.MappingProxyType  # triple spelling -> one of TRIPLE_VERDICTS

    def triple(self, arch):
        if self.triple_kind == "amdgcn":
            return "amdgcn-amd-amdhsa"
        digits = arch.removeprefix("gfx")
        return f"amdgpu{digits[:-2]}.{digits[-2:]}-amd-amdhsa"


@dataclasses.dataclass(frozen=True)
class Generation:
    buffer_flags: int  # word 3 of a buffer resource
    barrier: str  # one of BARRIERS


@dataclasses.dataclass(frozen=True)
class Access:
    type: str  # the integer type a buffer load/store of this many bytes moves
    suffix: str  # the intrinsic's overload suffix for it


@dataclasses.dataclass(frozen=True)
class Intrinsic:
    name: str  # the spelling, or its stem when overloaded
    # Whether LLVM overloads it on a type: then the called name is
    # NAME.SUFFIX, SUFFIX the overload's type (lower.intrinsics.spell).
    overloaded: bool


_TOP_KEYS = ("buffer_access", "flavors", "generations", "ids", "intrinsics")
_FLAVOR_KEYS = (
    "code_object_version",
    "cpus",
    "datalayout",
    "reports_occupancy",
    "rsrc",
    "triple",
    "triples",
    "version",
)
_RSRC_KEYS = ("count_type", "intrinsic")
_GENERATION_KEYS = ("barrier", "buffer_flags")
_ACCESS_KEYS = ("suffix", "type")
_ID_KEYS = ("workgroup", "workitem")
_INTRINSIC_KEYS = ("name", "overloaded")


_S = Schema(FlavorFactsError, "platform/arch/FLAVOR_FACTS.md")
_check, _keys, _int, _name, _choice, _names = _S.check, _S.keys, _S.int_in, _S.name, _S.choice, _S.names


def _flavor(name, raw, where):
    _keys(raw, _FLAVOR_KEYS, where)
    _check(
        isinstance(raw["version"], str) and re.fullmatch(r"\d+\.\d+\.\d+", raw["version"]),
        f"{where}.version",
        "a version N.N.N",
        raw["version"],
    )
    major = raw["version"].split(".")[0]
    _check(name == f"llvm{major}", where, f"the name its version spells, llvm{major}", name)
    _name(raw["datalayout"], f"{where}.datalayout")
    _choice(raw["triple"], TRIPLE_KINDS, f"{where}.triple")
    _int(raw["code_object_version"], 400, 9999, f"{where}.code_object_version")
    _keys(raw["rsrc"], _RSRC_KEYS, f"{where}.rsrc")
    _name(raw["rsrc"]["intrinsic"], f"{where}.rsrc.intrinsic")
    _choice(raw["rsrc"]["count_type"], COUNT_TYPES, f"{where}.rsrc.count_type")
    _check(
        isinstance(raw["reports_occupancy"], bool),
        f"{where}.reports_occupancy",
        "true or false",
        raw["reports_occupancy"],
    )
    _check(
        isinstance(raw["triples"], dict) and raw["triples"],
        f"{where}.triples",
        "a non-empty object triple -> verdict",
        raw["triples"],
    )
    for triple, verdict in raw["triples"].items():
        _choice(verdict, TRIPLE_VERDICTS, f"{where}.triples.{triple}")
    return Flavor(
        name=name,
        version=raw["version"],
        datalayout=raw["datalayout"],
        triple_kind=raw["triple"],
        code_object_version=raw["code_object_version"],
        rsrc_intrinsic=raw["rsrc"]["intrinsic"],
        rsrc_count_type=raw["rsrc"]["count_type"],
        cpus=_names(raw["cpus"], f"{where}.cpus"),
        reports_occupancy=raw["reports_occupancy"],
        triples=types.MappingProxyType(dict(sorted(raw["triples"].items()))),
    )


def _version_key(flavor):
    return tuple(int(part) for part in flavor.version.split("."))


def _access(size, raw, where):
    _check(size.isdigit() and str(int(size)) == size and int(size) > 0, where, "a byte count spelled in decimal", size)
    _keys(raw, _ACCESS_KEYS, where)
    _name(raw["type"], f"{where}.type")
    _name(raw["suffix"], f"{where}.suffix")
    return int(size), Access(raw["type"], raw["suffix"])


def _intrinsic(key, raw, where):
    _check(re.fullmatch(r"[a-z][a-z0-9_]*", key), where, "a key of lower-case letters, digits and _", key)
    _keys(raw, _INTRINSIC_KEYS, where)
    _check(
        isinstance(raw["name"], str) and re.fullmatch(r"llvm(\.[a-z0-9_]+)+", raw["name"]),
        f"{where}.name",
        "an intrinsic name llvm.WORD.WORD...",
        raw["name"],
    )
    _check(isinstance(raw["overloaded"], bool), f"{where}.overloaded", "true or false", raw["overloaded"])
    return key, Intrinsic(raw["name"], raw["overloaded"])


def load(path=PATH):
    """(FLAVORS, GENERATIONS, BUFFER_ACCESS, IDS, INTRINSICS), read-only. FlavorFactsError
    names the file and the entry on bad data."""
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise FlavorFactsError(f"{path}: expected a readable JSON file, got {err}") from None
    _keys(raw, _TOP_KEYS, path)
    where = f"{path}: flavors"
    _check(
        isinstance(raw["flavors"], dict) and raw["flavors"], where, "a non-empty object flavor -> facts", raw["flavors"]
    )
    flavors = sorted((_flavor(n, e, f"{where}.{n}") for n, e in raw["flavors"].items()), key=_version_key)
    # Every flavor is measured on the same triple spellings.
    for f in flavors:
        _check(
            set(f.triples) == set(flavors[0].triples),
            f"{where}.{f.name}.triples",
            f"the triples of {flavors[0].name}, {sorted(flavors[0].triples)}",
            sorted(f.triples),
        )
    where = f"{path}: generations"
    _check(
        isinstance(raw["generations"], dict) and raw["generations"],
        where,
        "a non-empty object generation -> facts",
        raw["generations"],
    )
    generations = {}
    for name, entry in sorted(raw["generations"].items()):
        _keys(entry, _GENERATION_KEYS, f"{where}.{name}")
        _int(entry["buffer_flags"], 0, 2**32 - 1, f"{where}.{name}.buffer_flags")
        _choice(entry["barrier"], BARRIERS, f"{where}.{name}.barrier")
        generations[name] = Generation(entry["buffer_flags"], entry["barrier"])
    where = f"{path}: buffer_access"
    _check(
        isinstance(raw["buffer_access"], dict) and raw["buffer_access"],
        where,
        "a non-empty object bytes -> access",
        raw["buffer_access"],
    )
    access = dict(sorted(_access(size, entry, f"{where}.{size}") for size, entry in raw["buffer_access"].items()))
    where = f"{path}: ids"
    _keys(raw["ids"], _ID_KEYS, where)
    ids = {}
    for key in _ID_KEYS:
        names = raw["ids"][key]
        _check(
            isinstance(names, list) and len(names) == AXES,
            f"{where}.{key}",
            f"a list of {AXES} intrinsics (x, y, z)",
            names,
        )
        for n in names:
            _name(n, f"{where}.{key}")
        ids[key] = tuple(names)
    where = f"{path}: intrinsics"
    _check(
        isinstance(raw["intrinsics"], dict) and raw["intrinsics"],
        where,
        "a non-empty object key -> intrinsic",
        raw["intrinsics"],
    )
    intrinsics = dict(sorted(_intrinsic(key, entry, f"{where}.{key}") for key, entry in raw["intrinsics"].items()))
    return (
        types.MappingProxyType({f.name: f for f in flavors}),
        types.MappingProxyType(generations),
        types.MappingProxyType(access),
        types.MappingProxyType(ids),
        types.MappingProxyType(intrinsics),
    )


FLAVORS, GENERATIONS, BUFFER_ACCESS, IDS, INTRINSICS = load()
# The flavor names, oldest LLVM first.
NAMES = tuple(FLAVORS)
