"""The OAuth endpoints and authorize pages (they answer form bodies and HTML, not v2 JSON envelopes)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from roost.control.state import ServerState
from roost.oauth import oauth1_routes, oauth2_routes
from roost.oauth.limits import OAuthLimits


def oauth_routes(state: ServerState, limits: OAuthLimits) -> list[BaseRoute]:
    return [*oauth1_routes.routes(state, limits), *oauth2_routes.routes(state, limits)]
