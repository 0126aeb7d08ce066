"""Evaluating a parsed tree."""
import math

from .errors import CalcError

FUNCTIONS = {
    "min": (min, 1, None),
    "max": (max, 1, None),
    "abs": (abs, 1, 1),
    "sqrt": (math.sqrt, 1, 1),
}


def _call(name, args):
    if name not in FUNCTIONS:
        raise CalcError(f"unknown function {name!r}")
    fn, lo, hi = FUNCTIONS[name]
    if len(args) < lo or (hi is not None and len(args) > hi):
        raise CalcError(f"{name} takes {lo}{'' if hi == lo else '+'} argument(s), got {len(args)}")
    try:
        return fn(*args)
    except ValueError as exc:
        raise CalcError(f"{name}: {exc}") from None


def _binary(op, a, b):
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "%":
            return a % b
        if op == "^":
            return a ** b
    except OverflowError:
        raise CalcError("number too large") from None
    raise CalcError(f"unknown operator {op!r}")


def evaluate_ast(node, env):
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        return env[node[1]]
    if kind == "neg":
        return -evaluate_ast(node[1], env)
    if kind == "bin":
        return _binary(node[1], evaluate_ast(node[2], env), evaluate_ast(node[3], env))
    if kind == "call":
        return _call(node[1], [evaluate_ast(a, env) for a in node[2]])
    raise CalcError(f"bad node {kind!r}")
