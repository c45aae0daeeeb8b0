"""Community notes written through the API by enrolled note writers: writing (test notes only),
evaluating a draft, listing the notes written and the posts eligible for a note, deleting.

The rules (docs/notes.md): the caller must be an enrolled note writer; `test_mode` must be true to
write; the text is 1 to 280 characters with a source URL; a misleading classification needs at least
one misleading tag and a not-misleading one takes none; one note per writer per post; the post must
be eligible (a live original, reply or quote of a public account, by someone else, from the last
7 days). No event product defines note events, so these writes append none.
"""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio, pagination
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.params import MAX_ID
from roost.core.records import Row
from roost.domain.lookup import Lookup, visible_post
from roost.domain.pages import Page
from roost.storage import notes as note_rows
from roost.storage.db import Database
from roost.storage.notes import NoteStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

NOT_A_WRITER = "User must be an API Note Writer to access this endpoint."
DUPLICATE = "User already created a note for this post."
TEST_MODE_ONLY = "Only test notes can be written through the API: test_mode must be true."
LARGE_FEEDS = "Only top AI writers have access to large and xl size feeds."
ELIGIBLE_WINDOW_MS = 7 * 86_400_000
TEXT_MAX = 280
TEXT_PATTERN = r"^(?=[\s\S]*https?://\S+)[\s\S]+$"
_TEXT = re.compile(TEXT_PATTERN)
ID_PATTERN = "^[0-9]{1,19}$"
_ID = re.compile(r"[0-9]{1,19}")
MISLEADING = "misinformed_or_potentially_misleading"
CLASSIFICATIONS = (MISLEADING, "not_misleading")
MISLEADING_TAGS = (
    "disputed_claim_as_fact",
    "factual_error",
    "manipulated_media",
    "misinterpreted_satire",
    "missing_important_context",
    "other",
    "outdated_information",
)
NEW_NOTE_STATUS = "needs_more_ratings"
WRITTEN_SCOPE = "notes-written"
ELIGIBLE_SCOPE = "notes-eligible"
NOTE_FIELDS = frozenset({"test_mode", "post_id", "info"})
INFO_FIELDS = frozenset({"text", "classification", "misleading_tags", "trustworthy_sources", "is_media_note"})
EVALUATE_FIELDS = frozenset({"note_text", "post_id"})

# Words that mark an opinion rather than a checkable claim (the claim-opinion score's heuristic).
OPINION_WORDS = frozenset(
    [
        "i",
        "me",
        "my",
        "we",
        "think",
        "believe",
        "feel",
        "obviously",
        "clearly",
        "honestly",
        "probably",
        "maybe",
        "should",
        "must",
        "love",
        "hate",
        "terrible",
        "awful",
        "amazing",
        "great",
        "best",
        "worst",
        "stupid",
        "ridiculous",
        "disgusting",
        "opinion",
        "personally",
    ]
)
_WORD = re.compile(r"[A-Za-z']+")
_URL = re.compile(r"https?://\S+")


def _invalid(message: str) -> errors.ApiError:
    return errors.invalid_body(message)


def _object(value: Any, path: str, allowed: frozenset[str], required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _invalid(f"{path}: {jsonio.type_name(value)} found, object expected")
    extra = sorted(set(value) - allowed)
    if extra:
        raise _invalid(
            f"{path}.{extra[0]}: is not defined in the schema and the schema does not allow "
            "additional properties"
        )
    for name in required:
        if name not in value:
            raise _invalid(f"{path}.{name}: is missing but it is required")
    return value


def _typed(value: Any, path: str, kind: type, expected: str) -> Any:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise _invalid(f"{path}: {jsonio.type_name(value)} found, {expected} expected")
    return value


def _post_id(body: dict[str, Any]) -> int:
    raw = _typed(body["post_id"], "$.post_id", str, "string")
    if _ID.fullmatch(raw) is None:
        raise _invalid(f"$.post_id: does not match the regex pattern {ID_PATTERN}")
    return int(raw)


def note_text(value: Any, path: str) -> str:
    text: str = _typed(value, path, str, "string")
    if not text:
        raise _invalid(f"{path}: must be at least 1 characters long")
    if len(text) > TEXT_MAX:
        raise _invalid(f"{path}: may only be {TEXT_MAX} characters long")
    if _TEXT.match(text) is None:
        raise _invalid(f"{path}: does not match the regex pattern {TEXT_PATTERN}")
    return text


def note_info(raw: Any) -> dict[str, Any]:
    """The note's contents, checked as the document's schema and the writing rules check them."""
    info = _object(
        raw, "$.info", INFO_FIELDS, ("text", "classification", "misleading_tags", "trustworthy_sources")
    )
    text = note_text(info["text"], "$.info.text")
    classification = _typed(info["classification"], "$.info.classification", str, "string")
    if classification not in CLASSIFICATIONS:
        raise _invalid(
            f"$.info.classification: does not have a value in the enumeration [{', '.join(CLASSIFICATIONS)}]"
        )
    tags = _typed(info["misleading_tags"], "$.info.misleading_tags", list, "array")
    for index, tag in enumerate(tags):
        _typed(tag, f"$.info.misleading_tags[{index}]", str, "string")
        if tag not in MISLEADING_TAGS:
            raise _invalid(
                f"$.info.misleading_tags[{index}]: does not have a value in the enumeration "
                f"[{', '.join(MISLEADING_TAGS)}]"
            )
    if len(set(tags)) != len(tags):
        raise _invalid("$.info.misleading_tags: array items are not unique")
    if classification == MISLEADING and not tags:
        raise _invalid(
            f"$.info.misleading_tags: at least one tag is required when classification is {MISLEADING}"
        )
    if classification != MISLEADING and tags:
        raise _invalid("$.info.misleading_tags: must be empty when classification is not_misleading")
    trustworthy = _typed(info["trustworthy_sources"], "$.info.trustworthy_sources", bool, "boolean")
    media_note = _typed(info.get("is_media_note", False), "$.info.is_media_note", bool, "boolean")
    return {
        "text": text,
        "classification": classification,
        "misleading_tags": list(tags),
        "trustworthy_sources": trustworthy,
        "is_media_note": media_note,
    }


def claim_opinion_score(text: str) -> float:
    """How much a note reads as an opinion rather than a sourced claim, from 0 to 1 (higher: more
    opinion): opinion words, exclamation marks and shouted words raise it, a source URL lowers it."""
    words = [word.lower() for word in _WORD.findall(_URL.sub(" ", text))]
    shouted = sum(1 for word in _WORD.findall(_URL.sub(" ", text)) if len(word) > 2 and word.isupper())
    opinion = sum(1 for word in words if word in OPINION_WORDS)
    score = 0.15 + 0.12 * opinion + 0.08 * text.count("!") + 0.08 * shouted
    if _URL.search(text):
        score -= 0.1
    return round(min(1.0, max(0.0, score)), 4)


def score_bucket(score: float) -> str:
    return "Low" if score < 0.34 else "Medium" if score < 0.67 else "High"


def note_view(row: Row) -> dict[str, Any]:
    """The stored note as the `note` object kind renders it (tags decoded, score derived)."""
    return {
        "id": int(row["id"]),
        "author_id": int(row["author_id"]),
        "post_id": int(row["post_id"]),
        "text": row["text"],
        "classification": row["classification"],
        "misleading_tags": jsonio.loads(row["misleading_tags"]),
        "trustworthy_sources": bool(row["trustworthy_sources"]),
        "test_mode": bool(row["test_mode"]),
        "status": row["status"],
        "claim_opinion_score": claim_opinion_score(row["text"]),
    }


def _before(token: PageToken | None, scope: str) -> int:
    return token.following(scope) if token is not None else MAX_ID


class Notes:
    """Community notes of enrolled writers (the authenticated user)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        store: NoteStore,
        posts: PostStore,
        users: UserStore,
        lookup: Lookup,
    ) -> None:
        self._users = users
        self._db = db
        self._clock = clock
        self._ids = ids
        self._store = store
        self._posts = posts
        self._lookup = lookup

    async def _writer(self, user_id: int | None) -> int:
        if user_id is None or not await self._store.is_writer(user_id):
            raise errors.forbidden(NOT_A_WRITER)
        return user_id

    async def _post(self, writer: int, post_id: int) -> Row:
        """The post a note is about: one the writer can see, else the request names no post."""
        post = await self._posts.get(post_id) if post_id <= MAX_ID else None
        if (
            post is None
            or not visible_post(post)
            or await self._lookup.hidden_authors(writer, [post["author_id"]])
        ):
            raise errors.invalid_request(
                [
                    errors.param_error(
                        "post_id", str(post_id), f"Could not find tweet with post_id: [{post_id}]."
                    )
                ]
            )
        return post

    def _eligible(self, writer: int, post: Row) -> bool:
        return (
            post["author_id"] != writer
            and post["reposted_post_id"] is None
            and post["superseded_by"] is None
            and int(post["created_at"]) >= self._clock.now_ms() - ELIGIBLE_WINDOW_MS
        )

    # ---- writes ---------------------------------------------------------------------------------

    async def enrol(self, user_id: int) -> bool:
        """Admit a user as an API note writer (the control plane's); False if already one."""
        if await self._users.get(user_id) is None:
            raise errors.not_found_problem(f"Could not find user with id: [{user_id}].")
        async with self._db.transaction() as tx:
            return await note_rows.enrol_writer(tx, user_id, self._clock.now_ms())

    async def create(self, user_id: int | None, body: Any) -> dict[str, str]:
        writer = await self._writer(user_id)
        note = _object(body, "$", NOTE_FIELDS, ("test_mode", "post_id", "info"))
        test_mode = _typed(note["test_mode"], "$.test_mode", bool, "boolean")
        post_id = _post_id(note)
        info = note_info(note["info"])
        if not test_mode:
            raise errors.forbidden(TEST_MODE_ONLY)
        post = await self._post(writer, post_id)
        note_id = self._ids.next_id()
        async with self._db.transaction() as tx:
            if await note_rows.note_of_tx(tx, writer, post_id) is not None:
                raise errors.forbidden(DUPLICATE)
            if not self._eligible(writer, post):
                raise errors.invalid_request(
                    [
                        errors.param_error(
                            "post_id",
                            str(post_id),
                            f"The post with post_id: [{post_id}] is not eligible for notes.",
                        )
                    ]
                )
            await note_rows.insert_note(
                tx,
                {
                    "id": note_id,
                    "author_id": writer,
                    "post_id": post_id,
                    "text": info["text"],
                    "classification": info["classification"],
                    "misleading_tags": jsonio.dumps(info["misleading_tags"]).decode(),
                    "trustworthy_sources": int(info["trustworthy_sources"]),
                    "is_media_note": int(info["is_media_note"]),
                    "test_mode": int(test_mode),
                    "status": NEW_NOTE_STATUS,
                    "created_at": self._clock.now_ms(),
                },
            )
        return {"id": str(note_id)}

    async def evaluate(self, user_id: int | None, body: Any) -> dict[str, float]:
        writer = await self._writer(user_id)
        request = _object(body, "$", EVALUATE_FIELDS, ("post_id", "note_text"))
        post_id = _post_id(request)
        text = _typed(request["note_text"], "$.note_text", str, "string")
        await self._post(writer, post_id)
        return {"claim_opinion_score": claim_opinion_score(text)}

    async def delete(self, user_id: int | None, note_id: int) -> bool:
        writer = await self._writer(user_id)
        async with self._db.transaction() as tx:
            row = await note_rows.note_tx(tx, note_id)
            if row is None:
                raise errors.not_found_problem(f"Could not find note with id: [{note_id}].")
            if row["author_id"] != writer:
                raise errors.forbidden("You are not allowed to delete a note that is not yours.")
            return await note_rows.delete_note(tx, note_id)

    # ---- reads ----------------------------------------------------------------------------------

    async def written(
        self, user_id: int | None, test_mode: bool, limit: int, token: PageToken | None
    ) -> Page:
        writer = await self._writer(user_id)
        scope = f"{WRITTEN_SCOPE}:{int(test_mode)}"
        rows = await self._store.written(writer, test_mode, _before(token, scope), limit + 1)
        return _id_page([note_view(row) for row in rows], limit, scope)

    async def eligible(
        self,
        user_id: int | None,
        test_mode: bool,
        limit: int,
        token: PageToken | None,
        selection: tuple[str, str | None],
    ) -> Page:
        """Posts the writer may note, newest first, in the feed's language (None: any); the same feed
        in and out of test mode. Only the small feed is open (the larger ones are for top writers)."""
        del test_mode  # test notes and product notes are written on the same posts
        writer = await self._writer(user_id)
        size, lang = selection
        if size != "small":
            raise errors.forbidden(LARGE_FEEDS)
        since = self._clock.now_ms() - ELIGIBLE_WINDOW_MS
        rows = await self._store.eligible(writer, since, lang, _before(token, ELIGIBLE_SCOPE), limit + 1)
        page = _id_page(list(rows), limit, ELIGIBLE_SCOPE)
        if page.rows and page.meta is not None:
            page.meta = {
                "newest_id": str(page.rows[0]["id"]),
                "oldest_id": str(page.rows[-1]["id"]),
                **page.meta,
            }
        return page


def _id_page(rows: list[Any], limit: int, scope: str) -> Page:
    """A page of rows ordered by id descending (`limit + 1` read), with `next_token` when more follow."""
    shown = rows[:limit]
    meta: dict[str, Any] = {"result_count": len(shown)}
    if len(rows) > limit:
        meta["next_token"] = pagination.encode(int(shown[-1]["id"]), scope=scope)
    return Page(shown, meta)
