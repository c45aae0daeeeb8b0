"""What an event becomes for one webhook: the fan-out modules (account activity, activity events)
each answer a list of these, and the dispatcher records them as delivery rows.

Event log conventions every writer follows (`events.kind`, `events.user_id` = the user whose activity
it is, `events.payload` JSON with ids as strings):
- `post.create` / `post.edit` / `post.delete`: {post_id, author_id}, plus `reposted_post_id` when the
  post is a repost
- `like.create` / `like.delete`: {user_id, post_id, post_author_id}
- `follow.follow` / `follow.unfollow`, `block.block` / `block.unblock`, `mute.mute` / `mute.unmute`:
  {source_id, target_id} (user_id = source)
- `profile.update.<field>` for bio, screenname, verified, affiliate, profile_picture, banner_picture,
  geo, url: {user_id, before, after}
- `spaces.start` / `spaces.end`: {space_id, creator_id}
- `dm.sent` / `dm.received` (one row per participant): {dm_event_id, dm_conversation_id, sender_id,
  event_type}; `dm.read`: {dm_conversation_id, last_read_event_id, sender_id}; `dm.indicate_typing`:
  {dm_conversation_id, sender_id} (one row per participant, user_id = that participant)
- `news.new`: {news_id} (user_id NULL; appended by the control plane's publishing)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outgoing:
    webhook_id: int
    # Why this webhook gets the event; unique per (webhook, event): "aaa:<user id>",
    # "xaa:<subscription id>" or "stream:<app id>" (filtered-stream webhooks)
    route: str
    body: bytes  # the JSON envelope, exactly as it will be signed and sent
    for_user_id: int = 0
