"""Every ads operation roost serves, gathered from the per-resource modules."""

from __future__ import annotations

from roost.ads.api import (
    account_settings,
    accounts,
    app_lists,  # app lists, line item apps, behavior catalogs
    audiences,  # custom audiences, their users, permissions and targeted line items
    catalogs,
    funding,
    targeting_audience,  # audience estimate, targeting suggestions
    tracking_tags,
)
from roost.ads.api import batch as batch_ops
from roost.ads.api import campaigns as campaign_ops
from roost.ads.api import cards as card_ops  # issue 23: creatives
from roost.ads.api import creative_media as creative_media_ops
from roost.ads.api import creative_posts as creative_post_ops
from roost.ads.api import line_items as line_item_ops
from roost.ads.api import promoted as promoted_ops
from roost.ads.api import stats as stats_ops  # analytics: stats, active entities, stats jobs
from roost.ads.api import targeting as targeting_ops  # targeting criteria and their batch
from roost.ads.operations import AdsOperation


def all_ads_operations() -> list[AdsOperation]:
    return [
        *accounts.OPERATIONS,
        *funding.OPERATIONS,
        *catalogs.OPERATIONS,
        *account_settings.OPERATIONS,
        *campaign_ops.OPERATIONS,
        *line_item_ops.OPERATIONS,
        *batch_ops.OPERATIONS,
        *promoted_ops.OPERATIONS,
        *targeting_ops.OPERATIONS,
        *targeting_audience.OPERATIONS,
        *tracking_tags.OPERATIONS,
        *card_ops.OPERATIONS,
        *creative_media_ops.OPERATIONS,
        *creative_post_ops.OPERATIONS,
        *audiences.OPERATIONS,
        *app_lists.OPERATIONS,
        *stats_ops.OPERATIONS,
    ]
