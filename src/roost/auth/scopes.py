"""The platform's OAuth 2.0 scopes (one list for the authorize page, token checks and issued tokens)."""

from __future__ import annotations

ALL_SCOPES = (
    "tweet.read",
    "tweet.write",
    "tweet.moderate.write",
    "users.read",
    "users.email",
    "follows.read",
    "follows.write",
    "offline.access",
    "space.read",
    "mute.read",
    "mute.write",
    "like.read",
    "like.write",
    "list.read",
    "list.write",
    "block.read",
    "block.write",
    "bookmark.read",
    "bookmark.write",
    "dm.read",
    "dm.write",
    "media.write",
    "timeline.read",
    "broadcast.read",
    "broadcast.write",
)

# Tokens roost issues without an authorize step (demo, CLI, control plane): everything but the
# scopes that reveal private data (email) or belong to broadcasting.
DEFAULT_SCOPES = tuple(s for s in ALL_SCOPES if s not in ("users.email", "broadcast.read", "broadcast.write"))
