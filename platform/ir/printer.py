"""The text form of a kernel. parser.parse(print_kernel(k)) prints back identically.

    kernel @NAME(%arg: TYPE, ...) {ATTR = VALUE, ...} {
      %0, %1 = OP.NAME(%a, %b) {ATTR = VALUE} : TYPE, TYPE {
      ^(%2: TYPE):
        ...
      }
    }

Kernel arguments keep their names; every other value is numbered in order of
definition, so the text depends only on the kernel's structure. Integers are
decimal, floats the hex of their IEEE double bits (1.0 is 0x3FF0000000000000),
strings printable ASCII with \\XX escapes: SPELLING.md, beside this file,
states every spelling (literals.py implements them).
"""

from ir import literals


def format_attr(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return literals.float_text(value)
    if isinstance(value, str):
        return literals.string_text(value)
    if isinstance(value, list):
        return "[" + ", ".join(format_attr(v) for v in value) + "]"
    raise ValueError(f"expected an attribute value (int, float, str, bool or list), got {value!r}")


def format_attrs(attrs):
    return "{" + ", ".join(f"{k} = {format_attr(attrs[k])}" for k in sorted(attrs)) + "}"


class _Printer:
    def __init__(self, kernel):
        self.names = {a: a.name for a in kernel.args}
        self.counter = 0
        self.lines = []

    def name(self, value):
        if value not in self.names:
            self.names[value] = str(self.counter)
            self.counter += 1
        return "%" + self.names[value]

    def block(self, block, indent):
        if block.args:
            args = ", ".join(f"{self.name(a)}: {a.type}" for a in block.args)
            self.lines.append(" " * (indent - 2) + f"^({args}):")
        for op in block.ops:
            self.op(op, indent)

    def op(self, op, indent):
        text = " " * indent
        if op.results:
            text += ", ".join(self.name(r) for r in op.results) + " = "
        text += f"{op.name}({', '.join(self.name(v) for v in op.operands)})"
        if op.attrs:
            text += " " + format_attrs(op.attrs)
        if op.results:
            text += " : " + ", ".join(str(r.type) for r in op.results)
        if not op.regions:
            self.lines.append(text)
            return
        self.lines.append(text + " {")
        for i, region in enumerate(op.regions):
            if i:
                self.lines.append(" " * indent + "} {")
            self.block(region, indent + 2)
        self.lines.append(" " * indent + "}")


def print_kernel(kernel):
    p = _Printer(kernel)
    args = ", ".join(f"%{a.name}: {a.type}" for a in kernel.args)
    attrs = " " + format_attrs(kernel.attrs) if kernel.attrs else ""
    p.lines.append(f"kernel @{kernel.name}({args}){attrs} {{")
    p.block(kernel.body, 2)
    p.lines.append("}")
    return "\n".join(p.lines) + "\n"
