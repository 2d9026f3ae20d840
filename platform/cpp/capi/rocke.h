/* rocke.h: the C interface to the rocke engine, for applications that
 * generate kernels at run time without Python.
 *
 *   char *rk, *ll, *err;
 *   if (rocke_emit("conv_direct_fwd", case_json, "llvm23", &rk, &ll, &err) != 0) {
 *     fprintf(stderr, "%s\n", err);
 *     rocke_free(err);
 *   }
 *   rocke_compile(ll, "llvm23", "/usr/lib/llvm-23/bin", "k.hsaco", &err);
 *
 * The families are those linked into the program: link the library archive
 * (//library:rocke_library, librocke_library.a) and the core
 * (//platform/cpp:rocke_core, librocke_core.a) or depend on their Bazel
 * targets. Link librocke_library.a whole (-Wl,--whole-archive): nothing
 * names a family's registration, so a plain link drops them all. Every
 * function returns 0 on success; on failure it returns non-zero and sets
 * *error to a message saying what was received, what is allowed and how to
 * fix it (one line, except that a compile error carries the LLVM tool's own
 * message). Every string it returns is malloc'd and
 * NUL-terminated: release it with rocke_free. No function prints, exits or
 * throws.
 */
#ifndef ROCKE_H_
#define ROCKE_H_

#ifdef __cplusplus
extern "C" {
#endif

/* The names of the linked families, one per line, sorted. */
int rocke_families(char** names, char** error);

/* Builds the case `case_json`, one entry of a family's case list
 * ({"arch": ..., "id": ..., "spec": {...}}, the spec as the family's spec
 * class writes it), and lowers it for `flavor` (llvm20, llvm22, llvm23,
 * llvm24). On success *rk holds the kernel's .rk text and *ll its LLVM IR,
 * the same bytes the Python engine writes. */
int rocke_emit(const char* family, const char* case_json, const char* flavor, char** rk, char** ll, char** error);

/* Compiles LLVM IR `ll` (from rocke_emit for `flavor`) with the LLVM whose
 * tools are in `llvm_bin` (opt, llc, ld.lld) and links it into the code
 * object `out_path`, written atomically. The arch is the IR's own target-cpu.
 * llvm20 is llvmlite (Python) and is refused here. */
int rocke_compile(const char* ll, const char* flavor, const char* llvm_bin, const char* out_path, char** error);

void rocke_free(char* p);

#ifdef __cplusplus
}
#endif

#endif /* ROCKE_H_ */
