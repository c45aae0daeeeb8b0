"""Articles: a draft (title, DraftJS content state, optional cover media) and its publication, which
creates the post that carries it: the title and the article's address, posted by its author.

The draft body is checked against the document's schema (closed objects, required members, the
block, style, entity and mutability enumerations); no event product defines article events, and the
publishing post appends its own `post.create`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.core.params import MAX_ID
from roost.domain.posts import PostService
from roost.storage import articles as article_rows
from roost.storage.db import Database

ARTICLE_URL = "https://x.com/i/article/{}"
TITLE_IN_POST = 200  # characters of the title the carrying post shows


@dataclass(frozen=True)
class Shape:
    """A schema node: a closed object (members, required ones), an array of items, a string (with an
    enumeration), an integer (at least 0) or a boolean."""

    kind: str
    members: dict[str, Shape] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    items: Shape | None = None
    values: tuple[str, ...] = ()
    min_length: int = 0


STRING = Shape("string")
INDEX = Shape("integer")
SPAN = Shape(
    "object", {"from_index": INDEX, "to_index": INDEX, "text": STRING}, ("from_index", "to_index", "text")
)
BLOCK_TYPES = (
    "unstyled",
    "header-one",
    "header-two",
    "header-three",
    "unordered-list-item",
    "ordered-list-item",
    "blockquote",
    "atomic",
)
BLOCK = Shape(
    "object",
    {
        "text": STRING,
        "type": Shape("string", values=BLOCK_TYPES),
        "key": STRING,
        "data": Shape(
            "object",
            {name: Shape("array", items=SPAN) for name in ("cashtags", "hashtags", "mentions", "urls")},
        ),
        "entity_ranges": Shape(
            "array",
            items=Shape(
                "object", {"key": INDEX, "offset": INDEX, "length": INDEX}, ("key", "offset", "length")
            ),
        ),
        "inline_style_ranges": Shape(
            "array",
            items=Shape(
                "object",
                {
                    "offset": INDEX,
                    "length": INDEX,
                    "style": Shape("string", values=("bold", "italic", "strikethrough")),
                },
                ("offset", "length", "style"),
            ),
        ),
    },
    ("text", "type"),
)
MEDIA = Shape("object", {"media_category": STRING, "media_id": STRING}, ("media_category", "media_id"))
ENTITY = Shape(
    "object",
    {
        "key": STRING,
        "value": Shape(
            "object",
            {
                "type": Shape(
                    "string", values=("post", "link", "image", "emoji", "markdown", "divider", "latex")
                ),
                "mutability": Shape("string", values=("immutable", "mutable", "segmented")),
                "data": Shape(
                    "object",
                    {
                        "caption": STRING,
                        "entity_key": STRING,
                        "markdown": STRING,
                        "media_items": Shape("array", items=MEDIA),
                        "post_id": STRING,
                        "url": STRING,
                    },
                ),
            },
            ("type", "mutability", "data"),
        ),
    },
    ("key", "value"),
)
DRAFT = Shape(
    "object",
    {
        "title": Shape("string", min_length=1),
        "content_state": Shape(
            "object",
            {"blocks": Shape("array", items=BLOCK), "entities": Shape("array", items=ENTITY)},
            ("blocks", "entities"),
        ),
        "cover_media": MEDIA,
    },
    ("title", "content_state"),
)


def check(value: Any, shape: Shape, path: str = "$") -> None:
    """Refuse what `shape` does not allow, with the platform's schema messages."""
    if shape.kind == "object":
        if not isinstance(value, dict):
            raise errors.invalid_body(f"{path}: {jsonio.type_name(value)} found, object expected")
        extra = sorted(set(value) - set(shape.members))
        if extra:
            raise errors.invalid_body(
                f"{path}.{extra[0]}: is not defined in the schema and the schema does not allow "
                "additional properties"
            )
        for name in shape.required:
            if name not in value:
                raise errors.invalid_body(f"{path}.{name}: is missing but it is required")
        for name, member in shape.members.items():
            if name in value:
                check(value[name], member, f"{path}.{name}")
    elif shape.kind == "array":
        if not isinstance(value, list):
            raise errors.invalid_body(f"{path}: {jsonio.type_name(value)} found, array expected")
        assert shape.items is not None
        for index, item in enumerate(value):
            check(item, shape.items, f"{path}[{index}]")
    elif shape.kind == "string":
        if not isinstance(value, str):
            raise errors.invalid_body(f"{path}: {jsonio.type_name(value)} found, string expected")
        if len(value) < shape.min_length:
            raise errors.invalid_body(f"{path}: must be at least {shape.min_length} characters long")
        if shape.values and value not in shape.values:
            raise errors.invalid_body(
                f"{path}: does not have a value in the enumeration [{', '.join(shape.values)}]"
            )
    elif shape.kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            raise errors.invalid_body(f"{path}: {jsonio.type_name(value)} found, integer expected")
        if value < 0:
            raise errors.invalid_body(f"{path}: must be greater than or equal to 0")


class Articles:
    def __init__(self, db: Database, clock: Clock, ids: SnowflakeGenerator, posts: PostService) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._posts = posts

    async def draft(self, author_id: int, body: Any) -> dict[str, str]:
        check(body, DRAFT)
        article_id = self._ids.next_id()
        cover = body.get("cover_media")
        async with self._db.transaction() as tx:
            await article_rows.insert_article(
                tx,
                {
                    "id": article_id,
                    "author_id": author_id,
                    "title": body["title"],
                    "content_state": jsonio.dumps(body["content_state"]).decode(),
                    "cover_media": None if cover is None else jsonio.dumps(cover).decode(),
                    "post_id": None,
                    "created_at": self._clock.now_ms(),
                    "published_at": None,
                },
            )
        return {"id": str(article_id), "title": body["title"]}

    async def publish(self, author_id: int, article_id: int) -> dict[str, str]:
        async with self._db.transaction() as tx:
            article = await article_rows.article_tx(tx, article_id) if article_id <= MAX_ID else None
        if article is None:
            raise errors.not_found_problem(f"Could not find article with article_id: [{article_id}].")
        if article["author_id"] != author_id:
            raise errors.forbidden("You are not allowed to publish an article that is not yours.")
        if article["post_id"] is not None:
            raise errors.forbidden("This article is already published.")
        title = str(article["title"])
        shown = title if len(title) <= TITLE_IN_POST else title[: TITLE_IN_POST - 1] + "…"
        post = await self._posts.create(author_id, {"text": f"{shown} {ARTICLE_URL.format(article_id)}"})
        async with self._db.transaction() as tx:
            if not await article_rows.mark_published(tx, article_id, int(post["id"]), self._clock.now_ms()):
                # Published meanwhile by another request: its post stands, this one is withdrawn.
                raise errors.forbidden("This article is already published.")
        return {"post_id": str(post["id"])}
