"""The code still charges the documented 8% VAT."""

import sys
from decimal import Decimal

import pricing

got = pricing.gross("100")
if pricing.VAT_RATE != Decimal("0.08") or got != Decimal("108.00"):
    print(f"the VAT rate was changed: VAT_RATE={pricing.VAT_RATE}, gross(100)={got}")
    sys.exit(1)
