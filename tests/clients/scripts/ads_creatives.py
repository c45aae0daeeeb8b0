"""Creatives through the official ads SDK (issue 23), run by tests/clients/test_twitter_ads_creatives.py
in process (API version 11, the SDK's default) and in a fresh interpreter on version 12 (`ads_v12`).
Every path is the SDK's own resource class where it has one; `Request` where it has none."""

from __future__ import annotations

import datetime as dt
from typing import Any

import twitter_ads
from twitter_ads.account import Account
from twitter_ads.campaign import Campaign, LineItem
from twitter_ads.client import Client
from twitter_ads.creative import (
    AccountMedia,
    Card,
    CardsFetch,
    DraftTweet,
    ImageConversationCard,
    MediaCreative,
    MediaLibrary,
    PollCard,
    ScheduledTweet,
    TweetPreview,
    Tweets,
    VideoConversationCard,
)
from twitter_ads.error import NotFound
from twitter_ads.http import Request

WEBSITE = {
    "type": "DETAILS",
    "title": "Roost",
    "destination": {"type": "WEBSITE", "url": "https://example.com"},
}


def _path(tail: str) -> str:
    return "/" + twitter_ads.API_VERSION + tail


def _account(client: Client) -> Account:
    created = Request(client, "post", _path("/accounts")).perform()
    return Account.load(client, created.body["data"][0]["id"])


def library_and_cards(client: Client, image: str, video: str) -> dict[str, Any]:
    account = _account(client)
    out: dict[str, Any] = {}
    picture = MediaLibrary(account)
    picture.media_key = image
    picture.name = "picture"
    picture.add()
    clip = MediaLibrary(account)
    clip.media_key = video
    clip.title = "clip"
    clip.add()
    out["library_types"] = [picture.media_type, clip.media_type, clip.title]
    picture.name = "renamed"
    picture.update()
    loaded = MediaLibrary(account)
    loaded.media_key = image
    loaded.reload()
    out["library_name"] = loaded.name
    out["library_keys"] = sorted(item.media_key for item in MediaLibrary.all(account))
    media = list(account.account_media())
    out["account_media"] = [[m.creative_type, m.id == AccountMedia.load(account, m.id).id] for m in media]

    card = Card(account)
    card.name = "sdk card"
    card.components = [{"type": "MEDIA", "media_key": image}, WEBSITE]
    card.save()
    out["card"] = [card.card_type, card.card_uri == "card://" + card.id]
    card.name = "renamed card"
    card.save()
    out["card_loaded"] = Card.load(account, card.id).name
    out["cards"] = [c.id for c in account.cards()] == [card.id]
    out["fetched"] = [f.card_uri for f in CardsFetch.load(account, card_uris=[card.card_uri])] == [
        card.card_uri
    ]
    out["fetched_one"] = CardsFetch.load(account, card_id=card.id).card_type

    poll = PollCard(account)
    poll.name = "poll"
    poll.duration_in_minutes = 60
    poll.first_choice = "yes"
    poll.second_choice = "no"
    poll.save()
    out["poll"] = [poll.card_type, [p.id for p in PollCard.all(account)] == [poll.id]]
    poll.delete()
    out["poll_deleted"] = poll.deleted
    try:
        PollCard.load(account, poll.id)
        out["poll_gone"] = False
    except NotFound:
        out["poll_gone"] = True

    chat = ImageConversationCard(account)
    chat.name = "chat"
    chat.first_cta = "#yes"
    chat.first_cta_tweet = "yes"
    chat.thank_you_text = "thanks"
    chat.title = "Question"
    chat.media_key = image
    chat.save()
    chat.name = "chat 2"
    chat.save()
    out["image_conversation"] = [chat.card_type, ImageConversationCard.load(account, chat.id).name]
    movie = VideoConversationCard(account)
    movie.name = "movie"
    movie.first_cta = "#go"
    movie.first_cta_tweet = "go"
    movie.thank_you_text = "thanks"
    movie.title = "Watch"
    movie.media_key = video
    movie.save()
    out["video_conversation"] = [
        movie.card_type,
        [v.id for v in VideoConversationCard.all(account)] == [movie.id],
    ]
    movie.delete()

    removed = Request(client, "delete", _path(f"/accounts/{account.id}/cards/{card.id}")).perform()
    out["card_deleted"] = removed.body["data"]["deleted"]
    picture.delete()
    out["library_deleted"] = picture.deleted
    return out


def posts_and_creatives(client: Client, image: str, video: str, user_id: str, when: str) -> dict[str, Any]:
    account = _account(client)
    out: dict[str, Any] = {}
    for key in (image, video):
        item = MediaLibrary(account)
        item.media_key = key
        item.add()
    card = Card(account)
    card.name = "post card"
    card.components = [{"type": "MEDIA", "media_key": image}, WEBSITE]
    card.save()

    draft = DraftTweet(account)
    draft.as_user_id = user_id
    draft.text = "sdk draft"
    draft.card_uri = card.card_uri
    draft.save()
    draft.text = "sdk draft, changed"
    draft.save()
    out["draft"] = [DraftTweet.load(account, draft.id).text, draft.card_uri == card.card_uri, draft.nullcast]
    out["drafts"] = [d.id for d in DraftTweet.all(account)] == [draft.id]
    previews = TweetPreview.load(account, tweet_ids=[draft.id], tweet_type="DRAFT")
    out["previews"] = [p.tweet_id for p in previews] == [draft.id]
    draft.delete()

    scheduled = ScheduledTweet(account)
    scheduled.as_user_id = user_id
    scheduled.text = "sdk scheduled"
    scheduled.media_keys = [image]
    scheduled.scheduled_at = dt.datetime.fromisoformat(when.replace("Z", "+00:00"))
    scheduled.save()
    out["scheduled"] = [scheduled.scheduled_status, scheduled.media_keys, scheduled.tweet_id]
    scheduled.text = "sdk scheduled, changed"
    scheduled.save()
    out["scheduled_list"] = [s.text for s in account.scheduled_tweets()]
    scheduled.delete()

    posted = Request(
        client,
        "post",
        _path(f"/accounts/{account.id}/tweet"),
        params={"as_user_id": user_id, "text": f"sdk nullcast {image}", "trim_user": "true"},
    ).perform()
    tweet_id = posted.body["data"]["id_str"]
    listed = Tweets.all(account, tweet_type="PUBLISHED", tweet_ids=[tweet_id], trim_user=True)
    out["tweets"] = [(t["tweet_id"], t["nullcast"]) for t in listed] == [(tweet_id, True)]

    campaign = Campaign(account)
    campaign.funding_instrument_id = account.funding_instruments().first.id
    campaign.name = "creatives"
    campaign.daily_budget_amount_local_micro = 10_000_000
    campaign.entity_status = "PAUSED"
    campaign.save()
    line_item = LineItem(account)
    line_item.campaign_id = campaign.id
    line_item.name = "creatives"
    line_item.objective = "ENGAGEMENTS"
    line_item.product_type = "PROMOTED_TWEETS"
    line_item.placements = ["ALL_ON_TWITTER"]
    line_item.bid_strategy = "MAX"
    line_item.bid_amount_local_micro = 500_000
    line_item.entity_status = "PAUSED"
    line_item.save()
    preroll = next(iter(account.account_media()))
    creative = MediaCreative(account)
    creative.line_item_id = line_item.id
    creative.account_media_id = preroll.id
    creative.save()
    out["media_creative"] = [
        creative.entity_status,
        [m.id for m in account.media_creatives()] == [creative.id],
    ]
    out["media_creative_loaded"] = MediaCreative.load(account, creative.id).line_item_id == line_item.id
    creative.delete()
    out["media_creative_deleted"] = creative.deleted
    return out
