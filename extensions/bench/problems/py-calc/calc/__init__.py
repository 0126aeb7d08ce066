"""calc: a small expression calculator.

    evaluate("2 * (3 + x)", {"x": 1})  ->  8

Numbers (2, 2.5, .5), variables, + - * / % ^ (power, right-associative,
binding tighter than unary minus: -2^2 is -4), parentheses and the functions
min, max, abs and sqrt.  Every error, whatever its cause, is a CalcError.
"""
from .errors import CalcError
from .evaluator import evaluate_ast
from .parser import parse


def evaluate(text, env=None):
    return evaluate_ast(parse(text), env or {})


__all__ = ["CalcError", "evaluate", "parse"]
