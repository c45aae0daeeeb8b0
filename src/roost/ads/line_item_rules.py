"""Line item rules that need no storage: objective defaults, goal and pay_by compatibility, bid
strategies, placements, frequency caps and app/publisher-network requirements. Each check takes
the line item's full resulting state (create: the request; update: stored object + changes)."""

from __future__ import annotations

from typing import Any

from roost.ads import catalog, errors
from roost.ads.campaigns import check_amount
from roost.ads.catalog.bidding import bidding_rule, placement_sets

OBJECTIVES = (
    "APP_ENGAGEMENTS",
    "APP_INSTALLS",
    "REACH",
    "FOLLOWERS",
    "ENGAGEMENTS",
    "VIDEO_VIEWS",
    "PREROLL_VIEWS",
    "WEBSITE_CLICKS",
)
PRODUCT_TYPES = ("MEDIA", "PROMOTED_ACCOUNT", "PROMOTED_TWEETS")
GOALS = (
    "APP_CLICKS",
    "APP_INSTALLS",
    "APP_PURCHASES",
    "ENGAGEMENT",
    "FOLLOWERS",
    "LINK_CLICKS",
    "MAX_REACH",
    "PREROLL",
    "PREROLL_STARTS",
    "REACH_WITH_ENGAGEMENT",
    "SITE_VISITS",
    "VIDEO_VIEW",
    "VIEW_3S_100PCT",
    "VIEW_6S",
    "VIEW_15S",
    "WEBSITE_CONVERSIONS",
)
PAY_BY = ("APP_CLICK", "ENGAGEMENT", "FOLLOW", "IMPRESSION", "LINK_CLICK", "VIEW")
BID_STRATEGIES = ("AUTO", "MAX", "TARGET")
AUDIENCE_EXPANSION = ("BROAD", "DEFINED", "EXPANDED")
FREQUENCY_WINDOWS = (1, 7, 30)
FREQUENCY_CAP_OBJECTIVES = ("REACH", "ENGAGEMENTS", "VIDEO_VIEWS", "PREROLL_VIEWS")
APP_OBJECTIVES = ("APP_INSTALLS", "APP_ENGAGEMENTS")
NO_MAX_OBJECTIVES = ("REACH", "FOLLOWERS")
TARGET_OBJECTIVES = ("REACH", "FOLLOWERS", "WEBSITE_CLICKS")

# Goals each objective accepts; the first is the default.
OBJECTIVE_GOALS: dict[str, tuple[str, ...]] = {
    "APP_INSTALLS": ("APP_INSTALLS", "APP_CLICKS", "APP_PURCHASES"),
    "APP_ENGAGEMENTS": ("APP_CLICKS", "APP_INSTALLS"),
    "REACH": ("MAX_REACH", "REACH_WITH_ENGAGEMENT"),
    "FOLLOWERS": ("FOLLOWERS",),
    "ENGAGEMENTS": ("ENGAGEMENT",),
    "VIDEO_VIEWS": ("VIDEO_VIEW", "VIEW_3S_100PCT", "VIEW_6S", "VIEW_15S"),
    "PREROLL_VIEWS": ("PREROLL", "PREROLL_STARTS", "VIEW_3S_100PCT", "VIEW_6S", "VIEW_15S"),
    "WEBSITE_CLICKS": ("LINK_CLICKS", "SITE_VISITS", "WEBSITE_CONVERSIONS"),
}
# pay_by values each goal accepts; the first is the default.
GOAL_PAY_BY: dict[str, tuple[str, ...]] = {
    "APP_INSTALLS": ("IMPRESSION", "APP_CLICK"),
    "APP_CLICKS": ("APP_CLICK",),
    "APP_PURCHASES": ("IMPRESSION",),
    "ENGAGEMENT": ("ENGAGEMENT",),
    "FOLLOWERS": ("FOLLOW",),
    "LINK_CLICKS": ("IMPRESSION", "LINK_CLICK"),
    "MAX_REACH": ("IMPRESSION",),
    "REACH_WITH_ENGAGEMENT": ("IMPRESSION",),
    "SITE_VISITS": ("IMPRESSION",),
    "WEBSITE_CONVERSIONS": ("IMPRESSION",),
    "VIDEO_VIEW": ("VIEW",),
    "VIEW_3S_100PCT": ("VIEW",),
    "VIEW_6S": ("VIEW",),
    "VIEW_15S": ("VIEW",),
    "PREROLL": ("VIEW",),
    "PREROLL_STARTS": ("VIEW",),
}


def default_bid_strategy(objective: str, bid: int | None) -> str:
    """With a bid: MAX, or TARGET where MAX is unavailable (REACH, FOLLOWERS); without one: AUTO
    (ENGAGEMENTS line items with a bid thus default to MAX, as the platform's objects show)."""
    if bid is None:
        return "AUTO"
    return "TARGET" if objective in NO_MAX_OBJECTIVES else "MAX"


def pay_by_choices(goal: str, bid_strategy: str) -> tuple[str, ...]:
    choices = GOAL_PAY_BY.get(goal, ("IMPRESSION",))
    if goal == "LINK_CLICKS" and bid_strategy == "TARGET":
        return ("LINK_CLICK",)  # impression billing is not allowed with a target bid
    return choices


def fill_defaults(state: dict[str, Any], given: dict[str, Any]) -> None:
    """Objective-based goal, bid_strategy and pay_by for whatever the request left out."""
    objective = state["objective"]
    if state.get("goal") is None:
        state["goal"] = OBJECTIVE_GOALS[objective][0]
    if state.get("bid_strategy") is None:
        state["bid_strategy"] = default_bid_strategy(objective, given.get("bid_amount_local_micro"))
    if state.get("pay_by") is None:
        state["pay_by"] = pay_by_choices(state["goal"], state["bid_strategy"])[0]


def check_goal_and_pay_by(state: dict[str, Any], *, pay_by_given: bool) -> None:
    objective, goal = state["objective"], state["goal"]
    if goal not in OBJECTIVE_GOALS[objective]:
        raise errors.invalid_parameter("goal", f"goal {goal} is not compatible with objective {objective}")
    choices = pay_by_choices(goal, state["bid_strategy"])
    if state["pay_by"] not in choices:
        if not pay_by_given:  # a goal or strategy change moved the default along
            state["pay_by"] = choices[0]
            return
        raise errors.invalid_parameter(
            "pay_by",
            f'Expected a value in {", ".join(choices)}, got "{state["pay_by"]}" for pay_by with goal {goal}',
        )


def check_bid(state: dict[str, Any], currency: str) -> None:
    objective, strategy = state["objective"], state["bid_strategy"]
    if strategy == "MAX" and objective in NO_MAX_OBJECTIVES:
        raise errors.invalid_parameter(
            "bid_strategy", f"bid_strategy MAX is not available for objective {objective}"
        )
    if strategy == "TARGET" and objective not in TARGET_OBJECTIVES:
        raise errors.invalid_parameter(
            "bid_strategy", f"bid_strategy TARGET is not available for objective {objective}"
        )
    if strategy == "AUTO":
        state["bid_amount_local_micro"] = None  # the platform ignores a bid with automatic bidding
        return
    bid = state.get("bid_amount_local_micro")
    if bid is None:
        raise errors.missing_parameter("bid_amount_local_micro")
    if bid <= 0:
        raise errors.invalid_parameter(
            "bid_amount_local_micro", f'Expected a bid greater than 0, got "{bid}" for bid_amount_local_micro'
        )
    check_amount(currency, "bid_amount_local_micro", bid)
    rule = bidding_rule(currency)
    if rule is not None:
        low, high = rule["minimum_cpe_bid_local_micro"], rule["maximum_cpe_bid_local_micro"]
        if not low <= bid <= high:
            raise errors.invalid_parameter(
                "bid_amount_local_micro",
                f"bid_amount_local_micro must be between {low} and {high} for {currency}",
            )


def check_placements(state: dict[str, Any]) -> None:
    placements = list(dict.fromkeys(state["placements"]))
    state["placements"] = placements
    allowed = [sorted(combo) for combo in placement_sets(state["product_type"])]
    if sorted(placements) not in allowed:
        raise errors.bad_request(
            "INVALID_PLACEMENT_TYPE",
            f"The placements {', '.join(placements)} are not allowed "
            f"for product_type {state['product_type']}",
            "placements",
        )
    if state["objective"] == "REACH" and not {"ALL_ON_TWITTER", "TWITTER_TIMELINE"} & set(placements):
        raise errors.bad_request(
            "INVALID_PLACEMENT_TYPE",
            "REACH line items must include ALL_ON_TWITTER or TWITTER_TIMELINE placements",
            "placements",
        )


def check_publisher_network(state: dict[str, Any]) -> None:
    if "PUBLISHER_NETWORK" not in state["placements"]:
        return
    if not state.get("categories"):
        raise errors.invalid_parameter("categories", "A minimum of 1 items must be provided for categories")
    check_categories_known(state["categories"])
    if not state.get("advertiser_domain"):
        raise errors.missing_parameter("advertiser_domain")


def check_preroll(state: dict[str, Any]) -> None:
    """PREROLL_VIEWS runs MEDIA line items placed by advertiser business category."""
    if state["objective"] != "PREROLL_VIEWS":
        return
    if state["product_type"] != "MEDIA":
        raise errors.invalid_parameter(
            "product_type", "PREROLL_VIEWS line items must have product_type MEDIA"
        )
    if not state.get("categories"):
        raise errors.invalid_parameter("categories", "A minimum of 1 items must be provided for categories")
    check_categories_known(state["categories"])
    state["categories"] = business_category_expansion(state["categories"])


def check_categories_known(categories: list[str]) -> None:
    """Categories are IAB ids of the catalog (`IAB1`, `IAB1-1`, …)."""
    for category in categories:
        if catalog.iab_category(category) is None:
            raise errors.AdsError(
                404, [errors.item("INVALID_IAB_CATEGORY", f"Invalid IAB category {category}", "categories")]
            )


def business_category_expansion(categories: list[str]) -> list[str]:
    """PREROLL_VIEWS line items take whole advertiser business categories: the IAB ids given must lie
    in one or two of them, and the line item gets every IAB id of those (a partial set is widened)."""
    wanted = set(categories)
    groups = [g for g in catalog.advertiser_business_categories() if wanted & set(g["iab_categories"])]
    covered = {iab for group in groups for iab in group["iab_categories"]}
    if not groups or len(groups) > 2 or not wanted <= covered:
        raise errors.invalid_parameter(
            "categories",
            "PREROLL_VIEWS line items take the IAB categories of one or two advertiser business categories",
        )
    expanded: list[str] = []
    for group in groups:
        expanded.extend(iab for iab in group["iab_categories"] if iab not in expanded)
    return expanded


def check_advertiser_domain(domain: str | None) -> None:
    if domain and ("://" in domain or "/" in domain or " " in domain):
        raise errors.invalid_parameter(
            "advertiser_domain", f'Expected a domain without protocol, got "{domain}" for advertiser_domain'
        )


def check_apps(state: dict[str, Any]) -> None:
    ios = state.get("ios_app_store_identifier")
    if ios is not None and not str(ios).isdigit():
        raise errors.invalid_parameter(
            "ios_app_store_identifier",
            f'Expected a numeric App Store id, got "{ios}" for ios_app_store_identifier',
        )
    if state["objective"] in APP_OBJECTIVES and not ios and not state.get("android_app_store_identifier"):
        raise errors.invalid_parameter(
            "ios_app_store_identifier",
            f"ios_app_store_identifier or android_app_store_identifier is required for {state['objective']}",
        )


def check_web_event_tag(state: dict[str, Any]) -> None:
    if state["goal"] == "WEBSITE_CONVERSIONS" and not state.get("primary_web_event_tag"):
        raise errors.missing_parameter("primary_web_event_tag")


def check_frequency(state: dict[str, Any]) -> None:
    cap, window = state.get("frequency_cap"), state.get("duration_in_days")
    if window is not None and window not in FREQUENCY_WINDOWS:
        raise errors.invalid_parameter(
            "duration_in_days", f'Expected a value in 1, 7, 30, got "{window}" for duration_in_days'
        )
    if (cap is not None or window is not None) and state["objective"] not in FREQUENCY_CAP_OBJECTIVES:
        raise errors.invalid_parameter(
            "frequency_cap",
            f"frequency_cap is only available for {', '.join(FREQUENCY_CAP_OBJECTIVES)} objectives",
        )
    if cap is not None and window is None:
        raise errors.missing_parameter("duration_in_days")


def check_times(start_ms: int | None, end_ms: int | None) -> None:
    if start_ms is not None and end_ms is not None and end_ms <= start_ms:
        raise errors.bad_request("INVALID_TIME_WINDOW", "end_time must be after start_time", "end_time")
