"""The shape of a POST /2/tweets body: members, JSON types, required members and attachment exclusivity.

The schema is the union of the 2.159 (TweetCreateRequest) and 2.167 (CreatePostsRequest) documents, so a
body either one accepts passes. Only shape is checked here; value rules with their own platform messages
(id ranges, poll sizes, media ownership, text length) stay with the rules in `posts.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roost.core import errors, jsonio

ID_PATTERN = "^[0-9]{1,19}$"
REPLY_SETTINGS = ("following", "mentionedUsers", "subscribers", "verified")
ATTACHMENTS = ("poll", "media", "quote_tweet_id")


@dataclass(frozen=True)
class Shape:
    """One schema node: `kind` is a JSON type, "id" (a snowflake string) or "enum" (a reply setting)."""

    kind: str
    members: dict[str, Shape] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    items: Shape | None = None
    min_items: int | None = None
    max_items: int | None = None


STRING, BOOLEAN, INTEGER, ID, ENUM = (
    Shape("string"),
    Shape("boolean"),
    Shape("integer"),
    Shape("id"),
    Shape("enum"),
)
_URL_ONLY = Shape("object", {"url": STRING}, required=("url",))
MEDIA = Shape(
    "object",
    {
        # maxItems 4 is a value rule in posts.py ("Your media IDs are invalid.").
        "media_ids": Shape("array", items=ID, min_items=1),
        "tagged_user_ids": Shape("array", items=ID, max_items=10),
        "preview_media_id": ID,
        "description": STRING,
        "title": STRING,
        "embeddable": BOOLEAN,
        "call_to_actions": Shape(
            "object",
            {
                "app_install": Shape(
                    "object", {"app_store_id": STRING, "ipad_app_store_id": STRING, "play_store_id": STRING}
                ),
                "visit_site": _URL_ONLY,
                "watch_now": _URL_ONLY,
            },
        ),
    },
    required=("media_ids",),
)
POLL = Shape(
    "object",
    # Option counts and lengths, and the duration's range, are value rules in posts.py.
    {"options": Shape("array", items=STRING), "duration_minutes": INTEGER, "reply_settings": ENUM},
    required=("options", "duration_minutes"),
)
REPLY = Shape(
    "object",
    {
        "in_reply_to_tweet_id": ID,
        "auto_populate_reply_metadata": BOOLEAN,
        # 2.159 makes these UserIds, 2.167 plain strings: the union admits any string.
        "exclude_reply_user_ids": Shape("array", items=STRING),
    },
    required=("in_reply_to_tweet_id",),
)
BODY = Shape(
    "object",
    {
        "text": STRING,
        "reply": REPLY,
        "quote_tweet_id": ID,
        "media": MEDIA,
        "poll": POLL,
        "reply_settings": ENUM,
        "community_id": ID,
        "share_with_followers": BOOLEAN,
        "paid_partnership": BOOLEAN,
        "edit_options": Shape("object", {"previous_post_id": ID}, required=("previous_post_id",)),
        "for_super_followers_only": BOOLEAN,
        "nullcast": BOOLEAN,
        # 2.167 requires place_id, 2.159 does not: the union does not.
        "geo": Shape("object", {"place_id": STRING}),
        "direct_message_deep_link": STRING,
        "card_uri": STRING,
        "made_with_ai": BOOLEAN,
    },
)


def field_error(name: str, value: Any, message: str) -> errors.ApiError:
    """A value error naming the member the way the platform names body ids: dotted, with its raw value."""
    return errors.invalid_request([errors.param_error(name, jsonio.shown(value), message)])


def pattern_error(name: str, value: Any) -> errors.ApiError:
    shown = jsonio.shown(value)
    return field_error(name, value, f"The `{name}` field value [{shown}] does not match {ID_PATTERN}")


def is_id(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() and 1 <= len(value) <= 19


def check_body(body: Any) -> None:
    """Raise the first shape problem of a create body, then any clash between attachments."""
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    _check_object(body, BODY, "$", "")
    present = [name for name in ATTACHMENTS if body.get(name) is not None]
    if len(present) > 1:
        raise errors.invalid_body("You can only attach one of poll, media, quote_tweet_id.")
    if body.get("card_uri") is not None:
        # 2.159's card_uri is "mutually exclusive from Quote Tweet Id, Poll, Media, and Direct Message
        # Deep Link" (2.167 is silent; the older, stricter statement stands).
        for other in (*ATTACHMENTS, "direct_message_deep_link"):
            if body.get(other) is not None:
                raise errors.invalid_body(f"You can only attach one of card_uri, {other}.")


def _check_object(value: dict[str, Any], shape: Shape, path: str, name: str) -> None:
    """`path` is the `$.a.b` form of schema messages, `name` the dotted `a.b` form of field-value ones."""
    unknown = sorted(set(value) - set(shape.members))
    if unknown:
        raise errors.invalid_body(
            f"{path}.{unknown[0]}: is not defined in the schema and the schema does not allow "
            "additional properties"
        )
    for member in shape.required:
        if member not in value:
            raise errors.invalid_body(f"{path}.{member}: is missing but it is required")
    for member, child in shape.members.items():
        # A null stands for an absent member (as at the top level), unless the member is required.
        if member in value and (value[member] is not None or member in shape.required):
            _check(value[member], child, f"{path}.{member}", f"{name}.{member}" if name else member)


def _check(value: Any, shape: Shape, path: str, name: str) -> None:
    if shape.kind == "id":
        # Ids keep the field-value message the platform gives for quote_tweet_id and its kin.
        if not is_id(value):
            raise pattern_error(name, value)
        return
    if shape.kind == "enum":
        if value not in REPLY_SETTINGS:
            allowed = ",".join(REPLY_SETTINGS)
            message = f"The `{name}` field value [{jsonio.shown(value)}] is not one of [{allowed}]"
            raise field_error(name, value, message)
        return
    found = jsonio.type_name(value)
    if found != shape.kind:
        raise errors.invalid_body(f"{path}: {found} found, {shape.kind} expected")
    if shape.kind == "object":
        _check_object(value, shape, path, name)
    elif shape.kind == "array":
        if shape.min_items is not None and len(value) < shape.min_items:
            raise errors.invalid_body(f"{path}: must contain at least {shape.min_items} items")
        if shape.max_items is not None and len(value) > shape.max_items:
            raise errors.invalid_body(f"{path}: must contain at most {shape.max_items} items")
        item_shape = shape.items
        if item_shape is not None:
            for index, item in enumerate(value):
                _check(item, item_shape, f"{path}[{index}]", name)
