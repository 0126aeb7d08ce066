import unittest

from inventory import Item, line_total, order_total

PAPER = Item("paper", "Paper", 500, bulk_qty=10, bulk_price_cents=450)
CLIP = Item("clip", "Clip", 3)


class TestPricing(unittest.TestCase):
    def test_unit_price(self):
        self.assertEqual(line_total(PAPER, 2), 1000)

    def test_bulk_from_threshold(self):
        self.assertEqual(line_total(PAPER, 10), 4500)

    def test_bulk_above(self):
        self.assertEqual(line_total(PAPER, 12), 5400)

    def test_no_bulk(self):
        self.assertEqual(line_total(CLIP, 1000), 3000)

    def test_order_plain(self):
        self.assertEqual(order_total([(PAPER, 1), (CLIP, 5)]), 515)

    def test_discount(self):
        self.assertEqual(order_total([(PAPER, 2)], discount_percent=10), 900)

    def test_tax_rounds_half_up(self):
        # 5 cents + 10% = 5.5 -> 6
        self.assertEqual(order_total([(CLIP, 1), (Item("x", "X", 2), 1)], tax_percent=10), 6)

    def test_discount_then_tax(self):
        # 1000 - 15% = 850; + 7.5% = 913.75 -> 914
        self.assertEqual(order_total([(PAPER, 2)], discount_percent=15, tax_percent=7.5), 914)

    def test_fractional_discount(self):
        # 333 * (1 - 0.125) = 291.375 -> 291
        self.assertEqual(order_total([(Item("y", "Y", 333), 1)], discount_percent=12.5), 291)


if __name__ == "__main__":
    unittest.main()
