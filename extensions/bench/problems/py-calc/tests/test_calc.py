import unittest

from calc import CalcError, evaluate


class TestArithmetic(unittest.TestCase):
    def test_integer(self):
        self.assertEqual(evaluate("42"), 42)

    def test_decimal(self):
        self.assertEqual(evaluate("2.5 * 2"), 5)

    def test_leading_dot(self):
        self.assertEqual(evaluate(".5 + .25"), 0.75)

    def test_precedence(self):
        self.assertEqual(evaluate("1 + 2 * 3"), 7)

    def test_left_assoc_minus(self):
        self.assertEqual(evaluate("10 - 4 - 3"), 3)

    def test_parens(self):
        self.assertEqual(evaluate("(1 + 2) * 3"), 9)

    def test_modulo(self):
        self.assertEqual(evaluate("17 % 5"), 2)

    def test_power_right_assoc(self):
        self.assertEqual(evaluate("2 ^ 3 ^ 2"), 512)

    def test_unary_minus_below_power(self):
        self.assertEqual(evaluate("-2 ^ 2"), -4)

    def test_negative_exponent(self):
        self.assertEqual(evaluate("2 ^ -1"), 0.5)

    def test_double_negation(self):
        self.assertEqual(evaluate("--3"), 3)


class TestNames(unittest.TestCase):
    def test_variable(self):
        self.assertEqual(evaluate("x * 2", {"x": 4}), 8)

    def test_functions(self):
        self.assertEqual(evaluate("max(1, 7, 3) + min(4, 2)"), 9)

    def test_sqrt(self):
        self.assertEqual(evaluate("sqrt(16)"), 4)

    def test_nested_call(self):
        self.assertEqual(evaluate("abs(min(-3, 2) * 2)"), 6)


class TestErrors(unittest.TestCase):
    def assertCalcError(self, text, env=None):
        with self.assertRaises(CalcError):
            evaluate(text, env)

    def test_division_by_zero(self):
        self.assertCalcError("1 / 0")

    def test_modulo_by_zero(self):
        self.assertCalcError("1 % 0")

    def test_unknown_variable(self):
        self.assertCalcError("y + 1", {"x": 1})

    def test_unknown_function(self):
        self.assertCalcError("nope(1)")

    def test_bad_character(self):
        self.assertCalcError("1 $ 2")

    def test_unbalanced(self):
        self.assertCalcError("(1 + 2")

    def test_sqrt_negative(self):
        self.assertCalcError("sqrt(-1)")


if __name__ == "__main__":
    unittest.main()
