"""Pure parts of the filtered-stream webhooks: stored link parameters, the link's rendering and the
selection a delivery is rendered with."""

from __future__ import annotations

from roost.core import jsonio
from roost.domain.stream_links import render_link, stored_params
from roost.events.stream_hooks import route, selection_of


def link_row(params: object) -> dict[str, object]:
    return {
        "webhook_id": 7,
        "app_id": 3,
        "params": jsonio.dumps(params).decode(),
        "created_at": 1_700_000_000_123,
    }


def test_stored_params_keep_the_request_order() -> None:
    row = link_row([["tweet.fields", "lang,created_at"], ["expansions", "author_id"]])
    assert stored_params(row) == [("tweet.fields", "lang,created_at"), ("expansions", "author_id")]
    assert stored_params({"params": "not json"}) == []
    assert stored_params({"params": None}) == []


def test_render_link() -> None:
    row = link_row([["user.fields", "name,username"], ["expansions", "author_id"]])
    assert render_link(row, 42) == {
        "application_id": "3",
        "business_user_id": "42",
        "created_at": "2023-11-14T22:13:20.123Z",
        "fields": ["user.fields=name,username", "expansions=author_id"],
        "instance_id": "3",
        "webhook_id": "7",
    }
    assert "business_user_id" not in render_link(row, None)


def test_selection_of_a_link() -> None:
    selection = selection_of((("tweet.fields", "created_at"), ("expansions", "author_id")))
    assert "created_at" in selection.of("tweet") and "author_id" in selection.of("tweet")
    assert [expansion.name for expansion in selection.expansions] == ["author_id"]
    assert selection_of((("post.fields", "lang"),)).vocab == "post"
    # A value no longer accepted is left out; the rest still applies.
    kept = selection_of((("tweet.fields", "no_such_field"), ("expansions", "author_id")))
    assert [expansion.name for expansion in kept.expansions] == ["author_id"]
    assert "no_such_field" not in kept.of("tweet")


def test_route() -> None:
    assert route(12) == "stream:12"
