"""platform/emu: runs AMDGPU code objects on the CPU (README.md).

from emu import emu
prog = emu.program(code_object_bytes, "kernel_name", toolchain)
result = emu.launch(prog, grid=(4, 2), block=(256,), args=[a, b, c, 128])
"""
