"""What an event becomes for one webhook: the fan-out modules (account activity, activity events)
each answer a list of these, and the dispatcher records them as delivery rows.

Event log conventions every writer follows (`events.kind`, `events.user_id` = the user whose activity
it is, `events.payload` JSON with ids as strings):
- `post.create` / `post.edit` / `post.delete`: {post_id, author_id}, plus `reposted_post_id` when the
  post is a repost
- `like.create` / `like.delete`: {user_id, post_id, post_author_id}
- `follow.follow` / `follow.unfollow`, `block.block` / `block.unblock`, `mute.mute` / `mute.unmute`:
  {source_id, target_id} (user_id = source)
- `profile.update.<field>` for bio, screenname (the display name), handle (the @username), verified,
  affiliate, profile_picture, banner_picture, geo, url: {user_id, before, after}, values as strings
- `spaces.start` / `spaces.end`: {space_id, creator_id}
- `dm.sent` / `dm.received` (one row per participant): {dm_event_id, dm_conversation_id, sender_id,
  event_type}, plus `app_id` (the sending app) when sent through the API; `dm.read`:
  {dm_conversation_id, last_read_event_id, sender_id}; `dm.indicate_typing`:
  {dm_conversation_id, sender_id} (one row per participant, user_id = that participant)
- `news.new`: {news_id} (user_id NULL; appended by the control plane's publishing)
- `user.suspend` / `user.unsuspend` / `user.delete` / `user.undelete`: {user_id}; `user.scrub_geo`:
  {user_id, up_to_post_id} (account standing, set through the control plane)
- `chat.message` (one row per message, user_id = the sender): the activity payload itself, key for key
  as `chat.sent` / `chat.received` show it ({conversation_token?, id (the client's message id),
  created_at_msec, sender_id, conversation_id (`A:B` or `g…`), conversation_key_version, encoded_event,
  conversation_key_change_event?, message_event_signature?}), plus `recipient_ids` (the other members)
- `chat.conversation_join` (one row per member a group gains, user_id = that member): the same payload
  around the adder's signed group change (sender_id = the adder), plus `member_id`
- `broadcast.start` / `broadcast.end`: {broadcast_id, user_id, title, locale, available_for_replay,
  created_at, updated_at, started_at, ended_at} (times epoch ms, a snapshot of the broadcast at the
  move; user_id = the broadcaster); `broadcast.chat`: {broadcast_id, owner_id, author_id, message_id,
  text} (user_id = the owner, who receives the chat)
- `oauth.revoke`: {user_id, app_id, date_time} (user_id = the revoking user; the user's last live
  token of the app was revoked, and their subscriptions to the app's webhooks removed with it)
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
