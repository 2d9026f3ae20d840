"""LLVM 20 through llvmlite, one operation per process.

LLVM 20 aborts the whole process on some inputs (an unknown CPU ends in
"LLVM ERROR: Cannot select"), so toolchains/llvm/llvm.py runs this file in a
fresh interpreter (the llvm20 environment) for every call. It reads IR on
stdin and writes one JSON object on stdout.

  llvmlite_driver.py verify
  llvmlite_driver.py verify_many   (stdin: a JSON list of modules; stdout: a
                                   list of null or the error of each)
  llvmlite_driver.py compile --cpu CPU [--triple TRIPLE]
  llvmlite_driver.py datalayout --cpu CPU --triple TRIPLE
  llvmlite_driver.py reprint
  llvmlite_driver.py version
"""

import argparse
import base64
import json
import sys

import llvmlite.binding as llvm


def init():
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def parse(text):
    module = llvm.parse_assembly(text)
    module.verify()
    return module


def target_machine(triple, cpu):
    # The CPU always goes to the TargetMachine: the "target-cpu" attribute
    # alone leaves the object tagged for gfx700.
    return llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, opt=2, reloc="pic", codemodel="default")


def op_verify(args, text):
    parse(text)
    return {}


def op_verify_many(args, text):
    verdicts = []
    for module in json.loads(text):
        try:
            parse(module)
        except RuntimeError as e:
            verdicts.append(str(e))
        else:
            verdicts.append(None)
    return verdicts


def op_compile(args, text):
    def optimised():
        # Codegen rewrites the module it runs on (divergent branches become
        # llvm.amdgcn.if calls), so assembly and object each get a fresh one.
        module = parse(text)
        if args.triple:
            module.triple = args.triple
        # The -O2 middle end first, as llvm.py does with opt for the other flavors.
        builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
        builder.getModulePassManager().run(module, builder)
        return module

    tm = target_machine(args.triple or parse(text).triple, args.cpu)
    asm = tm.emit_assembly(optimised())
    obj = tm.emit_object(optimised())
    return {"asm": asm, "obj": base64.b64encode(obj).decode()}


def op_reprint(args, text):
    # Parsing runs LLVM's AutoUpgrade, as llvm-as does.
    return {"ir": str(parse(text))}


def op_datalayout(args, text):
    return {"datalayout": str(target_machine(args.triple, args.cpu).target_data)}


def op_version(args, text):
    return {"version": ".".join(map(str, llvm.llvm_version_info))}


OPS = {"verify": op_verify, "verify_many": op_verify_many, "compile": op_compile, "reprint": op_reprint, "datalayout": op_datalayout, "version": op_version}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("op", choices=sorted(OPS))
    parser.add_argument("--cpu", default="")
    parser.add_argument("--triple", default="")
    args = parser.parse_args()
    init()
    text = sys.stdin.read() if args.op in ("verify", "verify_many", "compile", "reprint") else ""
    try:
        result = OPS[args.op](args, text)
    except RuntimeError as e:
        print(str(e), file=sys.stderr)
        return 1
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
