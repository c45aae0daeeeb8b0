"""The console at `/_roost/console`: server-rendered pages over the control plane and the domain
(start, apps/users/tokens, data, requests, webhooks, streams, limits, clock and faults), with one
script and one style sheet of its own (`templates/console/`).

Page reads may make several reads (a page shows several things); each form or button is one call."""

from __future__ import annotations

from starlette.routing import BaseRoute

from roost.control.console.accounts import account_routes
from roost.control.console.data_pages import data_routes
from roost.control.console.journal_pages import journal_routes
from roost.control.console.start import start_routes
from roost.control.console.stream_pages import stream_routes
from roost.control.console.tool_pages import tool_routes
from roost.control.console.webhook_pages import webhook_routes
from roost.control.state import ServerState
from roost.core.fields import FieldsEngine
from roost.core.journal import RequestJournal


def console_routes(state: ServerState, engine: FieldsEngine, journal: RequestJournal) -> list[BaseRoute]:
    return [
        *start_routes(state),
        *account_routes(state),
        *data_routes(state, engine),
        *journal_routes(journal),
        *webhook_routes(state),
        *stream_routes(state),
        *tool_routes(state),
    ]
