"""Tokens to a tree of tuples: ("num", v), ("var", name), ("neg", x), ("bin", op, a, b), ("call", name, args).

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "/" | "%") unary)*
    unary := "-" unary | power
    power := atom ("^" unary)?          right-associative, above unary minus
    atom  := NUMBER | NAME | NAME "(" [expr ("," expr)*] ")" | "(" expr ")"
"""
from .errors import CalcError
from .lexer import tokenize


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def take(self):
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, op):
        tok = self.take()
        if tok != ("op", op):
            raise CalcError(f"expected {op!r}, got {tok[1]!r}")

    def expr(self):
        left = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            left = ("bin", op, left, self.term())
        return left

    def term(self):
        left = self.unary()
        while self.peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = self.take()[1]
            left = ("bin", op, left, self.unary())
        return left

    def unary(self):
        return self.power()

    def power(self):
        base = self.atom()
        while self.peek() == ("op", "^"):
            self.take()
            base = ("bin", "^", base, self.atom())
        return base

    def atom(self):
        kind, value = self.take()
        if kind == "num":
            return ("num", value)
        if kind == "name":
            if self.peek() == ("op", "("):
                self.take()
                args = []
                if self.peek() != ("op", ")"):
                    args.append(self.expr())
                    while self.peek() == ("op", ","):
                        self.take()
                        args.append(self.expr())
                self.expect(")")
                return ("call", value, args)
            return ("var", value)
        if (kind, value) == ("op", "-"):
            return ("neg", self.atom())
        if (kind, value) == ("op", "("):
            inner = self.expr()
            self.expect(")")
            return inner
        raise CalcError(f"unexpected {value if value is not None else 'end of input'!r}")


def parse(text):
    p = _Parser(tokenize(text))
    tree = p.expr()
    if p.peek()[0] != "end":
        raise CalcError(f"unexpected {p.peek()[1]!r} after the expression")
    return tree
