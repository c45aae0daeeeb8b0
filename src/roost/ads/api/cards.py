"""Cards: the component cards (`cards`, JSON bodies), their lookup by uri (`cards/all`), and the poll,
image conversation and video conversation cards (issue 23)."""

from __future__ import annotations

from typing import Any

from roost.ads.call import AdsCall, AdsHandler
from roost.ads.card_components import CARD_TYPES, MAX_NAME
from roost.ads.cards import IMAGE_CONVERSATION, POLL, VIDEO_CONVERSATION
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, EnumList, Ids, Int, Text, TextList

SORTS = ("created_at", "updated_at", "deleted", "name")
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
CARD_ID = path_param("card_id")
CTA = Text(max_length=21)  # 20 characters, not counting the '#'
LEGACY_PATHS = {
    POLL: "poll",
    IMAGE_CONVERSATION: "image_conversation",
    VIDEO_CONVERSATION: "video_conversation",
}


async def list_cards(call: AdsCall) -> AdsResult:
    return await call.ads.cards.page(call.account_id, call.params)


async def get_card(call: AdsCall) -> dict[str, Any]:
    return await call.ads.cards.fetch_one(
        call.account_id, call.params["card_id"], bool(call.params["with_deleted"])
    )


async def create_card(call: AdsCall) -> dict[str, Any]:
    return await call.ads.cards.create(call.actor, call.body)


async def update_card(call: AdsCall) -> dict[str, Any]:
    return await call.ads.cards.update(call.actor, call.params["card_id"], call.body)


async def delete_card(call: AdsCall) -> dict[str, Any]:
    return await call.ads.cards.delete(call.actor, call.params["card_id"])


async def fetch_cards(call: AdsCall) -> AdsResult:
    return await call.ads.cards.fetch(
        call.account_id, call.params["card_uris"], bool(call.params["with_deleted"])
    )


async def fetch_card(call: AdsCall) -> dict[str, Any]:
    return await call.ads.cards.fetch_one(
        call.account_id, call.params["card_id"], bool(call.params["with_deleted"])
    )


def _legacy_lister(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> AdsResult:
        return await call.ads.cards.legacy_page(call.account_id, kind, call.params)

    return handler


def _legacy_getter(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.cards.get_legacy(call.account_id, kind, call.params["card_id"])

    return handler


def _legacy_creator(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.cards.create_legacy(call.actor, kind, call.params)

    return handler


def _legacy_updater(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.cards.update_legacy(call.actor, kind, call.params["card_id"], call.params)

    return handler


def _legacy_deleter(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.cards.delete_legacy(call.actor, kind, call.params["card_id"])

    return handler


def _conversation_params(required: bool, video: bool) -> tuple[AdsParam, ...]:
    """The writable fields of a conversation card (`fouth_cta*`: the SDK's spelling, taken too)."""
    params = [
        AdsParam("first_cta", CTA, required=required),
        AdsParam("first_cta_tweet", Text(max_length=256), required=required),
        AdsParam("media_key", Text(max_length=64), required=required),
        AdsParam("name", Text(max_length=MAX_NAME), required=required),
        AdsParam("thank_you_text", Text(max_length=23), required=required),
        AdsParam("title", Text(max_length=23)),
        AdsParam("thank_you_url", Text(max_length=2048)),
        AdsParam("unlocked_image_media_key", Text(max_length=64)),
    ]
    for which in ("second", "third", "fourth", "fouth"):
        params += [AdsParam(f"{which}_cta", CTA), AdsParam(f"{which}_cta_tweet", Text(max_length=256))]
    if video:
        params += [
            AdsParam("poster_media_key", Text(max_length=64)),
            AdsParam("unlocked_video_media_key", Text(max_length=64)),
        ]
    return tuple(params)


def _legacy_operations(kind: str, name: str) -> list[AdsOperation]:
    base = f"/accounts/{{account_id}}/cards/{LEGACY_PATHS[kind]}"
    operations = [
        AdsOperation(
            f"list{name}s",
            "GET",
            base,
            _legacy_lister(kind),
            params=(
                ACCOUNT_ID,
                AdsParam("card_ids", Ids()),
                AdsParam("q", Text(max_length=80)),
                *list_params(SORTS),
            ),
            category=ENTITY_READ,
            paginated=True,
        ),
        AdsOperation(
            f"get{name}",
            "GET",
            f"{base}/{{card_id}}",
            _legacy_getter(kind),
            params=(ACCOUNT_ID, CARD_ID, WITH_DELETED),
            category=ENTITY_READ,
        ),
        AdsOperation(
            f"delete{name}",
            "DELETE",
            f"{base}/{{card_id}}",
            _legacy_deleter(kind),
            params=(ACCOUNT_ID, CARD_ID),
            category=WRITE,
            write=True,
        ),
    ]
    if kind == POLL:
        create_params: tuple[AdsParam, ...] = (
            AdsParam("duration_in_minutes", Int(5, 10080), required=True),
            AdsParam("first_choice", Text(max_length=25), required=True),
            AdsParam("second_choice", Text(max_length=25), required=True),
            AdsParam("third_choice", Text(max_length=25)),
            AdsParam("fourth_choice", Text(max_length=25)),
            AdsParam("name", Text(max_length=MAX_NAME), required=True),
            AdsParam("media_key", Text(max_length=64)),
        )
    else:
        video = kind == VIDEO_CONVERSATION
        create_params = _conversation_params(True, video)
        operations.append(
            AdsOperation(
                f"update{name}",
                "PUT",
                f"{base}/{{card_id}}",
                _legacy_updater(kind),
                params=(ACCOUNT_ID, CARD_ID, *_conversation_params(False, video)),
                category=WRITE,
                write=True,
            )
        )
    operations.append(
        AdsOperation(
            f"create{name}",
            "POST",
            base,
            _legacy_creator(kind),
            params=(ACCOUNT_ID, *create_params),
            category=WRITE,
            write=True,
        )
    )
    return operations


OPERATIONS = [
    AdsOperation(
        "listCards",
        "GET",
        "/accounts/{account_id}/cards",
        list_cards,
        params=(
            ACCOUNT_ID,
            AdsParam("card_types", EnumList(CARD_TYPES)),
            AdsParam("card_id", Ids()),
            AdsParam("card_uris", TextList()),
            AdsParam("q", Text(max_length=80)),
            AdsParam("include_legacy_cards", Bool(), default=False),
            *list_params(SORTS, count_default=100, count_max=200),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getCard",
        "GET",
        "/accounts/{account_id}/cards/{card_id}",
        get_card,
        params=(ACCOUNT_ID, CARD_ID, WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createCard",
        "POST",
        "/accounts/{account_id}/cards",
        create_card,
        params=(ACCOUNT_ID,),
        category=WRITE,
        write=True,
        body="json",
    ),
    AdsOperation(
        "updateCard",
        "PUT",
        "/accounts/{account_id}/cards/{card_id}",
        update_card,
        params=(ACCOUNT_ID, CARD_ID),
        category=WRITE,
        write=True,
        body="json",
    ),
    AdsOperation(
        "deleteCard",
        "DELETE",
        "/accounts/{account_id}/cards/{card_id}",
        delete_card,
        params=(ACCOUNT_ID, CARD_ID),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "fetchCards",
        "GET",
        "/accounts/{account_id}/cards/all",
        fetch_cards,
        params=(ACCOUNT_ID, AdsParam("card_uris", TextList(), required=True), WITH_DELETED),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "fetchCard",
        "GET",
        "/accounts/{account_id}/cards/all/{card_id}",
        fetch_card,
        params=(ACCOUNT_ID, CARD_ID, WITH_DELETED),
        category=ENTITY_READ,
    ),
    *_legacy_operations(POLL, "PollCard"),
    *_legacy_operations(IMAGE_CONVERSATION, "ImageConversationCard"),
    *_legacy_operations(VIDEO_CONVERSATION, "VideoConversationCard"),
]
