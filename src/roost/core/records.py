"""A stored record as every layer above storage sees it: column names to values."""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]
