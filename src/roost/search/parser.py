"""Query and rule text → AST, with the platform's validation and error texts.

A hand-written lexer and a recursive-descent parser (no regular expressions: rules are validated
by the thousand). Positions in messages are 1-based character offsets, as the platform reports
them. The grammar, the per-product operator tables and every invented text are documented in
docs/query-language.md.

    query   := or_expr EOF
    or_expr := and_expr ("OR" and_expr)*
    and_expr:= unary+
    unary   := "-"+ unary_primary | primary
    primary := "(" or_expr ")" | PHRASE | TERM | OPERATOR
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from roost.search.ast import (
    And,
    Node,
    Not,
    Operator,
    Or,
    Phrase,
    Product,
    Query,
    QueryError,
    Token,
    TokenKind,
)
from roost.search.operators import (
    HAS_VALUES,
    IS_HAS_SPEC,
    IS_VALUES,
    NULLCAST_SPEC,
    OPERATORS,
    STOPWORDS,
    OperatorSpec,
)

__all__ = ["QueryError", "parse", "render"]

MAX_PROXIMITY_STREAM = 6

# Outside quotes these characters start no token: the platform's lexer reports each one.
_STRAY = frozenset("'<>{};`|\\^=~*")
# A bare word ends at whitespace, a parenthesis, a quote or a stray character.
_VALUE_END = frozenset('()"')
# Single character classes, so matching is linear: no backtracking is possible.
_NAME_RUN = re.compile(r"[A-Za-z0-9_]*")
_WORD_RUN = re.compile(r"[^\s()\"\[\]'<>{};`|\\^=~*]*")
_VALUE_RUN = re.compile(r'[^\s()"]*')

# Token kinds of the lexer.
_LP, _RP, _OR, _NEG, _PHRASE, _TERM, _OP, _BRACKET, _EOF = range(9)


@dataclass(slots=True)
class _Lexeme:
    kind: int
    pos: int  # 0-based
    text: str = ""  # term text, phrase text, operator name, or the raw character
    value: str = ""  # operator value
    proximity: int | None = None


def _msg(text: str, pos: int) -> str:
    return f"{text} (at position {pos + 1})"


def _read_quoted(text: str, start: int) -> tuple[str, int] | None:
    """Reads a double-quoted string whose opening quote is at `start`. Returns the unescaped
    content and the index after the closing quote, or None when it is never closed."""
    out: list[str] = []
    i, n = start + 1, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n and text[i + 1] in '"\\':
            out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return None


def _lex(text: str, errors: list[str]) -> list[_Lexeme]:
    out: list[_Lexeme] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "(":
            out.append(_Lexeme(_LP, i, c))
            i += 1
        elif c == ")":
            out.append(_Lexeme(_RP, i, c))
            i += 1
        elif c in "[]":
            out.append(_Lexeme(_BRACKET, i, c))
            i += 1
        elif c == "-":
            if i + 1 < n and not text[i + 1].isspace() and text[i + 1] != ")":
                out.append(_Lexeme(_NEG, i, c))
            else:
                errors.append(_msg(f"no viable alternative at character '{c}'", i))
            i += 1
        elif c == '"':
            got = _read_quoted(text, i)
            if got is None:
                # An unclosed quote cannot start a phrase; the rest lexes as ordinary text.
                errors.append(_msg("no viable alternative at character '\"'", i))
                i += 1
                continue
            phrase, j = got
            lexeme = _Lexeme(_PHRASE, i, phrase)
            if j < n and text[j] == "~":
                k = j + 1
                while k < n and text[k].isascii() and text[k].isdigit():
                    k += 1
                if k > j + 1:
                    lexeme.proximity = int(text[j + 1 : k])
                    j = k
            out.append(lexeme)
            i = j
        elif c in _STRAY or c < " " or "\x7f" <= c <= "\x9f":
            errors.append(_msg(f"no viable alternative at character '{c}'", i))
            i += 1
        else:
            i = _lex_word(text, i, out, errors)
    out.append(_Lexeme(_EOF, n, "<EOF>"))
    return out


def _run_end(run: re.Pattern[str], text: str, start: int) -> int:
    """Where a run of `run` from `start` ends (the runs may be empty, so they always match)."""
    found = run.match(text, start)
    return start if found is None else found.end()


def _lex_word(text: str, start: int, out: list[_Lexeme], errors: list[str]) -> int:
    n = len(text)
    i = _run_end(_NAME_RUN, text, start)
    if i < n and text[i] == ":" and i > start and text[start].isalpha():
        return _lex_operator(text, start, i, out, errors)
    i = _run_end(_WORD_RUN, text, i)
    word = text[start:i]
    out.append(_Lexeme(_OR if word == "OR" else _TERM, start, word))
    return i


def _lex_operator(text: str, start: int, colon: int, out: list[_Lexeme], errors: list[str]) -> int:
    n = len(text)
    name = text[start:colon]
    i = colon + 1
    if i < n and text[i] == '"':
        got = _read_quoted(text, i)
        if got is None:
            errors.append(_msg("no viable alternative at character '\"'", i))
            out.append(_Lexeme(_OP, start, name, ""))
            return i + 1
        value, i = got
        out.append(_Lexeme(_OP, start, name, value))
        return i
    if i < n and text[i] == "[":
        close = text.find("]", i)
        if close < 0:
            errors.append(_msg("no viable alternative at character '['", i))
            out.append(_Lexeme(_OP, start, name, ""))
            return i + 1
        out.append(_Lexeme(_OP, start, name, text[i : close + 1]))
        return close + 1
    j = _run_end(_VALUE_RUN, text, i)
    out.append(_Lexeme(_OP, start, name, text[i:j]))
    return j


@dataclass(slots=True)
class _Leaf:
    pos: int
    negated: bool
    standalone: bool
    clause: bool  # counts as a positive, non-stopword clause


class _SyntaxError(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def _is_emoji(word: str) -> bool:
    # Pictographs plus their joiners, skin tones and variation selectors, and nothing else.
    if word.isascii():
        return False
    seen = False
    for c in word:
        cat = unicodedata.category(c)
        if cat == "So":
            seen = True
        elif cat not in ("Mn", "Me", "Cf", "Sk"):
            return False
    return seen


class _Parser:
    __slots__ = ("errors", "i", "leaves", "lexemes", "product", "table", "text")

    def __init__(self, text: str, lexemes: list[_Lexeme], product: Product) -> None:
        self.text = text
        self.lexemes = lexemes
        self.i = 0
        self.product = product
        self.table: dict[str, OperatorSpec] = OPERATORS[product]
        self.leaves: list[_Leaf] = []
        self.errors: list[tuple[int, list[str]]] = []  # semantic errors by position

    def fail(self, lx: _Lexeme) -> _SyntaxError:
        shown = lx.text + ":" + lx.value if lx.kind == _OP else lx.text
        return _SyntaxError(_msg(f"no viable alternative at input '{shown}'", lx.pos))

    def query(self) -> Node:
        node = self.or_expr(False)
        lx = self.lexemes[self.i]
        if lx.kind != _EOF:
            raise _SyntaxError(_msg(f"missing EOF at '{self.text[lx.pos]}'", lx.pos))
        return node

    def or_expr(self, negated: bool) -> Node:
        parts = [self.and_expr(negated)]
        while self.lexemes[self.i].kind == _OR:
            self.i += 1
            parts.append(self.and_expr(negated))
        return _group(Or, parts)

    def and_expr(self, negated: bool) -> Node:
        parts = [self.unary(negated)]
        while self.lexemes[self.i].kind not in (_OR, _RP, _EOF):
            parts.append(self.unary(negated))
        return _group(And, parts)

    def unary(self, negated: bool) -> Node:
        if self.lexemes[self.i].kind != _NEG:
            return self.primary(negated)
        # `--x` is still one negation: the platform treats `--b` as a negation-only rule.
        while self.lexemes[self.i].kind == _NEG:
            self.i += 1
        return Not(self.primary(True))

    def primary(self, negated: bool) -> Node:
        lx = self.lexemes[self.i]
        kind = lx.kind
        if kind == _LP:
            self.i += 1
            node = self.or_expr(negated)
            close = self.lexemes[self.i]
            if close.kind != _RP:
                if close.kind == _EOF:
                    raise _SyntaxError(_msg("missing ')' at '<EOF>'", close.pos))
                raise self.fail(close)
            self.i += 1
            return node
        self.i += 1
        if kind == _TERM:
            return self.term(lx, negated)
        if kind == _PHRASE:
            return self.phrase(lx, negated)
        if kind == _OP:
            return self.operator(lx, negated)
        self.i -= 1
        raise self.fail(lx)

    def term(self, lx: _Lexeme, negated: bool) -> Token:
        word = lx.text
        sign = word[0]
        if sign in "#@$" and len(word) > 1:
            kind: TokenKind = "hashtag" if sign == "#" else "mention" if sign == "@" else "cashtag"
            self.leaves.append(_Leaf(lx.pos, negated, True, True))
            return Token(kind, word[1:])
        lower = word.lower()
        if lower in ("and", "or"):
            self.errors.append(
                (
                    lx.pos,
                    [
                        _msg(
                            f"Ambiguous use of {lower} as a keyword. Use a space to logically join two "
                            f'clauses, or "{lower}" to find occurrences of {lower} in text',
                            lx.pos,
                        )
                    ],
                )
            )
        stop = lower in STOPWORDS
        self.leaves.append(_Leaf(lx.pos, negated, not stop, not stop))
        return Token("emoji" if _is_emoji(word) else "keyword", word)

    def phrase(self, lx: _Lexeme, negated: bool) -> Phrase:
        prox = lx.proximity
        if prox is not None and self.product == "stream" and prox > MAX_PROXIMITY_STREAM:
            self.errors.append(
                (lx.pos, [_msg(f"Proximity distance must be at most {MAX_PROXIMITY_STREAM}", lx.pos)])
            )
        if not lx.text.strip():
            self.errors.append((lx.pos, [_msg("Phrases must not be empty", lx.pos)]))
        self.leaves.append(_Leaf(lx.pos, negated, True, True))
        return Phrase(lx.text, prox)

    def operator(self, lx: _Lexeme, negated: bool) -> Operator:
        name = lx.text.lower()
        value = lx.value
        pos = lx.pos
        spec: OperatorSpec | None
        if name in ("is", "has"):
            allowed = IS_VALUES if name == "is" else HAS_VALUES
            vlow = value.lower()
            if vlow not in allowed:
                self.errors.append((pos, [self.invalid_operator(f"{name}:{value}", pos)]))
                spec = IS_HAS_SPEC
            else:
                spec = NULLCAST_SPEC if (name, vlow) == ("is", "nullcast") else IS_HAS_SPEC
        else:
            spec = self.table.get(name)
            if spec is None:
                self.errors.append((pos, self.unknown_operator(name, pos)))
            elif not value:
                raise _SyntaxError(_msg(f"no viable alternative at input '{lx.text}:'", pos))
            else:
                reason = spec.validate(value)
                if reason is not None:
                    detail = f": {reason}" if reason else ""
                    self.errors.append(
                        (pos, [_msg(f"Invalid value '{value}' for operator '{name}'{detail}", pos)])
                    )
        if spec is not None:
            if negated and not spec.negatable:
                self.errors.append((pos, [_msg(f"The {name}: operator cannot be negated", pos)]))
            if spec.negated_only and not negated:
                self.errors.append((pos, [_msg("The is:nullcast operator must always be negated", pos)]))
        standalone = spec.standalone if spec is not None else True
        self.leaves.append(_Leaf(pos, negated, standalone, True))
        return Operator(name, value)

    def invalid_operator(self, shown: str, pos: int) -> str:
        if self.product == "search":
            return f"Reference to invalid operator '{shown}'."
        return f"Reference to invalid operator '{shown}' (at position {pos + 1})."

    def unknown_operator(self, name: str, pos: int) -> list[str]:
        if self.product == "search":
            return [
                f"Reference to invalid operator '{name}'. Operator is not available in current "
                "product or product packaging."
            ]
        return [
            f"Reference to invalid operator '{name}' (at position {pos + 1}).",
            f"Reference to invalid field '{name}' (at position {pos + 1}).",
        ]


def _group(cls: type[And] | type[Or], parts: list[Node]) -> Node:
    if len(parts) == 1:
        return parts[0]
    flat: list[Node] = []
    for p in parts:
        if type(p) is cls:
            flat.extend(p.children)
        else:
            flat.append(p)
    return cls(tuple(flat))


def _length_message(product: Product, length: int, max_length: int) -> str:
    noun = "Query" if product == "search" else "Rule"
    return f"{noun} length of {length} characters exceeds the maximum of {max_length} characters"


def parse(text: str, product: Product, *, max_length: int | None = None) -> Query:
    """Parses and validates `text` for `product`; raises QueryError with the platform's texts."""
    if max_length is not None and len(text) > max_length:
        raise QueryError([_length_message(product, len(text), max_length)])
    lex_errors: list[str] = []
    lexemes = _lex(text, lex_errors)
    parser = _Parser(text, lexemes, product)
    try:
        root = parser.query()
    except _SyntaxError as e:
        raise QueryError([*lex_errors, e.message]) from None
    if lex_errors:
        raise QueryError(lex_errors)
    messages = _rule_checks(parser.leaves, lexemes[0].pos)
    # The platform lists its per-clause findings last position first.
    for _, found in sorted(parser.errors, key=lambda e: -e[0]):
        messages.extend(found)
    if messages:
        raise QueryError(messages)
    return Query(root, text)


def _rule_checks(leaves: list[_Leaf], start: int) -> list[str]:
    positive = [leaf for leaf in leaves if not leaf.negated]
    if not positive:
        return [
            _msg("Rules must contain a non-negation term", start),
            _msg("Rules must contain at least one positive, non-stopword clause", start),
        ]
    if not any(leaf.clause for leaf in positive):
        return [_msg("Rules must contain at least one positive, non-stopword clause", start)]
    if not any(leaf.standalone for leaf in positive):
        first = next(leaf for leaf in positive if leaf.clause)
        return [_msg("is/has/lang cannot be used as a standalone operator", first.pos)]
    return []


# ---------------------------------------------------------------------------------------------
# Rendering


_SIGNS = {"keyword": "", "emoji": "", "hashtag": "#", "mention": "@", "cashtag": "$"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _needs_quotes(value: str) -> bool:
    if not value:
        return True
    if value[0] == "[":
        return not (value[-1] == "]" and "]" not in value[:-1])
    return any(c.isspace() or c in _VALUE_END for c in value)


def render(node: Node) -> str:
    """The canonical query text of `node`; parse(render(n)) gives `n` back for normalised trees."""
    t = type(node)
    if t is Token:
        return _SIGNS[node.kind] + node.value  # type: ignore[union-attr]
    if t is Phrase:
        suffix = "" if node.proximity is None else f"~{node.proximity}"  # type: ignore[union-attr]
        return _quote(node.text) + suffix  # type: ignore[union-attr]
    if t is Operator:
        value = node.value  # type: ignore[union-attr]
        return f"{node.name}:{_quote(value) if _needs_quotes(value) else value}"  # type: ignore[union-attr]
    if t is Not:
        child = node.child  # type: ignore[union-attr]
        inner = render(child)
        return "-(" + inner + ")" if isinstance(child, And | Or) else "-" + inner
    if t is And:
        return " ".join(
            "(" + render(c) + ")" if isinstance(c, Or | And) else render(c)
            for c in node.children  # type: ignore[union-attr]
        )
    if t is Or:
        return " OR ".join(
            "(" + render(c) + ")" if isinstance(c, Or) else render(c)
            for c in node.children  # type: ignore[union-attr]
        )
    raise TypeError(f"not a query node: {node!r}")
