"""toybox: a small record-keeping library."""
