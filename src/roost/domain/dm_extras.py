"""Direct messages beyond sending and reading: DM blocks, deleting one's own message, downloading the
media attached to a message.

A DM block (`dm_blocks`: source refuses messages from target) is apart from the account block; the
platform defines no activity or account-activity event for it, nor for a deleted message, so these
writes append none.
"""

from __future__ import annotations

import struct
import zlib

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.domain.media_uploads import MediaFile, MediaUploads
from roost.storage import dm_extras as dm_rows
from roost.storage import users as user_rows
from roost.storage.db import Database
from roost.storage.dms import DmStore
from roost.storage.users import UserStore

# The 1:1 send of a blocked sender (the v1.1 text of code 349; the v2 body is the Forbidden problem).
DM_REFUSED = "You cannot send messages to this user."
NOT_PERMITTED = "You are not permitted to perform this action."
PLACEHOLDER_SIDE = 16
PLACEHOLDER_TYPE = "image/png"


def _not_found(resource_type: str, parameter: str, value: str) -> errors.ApiError:
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find {resource_type} with {parameter}: [{value}].",
        404,
        value=value,
        resource_type=resource_type,
        parameter=parameter,
        resource_id=value,
    )


class DmExtras:
    def __init__(
        self, db: Database, clock: Clock, users: UserStore, dms: DmStore, uploads: MediaUploads
    ) -> None:
        self._db = db
        self._clock = clock
        self._users = users
        self._dms = dms
        self._uploads = uploads

    # ---- DM blocks ------------------------------------------------------------------------------

    async def block(self, user_id: int, target_id: int) -> None:
        """`user_id` refuses direct messages from `target_id` (repeating it changes nothing)."""
        async with self._db.transaction() as tx:
            if await user_rows.get_user_tx(tx, target_id) is None:
                raise errors.invalid_request(
                    [errors.param_error("id", str(target_id), f"Could not find user with id: [{target_id}].")]
                )
            if user_id == target_id:
                raise errors.forbidden("You cannot block yourself.")
            if not await dm_rows.dm_blocked(tx, user_id, target_id):
                await dm_rows.insert_dm_block(tx, user_id, target_id, self._clock.now_ms())

    async def unblock(self, user_id: int, target_id: int) -> None:
        async with self._db.transaction() as tx:
            await dm_rows.delete_dm_block(tx, user_id, target_id)

    # ---- deleting a message ---------------------------------------------------------------------

    async def delete_event(self, user_id: int, event_id: int) -> None:
        """Delete a message the user sent. An event of a conversation the user is not in does not
        exist for them; someone else's message, or a join/leave event, may not be deleted."""
        async with self._db.transaction() as tx:
            row = await dm_rows.get_event_tx(tx, event_id)
            if row is None or not await self._dms.is_participant(row["conversation_id"], user_id):
                raise _not_found("dm_event", "event_id", str(event_id))
            if row["sender_id"] != user_id or row["event_type"] != "MessageCreate":
                raise errors.forbidden(NOT_PERMITTED)
            await dm_rows.delete_event(tx, event_id)

    # ---- media download -------------------------------------------------------------------------

    async def media(self, user_id: int, dm_id: str, media_id: str, resource_id: str) -> MediaFile:
        """The bytes of a media attached to a message of a conversation the user is in: the uploaded
        file, streamed segment by segment; a placeholder image for media that came without bytes (the
        demo's, imported ones)."""
        event_id = int(dm_id) if dm_id.isascii() and dm_id.isdigit() and len(dm_id) <= 19 else None
        row = await self._dms.event(event_id) if event_id is not None else None
        if row is None or not await self._dms.is_participant(row["conversation_id"], user_id):
            raise _not_found("dm_event", "dm_id", dm_id)
        attached = jsonio.loads(row["attachments"]).get("media_keys", []) if row["attachments"] else []
        media = (
            await self._users.media_by_id(int(media_id))
            if media_id.isascii() and media_id.isdigit() and len(media_id) <= 19
            else None
        )
        if media is None or media["media_key"] not in attached or not resource_id:
            raise _not_found("media", "media_id", media_id)
        uploaded = await self._uploads.attached_file(int(media["id"]))
        if uploaded is not None:
            return uploaded
        return MediaFile.whole(PLACEHOLDER_TYPE, placeholder_png(int(media["id"])))


def placeholder_png(seed: int) -> bytes:
    """A small solid-colour PNG standing in for the media's bytes, which roost does not keep; the
    colour follows the media id, so a download is the same every time."""
    colour = bytes(((seed >> shift) & 0xFF) for shift in (0, 8, 16))
    row = b"\x00" + colour * PLACEHOLDER_SIDE
    pixels = zlib.compress(row * PLACEHOLDER_SIDE)
    header = struct.pack(">IIBBBBB", PLACEHOLDER_SIDE, PLACEHOLDER_SIDE, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", pixels) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
