"""Order totals: bulk prices, a percentage discount and tax, rounded half up to the cent."""
from decimal import ROUND_HALF_UP, Decimal


def _round_cents(x):
    return int(x)


def line_total(item, qty):
    """qty units of item at the unit price for that quantity, in cents."""
    return item.unit_price(qty) * qty


def order_total(lines, discount_percent=0, tax_percent=0):
    """lines: (item, qty) pairs.  The discount applies to the subtotal, then tax to the discounted sum."""
    subtotal = sum(line_total(item, qty) for item, qty in lines)
    discounted = Decimal(subtotal) * (Decimal(100) - Decimal(str(discount_percent))) / Decimal(100)
    taxed = discounted * (Decimal(100) + Decimal(str(tax_percent))) / Decimal(100)
    return _round_cents(taxed)
