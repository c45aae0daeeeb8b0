"""The components of a card (`POST accounts/:id/cards`): their rules and the `card_type` the platform
derives from them. Pure: the media types of the keys named come in from the caller.

A card is one media component (`MEDIA` with a `media_key`, or `SWIPEABLE_MEDIA` with 2 to 6
`media_keys`) and one description component (`DETAILS` with a `title` and a WEBSITE destination, or
`BUTTON` with a label and an APP destination), in the order given; or `slides`, a list of such cards
(multi-destination carousels).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from roost.ads import errors

LABELS = ("BOOK", "CONNECT", "INSTALL", "OPEN", "ORDER", "PLAY", "SHOP")
CARD_TYPES = (
    "IMAGE_APP",
    "IMAGE_CAROUSEL_APP",
    "IMAGE_CAROUSEL_WEBSITE",
    "IMAGE_MULTI_DEST_CAROUSEL_WEBSITE",
    "IMAGE_WEBSITE",
    "MIXED_MEDIA_MULTI_DEST_CAROUSEL_WEBSITE",
    "MIXED_MEDIA_SINGLE_DEST_CAROUSEL_APP",
    "MIXED_MEDIA_SINGLE_DEST_CAROUSEL_WEBSITE",
    "VIDEO_APP",
    "VIDEO_CAROUSEL_APP",
    "VIDEO_CAROUSEL_WEBSITE",
    "VIDEO_MULTI_DEST_CAROUSEL_WEBSITE",
    "VIDEO_WEBSITE",
)
MAX_NAME = 80
_MEDIA = ("MEDIA", "SWIPEABLE_MEDIA")
_DESCRIPTIONS = ("DETAILS", "BUTTON")
_COUNTRY = re.compile(r"[A-Z]{2}")


def _bad(parameter: str, message: str) -> errors.AdsError:
    return errors.invalid_parameter(parameter, message)


def media_keys(components: list[dict[str, Any]]) -> list[str]:
    """The media keys the components name, in order."""
    keys: list[str] = []
    for component in components:
        if component.get("type") == "MEDIA":
            keys.append(component["media_key"])
        elif component.get("type") == "SWIPEABLE_MEDIA":
            keys.extend(component["media_keys"])
    return keys


def check_shape(components: Any, parameter: str = "components") -> list[dict[str, Any]]:
    """The components of one card, checked for everything but their media (which needs storage)."""
    if not isinstance(components, list) or not all(isinstance(c, dict) for c in components):
        raise _bad(parameter, f"Expected an array of component objects for {parameter}")
    kinds = [c.get("type") for c in components]
    for kind in kinds:
        if kind not in (*_MEDIA, *_DESCRIPTIONS):
            raise _bad(
                parameter,
                f'Expected a value in {", ".join((*_MEDIA, *_DESCRIPTIONS))}, got "{kind}" for type',
            )
    if sum(k in _MEDIA for k in kinds) != 1 or sum(k in _DESCRIPTIONS for k in kinds) != 1:
        raise _bad(parameter, "A card needs one media component and either a DETAILS or a BUTTON component")
    for component in components:
        _check_component(component, parameter)
    return components


def _check_component(component: dict[str, Any], parameter: str) -> None:
    kind = component["type"]
    if kind == "MEDIA":
        if not isinstance(component.get("media_key"), str) or not component["media_key"]:
            raise errors.missing_parameter("media_key")
    elif kind == "SWIPEABLE_MEDIA":
        keys = component.get("media_keys")
        if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
            raise errors.missing_parameter("media_keys")
        if not 2 <= len(keys) <= 6:
            raise _bad("media_keys", "SWIPEABLE_MEDIA takes between 2 and 6 media_keys")
    elif kind == "DETAILS":
        if not isinstance(component.get("title"), str) or not component["title"]:
            raise errors.missing_parameter("title")
        _check_destination(component.get("destination"), "WEBSITE")
    else:  # BUTTON
        label = component.get("label")
        if not isinstance(label, dict) or label.get("type") != "ENUM" or label.get("value") not in LABELS:
            shown = label.get("value") if isinstance(label, dict) else label
            raise _bad("label", f'Expected a value in {", ".join(LABELS)}, got "{shown}" for label')
        _check_destination(component.get("destination"), "APP")


def _check_destination(destination: Any, wanted: str) -> None:
    if not isinstance(destination, dict):
        raise errors.missing_parameter("destination")
    kind = destination.get("type")
    if kind != wanted:
        pairing = "DETAILS components take WEBSITE" if wanted == "WEBSITE" else "BUTTON components take APP"
        raise _bad("destination", f'{pairing} destinations, got "{kind}" for destination type')
    if wanted == "WEBSITE":
        url = destination.get("url")
        if not isinstance(url, str) or not re.match(r"https?://\S+$", url):
            raise _bad("url", f'Expected URL, got "{url}" for url')
        return
    if not isinstance(destination.get("country_code"), str) or not _COUNTRY.fullmatch(
        destination["country_code"]
    ):
        raise _bad(
            "country_code", f'Expected a two-letter country code, got "{destination.get("country_code")}"'
        )
    ios, play = destination.get("ios_app_store_identifier"), destination.get("googleplay_app_id")
    if not ios and not play:
        raise _bad("googleplay_app_id", "One of ios_app_store_identifier or googleplay_app_id is required")
    if destination.get("ios_deep_link") and not ios:
        raise _bad("ios_deep_link", "ios_deep_link can only be used with ios_app_store_identifier")
    if destination.get("googleplay_deep_link") and not play:
        raise _bad("googleplay_deep_link", "googleplay_deep_link can only be used with googleplay_app_id")


def check_slides(slides: Any) -> list[list[dict[str, Any]]]:
    if not isinstance(slides, list) or not 2 <= len(slides) <= 6:
        raise _bad("slides", "slides takes between 2 and 6 slides, each an array of components")
    checked = [check_shape(slide, "slides") for slide in slides]
    for slide in checked:
        if any(c["type"] != "MEDIA" for c in slide if c["type"] in _MEDIA) or any(
            c["type"] != "DETAILS" for c in slide if c["type"] in _DESCRIPTIONS
        ):
            raise _bad("slides", "Each slide is one MEDIA and one DETAILS component")
    return checked


def card_type(components: list[dict[str, Any]], media_types: Mapping[str, str]) -> str:
    """The type of a single-destination card from its components and its media's types."""
    kinds = {media_types[key] for key in media_keys(components)}
    app = any(c["type"] == "BUTTON" for c in components)
    swipeable = any(c["type"] == "SWIPEABLE_MEDIA" for c in components)
    media = "MIXED_MEDIA" if len(kinds) > 1 else ("VIDEO" if kinds == {"VIDEO"} else "IMAGE")
    destination = "APP" if app else "WEBSITE"
    if not swipeable:
        return f"{media}_{destination}"
    if media == "MIXED_MEDIA":
        return f"MIXED_MEDIA_SINGLE_DEST_CAROUSEL_{destination}"
    return f"{media}_CAROUSEL_{destination}"


def slides_type(slides: list[list[dict[str, Any]]], media_types: Mapping[str, str]) -> str:
    kinds = {media_types[key] for slide in slides for key in media_keys(slide)}
    media = "MIXED_MEDIA" if len(kinds) > 1 else ("VIDEO" if kinds == {"VIDEO"} else "IMAGE")
    return f"{media}_MULTI_DEST_CAROUSEL_WEBSITE"
