"""Parses the text form (printer.py) back into a Kernel.

Any malformed input raises ParseError with the line and column where it went
wrong; parse() never raises anything else. The result is not verified: call
verifier.verify on it. Literals are read in their one canonical spelling
(SPELLING.md, literals.py); a decimal float such as 1.0 is refused with the
spelling to use.
"""

import re

from errors.errors import FieldError

from ir import literals
from ir import types as T
from ir.core import MAX_NESTING, Block, Kernel, Op, Value

# The IR's integers are at most 64-bit: 20 digits. (Python's int() also
# refuses literals over 4300 digits with a plain ValueError.)
MAX_INT_DIGITS = 20


class ParseError(FieldError):
    """Malformed text at `line` and `column`. The facts (errors.FieldError):
    field "line L, column C", value the offending token's text (a type's
    name for input that is not text)."""

    def __init__(self, message, line, column, value):
        where = f"line {line}, column {column}"
        super().__init__(f"{where}: {message}", where, value)
        self.line = line
        self.column = column
        self.message = message

    def __reduce__(self):
        return type(self), (self.message, self.line, self.column, self.value)


_TOKEN = re.compile(
    r"""(?P<ws>\s+|//[^\n]*)
      | (?P<value>%[A-Za-z0-9_]+)
      | (?P<symbol>@[A-Za-z_][A-Za-z0-9_]*)
      | (?P<float>-?0[xX][0-9A-Za-z]*)
      | (?P<decimal_float>-?(\d+\.\d*([eE][+-]?\d+)?|\d+[eE][+-]?\d+))
      | (?P<int>-?\d+)
      | (?P<string>"([^"\\]|\\.)*")
      | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
      | (?P<punct>[(){}\[\],:=^<>])""",
    re.X,
)


def _tokens(text):
    pos, line, line_start = 0, 1, 0
    out = []
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ParseError(f"unexpected character {text[pos]!r}", line, pos - line_start + 1, text[pos])
        kind = match.lastgroup
        if kind == "int" and len(match.group().lstrip("-")) > MAX_INT_DIGITS:
            raise ParseError(
                f"expected an integer of at most {MAX_INT_DIGITS} digits, got one of {len(match.group().lstrip('-'))}",
                line,
                pos - line_start + 1,
                match.group(),
            )
        if kind != "ws":
            out.append((kind, match.group(), line, pos - line_start + 1))
        for i, ch in enumerate(match.group()):
            if ch == "\n":
                line, line_start = line + 1, pos + i + 1
        pos = match.end()
    out.append(("eof", "end of input", line, pos - line_start + 1))
    return out


class _Parser:
    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0
        self.scopes = [{}]
        self.open = {"regions": 0, "lists": 0}  # how many enclose the current token

    # -- tokens -------------------------------------------------------------
    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def error(self, what, tok=None):
        kind, text, line, col = tok or self.peek()
        raise ParseError(f"expected {what}, got {text!r}", line, col, text)

    def take(self, kind, text=None):
        tok = self.peek()
        if tok[0] != kind or (text is not None and tok[1] != text):
            self.error(repr(text) if text else kind)
        self.i += 1
        return tok

    def at(self, text):
        return self.peek()[1] == text and self.peek()[0] in ("punct", "ident")

    def accept(self, text):
        if self.at(text):
            self.i += 1
            return True
        return False

    def nest(self, kind, tok, delta):
        self.open[kind] += delta
        if self.open[kind] > MAX_NESTING:
            self.error(f"{kind} nested at most {MAX_NESTING} deep", tok)

    # -- values -------------------------------------------------------------
    def define(self, tok, type_):
        name = tok[1][1:]
        if any(name in scope for scope in self.scopes):
            self.error(f"a new value name (%{name} is already defined)", tok)
        value = Value(type_, name if not name.isdigit() else None)
        self.scopes[-1][name] = value
        return value

    def use(self):
        tok = self.take("value")
        for scope in reversed(self.scopes):
            if tok[1][1:] in scope:
                return scope[tok[1][1:]]
        self.error(f"a value defined before use ({tok[1]} is not)", tok)

    # -- types and attributes -----------------------------------------------
    def type(self):
        tok = self.take("ident")
        if tok[1] in T.SCALARS:
            return T.SCALARS[tok[1]]
        if tok[1] == "ptr":
            self.take("punct", "<")
            space = self.take("ident")
            self.take("punct", ">")
            if space[1] not in T.ADDRESS_SPACES:
                self.error(f"an address space ({', '.join(T.ADDRESS_SPACES)})", space)
            return T.ptr(space[1])
        if tok[1] == "vector":
            self.take("punct", "<")
            n = self.take("int")
            elem = self.take("ident")
            self.take("punct", ">")
            if not elem[1].startswith("x") or elem[1][1:] not in T.SCALARS or not 2 <= int(n[1]) <= 64:
                self.error("vector<Nx TYPE> with N in 2..64 and a scalar TYPE", elem)
            return T.vector(T.SCALARS[elem[1][1:]], int(n[1]))
        self.error(f"a type ({', '.join(T.SCALARS)}, vector<NxT>, ptr<SPACE>)", tok)

    def attr_value(self):
        kind, text, _, _ = tok = self.peek()
        self.i += 1
        if kind == "int":
            return int(text)
        if kind in ("float", "string"):
            try:
                return literals.read_float(text) if kind == "float" else literals.read_string(text)
            except ValueError as e:
                raise ParseError(str(e), tok[2], tok[3], text) from None
        if kind == "decimal_float" or (kind == "ident" and text in ("inf", "nan")):
            self.error(
                "a float spelled as the hex of its IEEE double bits (e.g. 1.0 is 0x3FF0000000000000, inf 0x7FF0000000000000)",
                tok,
            )
        if kind == "ident" and text in ("true", "false"):
            return text == "true"
        if text == "[":
            self.nest("lists", tok, 1)
            items = []
            while not self.accept("]"):
                if items:
                    self.take("punct", ",")
                items.append(self.attr_value())
            self.nest("lists", tok, -1)
            return items
        self.error("an attribute value", tok)

    def attrs(self):
        attrs = {}
        self.take("punct", "{")
        while not self.accept("}"):
            if attrs:
                self.take("punct", ",")
            key = self.take("ident")
            if key[1] in attrs:
                self.error(f"a new attribute name ({key[1]} repeats)", key)
            self.take("punct", "=")
            attrs[key[1]] = self.attr_value()
        return attrs

    def starts_attrs(self):
        return self.at("{") and self.peek(1)[0] == "ident" and self.peek(2)[1] == "="

    # -- structure ----------------------------------------------------------
    def block(self):
        self.nest("regions", self.take("punct", "{"), 1)
        self.scopes.append({})
        args = []
        if self.accept("^"):
            self.take("punct", "(")
            while not self.accept(")"):
                if args:
                    self.take("punct", ",")
                tok = self.take("value")
                self.take("punct", ":")
                args.append(self.define(tok, self.type()))
            self.take("punct", ":")
        block = Block(args, [])
        while not self.accept("}"):
            block.ops.append(self.op())
        self.scopes.pop()
        self.nest("regions", None, -1)
        return block

    def op(self):
        result_toks = []
        if self.peek()[0] == "value":
            result_toks.append(self.take("value"))
            while self.accept(","):
                result_toks.append(self.take("value"))
            self.take("punct", "=")
        name = self.take("ident")[1]
        self.take("punct", "(")
        operands = []
        while not self.accept(")"):
            if operands:
                self.take("punct", ",")
            operands.append(self.use())
        attrs = self.attrs() if self.starts_attrs() else {}
        types_ = []
        if result_toks:
            self.take("punct", ":")
            types_ = [self.type()]
            while self.accept(","):
                types_.append(self.type())
            if len(types_) != len(result_toks):
                self.error(f"{len(result_toks)} result type(s)")
        regions = []
        while self.at("{"):
            regions.append(self.block())
        results = tuple(self.define(tok, t) for tok, t in zip(result_toks, types_))
        return Op(name, tuple(operands), results, attrs, tuple(regions))

    def kernel(self):
        self.take("ident", "kernel")
        name = self.take("symbol")[1][1:]
        self.take("punct", "(")
        args = []
        while not self.accept(")"):
            if args:
                self.take("punct", ",")
            tok = self.take("value")
            if tok[1][1:].isdigit():
                self.error("an argument name that is not a number", tok)
            self.take("punct", ":")
            args.append(self.define(tok, self.type()))
        attrs = self.attrs() if self.starts_attrs() else {}
        body = self.block()
        self.take("eof")
        return Kernel(name, args, attrs, body)


def parse(text):
    """Parse one kernel; raise ParseError (with line and column) on bad input."""
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}", 1, 1, type(text).__name__)
    return _Parser(text).kernel()
