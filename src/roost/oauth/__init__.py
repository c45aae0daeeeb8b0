"""The OAuth endpoints and authorize pages (they answer form bodies and HTML, not v2 JSON envelopes)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from roost.control.state import ServerState
from roost.oauth import oauth1_routes, oauth2_routes

# Paths the pipeline hands to these routes (besides the control plane).
PREFIXES = ("/oauth", "/oauth2", "/1.1/oauth", "/i/oauth", "/i/oauth2", "/2/oauth2")


def oauth_routes(state: ServerState) -> list[BaseRoute]:
    return [*oauth1_routes.routes(state), *oauth2_routes.routes(state)]
