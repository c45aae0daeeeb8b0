"""The access packages an app can have, and the numbers each one sets (docs/access-levels.md).

The platform sells two: pay-per-use (self-serve, what a developer who signs up gets since 2026-02-06)
and enterprise (a contract). The seed and the reference notes tie limits and refusals to them; this
module holds those numbers as data, each with where it comes from. `None` means the sources give no
figure for the package: roost's settings decide, as they do for every app today.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

PAY_PER_USE = "pay-per-use"
ENTERPRISE = "enterprise"
# The legacy self-serve levels of 2021-2023, for programs written against them: the sources give only
# their filtered-stream rule numbers; every other number is pay-per-use's, the level that replaced them.
ESSENTIAL = "essential"
ELEVATED = "elevated"
# What an app has when nobody chose (docs/decisions.md, "Access packages"): every operation open.
DEFAULT_PACKAGE = ENTERPRISE

SEED = "seed: platform API v2 document"
PRICING = "https://docs.x.com/x-api/getting-started/pricing"
FACTS = "reference/platform-facts.md"


@dataclass(frozen=True, slots=True)
class Package:
    name: str
    label: str
    self_serve: bool
    stream_rules_per_project: int
    stream_rule_length: int
    stream_connections: int
    stream_backfill: bool  # backfill_minutes on the filtered stream
    monthly_post_cap: int  # posts a project may receive a month from the post streams and search
    stream_webhooks: bool  # the filtered stream delivered to a webhook (/2/tweets/search/webhooks)
    enterprise_operators: bool  # url_title:, min_followers:, source:, embedding: ... in stream rules
    recent_query_length: int
    all_query_length: int
    webhooks: int  # pay-per-use: per developer account, shared by its apps
    aaa_subscriptions: int | None
    activity_subscriptions: int
    news_keyword_filter: bool  # the activity API's news.new with a keyword
    # 2026-04-20: following and likes removed from self-serve tiers (quote-posts: see replies).
    likes_and_follows: bool
    # 2026-02-23: a programmatic reply only where the original author summoned the replier.
    replies_need_summons: bool
    note: str = ""  # where the numbers come from when not every one is the package's own

    def describe(self) -> dict[str, Any]:
        return asdict(self)


_CURRENT: dict[str, Package] = {
    PAY_PER_USE: Package(
        name=PAY_PER_USE,
        label="Pay-per-use (self-serve)",
        self_serve=True,
        stream_rules_per_project=1_000,
        stream_rule_length=1_024,
        stream_connections=1,
        stream_backfill=False,
        monthly_post_cap=3_000_000,
        stream_webhooks=False,
        enterprise_operators=False,
        recent_query_length=512,
        all_query_length=1_024,
        webhooks=1,
        aaa_subscriptions=3,
        activity_subscriptions=1_500,
        news_keyword_filter=False,
        likes_and_follows=False,
        replies_need_summons=True,
    ),
    ENTERPRISE: Package(
        name=ENTERPRISE,
        label="Enterprise",
        self_serve=False,
        stream_rules_per_project=25_000,
        stream_rule_length=2_048,
        stream_connections=2,
        stream_backfill=True,
        monthly_post_cap=500_000,
        stream_webhooks=True,
        enterprise_operators=True,
        recent_query_length=4_096,
        all_query_length=4_096,
        webhooks=5,
        aaa_subscriptions=None,
        activity_subscriptions=75_000,
        news_keyword_filter=True,
        likes_and_follows=True,
        replies_need_summons=False,
    ),
}


def _legacy(name: str, label: str, rules: int) -> Package:
    """A legacy self-serve level: its rule numbers (512 characters each), pay-per-use's for the rest."""
    return replace(
        _CURRENT[PAY_PER_USE],
        name=name,
        label=label,
        stream_rules_per_project=rules,
        stream_rule_length=512,
        note="legacy level: only its filtered-stream rules are given; every other number is pay-per-use's",
    )


PACKAGES: dict[str, Package] = {
    **_CURRENT,
    ESSENTIAL: _legacy(ESSENTIAL, "Essential (legacy)", 5),
    ELEVATED: _legacy(ELEVATED, "Elevated (legacy)", 25),
}

EVERY_PACKAGE = frozenset(PACKAGES)
# Stream rule operators only enterprise apps may use (with the aliases roost's parser knows).
ENTERPRISE_OPERATORS = frozenset(
    {
        "url_title",
        "url_description",
        "url_contains",
        "min_followers",
        "followers_count",
        "tweets_count",
        "statuses_count",
        "following_count",
        "friends_count",
        "listed_count",
        "user_in_lists_count",
        "in_reply_to_tweet_id",
        "in_reply_to_status_id",
        "retweets_of_tweet_id",
        "retweets_of_status_id",
        "source",
        "embedding",
    }
)
# The packages that have the like and follow endpoints (the operations declare them, from the data).
WITH_LIKES_AND_FOLLOWS = frozenset(name for name, package in PACKAGES.items() if package.likes_and_follows)

# The packages that have the filtered stream's webhooks (the stream-link operations declare them).
WITH_STREAM_WEBHOOKS = frozenset(name for name, package in PACKAGES.items() if package.stream_webhooks)

# Where each number comes from (the field name, then the source and its place in it).
SOURCES: dict[str, str] = {
    "stream_rules_per_project": f"{FACTS}, filtered stream: 1,000 pay-per-use, 25,000+ enterprise; legacy "
    "Essential 5, Elevated 25",
    "stream_rule_length": f"{FACTS}, filtered stream: 1,024 pay-per-use, 2,048 enterprise; legacy 512",
    "stream_connections": f"{FACTS}, filtered stream: 1 pay-per-use, 2 redundant enterprise",
    "stream_backfill": f"{FACTS}, filtered stream: backfill_minutes 0..5 (Enterprise)",
    "monthly_post_cap": f"{PRICING}: pay-per-use capped at 3 million post reads a month; enterprise: the "
    f"{SEED}'s 500,000 a month 'in one access level' (a contract's own number is set with usage_monthly_cap)",
    "stream_webhooks": f"{SEED}, Limits: filtered stream webhooks ... enterprise",
    "enterprise_operators": f"{FACTS}, stream operators: the enterprise-only operators",
    "recent_query_length": f"{FACTS}, search: query length 512 self-serve / 4096 enterprise",
    "all_query_length": f"{FACTS}, search: full archive query length 1024 / 4096",
    "webhooks": f"{FACTS}, account activity: webhooks per account, pay-per-use 1, enterprise 5+",
    "aaa_subscriptions": f"{FACTS}, account activity: pay-per-use allows 3 unique subscriptions",
    "activity_subscriptions": f"{FACTS}, activity API: self-serve 1,500, enterprise 75,000",
    "news_keyword_filter": f"{FACTS}, activity API: keyword for news.new is Enterprise only",
    "likes_and_follows": f"{SEED}, 2026-04-20: following, likes and quote-posts removed from self-serve",
    "replies_need_summons": f"{SEED}, 2026-02-23: replies only when the original author summoned the replier",
}


def operator_not_offered(operator: str) -> str:
    """The platform's text for an operator the app's package (or the product) does not offer."""
    return (
        f"Reference to invalid operator '{operator}'. Operator is not available in current product or "
        "product packaging."
    )


def catalogue() -> dict[str, Any]:
    """The packages and their numbers, as the control plane shows them."""
    return {
        "default": DEFAULT_PACKAGE,
        "packages": [package.describe() for package in PACKAGES.values()],
        "sources": SOURCES,
    }
