"""The event-log → activity event-type mapping, on hand-built rows (no database)."""

from __future__ import annotations

from roost.domain.activity import carries_text
from roost.events.xaa import accepts, keyword_matches, routes, text_of


def test_posts_map_to_their_author() -> None:
    assert routes("post.create", {"post_id": "5", "author_id": "7"}, 7) == [(("post.create",), 7, None)]
    assert routes("post.delete", {"post_id": "5", "author_id": "7"}, 7) == [(("post.delete",), 7, None)]
    assert routes("post.edit", {"post_id": "5", "author_id": "7"}, 7) == []


def test_likes_and_follows_have_two_sides() -> None:
    like = {"user_id": "1", "post_id": "9", "post_author_id": "2"}
    assert routes("like.create", like, 1) == [
        (("like.create",), 1, "outbound"),
        (("like.create",), 2, "inbound"),
    ]
    assert routes("like.create", {**like, "post_author_id": "1"}, 1) == [(("like.create",), 1, "outbound")]
    assert routes("like.delete", like, 1) == []
    edge = {"source_id": "1", "target_id": "2"}
    assert routes("follow.unfollow", edge, 1) == [
        (("follow.unfollow",), 1, "outbound"),
        (("follow.unfollow",), 2, "inbound"),
    ]


def test_blocks_and_mutes_are_actor_only() -> None:
    edge = {"source_id": "1", "target_id": "2"}
    for kind in ("block.block", "block.unblock", "mute.mute", "mute.unmute"):
        assert routes(kind, edge, 1) == [((kind,), 1, None)]


def test_profile_updates_and_badge_aliases() -> None:
    change = {"user_id": "3", "before": "a", "after": "b"}
    assert routes("profile.update.bio", change, 3) == [(("profile.update.bio",), 3, None)]
    assert routes("profile.update.verified", change, 3) == [
        (("profile.update.verified", "profile.update.verified_badge"), 3, None)
    ]
    assert routes("profile.update.affiliate", change, 3)[0][0][1] == "profile.update.affiliate_badge"


def test_spaces_map_to_the_creator() -> None:
    assert routes("spaces.start", {"space_id": "1AB", "creator_id": "4"}, 4) == [(("spaces.start",), 4, None)]


def test_dm_directions() -> None:
    sent = {"dm_event_id": "1", "dm_conversation_id": "1-2", "sender_id": "1", "event_type": "MessageCreate"}
    assert routes("dm.sent", sent, 1) == [(("dm.sent",), 1, "outbound")]
    assert routes("dm.received", sent, 2) == [(("dm.received",), 2, "inbound")]
    read = {"dm_conversation_id": "1-2", "last_read_event_id": "1", "sender_id": "2"}
    assert routes("dm.read", read, 2) == [(("dm.read",), 2, "outbound")]
    assert routes("dm.indicate_typing", {"dm_conversation_id": "1-2", "sender_id": "2"}, 1) == [
        (("dm.indicate_typing",), 1, "inbound")
    ]
    assert routes("dm.sent", sent, None) == []


def test_direction_filter() -> None:
    assert accepts({"filter_direction": None}, "inbound")
    assert accepts({"filter_direction": "inbound"}, "inbound")
    assert not accepts({"filter_direction": "outbound"}, "inbound")


def test_keywords_match_whole_tokens_case_insensitively() -> None:
    assert keyword_matches("ferret", "A FERRET, at last!")
    assert keyword_matches("red panda", "look: a Red Panda")
    assert not keyword_matches("red panda", "a panda in red")
    assert not keyword_matches("ferret", "ferrets everywhere")
    assert not keyword_matches("ferret", None)


def test_the_text_a_keyword_reads() -> None:
    assert text_of({"id": "1", "text": "a post"}) == "a post"
    message = {"message_create": {"message_data": {"text": "a message"}}}
    assert text_of({"direct_message_events": [message], "users": {}}) == "a message"
    assert text_of({"direct_message_events": [{"type": "participants_join"}]}) is None
    assert text_of({"source": {}, "target": {}}) is None


def test_event_types_with_text_take_a_keyword() -> None:
    with_text = ("news.new", "post.create", "post.mention.create", "dm.sent", "dm.received")
    assert all(carries_text(event_type) for event_type in with_text)
    without = ("post.delete", "like.create", "follow.follow", "dm.read", "profile.update.bio")
    assert not any(carries_text(event_type) for event_type in without)


def test_chat_routes() -> None:
    message = {"sender_id": "1", "recipient_ids": ["2", "3"]}
    assert routes("chat.message", message, 1) == [
        (("chat.sent",), 1, "outbound"),
        (("chat.received",), 2, "inbound"),
        (("chat.received",), 3, "inbound"),
    ]
    join = {"sender_id": "1", "member_id": "4"}
    assert routes("chat.conversation_join", join, 4) == [(("chat.conversation_join",), 4, "inbound")]
