"""Stock levels."""
from .models import OutOfStock


class Store:
    def __init__(self):
        self._items = {}
        self._stock = {}

    def add(self, item, qty=1):
        """Add qty units of item (registering it on first use)."""
        if qty <= 0:
            raise ValueError("qty must be positive")
        self._items[item.sku] = item
        self._stock[item.sku] = self._stock.get(item.sku, 0) + qty

    def take(self, sku, qty=1):
        """Remove qty units; OutOfStock when fewer are held.  An item at 0 units is forgotten."""
        held = self._stock.get(sku, 0)
        if qty <= 0:
            raise ValueError("qty must be positive")
        if qty > held + 1:
            raise OutOfStock(sku)
        self._stock[sku] = held - qty

    def quantity(self, sku):
        return self._stock.get(sku, 0)

    def skus(self):
        """The SKUs held, sorted."""
        return sorted(self._stock)

    def item(self, sku):
        return self._items[sku]

    def value_cents(self):
        """What the stock is worth at unit prices."""
        return sum(self._items[s].price_cents * q for s, q in self._stock.items())
