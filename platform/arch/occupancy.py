"""Occupancy: how many waves of one kernel each SIMD holds at once, the figure
llc prints as "; Occupancy: N", computed from a code object's resource figures
and the arch table (archs.json: waves_per_eu and the Registers facts).

    occupancy.waves_per_simd("gfx942", "llvm23", wave_size=64, vgpr=26, sgpr=44, lds=2048, workgroup_size=256)

It is the least of four bounds, as the AMDGPU backend computes it (LLVM's
GCNSubtarget and AMDGPUMCExpr occupancy; SOURCES.md):
- the arch's most waves per SIMD;
- VGPRs: the SIMD's VGPR file over the kernel's VGPRs (VGPRs plus AGPRs as
  the metadata's .vgpr_count states them) rounded up to the allocation granule;
- SGPRs (gfx9 only; from gfx10 on they bound nothing): the SGPR file over the
  kernel's SGPRs rounded up to their granule;
- LDS and workgroups: how many workgroups' LDS fit the CU's LDS (each
  rounded up to the granule that LLVM version uses: none in LLVM 22, the
  allocation granule in 23 and 24, which differ on gfx11 and gfx12), for the
  workgroup sizes the kernel admits. rocke's lowering states
  "amdgpu-flat-work-group-size"="1,N", and LLVM reports the best case over
  that range, so LDS lowers the figure only where no workgroup size fills
  the CU's wave slots.
toolchains/llvm/occupancy_test.py checks the result against llc's printed
figure on LLVM 22, 23 and 24 for many kernels.
"""

from arch import arch


def _ceil_div(a, b):
    return -(-a // b)


def _round_up(value, granule):
    return _ceil_div(value, granule) * granule


def _by_vgprs(regs, wave_size, vgpr, most):
    granule, file = regs.vgpr_granule[wave_size], regs.vgpr_file[wave_size]
    if vgpr < granule:
        return most
    return min(max(file // _round_up(vgpr, granule), 1), most)


def _by_sgprs(regs, sgpr, most):
    if regs.sgpr_file is None:
        return most
    return min(regs.sgpr_file // _round_up(max(sgpr, 1), regs.sgpr_granule), most)


def _by_lds(regs, flavor, wave_size, lds, workgroup_size, most):
    """The most waves per SIMD that some workgroup size from 1 to
    `workgroup_size` reaches, given the CU's LDS and barriers."""
    lds = _round_up(max(lds, 1), regs.lds_granule_by_llvm[flavor])
    fit = regs.lds_per_cu // lds  # workgroups whose LDS the CU holds
    if fit == 0:
        return 1
    slots = most * regs.eus_per_cu  # wave slots of the CU

    def groups(waves):
        # One-wave workgroups need no barrier; larger ones take one each.
        cap = slots if waves == 1 else min(slots // waves, regs.barriers_per_cu)
        return min(cap, fit)

    big_waves = _ceil_div(workgroup_size, wave_size)
    largest = big_waves * groups(big_waves)  # waves in workgroups of the largest size
    many = groups(1)  # one-wave workgroups: the most of them at once
    if largest >= many:
        waves = largest
    else:  # as many groups as fit, each as large as the wave slots left allow
        waves = many * min(slots // many, big_waves)
    return min(max(_ceil_div(waves, regs.eus_per_cu), 1), most)


def waves_per_simd(name, flavor, wave_size, vgpr, sgpr, lds, workgroup_size):
    """Occupancy of a kernel with these figures on arch `name` as LLVM
    `flavor` counts it (waves per SIMD)."""
    info, regs = arch.get(name), arch.registers(name)
    if wave_size not in regs.vgpr_granule:
        raise ValueError(
            f"occupancy: {name} runs waves of {sorted(regs.vgpr_granule)} lanes, got wave size {wave_size!r}"
        )
    if flavor not in regs.lds_granule_by_llvm:
        raise ValueError(
            f"occupancy: expected a flavor that knows {name}, {sorted(regs.lds_granule_by_llvm)}, got {flavor!r}"
        )
    most = info.waves_per_eu[1]
    return min(
        most,
        _by_vgprs(regs, wave_size, vgpr, most),
        _by_sgprs(regs, sgpr, most),
        _by_lds(regs, flavor, wave_size, lds, workgroup_size, most),
    )
