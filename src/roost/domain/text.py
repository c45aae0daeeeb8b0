"""Post text rules: weighted length, entity extraction, t.co rewriting and display truncation.

Everything here is pure string processing so the write path, the read path and the conformance
oracle all agree on offsets.  Offsets are Unicode code points (Python ``str`` indices), which is
what the v2 API reports, not UTF-16 units.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from roost.core import jsonio

__all__ = [
    "MAX_WEIGHTED_LENGTH",
    "SHORT_URL_PREFIX",
    "URL_WEIGHT",
    "extract_entities",
    "find_urls",
    "shorten_urls",
    "truncate_for_display",
    "weighted_length",
]

MAX_WEIGHTED_LENGTH = 280
URL_WEIGHT = 23  # every URL is charged as a t.co link: len("https://t.co/") + 10
EMOJI_WEIGHT = 2
SHORT_URL_PREFIX = "https://t.co/"
# A link shows its host and at most this much of its path (every display in the samples).
DISPLAY_PATH_MAX = 15
ELLIPSIS = "…"

# --- character weights ---------------------------------------------------------------------------
# twitter-text v3: code points in these ranges weigh 1, everything else 2.
# 0-4351, 8192-8205, 8208-8223, 8242-8247.
_HEAVY_RE = re.compile(r"[^\x00-\u10ff\u2000-\u200d\u2010-\u201f\u2032-\u2037]")


def _char_class(spec: str) -> str:
    """Turn a whitespace-separated list of hex code points / ranges into a regex character class."""
    parts = []
    for item in spec.split():
        lo, _, hi = item.partition("-")
        part = re.escape(chr(int(lo, 16)))
        if hi:
            part += "-" + re.escape(chr(int(hi, 16)))
        parts.append(part)
    return "[" + "".join(parts) + "]"


# --- emoji ---------------------------------------------------------------------------------------
# Extended_Pictographic (emoji-data 14), coarsened into ranges.  © and ® are left out on purpose: in
# running text they are ordinary weight-1 symbols and only become emoji with an explicit U+FE0F.
_PICTOGRAPHIC = _char_class(
    """203C 2049 2122 2139 2194-2199 21A9-21AA 231A-231B 2328 2388 23CF 23E9-23F3 23F8-23FA 24C2
    25AA-25AB 25B6 25C0 25FB-25FE 2600-2605 2607-2612 2614-2685 2690-2705 2708-2712 2714 2716 271D
    2721 2728 2733-2734 2744 2747 274C 274E 2753-2755 2757 2763-2767 2795-2797 27A1 27B0 27BF
    2934-2935 2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299 1F000-1F0FF 1F10D-1F10F 1F12F
    1F16C-1F171 1F17E-1F17F 1F18E 1F191-1F19A 1F1AD-1F1E5 1F201-1F20F 1F21A 1F22F 1F232-1F23A
    1F23C-1F23F 1F249-1F3FA 1F400-1F53D 1F546-1F64F 1F680-1F6FF 1F774-1F77F 1F7D5-1F7FF 1F80C-1F80F
    1F848-1F84F 1F85A-1F85F 1F888-1F88F 1F8AE-1F8FF 1F90C-1F93A 1F93C-1F945 1F947-1FAFF 1FC00-1FFFD"""
)
_SKIN_TONE = "[\U0001f3fb-\U0001f3ff]"
# One element of a ZWJ sequence: a pictograph with an optional presentation selector or skin tone,
# or a lone skin-tone swatch.
_EMOJI_ELEMENT = rf"(?:(?:{_PICTOGRAPHIC}|[\u00a9\u00ae](?=\ufe0f))(?:\ufe0f|{_SKIN_TONE})?|{_SKIN_TONE})"
_EMOJI_RE = re.compile(
    "[\U0001f1e6-\U0001f1ff]{2}"  # flags are pairs of regional indicators
    r"|[0-9#*]\ufe0f?\u20e3"  # keycaps
    "|\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"  # subdivision flags (tag sequences)
    rf"|{_EMOJI_ELEMENT}(?:\u200d{_EMOJI_ELEMENT})*"  # ZWJ sequences, incl. single emoji
)

# --- URLs ----------------------------------------------------------------------------------------
_GTLDS = """
academy agency app art asia audio auto bank bar beer best bet bid bike bio biz black blog blue
boutique build business buzz cafe cam camera capital care careers cash cat center chat city cloud
club codes coffee college com community company computer consulting cool coop dating deals design
dev diet digital direct directory domains earth eco edu email energy engineering estate events
exchange expert express fashion film finance fit fitness foo food football foundation fun fund game
games garden gift gifts global gmbh gold golf google gov graphics green group guide guru health help
host hosting house inc info ink institute int international jobs kitchen land law lawyer life
limited link live llc lol london love ltd luxury management market marketing media menu mil mobi moe
money movie museum music name net network news ninja nyc one online org page paris party photo
photography photos pics pink pizza place plus post press pro productions properties property pub
radio realty recipes red rehab rent rentals repair report rest restaurant review reviews rocks run
sale salon school science services shoes shop show site ski soccer social software solar solutions
space store studio style supply support surf systems tattoo tax taxi team tech technology tel tennis
tips today tokyo tools top tours town toys trade training travel tube university vacations vegas
ventures vet video vip vision vote voyage watch web website wedding wiki win wine work works world
wtf xxx xyz yoga zone
"""
_CCTLDS = """
ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw
by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et
eu fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie
il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv
ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr
nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl
sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz
va vc ve vg vi vn vu wf ws ye yt za zm zw
"""
# A ccTLD domain with a single label and no path ("setup.py", "this.is") is not linked when written
# without a scheme; twitter-text makes an exception for .co and .tv.
_SHORT_DOMAIN_OK = frozenset({"co", "tv"})


def _trie_pattern(words: Iterable[str]) -> str:
    """An alternation of literal words shaped as a trie, so matching costs O(word) not O(list)."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


_TLDS = _trie_pattern(sorted(set(_GTLDS.split()) | set(_CCTLDS.split())))
# Characters that glue onto a URL from the left (so "xexample.com" is not "example.com").
# CJK/Thai etc. are not included: those scripts are written without spaces before links.
_URL_GLUE = "A-Za-z0-9_\u00c0-\u024f\u0400-\u04ff"
_ASCII_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?"
_ANY_LABEL = r"[^\W_](?:[\w-]*[^\W_])?"  # IDN labels, only trusted after an explicit scheme
_TLD_END = r"(?![A-Za-z0-9@+-])"
_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}(?![\w.-])"
_URL_RE = re.compile(
    rf"(?<![{_URL_GLUE}@＠$#＃])(?P<scheme>(?i:https?)://)"
    rf"(?P<host>{_IPV4}|(?:{_ANY_LABEL}\.)+(?:[A-Za-z]{{2,63}}|(?i:xn--)[A-Za-z0-9-]{{1,59}}){_TLD_END})"
    # Bare domains: also not after "-_./" (tail of a longer token) and only with a known TLD.
    rf"|(?<![{_URL_GLUE}@＠$#＃./-])(?:{_ASCII_LABEL}\.)+(?P<tld>(?i:{_TLDS})){_TLD_END}"
)
_PORT_RE = re.compile(r":\d{1,5}(?!\d)")
# Path/query/fragment characters: printable ASCII except space and "<>\"\\^`{}", plus Latin
# accented letters and Cyrillic (twitter-text's set).  CJK ends a URL.
_PATH_CHARS = r"[!#-;=?-\[\]_a-z|~A-Z\u00c0-\u024f\u0400-\u04ff]"
_PATH_RE = re.compile(rf"[/?#]{_PATH_CHARS}*")
# A t.co link's path is its alphanumeric code (plus an optional query) and nothing else, so text
# glued to a short link ("https://t.co/abcdefghij$TW") is not swallowed when stored text is re-read.
_TCO_PATH_RE = re.compile(rf"/[A-Za-z0-9]+(?:\?{_PATH_CHARS}*)?")
_TRAILING_PUNCT = frozenset(".,!?:;'*")
_SCHEME_RE = re.compile(r"https?://", re.IGNORECASE)


def _trim_path(text: str, start: int, end: int) -> int:
    """New end of a path text[start:end] without trailing punctuation or unbalanced ) and ]."""
    path = text[start:end]
    depth = {")": path.count("(") - path.count(")"), "]": path.count("[") - path.count("]")}
    while end > start:
        ch = text[end - 1]
        if ch in _TRAILING_PUNCT:
            end -= 1
        elif ch in depth and depth[ch] < 0:
            depth[ch] += 1
            end -= 1
        else:
            break
    return end


@lru_cache(maxsize=128)
def find_urls(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) code-point spans of URLs, in order. Remembered for the last few texts: a new post's
    text is asked for by the usage ledger, the length check, the duplicate check and the shortener.

    http(s):// URLs (any host with an alphabetic TLD, or IPv4) and bare domains with a known TLD;
    trailing ".,!?:;'*" and unbalanced ")"/"]" are left out; nothing is found right after a letter,
    digit, "_", "@", "$" or "#", so e-mail addresses and "@example.com" are not URLs.  As on the
    platform, a bare ``label.<ccTLD>`` with no path ("setup.py") is not a URL, except .co and .tv.
    """
    if "." not in text:  # every URL the pattern finds has a dot (its TLD's or an address's)
        return ()
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _URL_RE.search(text, pos)) is not None:
        end = m.end()
        if (port := _PORT_RE.match(text, end)) is not None:
            end = port.end()
        has_path = False
        path = None
        if (m.group("host") or "").lower() == "t.co":
            path = _TCO_PATH_RE.match(text, end)
        if path is None:
            path = _PATH_RE.match(text, end)
        if path is not None:
            trimmed = _trim_path(text, end, path.end())
            has_path = trimmed > end
            end = trimmed
        tld = m.group("tld")
        if (
            tld is not None
            and not has_path
            and len(tld) == 2
            and tld.lower() not in _SHORT_DOMAIN_OK
            and text.count(".", m.start(), m.end()) == 1
        ):
            pos = m.end()  # "setup.py": a file name far more often than a link
            continue
        spans.append((m.start(), end))
        pos = end
    return tuple(spans)


def _expanded_url(url: str) -> str:
    return url if _SCHEME_RE.match(url) else "http://" + url


def display_url(expanded_url: str) -> str:
    """How a link shows: no scheme, no `www.`, the host and the first 15 characters of the rest,
    then "…" (`dev.to/twitterdev/und…`, `blog.twitter.com/2013/rich-phot…`)."""
    shown = _SCHEME_RE.sub("", expanded_url, count=1)
    if shown[:4].lower() == "www.":
        shown = shown[4:]
    host, slash, rest = shown.partition("/")
    rest = slash + rest
    return host + rest[:DISPLAY_PATH_MAX] + ELLIPSIS if len(rest) > DISPLAY_PATH_MAX else shown


def _url_entity(start: int, end: int, url: str, expanded_url: str) -> dict:
    return {
        "start": start,
        "end": end,
        "url": url,
        "expanded_url": expanded_url,
        "display_url": display_url(expanded_url),
    }


# --- mentions, hashtags, cashtags ----------------------------------------------------------------
_MENTION_RE = re.compile(r"[@＠]([A-Za-z0-9_]{1,15})(?![A-Za-z0-9_@＠]|://)")
# A mention may not follow these (e-mail addresses, "foo@bar", "@@x", "#@x", ...).
_MENTION_BLOCKERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_!#$%&*@＠")
_RT_GLUE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+~.-")
_HASH_RE = re.compile("[#＃](?![\ufe0f\u20e3])")  # "#️⃣" is a keycap emoji, not a hashtag
# Joiners and script-specific punctuation that occur inside words (Hebrew geresh, katakana dots...).
_TAG_EXTRA = frozenset(
    "_\u200c\u200d\ua67e\u05be\u05f3\u05f4\uff5e\u301c\u309b\u309c\u30a0\u30fb\u3003\u0f0b\u0f0c\u00b7"
)
_CASHTAG_RE = re.compile(r"(?<![\w$])\$([A-Za-z]{1,6}(?:[._][A-Za-z]{1,2})?)(?![\w$])")


def _is_tag_letter(ch: str) -> bool:
    return ch.isalpha() or unicodedata.category(ch)[0] == "M"


def _is_tag_char(ch: str) -> bool:
    return ch.isdecimal() or ch in _TAG_EXTRA or _is_tag_letter(ch)


def _after_rt(text: str, at: int) -> bool:
    """True when text[:at] ends with an old-style retweet marker ("RT@x", "RT:@x")."""
    if at and text[at - 1] == ":":
        at -= 1
    return at >= 2 and text[at - 2 : at].lower() == "rt" and (at == 2 or text[at - 3] not in _RT_GLUE)


def _mentions(text: str) -> Iterator[dict]:
    for m in _MENTION_RE.finditer(text):
        s = m.start()
        if s and text[s - 1] in _MENTION_BLOCKERS and not _after_rt(text, s):
            continue
        yield {"start": s, "end": m.end(), "username": m.group(1)}


def _hashtags(text: str) -> Iterator[dict]:
    n = len(text)
    for m in _HASH_RE.finditer(text):
        s = m.start()
        if s and (text[s - 1] == "&" or _is_tag_char(text[s - 1])):
            continue  # "&#39;", "a#b"
        end = s + 1
        while end < n and _is_tag_char(text[end]):
            end += 1
        tag = text[s + 1 : end]
        if not any(_is_tag_letter(ch) for ch in tag):
            continue  # "#123", "#_"
        if end < n and (text[end] in "#＃" or text.startswith("://", end)):
            continue
        yield {"start": s, "end": end, "tag": tag}


def _cashtags(text: str) -> Iterator[dict]:
    for m in _CASHTAG_RE.finditer(text):
        yield {"start": m.start(), "end": m.end(), "tag": m.group(1)}


def extract_entities(text: str) -> dict[str, list[dict]]:
    """urls / mentions / hashtags / cashtags of stored text, code-point offsets, end exclusive.

    Overlaps are resolved as the platform does: the entity starting first wins and URLs win ties,
    so "example.com/#frag" or "medium.com/@user" yield only the URL.
    """
    found: list[tuple[int, int, str, dict]] = [
        (s, 0, "urls", _url_entity(s, e, text[s:e], _expanded_url(text[s:e]))) for s, e in find_urls(text)
    ]
    found += [(ent["start"], 1, "mentions", ent) for ent in _mentions(text)]
    found += [(ent["start"], 2, "hashtags", ent) for ent in _hashtags(text)]
    found += [(ent["start"], 3, "cashtags", ent) for ent in _cashtags(text)]
    found.sort(key=lambda item: (item[0], item[1]))
    grouped: dict[str, list[dict]] = {}
    covered = 0
    for start, _, kind, ent in found:
        if start < covered:
            continue
        grouped.setdefault(kind, []).append(ent)
        covered = ent["end"]
    return {kind: grouped[kind] for kind in ("urls", "mentions", "hashtags", "cashtags") if kind in grouped}


def shorten_urls(text: str, make_short_code: Callable[[str], str]) -> tuple[str, list[dict]]:
    """Replace every URL by ``https://t.co/<code>``; return the new text and its url entities.

    ``make_short_code`` receives the expanded URL (the original with a scheme, ``http://`` added to
    bare domains) so the code can be stored as a redirect target directly.
    """
    pieces: list[str] = []
    entities: list[dict] = []
    pos = 0
    out_len = 0
    for start, end in find_urls(text):
        pieces.append(text[pos:start])
        out_len += start - pos
        expanded = _expanded_url(text[start:end])
        short = SHORT_URL_PREFIX + make_short_code(expanded)
        entities.append(_url_entity(out_len, out_len + len(short), short, expanded))
        pieces.append(short)
        out_len += len(short)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces), entities


# --- weighted length and truncation --------------------------------------------------------------
def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _plain_weight(text: str, start: int, end: int) -> int:
    return end - start + len(_HEAVY_RE.findall(text, start, end))


def _special_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, weight) of URLs and emoji sequences, in order and non-overlapping."""
    spans: list[tuple[int, int, int]] = []
    pos = 0
    has_emoji = not text.isascii()  # every emoji sequence contains a non-ASCII code point
    for start, end in [*find_urls(text), (len(text), len(text))]:
        if has_emoji:
            spans += [(m.start(), m.end(), EMOJI_WEIGHT) for m in _EMOJI_RE.finditer(text, pos, start)]
        if end > start:
            spans.append((start, end, URL_WEIGHT))
        pos = end
    return spans


def weighted_length(text: str) -> int:
    """Length as counted against the 280 limit (twitter-text v3 configuration).

    NFC first; code points weigh 1 in 0-4351, 8192-8205, 8208-8223, 8242-8247 and 2 elsewhere;
    each URL weighs 23 and each emoji sequence 2.
    """
    if text.isascii():  # every ASCII character weighs 1 and none makes an emoji: only URLs differ
        return len(text) + sum(URL_WEIGHT - (end - start) for start, end in find_urls(text))
    return spans_weighted_length(_nfc(text))


def spans_weighted_length(text: str) -> int:
    """The weighted length of NFC text, span by span (any text)."""
    total = 0
    pos = 0
    for start, end, weight in _special_spans(text):
        total += _plain_weight(text, pos, start) + weight
        pos = end
    return total + _plain_weight(text, pos, len(text))


def _atoms(text: str) -> Iterator[tuple[int, int]]:
    """(end, weight) of the units a truncation may not split: URLs, emoji sequences, and single
    characters together with any combining marks that follow them."""
    pos = 0
    for start, end, weight in [*_special_spans(text), (len(text), len(text), 0)]:
        i = pos
        while i < start:
            j = i + 1
            while j < start and unicodedata.category(text[j])[0] == "M":
                j += 1
            yield j, _plain_weight(text, i, j)
            i = j
        if end > start:
            yield end, weight
        pos = end


def truncate_for_display(text: str, limit: int = MAX_WEIGHTED_LENGTH) -> str:
    """The longest prefix that, followed by '…', weighs at most ``limit``; ``text`` itself if it
    already fits.  URLs, emoji sequences and base+combining-mark clusters are never split."""
    if weighted_length(text) <= limit:
        return text
    text = _nfc(text)
    budget = limit - weighted_length(ELLIPSIS)
    ends = [0]
    used = 0
    for end, weight in _atoms(text):
        if used + weight > budget:
            break
        used += weight
        ends.append(end)
    # A cut can change what the tail parses as (e.g. "foo.comx" -> "foo.co" is a URL): re-check.
    while ends and weighted_length(text[: ends[-1]] + ELLIPSIS) > limit:
        ends.pop()
    return text[: ends[-1]] + ELLIPSIS if ends else ""


def user_entities(description: str, url: str) -> str | None:
    """A profile's entities (those of its description, and its link), as stored: JSON or None."""
    entities: dict[str, Any] = {}
    found = extract_entities(description or "")
    if found:
        entities["description"] = found
    if url:
        entities["url"] = {
            "urls": [
                {
                    "start": 0,
                    "end": len(url),
                    "url": url,
                    "expanded_url": url,
                    "display_url": url.split("://", 1)[-1],
                }
            ]
        }
    return jsonio.dumps(entities).decode() if entities else None
