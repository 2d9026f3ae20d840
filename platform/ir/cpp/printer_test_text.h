// The kernel text printer_test and parser_test share.
#pragma once

namespace rocke::ir::testing {

// Written from printer.py's docstring and SPELLING.md, not from the C++ output.
inline const char* const kText =
    "kernel @k(%n: i32, %out: ptr<global>) {arch = \"gfx942\", wave_size = 64, workgroup_size = [64, 1, 1]} {\n"
    "  %0 = arith.const() {value = 0x3FF0000000000000} : f32\n"
    "  %1 = arith.const() {value = 0} : i32\n"
    "  %2 = arith.const() {value = 1} : i32\n"
    "  %3 = scf.for(%1, %n, %2, %0) : f32 {\n"
    "  ^(%4: i32, %5: f32):\n"
    "    %6 = arith.add(%5, %0) : f32\n"
    "    scf.yield(%6)\n"
    "  }\n"
    "  %7 = arith.cmp(%n, %1) {pred = \"lt\"} : i1\n"
    "  scf.if(%7) {\n"
    "    mem.store(%out, %3)\n"
    "    scf.yield()\n"
    "  } {\n"
    "    scf.yield()\n"
    "  }\n"
    "}\n";

}  // namespace rocke::ir::testing
