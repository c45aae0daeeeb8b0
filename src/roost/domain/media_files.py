"""The platform's media rules that need no storage: categories, types, size limits, media keys, and
what a file's first bytes say (its format, an image's width and height)."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

MB = 1024 * 1024
IMAGE_LIMIT = 5 * MB
GIF_LIMIT = 15 * MB
VIDEO_LIMIT = 512 * MB
SUBTITLES_LIMIT = 5 * MB
SEGMENT_LIMIT = 5 * MB  # one APPEND's media, raw or base64-decoded
MAX_SEGMENT_INDEX = 999
EXPIRES_AFTER_S = 86_400
HEADER_BYTES = 256 * 1024  # enough of a file's start to find an image's size (JPEG after its EXIF block)
ALT_TEXT_MAX = 1000

CATEGORIES = (
    "amplify_video",
    "tweet_gif",
    "tweet_image",
    "tweet_video",
    "dm_gif",
    "dm_image",
    "dm_video",
    "subtitles",
)
MEDIA_TYPES = (
    "video/mp4",
    "video/webm",
    "video/mp2t",
    "video/quicktime",
    "text/srt",
    "text/vtt",
    "image/jpeg",
    "image/gif",
    "image/bmp",
    "image/png",
    "image/webp",
    "image/pjpeg",
    "image/tiff",
    "model/gltf-binary",
    "model/vnd.usdz+zip",
)
EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/pjpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/bmp": "bmp",
    "image/tiff": "tiff",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "video/mp2t": "ts",
    "video/quicktime": "mov",
    "text/srt": "srt",
    "text/vtt": "vtt",
    "model/gltf-binary": "glb",
    "model/vnd.usdz+zip": "usdz",
}


def category_of(raw: str | None) -> str | None:
    """A category as the docs spell it (`tweet_image`), from any of its spellings: the docs',
    twitter-api-v2's CamelCase (`TweetImage`) or the ads media library's (`TWEET_IMAGE`). None:
    unknown."""
    if raw is None:
        return None
    snake = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", raw.strip()).lower()
    return snake if snake in CATEGORIES else None


@dataclass(frozen=True, slots=True)
class Kind:
    """What an upload becomes: the media object's type (None: not a post media object, e.g.
    subtitles), its key prefix, its size limit, and whether it is processed after FINALIZE."""

    media_type: str | None
    key_prefix: int
    limit: int
    processed: bool


def kind_of(media_type: str, category: str | None) -> Kind:
    family = media_type.split("/", 1)[0]
    if media_type == "image/gif":
        if category in ("tweet_gif", "dm_gif"):
            return Kind("animated_gif", 16, GIF_LIMIT, True)
        # Without a GIF category a GIF is held to the image limit and needs no processing.
        return Kind("animated_gif", 16, IMAGE_LIMIT, False)
    if family == "image":
        return Kind("photo", 3, IMAGE_LIMIT, False)
    if family == "video":
        # Without a category a video is taken as it is, synchronously (recorded v1.1 traffic).
        return Kind("video", 13 if category == "amplify_video" else 7, VIDEO_LIMIT, category is not None)
    if family == "text":
        return Kind(None, 3, SUBTITLES_LIMIT, False)
    return Kind(None, 3, VIDEO_LIMIT, False)


def fits_category(media_type: str, category: str) -> bool:
    family = media_type.split("/", 1)[0]
    if category == "subtitles":
        return family == "text"
    if category.endswith("_gif"):
        return media_type == "image/gif"
    if category.endswith("_image"):
        return family == "image"
    return family in ("video", "model")  # tweet_video, dm_video, amplify_video


def sniff_type(head: bytes) -> str | None:
    """The MIME type a file's first bytes name (for uploads that do not say), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:2] == b"BM":
        return "image/bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    if head[4:8] == b"ftyp":
        return "video/quicktime" if head[8:10] == b"qt" else "video/mp4"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "video/webm"
    return None


def matches_type(media_type: str, head: bytes) -> bool:
    """Whether the bytes are of the declared type (subtitles, models and transport streams are not
    checked)."""
    found = sniff_type(head)
    if media_type in ("image/jpeg", "image/pjpeg"):
        return found == "image/jpeg"
    if media_type in ("video/mp4", "video/quicktime"):
        return found in ("video/mp4", "video/quicktime")
    if media_type.startswith("image/") or media_type == "video/webm":
        return found == media_type
    return True


def image_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from an image's header (PNG, GIF, JPEG, WEBP, BMP), or None."""
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
            width, height = struct.unpack(">II", head[16:24])
            return width, height
        if head[:6] in (b"GIF87a", b"GIF89a"):
            width, height = struct.unpack("<HH", head[6:10])
            return width, height
        if head.startswith(b"\xff\xd8"):
            return _jpeg_size(head)
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return _webp_size(head)
        if head[:2] == b"BM" and len(head) >= 26:
            width, height = struct.unpack("<ii", head[18:26])
            return width, abs(height)
    except struct.error:
        return None
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    index = 2
    while index + 9 < len(head):
        if head[index] != 0xFF:
            return None
        marker = head[index + 1]
        if marker == 0xFF:  # fill byte
            index += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            index += 2
            continue
        (length,) = struct.unpack(">H", head[index + 2 : index + 4])
        # Start-of-frame markers (not DHT C4, JPG C8, DAC CC) carry the size.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", head[index + 5 : index + 9])
            return width, height
        index += 2 + length
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8 " and head[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and head[20] == 0x2F:
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return width, height
    return None
