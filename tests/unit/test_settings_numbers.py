"""Numeric feature settings: one parser for every `--option NAME=N` the features read."""

from __future__ import annotations

from roost.config import Settings


def test_numbers_fall_back_to_the_default_when_unusable() -> None:
    settings = Settings(
        db_url="sqlite:///:memory:",
        extra={"a": "2.5", "zero": "0", "neg": "-1", "nan": "nan", "word": "many", "int": " 7 "},
    )
    assert settings.number("a", 1.0) == 2.5
    assert settings.number("missing", 1.0) == 1.0
    assert settings.number("zero", 1.0) == 0.0 and settings.number("zero", 1.0, positive=True) == 1.0
    assert settings.number("neg", 1.0) == 1.0 and settings.number("nan", 1.0) == 1.0
    assert settings.number("word", 1.0) == 1.0
    assert settings.whole("int", 3) == 7 and settings.whole("a", 3) == 3
    assert settings.whole("zero", 3) == 0 and settings.whole("zero", 3, positive=True) == 3
