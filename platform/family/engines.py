"""One dispatch over the two engines.

    out = lower_family(fam, case, "llvm23", engine="both", cpp=rocke_library_engine)
    out.rk, out.ll, out.name  # the kernel's .rk text, its LLVM IR and its symbol

engine="python" builds the case with the family's Python builder and lowers
it with platform/lower; engine="cpp" hands the case (its JSON entry, as in
NAME.cases.json) to the C++ engine given as `cpp`: the module
rocke_library_engine that the library builds (//library/engine:engine), which
the caller imports and passes in (platform code never names library code);
engine="both" runs the two and raises EngineMismatch, naming the case and the
first differing line, unless they agree byte for byte, or unless both refuse
the case with an ArchDomainError of the same facts.

    outs = lower_flavors(fam, case, FLAVORS, engine="both", cpp=rocke_library_engine)

does the same for several flavors at once: {flavor: Emitted, or the
ArchDomainError that flavor raised}. The Python engine builds, prints and
verifies the kernel once for all of them (none of that depends on the flavor;
it costs far more than the lowering).
"""

import dataclasses

from family import cases_json
from family.texts import first_difference
from ir.printer import print_kernel
from lower.flavors import ArchDomainError
from lower.llvm import lower_each

ENGINES = ("python", "cpp", "both")


class EngineMismatch(AssertionError):
    """The Python and C++ engines made different bytes for one case."""


@dataclasses.dataclass(frozen=True)
class Emitted:
    rk: str  # the .rk text
    ll: str  # the LLVM IR
    name: str  # the kernel's symbol, as its builder named it


def case_json(case):
    """A case's entry of the case list, as canonical JSON text."""
    return cases_json.canonical({"arch": case.arch, "id": case.id, "spec": case.spec.to_json()}, f"case {case.id}")


def _python(fam, case, flavors):
    try:
        kernel = fam.build(case)
    except ArchDomainError as e:  # the case's arch refused by the builder: every flavor's answer
        return dict.fromkeys(flavors, e)
    rk = print_kernel(kernel)
    return {
        flavor: ll if isinstance(ll, ArchDomainError) else Emitted(rk, ll, kernel.name)
        for flavor, ll in lower_each(kernel, flavors, verified=True).items()
    }


def _cpp(fam, case, flavors, cpp):
    entry = case_json(case)
    out = {}
    for flavor in flavors:
        try:
            out[flavor] = Emitted(*cpp.emit(fam.name, entry, flavor))
        except ArchDomainError as e:
            out[flavor] = e
    return out


def compare(case_id, py, cpp):
    """Raises EngineMismatch at the first difference of .rk text, then of LLVM IR
    (the kernel's name is in both)."""
    for what, a, b in (
        ("the .rk text (the builders differ)", py.rk, cpp.rk),
        ("the LLVM IR (the lowerings differ)", py.ll, cpp.ll),
    ):
        diff = first_difference(a, b)
        if diff is not None:
            line, x, y = diff
            raise EngineMismatch(
                f"case {case_id}: Python and C++ differ in {what} at line {line}:\n  python: {x}\n  c++:    {y}"
            )


def compare_refusals(case_id, flavor, py, cpp):
    """Raises EngineMismatch unless the two engines' outcomes for one flavor are
    both output or both an ArchDomainError of the same facts."""
    refused = isinstance(py, ArchDomainError), isinstance(cpp, ArchDomainError)
    if refused == (True, True) and py.facts() != cpp.facts():
        raise EngineMismatch(
            f"case {case_id}, {flavor}: both engines refuse it, with different facts:\n"
            f"  python: {py.facts()}\n  c++:    {cpp.facts()}"
        )
    if refused[0] != refused[1]:
        which, error = ("Python", py) if refused[0] else ("C++", cpp)
        raise EngineMismatch(f"case {case_id}, {flavor}: only {which} refuses it: {error}")


def _check_engine(function, engine, cpp):
    """ValueError, naming `function` (the one the caller called), unless
    `engine` is one of ENGINES and the C++ engine `cpp` is given where it is needed."""
    if engine not in ENGINES:
        raise ValueError(f"{function}: expected engine to be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine != "python" and cpp is None:
        raise ValueError(
            f'{function}: engine="{engine}" needs the C++ engine, got cpp=None; '
            "import rocke_library_engine (//library/engine:engine) and pass it as cpp="
        )


def lower_flavors(fam, case, flavors, engine="python", cpp=None):
    """{flavor: the case's Emitted from the chosen engine, or the ArchDomainError
    that flavor raised} for each of `flavors`; `cpp` as for lower_family (see the
    module doc). With engine="both", EngineMismatch unless the engines agree on
    every flavor: the same bytes, or a refusal with the same facts."""
    _check_engine("lower_flavors", engine, cpp)
    if engine == "python":
        return _python(fam, case, flavors)
    if engine == "cpp":
        return _cpp(fam, case, flavors, cpp)
    py, made = _python(fam, case, flavors), _cpp(fam, case, flavors, cpp)
    for flavor in flavors:
        compare_refusals(case.id, flavor, py[flavor], made[flavor])
        if not isinstance(py[flavor], ArchDomainError):
            compare(case.id, py[flavor], made[flavor])
    return py


def lower_family(fam, case, flavor, engine="python", cpp=None):
    """The case's .rk text and LLVM IR from the chosen engine; `cpp` is the C++
    engine module, needed by engine="cpp" and "both" (see the module doc). A
    flavor that cannot express the case raises its ArchDomainError."""
    _check_engine("lower_family", engine, cpp)
    out = lower_flavors(fam, case, [flavor], engine, cpp)[flavor]
    if isinstance(out, ArchDomainError):
        raise out
    return out
