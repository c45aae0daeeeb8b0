"""The parameters every reverse-chronological page of posts takes (the pages are `domain/timelines.py`)."""

from __future__ import annotations

from roost.core.params import IntRange, Param, Snowflake, Timestamp, Token
from roost.domain.pages import Page
from roost.domain.timelines import Window
from roost.platform.pipeline import Call, Objects

TIMELINE_PARAMS = (
    Param("since_id", Snowflake()),
    Param("until_id", Snowflake()),
    Param("max_results", IntRange(5, 100), default=10),
    Param("pagination_token", Token()),
    Param("start_time", Timestamp()),
    Param("end_time", Timestamp()),
)


def window(call: Call) -> Window:
    return Window.of(call.params, call.raw)


def page_objects(page: Page) -> Objects:
    return Objects(page.rows, meta=page.meta, errors=page.errors)
