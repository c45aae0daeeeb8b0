"""A query word longer than PostgreSQL's longest lexeme: PostgreSQL leaves such words out of every
tsvector and refuses them in a tsquery (an error, not a miss), so the compiled query says "never"."""

from __future__ import annotations

from roost.search.ast import And, Token
from roost.search.document import NEVER
from roost.storage.search_compiler import PG_LEXEME_MAX_BYTES, tsquery


def test_a_word_past_the_longest_lexeme_never_matches() -> None:
    assert tsquery(Token("keyword", "x" * (PG_LEXEME_MAX_BYTES + 1))) == f"'{NEVER}'"
    both = tsquery(And((Token("keyword", "cats"), Token("keyword", "y" * 4096))))
    assert both == f"(('cats') & '{NEVER}')"


def test_a_word_at_the_limit_is_kept() -> None:
    assert NEVER not in tsquery(Token("keyword", "x" * PG_LEXEME_MAX_BYTES))
