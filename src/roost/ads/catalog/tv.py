"""TV markets and the TV shows airing in them."""

from __future__ import annotations

from functools import cache
from typing import Any

from ._util import hex_value, name_matches, seeded

# (locale, name); a market is a country and language pair.
TV_MARKETS: tuple[tuple[str, str], ...] = (
    ("en-US", "United States"), ("es-US", "United States"), ("en-CA", "Canada"), ("fr-CA", "Canada"),
    ("en-GB", "United Kingdom"), ("en-IE", "Ireland"), ("en-AU", "Australia"), ("en-IN", "India"),
    ("pt-BR", "Brazil"), ("es-MX", "Mexico"), ("es-AR", "Argentina"), ("es-CO", "Colombia"),
    ("es-ES", "Spain"), ("fr-FR", "France"), ("de-DE", "Germany"), ("it-IT", "Italy"), ("ja-JP", "Japan"),
)  # fmt: skip

# (name, genre, locales, weekly audience); audiences under 1,000 are reported as 1,000.
# fmt: off
TV_SHOWS: tuple[tuple[str, str, tuple[str, ...], int], ...] = (
    ("Saturday Night Live", "COMEDY", ("en-US",), 4_800_000),
    ("The Tonight Show Starring Jimmy Fallon", "TALK", ("en-US",), 3_100_000),
    ("Grey's Anatomy", "DRAMA", ("en-US", "en-CA"), 5_600_000),
    ("The Last of Us", "DRAMA", ("en-US", "en-CA", "en-GB", "en-AU"), 8_200_000),
    ("Stranger Things", "SCIENCE_FICTION", ("en-US", "en-GB", "es-MX", "pt-BR"), 12_400_000),
    ("The Bear", "COMEDY", ("en-US",), 2_900_000),
    ("Monday Night Football", "SPORTS", ("en-US",), 15_300_000),
    ("Sunday Night Football", "SPORTS", ("en-US",), 19_700_000),
    ("NBA on TNT", "SPORTS", ("en-US",), 2_100_000),
    ("The Voice", "REALITY", ("en-US",), 6_400_000),
    ("Survivor", "REALITY", ("en-US",), 5_000_000),
    ("The Bachelor", "REALITY", ("en-US", "en-CA"), 3_600_000),
    ("Jeopardy!", "GAME_SHOW", ("en-US", "en-CA"), 9_100_000),
    ("Wheel of Fortune", "GAME_SHOW", ("en-US",), 8_700_000),
    ("60 Minutes", "NEWS", ("en-US",), 8_900_000),
    ("Good Morning America", "NEWS", ("en-US",), 3_200_000),
    ("The Daily Show", "COMEDY", ("en-US",), 1_000_000),
    ("Abbott Elementary", "COMEDY", ("en-US",), 4_100_000),
    ("Yellowstone", "DRAMA", ("en-US", "en-CA"), 11_600_000),
    ("Late Night Local Access", "TALK", ("en-US",), 640),
    ("Midnight Fishing Hour", "LIFESTYLE", ("en-US",), 820),
    ("Sábado Gigante Clásico", "ENTERTAINMENT", ("es-US",), 450),
    ("Despierta América", "NEWS", ("es-US",), 1_200_000),
    ("La Rosa de Guadalupe", "DRAMA", ("es-US", "es-MX"), 2_300_000),
    ("Hockey Night in Canada", "SPORTS", ("en-CA",), 2_500_000),
    ("Tout le monde en parle", "TALK", ("fr-CA",), 1_400_000),
    ("Coronation Street", "DRAMA", ("en-GB",), 4_300_000),
    ("EastEnders", "DRAMA", ("en-GB",), 3_900_000),
    ("Strictly Come Dancing", "REALITY", ("en-GB", "en-IE"), 8_100_000),
    ("Match of the Day", "SPORTS", ("en-GB",), 4_000_000),
    ("Love Island", "REALITY", ("en-GB", "en-IE", "en-AU"), 3_300_000),
    ("The Great British Bake Off", "REALITY", ("en-GB",), 7_500_000),
    ("The Late Late Show", "TALK", ("en-IE",), 900_000),
    ("Fair City", "DRAMA", ("en-IE",), 310_000),
    ("Neighbours", "DRAMA", ("en-AU", "en-GB"), 700_000),
    ("MasterChef Australia", "REALITY", ("en-AU",), 1_500_000),
    ("AFL Grand Final", "SPORTS", ("en-AU",), 3_700_000),
    ("Indian Premier League", "SPORTS", ("en-IN",), 55_000_000),
    ("Bigg Boss", "REALITY", ("en-IN",), 12_000_000),
    ("Kaun Banega Crorepati", "GAME_SHOW", ("en-IN",), 9_000_000),
    ("Jornal Nacional", "NEWS", ("pt-BR",), 25_000_000),
    ("Big Brother Brasil", "REALITY", ("pt-BR",), 30_000_000),
    ("Domingão com Huck", "ENTERTAINMENT", ("pt-BR",), 14_000_000),
    ("Brasileirão", "SPORTS", ("pt-BR",), 18_000_000),
    ("La Academia", "REALITY", ("es-MX",), 3_100_000),
    ("Liga MX", "SPORTS", ("es-MX", "es-US"), 6_200_000),
    ("MasterChef Argentina", "REALITY", ("es-AR",), 2_400_000),
    ("Yo soy Betty, la fea", "DRAMA", ("es-CO",), 3_800_000),
    ("El Hormiguero", "TALK", ("es-ES",), 2_000_000),
    ("La Liga en Movistar", "SPORTS", ("es-ES",), 2_700_000),
    ("Operación Triunfo", "REALITY", ("es-ES",), 1_900_000),
    ("Quotidien", "TALK", ("fr-FR",), 1_500_000),
    ("Koh-Lanta", "REALITY", ("fr-FR",), 4_200_000),
    ("Plus belle la vie", "DRAMA", ("fr-FR",), 2_600_000),
    ("Tatort", "DRAMA", ("de-DE",), 8_000_000),
    ("Wer wird Millionär?", "GAME_SHOW", ("de-DE",), 4_400_000),
    ("Bundesliga Sportschau", "SPORTS", ("de-DE",), 5_100_000),
    ("Germany's Next Topmodel", "REALITY", ("de-DE",), 2_200_000),
    ("Festival di Sanremo", "ENTERTAINMENT", ("it-IT",), 11_000_000),
    ("Serie A Live", "SPORTS", ("it-IT",), 4_800_000),
    ("Un posto al sole", "DRAMA", ("it-IT",), 1_700_000),
    ("NHK Kōhaku Uta Gassen", "ENTERTAINMENT", ("ja-JP",), 30_000_000),
    ("Sazae-san", "ANIMATION", ("ja-JP",), 9_000_000),
    ("Nippon Professional Baseball", "SPORTS", ("ja-JP",), 7_000_000),
    ("Regional Cooking Hour", "LIFESTYLE", ("ja-JP",), 930),
)
# fmt: on


def _locale_parts(locale: str) -> tuple[str, str]:
    language, _, country = locale.partition("-")
    return language.lower(), country.upper()


def normalize_locale(locale: str) -> str | None:
    """The market locale ("en-US") for a spelling such as "en_us"; None when no market has it."""
    language, country = _locale_parts(locale.strip().replace("_", "-"))
    wanted = f"{language}-{country}"
    return wanted if any(code == wanted for code, _ in TV_MARKETS) else None


def tv_markets() -> list[dict[str, Any]]:
    return [
        {"name": name, "country_code": _locale_parts(locale)[1], "locale": locale}
        for locale, name in TV_MARKETS
    ]


def _show_value(name: str) -> int:
    # Eleven digits, like the platform's numeric show ids.
    return 10_000_000_000 + int(hex_value("tv_show", name), 16) % 90_000_000_000


@cache
def _shows() -> tuple[dict[str, Any], ...]:
    items = []
    for name, genre, locales, audience in TV_SHOWS:
        # A little deterministic jitter so audiences do not look hand-rounded.
        users = audience + seeded("tv_show", name).randrange(0, max(1, audience // 50))
        items.append(
            {
                "name": name,
                "targeting_value": _show_value(name),
                "genre": genre,
                "locales": [
                    {"language": lang, "country": country} for lang, country in map(_locale_parts, locales)
                ],
                "estimated_users": max(users, 1000),
            }
        )
    return tuple(items)


def _copy(item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "locales": [dict(loc) for loc in item["locales"]]}


def tv_shows(locale: str, q: str | None = None) -> list[dict[str, Any]]:
    """Shows airing in the market of the locale, by name; an unknown locale has none."""
    normalized = normalize_locale(locale)
    if normalized is None:
        return []
    language, country = _locale_parts(normalized)
    wanted = {"language": language, "country": country}
    return [
        _copy(item)
        for item in sorted(_shows(), key=lambda item: item["name"].casefold())
        if wanted in item["locales"] and name_matches(item["name"], q)
    ]


def tv_show(targeting_value: str | int) -> dict[str, Any] | None:
    try:
        value = int(targeting_value)
    except (TypeError, ValueError):
        return None
    for item in _shows():
        if item["targeting_value"] == value:
            return _copy(item)
    return None


def show_locales(targeting_value: str | int) -> list[str]:
    """The show's market locales as "en-US" strings (TV show targeting must match a location's)."""
    item = tv_show(targeting_value)
    return [f"{loc['language']}-{loc['country']}" for loc in item["locales"]] if item else []
