"""app.py's route table: which part answers which path (the first matching prefix; the v2 surface
otherwise), and the shortcut the app takes for /2/ paths agrees with the table."""

from __future__ import annotations

import pytest

from roost.app import ADS, CLAIMED_BEFORE_V2, MEDIA, PAGES, V1, V2, route

CASES = [
    ("/2/tweets/1", V2),
    ("/2/users/by/username/x", V2),
    ("/2/oauth2/token", PAGES),
    ("/2/oauth2/authorize", PAGES),
    ("/2/openapi.json", PAGES),
    ("/12/accounts", ADS),
    ("/11/accounts/abc/campaigns", ADS),
    ("/5/accounts/abc/recommendations", ADS),
    ("/sandbox/12/accounts", ADS),
    ("/sandbox/5/accounts", ADS),
    ("/sandbox/2/tweets", V2),
    ("/oauth/request_token", PAGES),
    ("/oauth2/token", PAGES),
    ("/1.1/oauth/invalidate_token", PAGES),
    ("/i/oauth2/authorize", PAGES),
    ("/_roost/health", PAGES),
    # The v1.1 calls clients still make (media upload, verify_credentials, users/show) have their own
    # dialect, which answers other v1.1 paths with the v1.1 "page does not exist" error.
    ("/1.1/statuses/update.json", V1),
    ("/1.1/media/upload.json", V1),
    ("/media/2125938436908126208.png", MEDIA),
    ("/", V2),
]


@pytest.mark.parametrize(("path", "part"), CASES)
def test_each_path_goes_to_its_part(path: str, part: str) -> None:
    assert route(path) == part


@pytest.mark.parametrize(("path", "part"), CASES)
def test_the_v2_shortcut_agrees_with_the_table(path: str, part: str) -> None:
    shortcut = path[:3] == "/2/" and not path.startswith(CLAIMED_BEFORE_V2)
    assert shortcut == (part == V2 and path.startswith("/2/"))
