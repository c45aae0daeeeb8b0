"""The text and entities of a repost: `RT @username: ` and the source's text, cut at 140 characters."""

from __future__ import annotations

from roost.core import jsonio
from roost.domain.reposts import repost_entities, repost_text


def test_short_text_is_kept_whole() -> None:
    assert repost_text("ada", "hello #world") == "RT @ada: hello #world"


def test_long_text_is_cut_to_139_characters_and_an_ellipsis() -> None:
    text = repost_text("ada", "x" * 200)
    assert len(text) == 140 and text.endswith("…")
    assert text == ("RT @ada: " + "x" * 200)[:139] + "…"


def test_entities_keep_the_sources_links_that_survive_the_cut() -> None:
    source_text = "see https://t.co/abcdefghij and " + "y" * 120 + " https://t.co/klmnopqrst"
    source = {
        "entities": jsonio.dumps(
            {
                "urls": [
                    {
                        "start": 4,
                        "end": 27,
                        "url": "https://t.co/abcdefghij",
                        "expanded_url": "https://a.example",
                    },
                    {
                        "start": 153,
                        "end": 176,
                        "url": "https://t.co/klmnopqrst",
                        "expanded_url": "https://b.example",
                    },
                ]
            }
        ).decode()
    }
    text = repost_text("ada", source_text)
    entities = repost_entities(text, len("RT @ada: "), source)
    assert [url["expanded_url"] for url in entities["urls"]] == ["https://a.example"]
    first = entities["urls"][0]
    assert text[first["start"] : first["end"]] == "https://t.co/abcdefghij"
    assert entities["mentions"] == [{"start": 3, "end": 7, "username": "ada"}]
