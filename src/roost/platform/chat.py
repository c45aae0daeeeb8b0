"""Encrypted chat (X Chat): public keys, conversations, keys, messages, events, reads and typing, and
the encrypted media of a conversation. Handlers: parameters in, one domain call, result out."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from roost.core.errors import ParamError
from roost.core.params import CsvOf, IntRange, Kind, Param, Snowflake, Token
from roost.core.wire import Stream
from roost.platform.media_upload import SEGMENT_BODY, fields_of, media_bytes, segment_index, text
from roost.platform.operations import USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects

CONVERSATION_PATTERN = "^([0-9]{1,19}|[0-9]{1,19}-[0-9]{1,19}|g[0-9]{1,19})$"
HASH_KEY_PATTERN = "^[a-zA-Z0-9]{1,50}$"
OCTET_STREAM = "application/octet-stream"


class Pattern(Kind):
    """A path value matching the document's pattern."""

    def __init__(self, pattern: str) -> None:
        self._pattern = pattern
        self._regex = re.compile(pattern)

    @property
    def openapi(self) -> dict[str, Any]:  # type: ignore[override]
        return {"type": "string", "pattern": self._pattern}

    def parse(self, name: str, raw: str) -> str:
        if self._regex.fullmatch(raw) is None:
            raise ParamError(f"The `{name}` query parameter value [{raw}] does not match {self._pattern}")
        return raw


class Text(Kind):
    """A path value the document leaves free (the domain answers not found for one that names nothing)."""

    openapi: ClassVar[dict[str, Any]] = {"type": "string"}

    def parse(self, name: str, raw: str) -> str:
        return raw


def _me(call: Call) -> int:
    assert call.principal.user_id is not None
    return call.principal.user_id


# ---- public keys ------------------------------------------------------------------------------------


async def add_public_key(call: Call) -> dict[str, Any]:
    return await call.domain.chat_keys.register(_me(call), call.params["id"], call.body)


async def user_public_keys(call: Call) -> Objects:
    return page_objects(await call.domain.chat_keys.of_user(_me(call), call.params["id"]))


async def users_public_keys(call: Call) -> Objects:
    return page_objects(await call.domain.chat_keys.of_users(_me(call), call.params["ids"]))


# ---- conversations ----------------------------------------------------------------------------------


async def conversations(call: Call) -> Objects:
    params = call.params
    return page_objects(
        await call.domain.chat.conversations(_me(call), params["max_results"], params.get("pagination_token"))
    )


async def conversation(call: Call) -> Objects:
    page = await call.domain.chat.conversation(_me(call), call.params["id"])
    return Objects(page.rows, single=True, errors=page.errors)


async def initialize_group(call: Call) -> dict[str, Any]:
    return await call.domain.chat.initialize_group(_me(call))


async def create_group(call: Call) -> dict[str, Any]:
    return await call.domain.chat.create_group(_me(call), call.body)


async def add_members(call: Call) -> dict[str, Any]:
    return await call.domain.chat.add_members(_me(call), call.params["id"], call.body)


async def add_keys(call: Call) -> dict[str, Any]:
    return await call.domain.chat.add_keys(_me(call), call.params["id"], call.body)


async def send_message(call: Call) -> dict[str, Any]:
    return await call.domain.chat.send(_me(call), call.params["id"], call.body)


async def events(call: Call) -> Objects:
    params = call.params
    page = await call.domain.chat.events(
        _me(call), params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def mark_read(call: Call) -> dict[str, Any]:
    return await call.domain.chat.mark_read(_me(call), call.params["id"], call.body)


async def typing(call: Call) -> dict[str, Any]:
    return await call.domain.chat.typing(_me(call), call.params["id"])


# ---- media ------------------------------------------------------------------------------------------


async def media_initialize(call: Call) -> dict[str, Any]:
    return await call.domain.chat_media.initialize(_me(call), call.body)


async def media_append(call: Call) -> dict[str, Any]:
    fields = fields_of(call.body)
    named = {name: None if name == "media" else text(fields, name) for name in fields}
    expires_at = await call.domain.chat_media.append(
        _me(call), call.params["id"], named, segment_index(fields), media_bytes(fields)
    )
    return {"data": {"expires_at": expires_at}}


async def media_finalize(call: Call) -> dict[str, Any]:
    return await call.domain.chat_media.finalize(_me(call), str(call.params["id"]), call.body)


async def media_download(call: Call) -> Stream:
    params = call.params
    file = await call.domain.chat_media.download(_me(call), params["id"], params["media_hash_key"])
    # Ciphertext, whatever the file was: streamed, never whole in memory.
    return Stream(file.chunks, content_type=OCTET_STREAM, headers={"content-length": str(file.size)})


CONVERSATION = Param("id", Pattern(CONVERSATION_PATTERN), required=True, in_path=True)
USER_ID = Param("id", Snowflake(), required=True, in_path=True)
PAGING = (Param("max_results", IntRange(1, 100), default=10), Param("pagination_token", Token()))
READ = RateLimit(user=900)
WRITE = RateLimit(user=300)


def _op(
    operation_id: str,
    method: str,
    path: str,
    handler: Any,
    scopes: tuple[str, ...],
    summary: str,
    **more: Any,
) -> Operation:
    write = method == "POST"
    return Operation(
        operation_id,
        method,
        path,
        handler,
        USER_AUTH,
        scopes,
        write=write,
        dm=any(scope.startswith("dm.") for scope in scopes),
        rate_limit=WRITE if write else READ,
        tag="Chats",
        summary=summary,
        **more,
    )


DM_READ = ("dm.read", "tweet.read", "users.read")
DM_WRITE = ("dm.write", "tweet.read", "users.read")
MEDIA = ("media.write",)

OPERATIONS: tuple[Operation, ...] = (
    _op(
        "getUsersPublicKeys",
        "GET",
        "/2/users/public_keys",
        users_public_keys,
        DM_READ,
        "Get public keys for multiple users",
        params=(Param("ids", CsvOf(Snowflake(), 100), required=True),),
        returns="public_key",
    ),
    _op(
        "getUsersPublicKey",
        "GET",
        "/2/users/{id}/public_keys",
        user_public_keys,
        DM_READ,
        "Get user public keys",
        params=(USER_ID,),
        returns="public_key",
    ),
    _op(
        "addUserPublicKey",
        "POST",
        "/2/users/{id}/public_keys",
        add_public_key,
        DM_WRITE,
        "Add public key",
        params=(USER_ID,),
        body=True,
    ),
    _op(
        "getChatConversations",
        "GET",
        "/2/chat/conversations",
        conversations,
        ("dm.read", "users.read"),
        "Get chat conversations",
        params=PAGING,
        returns="chat_conversation",
    ),
    _op(
        "getChatConversation",
        "GET",
        "/2/chat/conversations/{id}",
        conversation,
        DM_READ,
        "Get chat conversation",
        params=(Param("id", Text(), required=True, in_path=True),),
        returns="chat_conversation",
    ),
    _op(
        "initializeChatGroup",
        "POST",
        "/2/chat/conversations/group/initialize",
        initialize_group,
        ("dm.write",),
        "Initialize chat group",
    ),
    _op(
        "createChatConversation",
        "POST",
        "/2/chat/conversations/group",
        create_group,
        DM_WRITE,
        "Create chat group conversation",
        body=True,
        status=201,
    ),
    _op(
        "addChatGroupMembers",
        "POST",
        "/2/chat/conversations/{id}/members",
        add_members,
        DM_WRITE,
        "Add members to a chat group conversation",
        params=(CONVERSATION,),
        body=True,
    ),
    _op(
        "addConversationKeys",
        "POST",
        "/2/chat/conversations/{id}/keys",
        add_keys,
        DM_WRITE,
        "Add conversation keys",
        params=(CONVERSATION,),
        body=True,
    ),
    _op(
        "sendChatMessage",
        "POST",
        "/2/chat/conversations/{id}/messages",
        send_message,
        DM_WRITE,
        "Send chat message",
        params=(CONVERSATION,),
        body=True,
        status=201,
    ),
    _op(
        "getChatConversationEvents",
        "GET",
        "/2/chat/conversations/{id}/events",
        events,
        DM_READ,
        "Get chat conversation events",
        params=(CONVERSATION, *PAGING),
        returns="chat_message_event",
    ),
    _op(
        "markChatConversationRead",
        "POST",
        "/2/chat/conversations/{id}/read",
        mark_read,
        DM_WRITE,
        "Mark conversation as read",
        params=(CONVERSATION,),
        body=True,
    ),
    _op(
        "sendChatTypingIndicator",
        "POST",
        "/2/chat/conversations/{id}/typing",
        typing,
        DM_WRITE,
        "Send typing indicator",
        params=(CONVERSATION,),
    ),
    _op(
        "chatMediaUploadInitialize",
        "POST",
        "/2/chat/media/upload/initialize",
        media_initialize,
        MEDIA,
        "Initialize chat media upload",
        body=True,
    ),
    _op(
        "chatMediaUploadAppend",
        "POST",
        "/2/chat/media/upload/{id}/append",
        media_append,
        MEDIA,
        "Append chat media upload",
        params=(Param("id", Text(), required=True, in_path=True),),
        raw_body=True,
        max_body=SEGMENT_BODY,
    ),
    _op(
        "chatMediaUploadFinalize",
        "POST",
        "/2/chat/media/upload/{id}/finalize",
        media_finalize,
        MEDIA,
        "Finalize chat media upload",
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        body=True,
    ),
    _op(
        "chatMediaDownload",
        "GET",
        "/2/chat/media/{id}/{media_hash_key}",
        media_download,
        MEDIA,
        "Download chat media",
        params=(
            CONVERSATION,
            Param("media_hash_key", Pattern(HASH_KEY_PATTERN), required=True, in_path=True),
        ),
    ),
)
