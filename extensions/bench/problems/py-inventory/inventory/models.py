"""The items of the inventory."""
from dataclasses import dataclass


class OutOfStock(Exception):
    """Raised when more is taken than the store holds."""


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    price_cents: int          # unit price
    bulk_qty: int = 0         # from this many units on (inclusive), the bulk price applies; 0 = none
    bulk_price_cents: int = 0

    def unit_price(self, qty):
        """The unit price for an order of qty units."""
        if self.bulk_qty and qty > self.bulk_qty:
            return self.bulk_price_cents
        return self.price_cents
