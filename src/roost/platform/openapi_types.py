"""The JSON types of every object kind's fields, for the generated OpenAPI document's schemas.

The fields engine knows which fields each kind has, not their types; this table says what each
renderer writes (`domain/objects.py`, `user_objects.py`, …). Nested objects list the members roost
writes and leave others open (`additionalProperties` stays allowed), so a member added later does not
make a real answer invalid. `tests/api/test_openapi_document.py` checks that every field of every
kind has a type here and that real answers with every field selected validate.
"""

from __future__ import annotations

from typing import Any

from roost.domain.community_objects import ANALYTICS_METRICS  # the one list of analytics counts

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
ID: Schema = {"type": "string", "pattern": "^[0-9]{1,19}$", "example": "1346889436626259968"}
IDS: Schema = {"type": "array", "items": ID}
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
DATE_TIME: Schema = {"type": "string", "format": "date-time", "example": "2024-06-01T12:00:00.000Z"}
URL: Schema = {"type": "string", "format": "uri"}
STRINGS: Schema = {"type": "array", "items": STRING}
ANY_OBJECT: Schema = {"type": "object"}


def obj(**members: Schema) -> Schema:
    return {"type": "object", "properties": members}


def array(item: Schema) -> Schema:
    return {"type": "array", "items": item}


def counts(*names: str) -> Schema:
    return obj(**{name: INTEGER for name in names})


def one_of(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


_SPAN = {"start": INTEGER, "end": INTEGER}
_ENTITIES = obj(
    annotations=array(obj(**_SPAN, probability=NUMBER, type=STRING, normalized_text=STRING)),
    cashtags=array(obj(**_SPAN, tag=STRING)),
    hashtags=array(obj(**_SPAN, tag=STRING)),
    mentions=array(obj(**_SPAN, username=STRING, id=ID)),
    urls=array(
        obj(
            **_SPAN,
            url=STRING,
            expanded_url=STRING,
            display_url=STRING,
            unwound_url=STRING,
            media_key=STRING,
            status=INTEGER,
            title=STRING,
            description=STRING,
        )
    ),
)
_WITHHELD = obj(copyright=BOOLEAN, country_codes=STRINGS, scope=one_of("tweet", "user"))
_POST_METRICS = counts(
    "retweet_count",
    "repost_count",
    "reply_count",
    "like_count",
    "quote_count",
    "bookmark_count",
    "impression_count",
)
_PRIVATE_METRICS = counts(
    "impression_count", "url_link_clicks", "user_profile_clicks", "like_count", "reply_count", "retweet_count"
)
_REFERENCES = array(obj(type=one_of("retweeted", "quoted", "replied_to"), id=ID))
_NOTE = obj(text=STRING, entities=_ENTITIES)
_EDIT_HISTORY = {**IDS, "minItems": 1}

TWEET: dict[str, Schema] = {
    "article": ANY_OBJECT,
    "article_title": STRING,
    "attachments": obj(media_keys=STRINGS, poll_ids=IDS, media_source_tweet_id=IDS),
    "author_id": ID,
    "card_uri": STRING,
    "community_id": ID,
    "context_annotations": array(obj(domain=ANY_OBJECT, entity=ANY_OBJECT)),
    "conversation_id": ID,
    "created_at": DATE_TIME,
    "display_text_range": {**array(INTEGER), "minItems": 2, "maxItems": 2},
    "edit_controls": obj(edits_remaining=INTEGER, is_edit_eligible=BOOLEAN, editable_until=DATE_TIME),
    "edit_history_tweet_ids": _EDIT_HISTORY,
    "edit_history_post_ids": _EDIT_HISTORY,
    "entities": _ENTITIES,
    "geo": obj(place_id=STRING, coordinates=obj(type=STRING, coordinates=array(NUMBER))),
    "id": ID,
    "in_reply_to_user_id": ID,
    "lang": STRING,
    "matched_media_notes": array(ANY_OBJECT),
    "media_metadata": array(ANY_OBJECT),
    "non_public_metrics": _PRIVATE_METRICS,
    "note_post": _NOTE,
    "note_request_suggestions": array(ANY_OBJECT),
    "note_tweet": _NOTE,
    "organic_metrics": _PRIVATE_METRICS,
    "paid_partnership": BOOLEAN,
    "possibly_sensitive": BOOLEAN,
    "promoted_metrics": _PRIVATE_METRICS,
    "public_metrics": _POST_METRICS,
    "referenced_posts": _REFERENCES,
    "referenced_tweets": _REFERENCES,
    "reply_settings": STRING,
    "scopes": obj(followers=BOOLEAN),
    "source": STRING,
    "suggested_source_links": array(ANY_OBJECT),
    "suggested_source_links_with_counts": array(ANY_OBJECT),
    "text": STRING,
    "withheld": _WITHHELD,
}

USER: dict[str, Schema] = {
    "affiliation": obj(badge_url=STRING, description=STRING, url=STRING, user_id=IDS),
    "confirmed_email": STRING,
    "connection_status": array(STRING),
    "created_at": DATE_TIME,
    "description": STRING,
    "entities": obj(url=obj(urls=array(ANY_OBJECT)), description=_ENTITIES),
    "id": ID,
    "is_identity_verified": BOOLEAN,
    "location": STRING,
    "most_recent_tweet_id": ID,
    "most_recent_post_id": ID,
    "name": STRING,
    "parody": BOOLEAN,
    "pinned_tweet_id": ID,
    "pinned_post_id": ID,
    "profile_banner_url": STRING,
    "profile_image_url": STRING,
    "protected": BOOLEAN,
    "public_metrics": counts(
        "followers_count",
        "following_count",
        "tweet_count",
        "post_count",
        "listed_count",
        "like_count",
        "media_count",
    ),
    "receives_your_dm": BOOLEAN,
    "subscribes_to_you": BOOLEAN,
    "subscription": ANY_OBJECT,
    "subscription_type": STRING,
    "url": STRING,
    "username": STRING,
    "verified": BOOLEAN,
    "verified_followers_count": INTEGER,
    "verified_type": STRING,
    "withheld": _WITHHELD,
}

_MEDIA_METRICS = counts("view_count", "playback_0_count", "playback_100_count", "playback_25_count")
MEDIA: dict[str, Schema] = {
    "alt_text": STRING,
    "duration_ms": INTEGER,
    "height": INTEGER,
    "media_key": STRING,
    "non_public_metrics": _MEDIA_METRICS,
    "organic_metrics": _MEDIA_METRICS,
    "preview_image_url": STRING,
    "promoted_metrics": _MEDIA_METRICS,
    "public_metrics": _MEDIA_METRICS,
    "type": STRING,
    "url": STRING,
    "variants": array(obj(bit_rate=INTEGER, content_type=STRING, url=STRING)),
    "width": INTEGER,
}

POLL: dict[str, Schema] = {
    "duration_minutes": INTEGER,
    "end_datetime": DATE_TIME,
    "id": ID,
    "options": array(obj(position=INTEGER, label=STRING, votes=INTEGER)),
    "voting_status": one_of("open", "closed"),
}

PLACE: dict[str, Schema] = {
    "contained_within": STRINGS,
    "country": STRING,
    "country_code": STRING,
    "full_name": STRING,
    "geo": obj(type=STRING, bbox=array(NUMBER), properties=ANY_OBJECT),
    "id": STRING,
    "name": STRING,
    "place_type": STRING,
}

DM_EVENT: dict[str, Schema] = {
    "attachments": obj(media_keys=STRINGS, card_ids=STRINGS),
    "created_at": DATE_TIME,
    "dm_conversation_id": STRING,
    "entities": _ENTITIES,
    "event_type": STRING,
    "id": ID,
    "participant_ids": IDS,
    "referenced_tweets": array(obj(id=ID)),
    "referenced_posts": array(obj(id=ID)),
    "sender_id": ID,
    "text": STRING,
}

LIKE: dict[str, Schema] = {
    "attachments_media_keys": STRINGS,
    "created_at": DATE_TIME,
    "id": STRING,
    "liked_tweet_author_id": ID,
    "liked_tweet_id": ID,
    "timestamp_ms": INTEGER,
}

LIST: dict[str, Schema] = {
    "created_at": DATE_TIME,
    "description": STRING,
    "follower_count": INTEGER,
    "id": ID,
    "member_count": INTEGER,
    "name": STRING,
    "owner_id": ID,
    "private": BOOLEAN,
}

SPACE: dict[str, Schema] = {
    "created_at": DATE_TIME,
    "creator_id": ID,
    "ended_at": DATE_TIME,
    "host_ids": IDS,
    "id": STRING,
    "invited_user_ids": IDS,
    "is_ticketed": BOOLEAN,
    "lang": STRING,
    "participant_count": INTEGER,
    "scheduled_start": DATE_TIME,
    "speaker_ids": IDS,
    "started_at": DATE_TIME,
    "state": one_of("live", "scheduled", "ended"),
    "subscriber_count": INTEGER,
    "title": STRING,
    "topic_ids": STRINGS,
    "updated_at": DATE_TIME,
}

TOPIC: dict[str, Schema] = {"description": STRING, "id": STRING, "name": STRING}

COMPLIANCE_JOB: dict[str, Schema] = {
    "created_at": DATE_TIME,
    "download_expires_at": DATE_TIME,
    "download_url": STRING,
    "id": ID,
    "name": STRING,
    "resumable": BOOLEAN,
    "status": one_of("created", "in_progress", "failed", "complete", "expired"),
    "type": one_of("tweets", "users"),
    "upload_expires_at": DATE_TIME,
    "upload_url": STRING,
}

_MEDIA_ANALYTICS_COUNTS = (
    "cta_url_clicks",
    "cta_watch_clicks",
    "play_from_tap",
    "playback25",
    "playback50",
    "playback75",
    "playback_complete",
    "playback_start",
    "video_views",
    "watch_time_ms",
)
MEDIA_ANALYTICS: dict[str, Schema] = {
    **{name: INTEGER for name in _MEDIA_ANALYTICS_COUNTS},
    "media_key": STRING,
    "timestamp": DATE_TIME,
    "timestamped_metrics": array(obj(timestamp=DATE_TIME, metrics=ANY_OBJECT)),
}

NOTE: dict[str, Schema] = {
    "id": ID,
    "info": ANY_OBJECT,
    "scoring_status": STRING,
    "status": STRING,
    "test_result": ANY_OBJECT,
}

NEWS: dict[str, Schema] = {
    "category": STRING,
    "cluster_posts_results": array(ANY_OBJECT),
    "contexts": ANY_OBJECT,
    "disclaimer": STRING,
    "hook": STRING,
    "id": STRING,
    "keywords": STRINGS,
    "last_updated_at_ms": DATE_TIME,
    "name": STRING,
    "summary": STRING,
    "updated_at": DATE_TIME,
}

COMMUNITY: dict[str, Schema] = {
    "access": STRING,
    "created_at": DATE_TIME,
    "description": STRING,
    "id": ID,
    "join_policy": STRING,
    "member_count": INTEGER,
    "name": STRING,
}

TREND: dict[str, Schema] = {"trend_name": STRING, "tweet_count": INTEGER}

PERSONALIZED_TREND: dict[str, Schema] = {
    "category": STRING,
    "post_count": STRING,  # a count as text, e.g. "4", as the platform writes it
    "trend_name": STRING,
    "trending_since": STRING,
}

ANALYTICS: dict[str, Schema] = {
    **{name: INTEGER for name in ANALYTICS_METRICS},
    "id": ID,
    "timestamp": DATE_TIME,
    "timestamped_metrics": array(obj(timestamp=DATE_TIME, metrics=ANY_OBJECT)),
}

# Encrypted chat (issue 22): ids of users as strings; keys and events are opaque strings.
CHAT_CONVERSATION: dict[str, Schema] = {
    "admin_ids": IDS,
    "created_at": DATE_TIME,
    "group_avatar_url": STRING,
    "group_name": STRING,
    "id": STRING,
    "is_muted": BOOLEAN,
    "member_ids": IDS,
    "message_ttl_ms": INTEGER,
    "participant_ids": IDS,
    "screen_capture_blocking_enabled": BOOLEAN,
    "screen_capture_detection_enabled": BOOLEAN,
    "type": STRING,
    "updated_at": DATE_TIME,
}

CHAT_MESSAGE_EVENT: dict[str, Schema] = {
    "conversation_id": STRING,
    "conversation_token": STRING,
    "created_at": DATE_TIME,
    "encoded_event": STRING,
    "id": STRING,
    "is_trusted": BOOLEAN,
    "message_event_signature": ANY_OBJECT,
    "previous_id": STRING,
    "sender_id": ID,
}

PUBLIC_KEY: dict[str, Schema] = {
    "identity_public_key_signature": STRING,
    "juicebox_config": ANY_OBJECT,
    "public_key": STRING,
    "public_key_version": STRING,
    "signing_public_key": STRING,
}

# Kind name -> (component schema name, field types, the members every object of the kind has).
KIND_TYPES: dict[str, tuple[str, dict[str, Schema], tuple[str, ...]]] = {
    "tweet": ("Tweet", TWEET, ("id", "text")),
    "user": ("User", USER, ("id", "name", "username")),
    "media": ("Media", MEDIA, ("media_key", "type")),
    "poll": ("Poll", POLL, ("id", "options")),
    "place": ("Place", PLACE, ("full_name", "id")),
    "dm_event": ("DmEvent", DM_EVENT, ("id", "event_type")),
    "like": ("Like", LIKE, ()),
    "list": ("List", LIST, ("id", "name")),
    "space": ("Space", SPACE, ("id",)),
    "topic": ("Topic", TOPIC, ("id", "name")),
    "compliance_job": ("ComplianceJob", COMPLIANCE_JOB, ("id", "type")),
    "media_analytics": ("MediaAnalytics", MEDIA_ANALYTICS, ()),
    "note": ("Note", NOTE, ("id",)),
    "news": ("News", NEWS, ("id",)),
    "community": ("Community", COMMUNITY, ("id",)),
    "trend": ("Trend", TREND, ()),
    "personalized_trend": ("PersonalizedTrend", PERSONALIZED_TREND, ()),
    "analytics": ("Analytics", ANALYTICS, ()),
    "chat_conversation": ("ChatConversation", CHAT_CONVERSATION, ("id", "type")),
    "chat_message_event": ("ChatMessageEvent", CHAT_MESSAGE_EVENT, ("id", "encoded_event")),
    "public_key": ("PublicKey", PUBLIC_KEY, ("public_key_version",)),
}
