"""The relational schema (SQLAlchemy Core). Alembic migrations are generated from and checked against it.

Portable column choices: times are epoch milliseconds (BigInteger), flags are small integers, nested
structures are JSON text. The same rows then read identically on SQLite and PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import RowId, metadata

apps = Table(
    "apps",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False),
    Column("consumer_key", Text, nullable=False, unique=True),
    Column("consumer_secret", Text, nullable=False),
    Column("bearer_token", Text, unique=True),
    Column("bearer_issued_at", BigInteger),
    Column("client_id", Text, nullable=False, unique=True),
    Column("client_secret", Text, nullable=False),
    Column("client_type", Text, nullable=False, server_default="confidential"),
    Column("permission", Text, nullable=False, server_default="read-write-directmessages"),
    Column("owner_user_id", BigInteger),
    Column("project_id", BigInteger, nullable=False),
    Column("callback_urls", Text, nullable=False, server_default="[]"),
    Column("sign_in_with", Integer, nullable=False, server_default="1"),
    Column("created_at", BigInteger, nullable=False),
    Column("package", Text, nullable=False, server_default="enterprise"),  # pay-per-use | enterprise
    # The app's credit left, in millionths of a dollar; NULL: no credit limit (issue 20).
    Column("credit_micros", BigInteger),
)

oauth1_tokens = Table(
    "oauth1_tokens",
    metadata,
    Column("token", Text, primary_key=True),
    Column("secret", Text, nullable=False),
    Column("app_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("access_level", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("revoked_at", BigInteger),
    Index("ix_oauth1_tokens_app_user", "app_id", "user_id"),
)

oauth2_tokens = Table(
    "oauth2_tokens",
    metadata,
    Column("token", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # access | refresh
    Column("app_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("scopes", Text, nullable=False),
    Column("expires_at", BigInteger),
    Column("created_at", BigInteger, nullable=False),
    Column("revoked_at", BigInteger),
    Column("family", Text),  # refresh-token family: reusing a rotated refresh token revokes the family
    Index("ix_oauth2_tokens_app_user", "app_id", "user_id"),
)

# OAuth 1.0a request tokens (step 1 of the three-legged flow) until exchanged for an access token.
oauth1_request_tokens = Table(
    "oauth1_request_tokens",
    metadata,
    Column("token", Text, primary_key=True),
    Column("secret", Text, nullable=False),
    Column("app_id", BigInteger, nullable=False),
    Column("callback", Text, nullable=False),  # a registered callback URL or "oob"
    Column("access_type", Text),  # read | write: lowers the level granted
    Column("verifier", Text),
    Column("user_id", BigInteger),  # who approved
    Column("denied", Integer, nullable=False, server_default="0"),
    Column("created_at", BigInteger, nullable=False),
    Column("used_at", BigInteger),
)

# Which user approved which app (lets /oauth/authenticate skip the approval step).
app_authorizations = Table(
    "app_authorizations",
    metadata,
    Column("user_id", BigInteger, nullable=False),
    Column("app_id", BigInteger, nullable=False),
    Column("access_level", Text),
    Column("scopes", Text),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("user_id", "app_id"),
)

# OAuth 2.0 authorization codes (PKCE), single use and short-lived.
oauth2_codes = Table(
    "oauth2_codes",
    metadata,
    Column("code", Text, primary_key=True),
    Column("app_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("redirect_uri", Text, nullable=False),
    Column("scopes", Text, nullable=False),
    Column("code_challenge", Text, nullable=False),
    Column("code_challenge_method", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("expires_at", BigInteger, nullable=False),
    Column("used_at", BigInteger),
)

# Browser sessions of the sign-in page (cookie value -> user).
web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id", Text, primary_key=True),
    Column("user_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("expires_at", BigInteger, nullable=False),
)

users = Table(
    "users",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("username", Text, nullable=False),
    Column("username_lower", Text, nullable=False, unique=True),
    Column("name", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("location", Text),
    Column("url", Text, nullable=False, server_default=""),
    Column("profile_image_url", Text),
    Column("profile_banner_url", Text),
    Column("protected", Integer, nullable=False, server_default="0"),
    Column("verified", Integer, nullable=False, server_default="0"),
    Column("verified_type", Text, nullable=False, server_default="none"),
    Column("subscription_type", Text, nullable=False, server_default="None"),
    Column("parody", Integer, nullable=False, server_default="0"),
    Column("is_identity_verified", Integer, nullable=False, server_default="0"),
    Column("pinned_post_id", BigInteger),
    Column("most_recent_post_id", BigInteger),
    Column("affiliation", Text),  # JSON
    Column("withheld", Text),  # JSON
    Column("entities", Text),  # JSON, derived from description and url at write time
    Column("email", Text),
    Column("password_hash", Text),  # for the sign-in page of the authorize flows; NULL: cannot sign in
    Column("followers_count", BigInteger, nullable=False, server_default="0"),
    Column("following_count", BigInteger, nullable=False, server_default="0"),
    Column("tweet_count", BigInteger, nullable=False, server_default="0"),
    Column("listed_count", BigInteger, nullable=False, server_default="0"),
    Column("like_count", BigInteger, nullable=False, server_default="0"),
    Column("media_count", BigInteger, nullable=False, server_default="0"),
    Index("ix_users_protected", "protected"),  # search leaves protected accounts out
)

posts = Table(
    "posts",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("author_id", BigInteger, nullable=False),
    Column("text", Text, nullable=False),
    Column("display_text", Text),  # the beginning of a long post, shown as `text`; NULL when not long
    Column("created_at", BigInteger, nullable=False),
    Column("conversation_id", BigInteger, nullable=False),
    Column("in_reply_to_post_id", BigInteger),
    Column("in_reply_to_user_id", BigInteger),
    Column("quoted_post_id", BigInteger),
    Column("reposted_post_id", BigInteger),
    Column("lang", Text),
    Column("possibly_sensitive", Integer, nullable=False, server_default="0"),
    Column("reply_settings", Text, nullable=False, server_default="everyone"),
    Column("source", Text),
    Column("community_id", BigInteger),
    Column("share_with_followers", Integer, nullable=False, server_default="0"),
    Column("paid_partnership", Integer, nullable=False, server_default="0"),
    Column("place_id", Text),
    Column("media_keys", Text),  # JSON array
    Column("poll_id", BigInteger),
    Column("entities", Text),  # JSON
    Column("context_annotations", Text),  # JSON
    Column("withheld", Text),  # JSON
    Column("edit_history", Text),  # JSON array of ids; NULL means [id]
    Column("edits_remaining", Integer, nullable=False, server_default="5"),
    Column("is_edit_eligible", Integer, nullable=False, server_default="1"),
    Column("superseded_by", BigInteger),  # set on a version once it has been edited
    Column("retweet_count", BigInteger, nullable=False, server_default="0"),
    Column("reply_count", BigInteger, nullable=False, server_default="0"),
    Column("like_count", BigInteger, nullable=False, server_default="0"),
    Column("quote_count", BigInteger, nullable=False, server_default="0"),
    Column("bookmark_count", BigInteger, nullable=False, server_default="0"),
    Column("impression_count", BigInteger, nullable=False, server_default="0"),
    Column("deleted_at", BigInteger),
    Column("reply_hidden", Integer, nullable=False, server_default="0"),  # hidden by the root's author
    # The search document (roost/search/document.py), written with the row; indexed by SQLite FTS5
    # (`posts_fts`) or a PostgreSQL GIN index (`ix_posts_search`), both made in migration 0008.
    Column("search_text", Text),
    Column("search_urls", Text),  # lowercased URLs, one a line, for `url:`
    # Promoted-only posts (the ads API's nullcast posts): readable by id, left out of timelines,
    # search and streams. The card a post carries (`card://<id>`, ads cards). Migration 0023.
    Column("nullcast", Integer, nullable=False, server_default="0"),
    Column("card_uri", Text),
    Index("ix_posts_author_id", "author_id", "id"),
    Index("ix_posts_conversation", "conversation_id"),
    Index("ix_posts_reposted", "reposted_post_id"),
    Index("ix_posts_quoted", "quoted_post_id"),
)

post_mentions = Table(
    "post_mentions",
    metadata,
    Column("post_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    PrimaryKeyConstraint("user_id", "post_id"),
    Index("ix_post_mentions_post", "post_id", "user_id"),  # a post's mentions: fan-out, deletion
)

media = Table(
    "media",
    metadata,
    Column("media_key", Text, primary_key=True),
    Column("id", BigInteger, nullable=False),
    Column("type", Text, nullable=False),
    Column("url", Text),
    Column("preview_image_url", Text),
    Column("width", Integer),
    Column("height", Integer),
    Column("duration_ms", BigInteger),
    Column("alt_text", Text),
    Column("variants", Text),  # JSON
    Column("view_count", BigInteger),
    Column("owner_id", BigInteger),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_media_id", "id"),
)

polls = Table(
    "polls",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("options", Text, nullable=False),  # JSON [{position,label,votes}]
    Column("duration_minutes", Integer, nullable=False),
    Column("end_datetime", BigInteger, nullable=False),
    Column("voting_status", Text, nullable=False, server_default="open"),
)

places = Table(
    "places",
    metadata,
    Column("id", Text, primary_key=True),
    Column("full_name", Text, nullable=False),
    Column("name", Text),
    Column("country", Text),
    Column("country_code", Text),
    Column("place_type", Text),
    Column("geo", Text),  # JSON
    Column("contained_within", Text),  # JSON
)

follows = Table(
    "follows",
    metadata,
    Column("follower_id", BigInteger, nullable=False),
    Column("followee_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("follower_id", "followee_id"),
    Index("ix_follows_followee", "followee_id", "follower_id"),
)

# The event log: every write appends here in the same transaction; deliveries and streams read it.
events = Table(
    "events",
    metadata,
    Column("position", RowId, primary_key=True, autoincrement=True),
    Column("id", BigInteger, nullable=False, unique=True),
    Column("kind", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("user_id", BigInteger),
    Column("object_id", BigInteger),
    Column("payload", Text, nullable=False),  # JSON
)

dm_conversations = Table(
    "dm_conversations",
    metadata,
    Column("id", Text, primary_key=True),  # "<low>-<high>" for 1:1, a snowflake string for groups
    Column("kind", Text, nullable=False),  # one_to_one | group
    Column("created_at", BigInteger, nullable=False),
)

dm_participants = Table(
    "dm_participants",
    metadata,
    Column("conversation_id", Text, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("joined_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("conversation_id", "user_id"),
    # "events visible to a user": the user's conversations, then their events by id
    Index("ix_dm_participants_user", "user_id", "conversation_id"),
)

dm_events = Table(
    "dm_events",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("conversation_id", Text, nullable=False),
    Column("event_type", Text, nullable=False),  # MessageCreate | ParticipantsJoin | ParticipantsLeave
    Column("sender_id", BigInteger),
    Column("text", Text),
    Column("created_at", BigInteger, nullable=False),
    Column("entities", Text),  # JSON
    Column("attachments", Text),  # JSON: {"media_keys": [...]}
    Column("referenced_post_ids", Text),  # JSON list of post ids
    Column("participant_ids", Text),  # JSON list of user ids (ParticipantsJoin/Leave)
    # "events of a conversation newest first"
    Index("ix_dm_events_conversation", "conversation_id", "id"),
)

settings = Table(
    "roost_settings",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)

# Registered webhooks (the limit counts per developer account, i.e. per project).
webhooks = Table(
    "webhooks",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("app_id", BigInteger, nullable=False),
    Column("project_id", BigInteger, nullable=False),
    Column("url", Text, nullable=False),
    Column("valid", Integer, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("validated_at", BigInteger),  # last passing CRC
    Column("crc_attempted_at", BigInteger),  # last CRC of any outcome (the 30-minute cadence)
    Index("ix_webhooks_app", "app_id", "id"),
    Index("ix_webhooks_project", "project_id"),
)

# Each webhook's newest CRC checks (issue 17: the console shows the history), at most 50 per webhook.
crc_checks = Table(
    "crc_checks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("webhook_id", BigInteger, nullable=False),
    Column("at_ms", BigInteger, nullable=False),
    Column("passed", Integer, nullable=False),
    Column("detail", Text, nullable=False),
    Column("trigger", Text, nullable=False),  # create | request (PUT /2/webhooks/:id) | scheduled
    Index("ix_crc_checks_webhook", "webhook_id", "id"),
)

# Account-activity subscriptions: one user of one app on one webhook.
aaa_subscriptions = Table(
    "aaa_subscriptions",
    metadata,
    Column("webhook_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("app_id", BigInteger, nullable=False),
    Column("access_level", Text, nullable=False),  # the OAuth 1.0a level, or what the scopes grant
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("webhook_id", "user_id"),
    Index("ix_aaa_subscriptions_app", "app_id", "user_id"),
)

# Webhook deliveries: one row per (webhook, event), with the signed body and its attempts.
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("webhook_id", BigInteger, nullable=False),
    Column("event_position", BigInteger, nullable=False),
    Column("event_id", BigInteger, nullable=False),  # the stable id receivers dedupe on
    Column("for_user_id", BigInteger, nullable=False),  # 0 when the event is for no one user
    # Why this webhook gets this event: "aaa:<user id>", "xaa:<subscription id>", "replay:<job id>:…"
    Column("route", Text, nullable=False, server_default=""),
    Column("body", Text, nullable=False),  # the JSON envelope, exactly as signed and sent
    Column("state", Text, nullable=False),  # pending | sending | delivered | failed
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", BigInteger),
    Column("last_status", Integer),
    Column("last_latency_ms", Integer),
    Column("delivered_at", BigInteger),
    Column("created_at", BigInteger, nullable=False),
    # While `sending`: the process sending it and until when (wall-clock epoch ms) the claim holds;
    # a claim left by a killed process expires and the delivery is due again (issue 16).
    Column("claimed_by", Text),
    Column("claim_expires_at", BigInteger),
    Index("ux_deliveries_route", "webhook_id", "event_position", "route", unique=True),
    Index("ix_deliveries_due", "state", "next_attempt_at"),
)

# Social edges that cause account-activity events (likes, blocks, mutes; follows are above).
likes = Table(
    "likes",
    metadata,
    Column("user_id", BigInteger, nullable=False),
    Column("post_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("user_id", "post_id"),
    Index("ix_likes_post", "post_id", "user_id"),
)

blocks = Table(
    "blocks",
    metadata,
    Column("source_id", BigInteger, nullable=False),
    Column("target_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("source_id", "target_id"),
    Index("ix_blocks_target", "target_id", "source_id"),
)

mutes = Table(
    "mutes",
    metadata,
    Column("source_id", BigInteger, nullable=False),
    Column("target_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("source_id", "target_id"),
)

# Spaces exist so spaces.start / spaces.end have a real cause.
spaces = Table(
    "spaces",
    metadata,
    Column("id", Text, primary_key=True),  # 13 characters, e.g. 1DXxyRYNejbKM
    Column("creator_id", BigInteger, nullable=False),
    Column("title", Text),
    Column("state", Text, nullable=False),  # scheduled | live | ended
    Column("created_at", BigInteger, nullable=False),
    Column("started_at", BigInteger),
    Column("ended_at", BigInteger),
    # Issue 15, the Spaces reads (migration 0014): the rest of the platform's Space object.
    Column("scheduled_start", BigInteger),
    Column("updated_at", BigInteger),
    Column("lang", Text),
    Column("is_ticketed", Integer, nullable=False, server_default="0"),
    Column("participant_count", BigInteger, nullable=False, server_default="0"),
    Column("subscriber_count", BigInteger, nullable=False, server_default="0"),
    Column("host_ids", Text),  # JSON arrays of user ids (co-hosts, speakers, invited) and topic ids
    Column("speaker_ids", Text),
    Column("invited_user_ids", Text),
    Column("topic_ids", Text),
    Index("ix_spaces_creator", "creator_id"),
)

# Activity (XAA) subscriptions: an event type and a filter, delivered to the stream and optionally a webhook.
activity_subscriptions = Table(
    "activity_subscriptions",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("app_id", BigInteger, nullable=False),
    Column("event_type", Text, nullable=False),
    Column("filter_user_id", BigInteger),
    Column("filter_keyword", Text),
    Column("filter_direction", Text),
    Column("tag", Text),
    Column("webhook_id", BigInteger),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index("ix_activity_subscriptions_app", "app_id", "id"),
    Index("ix_activity_subscriptions_match", "event_type", "filter_user_id"),
)

# Replay jobs: one window of one webhook re-delivered, then a replay_job_status message.
replay_jobs = Table(
    "replay_jobs",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("webhook_id", BigInteger, nullable=False),
    Column("app_id", BigInteger, nullable=False),
    Column("from_ms", BigInteger, nullable=False),
    Column("to_ms", BigInteger, nullable=False),
    Column("state", Text, nullable=False),  # running | complete | incomplete
    Column("created_at", BigInteger, nullable=False),
    Column("finished_at", BigInteger),
    Index("ix_replay_jobs_webhook", "webhook_id", "state"),
)

# Filtered-stream rules: owned by an app (counted per app and per project, the caps' two levels).
stream_rules = Table(
    "stream_rules",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("app_id", BigInteger, nullable=False),
    Column("project_id", BigInteger, nullable=False),
    Column("value", Text, nullable=False),
    Column("tag", Text),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_stream_rules_app", "app_id", "id"),
    Index("ix_stream_rules_project", "project_id"),
)

# The ads API's tables live in their own module; importing it registers them on `metadata`.
from roost.storage import schema_ads  # noqa: E402, F401

# ---- filtered-stream webhook links (issue 6) ------------------------------------------------------
# The app's filtered stream linked to one of its webhooks, with the field and expansion parameters
# sent with the link (`params`: JSON list of [name, raw value] in request order). One link per webhook.
stream_links = Table(
    "stream_links",
    metadata,
    Column("webhook_id", RowId, primary_key=True, autoincrement=False),
    Column("app_id", BigInteger, nullable=False),
    Column("params", Text, nullable=False, server_default="[]"),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_stream_links_app", "app_id", "webhook_id"),
)

# Stream connection history and the usage ledger (issue 6), lists, bookmarks and DM blocks (issue 14):
# their own modules, registered the same way.
# Spaces, compliance jobs and account standing; community notes, news, communities, articles and post
# metrics (issue 15): their own modules too.
from roost.storage import (  # noqa: E402, F401
    schema_community,
    schema_social,
    schema_spaces,
    schema_streams,
)

# Media uploads and their bytes (issue 15): their own module, registered the same way.
# isort: split
from roost.storage import schema_media  # noqa: E402, F401

# Nonces and rate-limit windows shared by the processes of one database (issue 16).
# isort: split
from roost.storage import schema_shared  # noqa: E402, F401

# Leases of the singleton jobs several processes share (issue 16: shared work).
# isort: split
from roost.storage import schema_work  # noqa: E402, F401

# The usage ledger: what each app's traffic cost (issue 20).
# isort: split
from roost.storage import schema_billing  # noqa: E402, F401

# Encrypted chat: public keys, conversations, members, keys, events and media (issue 22).
# isort: split
from roost.storage import schema_chat  # noqa: E402, F401

# Scheduled broadcasts (issue 22).
# isort: split
from roost.storage import schema_broadcasts  # noqa: E402, F401
