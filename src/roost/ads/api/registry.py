"""Every ads operation roost serves, gathered from the per-resource modules."""

from __future__ import annotations

from roost.ads.api import accounts, catalogs, funding
from roost.ads.operations import AdsOperation


def all_ads_operations() -> list[AdsOperation]:
    return [
        *accounts.OPERATIONS,
        *funding.OPERATIONS,
        *catalogs.OPERATIONS,
    ]
