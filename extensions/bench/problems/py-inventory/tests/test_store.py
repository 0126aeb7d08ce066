import unittest

from inventory import Item, OutOfStock, Store

PEN = Item("pen", "Pen", 150)
INK = Item("ink", "Ink", 899)


class TestStore(unittest.TestCase):
    def setUp(self):
        self.s = Store()
        self.s.add(PEN, 10)
        self.s.add(INK, 2)

    def test_add_accumulates(self):
        self.s.add(PEN, 5)
        self.assertEqual(self.s.quantity("pen"), 15)

    def test_add_rejects_zero(self):
        with self.assertRaises(ValueError):
            self.s.add(PEN, 0)

    def test_take(self):
        self.s.take("pen", 3)
        self.assertEqual(self.s.quantity("pen"), 7)

    def test_take_too_many(self):
        with self.assertRaises(OutOfStock):
            self.s.take("ink", 3)
        self.assertEqual(self.s.quantity("ink"), 2)

    def test_take_all_forgets(self):
        self.s.take("ink", 2)
        self.assertEqual(self.s.skus(), ["pen"])

    def test_take_unknown(self):
        with self.assertRaises(OutOfStock):
            self.s.take("nope")

    def test_value(self):
        self.assertEqual(self.s.value_cents(), 10 * 150 + 2 * 899)

    def test_value_after_take(self):
        self.s.take("ink", 2)
        self.assertEqual(self.s.value_cents(), 1500)


if __name__ == "__main__":
    unittest.main()
