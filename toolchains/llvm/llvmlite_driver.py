"""LLVM 20 through llvmlite: a worker process that serves many requests.

LLVM 20 aborts the whole process on some inputs (an unknown CPU ends in
"LLVM ERROR: Cannot select"), so toolchains/llvm/llvm.py runs this file in
the llvm20 environment as a separate process, and keeps it for the next
request; when LLVM ends it, that request fails with LLVM's words and the next
one starts a fresh worker.

The protocol: one JSON object per line each way.
  request   {"op": OP, "text": IR, "cpu": CPU, "triple": TRIPLE}
  response  {"result": ...} or {"error": LLVM's message}, and "maxrss": the
            worker's peak resident size in bytes (llvm.py replaces a worker grown too big)
OP is verify, compile ({"obj": base64, "stages": {stage: CPU seconds}}),
datalayout, reprint or version.

Where a compile's time goes: parse, -O2 and codegen are LLVM's; the JSON and
base64 round trip is a small part of a kernel's time. This wheel's LLVM is
built with assertions on, which makes -O2 and codegen slower than the root's
LLVM 22 on the same IR (docs/figures/llvm-time.md has the figures).
"""

import base64
import json
import resource
import sys
import time

import llvmlite.binding as llvm


def parse(text, context=None):
    module = llvm.parse_assembly(text, context)
    module.verify()
    return module


def target_machine(triple, cpu):
    # The CPU always goes to the TargetMachine: the "target-cpu" attribute
    # alone leaves the object tagged for gfx700.
    return llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, opt=2, reloc="pic", codemodel="default")


def op_verify(request):
    parse(request["text"])
    return {}


def op_compile(request):
    # One parse, one -O2 middle end (as opt -O2 runs for the other flavors:
    # LLVM 20's codegen alone cannot select the control-flow intrinsics it
    # inserts for divergent branches), one codegen to an object. The module
    # gets a context of its own, as in capi.py: nothing a kernel leaves in
    # LLVM's context (types, constants, metadata) reaches the next one.
    # llvmlite's pass builder builds buildPerModuleDefaultPipeline(O2) with
    # default tuning options, the pipeline "default<O2>" names in capi.py;
    # opt=2 is the codegen level llc -O2 and capi.py use; emit_object is the
    # C API's LLVMTargetMachineEmitToMemoryBuffer, as in capi.py. inproc_test
    # checks that one compile runs the pipeline once and codegen once.
    start = time.process_time()
    module = parse(request["text"], llvm.create_context())
    if request.get("triple"):
        module.triple = request["triple"]
    tm = target_machine(module.triple, request["cpu"])
    parsed = time.process_time()
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    builder.getModulePassManager().run(module, builder)
    optimised = time.process_time()
    obj = tm.emit_object(module)
    stages = {"parse": parsed - start, "o2": optimised - parsed, "codegen": time.process_time() - optimised}
    return {"obj": base64.b64encode(obj).decode(), "stages": stages}


def op_reprint(request):
    # Parsing runs LLVM's AutoUpgrade, as llvm-as does.
    return {"ir": str(parse(request["text"]))}


def op_datalayout(request):
    return {"datalayout": str(target_machine(request["triple"], request["cpu"]).target_data)}


def op_version(request):
    return {"version": ".".join(map(str, llvm.llvm_version_info))}


OPS = {
    "verify": op_verify,
    "compile": op_compile,
    "reprint": op_reprint,
    "datalayout": op_datalayout,
    "version": op_version,
}


def main():
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = {"result": OPS[request["op"]](request)}
        except RuntimeError as e:
            response = {"error": str(e)}
        response["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
        sys.stderr.flush()  # its warnings belong to this request
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
