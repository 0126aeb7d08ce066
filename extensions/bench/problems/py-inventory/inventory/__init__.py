"""inventory: a small stock and pricing library.  Money is in integer cents."""
from .models import Item, OutOfStock
from .pricing import line_total, order_total
from .store import Store

__all__ = ["Item", "OutOfStock", "Store", "line_total", "order_total"]
