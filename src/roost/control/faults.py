"""`/_roost/faults`: add, list and remove fault rules (src/roost/core/faults.py).

POST /_roost/faults        {"method": "GET", "path": "/2/tweets/*", "status": 503, "latency_ms": 0,
                            "times": 3, "probability": 1.0}  (any subset; or "stream":
                            {"after_lines": 5, "disconnect_type": "ForceDisconnect"} / {"stall": true})
GET /_roost/faults
DELETE /_roost/faults/{id}
DELETE /_roost/faults
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.core.faults import Faults


def fault_routes(faults: Faults) -> list[BaseRoute]:
    async def rules(request: Request) -> Response:
        if request.method == "POST":
            rule = faults.add(await _json(request))
            return OrjsonResponse({"data": rule.view()}, status_code=201)
        if request.method == "DELETE":
            faults.clear()
            return Response(status_code=204)
        listed = faults.listing()
        return OrjsonResponse({"data": listed, "meta": {"result_count": len(listed)}})

    async def one(request: Request) -> Response:
        if not faults.remove(numeric_id(request.path_params["rule_id"], "id")):
            return OrjsonResponse({"error": "no such fault rule"}, status_code=404)
        return Response(status_code=204)

    return [
        Route("/_roost/faults", rules, methods=["GET", "POST", "DELETE"]),
        Route("/_roost/faults/{rule_id}", one, methods=["DELETE"]),
    ]
