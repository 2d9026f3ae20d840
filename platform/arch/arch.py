"""The architecture table: one JSON data file (archs.json), read by Python
here and by the C++ mirror (platform/arch/cpp). SOURCES.md says where each figure is from.
Which matrix ops each arch has comes from mma_forms.json (mma_forms.py), and
which LLVM flavors know it from the CPU lists of flavor_facts.json.

    from arch import arch
    arch.get("gfx942").cus         # 304
    arch.ARCHS                     # read-only mapping name -> Arch
"""

import dataclasses
import difflib
import json
import os
import types

from arch import flavor_facts, mma_forms
from errors.errors import FieldError


class UnknownArchError(FieldError):
    """An arch or flavor name the table does not know; the facts (errors.FieldError) are
    the field ("arch" or "flavor"), the name and the known names."""


@dataclasses.dataclass(frozen=True)
class MatrixOp:
    op: str  # target-neutral id, see platform/arch/MMA_FORMS.md
    m: int
    n: int
    k: int
    a: str  # A/B element type
    c: str  # C/D element type
    wave: int


@dataclasses.dataclass(frozen=True)
class Arch:
    name: str
    generation: str  # gfx9, gfx11, gfx12, gfx1250
    cus: int
    xcds: int
    wave_sizes: tuple  # the default first
    lds_bytes: int  # static LDS one workgroup may allocate
    max_workgroup_size: int  # lanes per workgroup
    waves_per_eu: tuple  # (lo, hi): the occupancy targets the arch can meet
    vgprs: int
    agprs: int
    matrix: tuple  # MatrixOp, by op id; from mma_forms.json
    flavors: tuple  # the LLVM flavors that know this arch, oldest first; from flavor_facts.json
    min_llvm: str  # the first of them


@dataclasses.dataclass(frozen=True)
class LdsBanks:
    count: int  # banks an LDS access is spread over
    bytes: int  # bytes each bank serves per cycle


# The LDS bank facts sit in archs.json beside the Arch fields but outside Arch:
# the C++ arch table mirrors Arch field by field (platform/arch/cpp and its
# parity test) and these as its own lds_banks(). Read them with lds_banks(name).
_BANK_FIELDS = {"lds_banks": "count", "lds_bank_bytes": "bytes"}


@dataclasses.dataclass(frozen=True)
class Registers:
    """What bounds how many waves of a kernel share a SIMD (occupancy.py);
    outside Arch for the same reason as LdsBanks."""

    vgpr_granule: dict  # wave size -> VGPRs per lane are allocated in multiples of this
    vgpr_file: dict  # wave size -> VGPRs per lane one SIMD holds for all its waves
    sgpr_file: int  # SGPRs one SIMD holds; None: SGPRs never bound occupancy (gfx10 on)
    sgpr_granule: int  # SGPRs are allocated in multiples of this (None with sgpr_file)
    eus_per_cu: int  # SIMDs per CU (per WGP in gfx10+'s default WGP mode)
    lds_per_cu: int  # LDS bytes the workgroups on one CU (WGP) share
    barriers_per_cu: int  # workgroups of more than one wave a CU holds at once
    lds_granule_by_llvm: dict  # flavor -> bytes its occupancy rounds a kernel's LDS up to (1: none)


_REGISTER_FIELDS = tuple(f.name for f in dataclasses.fields(Registers))
_FIELDS = (
    ({f.name for f in dataclasses.fields(Arch)} - {"name", "matrix", "flavors", "min_llvm"})
    | set(_BANK_FIELDS)
    | set(_REGISTER_FIELDS)
)


def _matrix(path, raw, forms_path):
    """Arch name -> its MatrixOps, from the forms file; every arch a form names
    must be in archs.json, of the form's generation, with the form's wave size."""
    matrix = {name: [] for name in raw}
    for (op, generation), form in sorted(mma_forms.load(forms_path).items()):
        for name in form.archs:
            where = f"{forms_path}: {op}.generations.{generation}.archs"
            if name not in raw:
                raise ValueError(f"{where}: expected archs of {path}, got {name!r}; add the arch there or drop it here")
            if raw[name]["generation"] != generation or form.wave not in raw[name]["wave_sizes"]:
                raise ValueError(
                    f"{where}: expected archs of generation {generation} with wave{form.wave}, got {name} "
                    f"(generation {raw[name]['generation']}, wave sizes {raw[name]['wave_sizes']}); list it under its own generation"
                )
            s = form.shape
            matrix[name].append(MatrixOp(op, s.m, s.n, s.k, s.a, s.c, form.wave))
    return matrix


def _flavors(path, raw, facts_path):
    """Arch name -> the flavors whose CPU list names it; every CPU a flavor
    lists is an arch of archs.json, every arch is known to some flavor, and
    every generation has its lowering facts."""
    flavors, generations, *_ = flavor_facts.load(facts_path)
    for f in flavors.values():
        for cpu in f.cpus:
            if cpu not in raw:
                raise ValueError(
                    f"{facts_path}: flavors.{f.name}.cpus: expected archs of {path}, got {cpu!r}; add the arch there or drop it here"
                )
    known = {name: tuple(f.name for f in flavors.values() if name in f.cpus) for name in raw}
    for name, names in sorted(known.items()):
        if not names:
            raise ValueError(
                f"{path}: {name}: expected an arch some flavor compiles, got one in no flavor's cpus; list it in {facts_path}"
            )
    wanted = sorted({entry["generation"] for entry in raw.values()})
    if sorted(generations) != wanted:
        raise ValueError(
            f"{facts_path}: generations: expected exactly the generations of {path}, {wanted}, got {sorted(generations)}"
        )
    return known


def _load(path, forms_path=mma_forms.PATH, facts_path=flavor_facts.PATH):
    with open(path) as f:
        raw = json.load(f)
    for name, entry in sorted(raw.items()):
        if set(entry) != _FIELDS:
            raise ValueError(f"{path}: {name}: expected keys {sorted(_FIELDS)}, got {sorted(entry)}")
    for name, entry in sorted(raw.items()):
        for key in _BANK_FIELDS:
            value = entry[key]
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{path}: {name}.{key}: expected a positive integer, got {value!r}")
    matrix = _matrix(path, raw, forms_path)
    known = _flavors(path, raw, facts_path)
    for name, entry in sorted(raw.items()):
        if sorted(entry["lds_granule_by_llvm"]) != sorted(known[name]):
            raise ValueError(
                f"{path}: {name}.lds_granule_by_llvm: expected an entry for each flavor that knows it, {sorted(known[name])}, got {sorted(entry['lds_granule_by_llvm'])}"
            )
    table = {}
    for name, entry in sorted(raw.items()):
        table[name] = Arch(
            name=name,
            generation=entry["generation"],
            cus=entry["cus"],
            xcds=entry["xcds"],
            wave_sizes=tuple(entry["wave_sizes"]),
            lds_bytes=entry["lds_bytes"],
            max_workgroup_size=entry["max_workgroup_size"],
            waves_per_eu=tuple(entry["waves_per_eu"]),
            vgprs=entry["vgprs"],
            agprs=entry["agprs"],
            matrix=tuple(matrix[name]),
            flavors=known[name],
            min_llvm=known[name][0],
        )
    banks = {
        name: LdsBanks(**{field: entry[key] for key, field in _BANK_FIELDS.items()})
        for name, entry in sorted(raw.items())
    }
    registers = {name: _registers(path, name, entry) for name, entry in sorted(raw.items())}
    return types.MappingProxyType(table), types.MappingProxyType(banks), types.MappingProxyType(registers)


def _registers(path, name, entry):
    def positive(value):
        return isinstance(value, int) and not isinstance(value, bool) and value > 0

    waves = sorted(str(w) for w in entry["wave_sizes"])
    for key in ("vgpr_granule", "vgpr_file"):
        value = entry[key]
        if not isinstance(value, dict) or sorted(value) != waves or not all(positive(v) for v in value.values()):
            raise ValueError(f"{path}: {name}.{key}: expected a positive integer per wave size {waves}, got {value!r}")
    sgpr = (entry["sgpr_file"], entry["sgpr_granule"])
    if sgpr != (None, None) and not all(positive(v) for v in sgpr):
        raise ValueError(
            f"{path}: {name}.sgpr_file, sgpr_granule: expected two positive integers or both null, got {sgpr!r}"
        )
    for key in ("eus_per_cu", "lds_per_cu", "barriers_per_cu"):
        if not positive(entry[key]):
            raise ValueError(f"{path}: {name}.{key}: expected a positive integer, got {entry[key]!r}")
    granules = entry["lds_granule_by_llvm"]
    if not isinstance(granules, dict) or not all(positive(v) for v in granules.values()):
        raise ValueError(
            f"{path}: {name}.lds_granule_by_llvm: expected a positive integer per flavor, got {granules!r}"
        )
    fields = {key: entry[key] for key in _REGISTER_FIELDS}
    fields["lds_granule_by_llvm"] = types.MappingProxyType(dict(granules))
    for key in ("vgpr_granule", "vgpr_file"):
        fields[key] = types.MappingProxyType({int(w): v for w, v in entry[key].items()})
    return Registers(**fields)


PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "archs.json")
ARCHS, _BANKS, _REGISTERS = _load(PATH)


def get(name):
    """The Arch called `name`; UnknownArchError names the known ones otherwise."""
    if name in ARCHS:
        return ARCHS[name]
    close = difflib.get_close_matches(str(name), ARCHS, n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    raise UnknownArchError(f"arch: expected one of {', '.join(ARCHS)}, got {name!r}.{hint}", "arch", name, list(ARCHS))


def lds_banks(name):
    """The LdsBanks of arch `name` (SOURCES.md says where they are from)."""
    get(name)
    return _BANKS[name]


def registers(name):
    """The Registers of arch `name` (SOURCES.md says where they are from)."""
    get(name)
    return _REGISTERS[name]


def knows(flavor, name):
    """Whether LLVM flavor `flavor` knows arch `name`."""
    if flavor not in flavor_facts.FLAVORS:
        raise UnknownArchError(
            f"knows: expected a flavor in {', '.join(flavor_facts.NAMES)}, got {flavor!r}",
            "flavor",
            flavor,
            list(flavor_facts.NAMES),
        )
    return flavor in get(name).flavors
