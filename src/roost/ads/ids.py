"""Ads identifiers: short lowercase base-36 strings (campaign `8wku2`, account `18ce54d4x5t`)."""

from __future__ import annotations

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

# Each kind's counter starts where its ids have the platform's usual length.
ID_OFFSETS = {
    "account": 36**10 * 2,
    "sandbox_account": 36**5 * 20,
    "campaign": 36**4 * 8,
    "line_item": 36**4 * 15,
    "funding_instrument": 36**4 * 20,
    "targeting_criterion": 36**5 * 2,
    "promoted_tweet": 36**5 * 3,
    "promoted_account": 36**5 * 4,
    "scheduled_promoted_tweet": 36**5 * 5,
    "promotable_user": 36**4 * 21,
    "account_app": 36**4 * 22,
    "tracking_tag": 36**4 * 23,
    "line_item_curated_category": 36**4 * 24,
    # Audiences and apps (issue 23): offsets below the campaigns', clear of every other kind's.
    "custom_audience": 36**4 * 2 + 36**3 * 9,
    "custom_audience_permission": 36**2 * 30,
    "app_list": 36**4 * 5 + 36**3 * 3,
    "line_item_app": 36**4 * 6 + 36**3 * 21,
    "custom_audience_members": 36**6 * 3,  # hidden: never served
    "custom_audience_share": 36**6 * 4,  # hidden: never served
    # Creatives (issue 23); cards and draft and scheduled posts take snowflake ids instead.
    "media_library": 36**5 * 6,  # hidden: items are named by their media key
    "account_media": 36**5 * 7,
    "media_creative": 36**5 * 8,
    "poll_card": 36**5 * 9,
    "image_conversation_card": 36**5 * 10,
    "video_conversation_card": 36**5 * 11,
    "tweet_name": 36**5 * 12,  # hidden: never served
}


def base36(number: int) -> str:
    if number == 0:
        return "0"
    out = []
    while number:
        number, digit = divmod(number, 36)
        out.append(_DIGITS[digit])
    return "".join(reversed(out))


def from_base36(text: str) -> int | None:
    try:
        return int(text, 36)
    except ValueError:
        return None


def entity_id(kind: str, sequence: int) -> str:
    """The id of the `sequence`-th entity of a kind; the stride spreads ids like the platform's."""
    return base36(ID_OFFSETS.get(kind, 36**5) + sequence * 7919)
