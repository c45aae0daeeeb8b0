"""The result files of asynchronous analytics jobs, served where a job's `url` points: roost's own
stand-in for the platform's file host (`/advertiser-api-async-analytics/<token>.json.gz`, also
under `/sandbox`, where the python SDK sends its signed download when its client is in sandbox
mode). The token in the URL is the key; no credentials are checked, as for the platform's files."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.ads.domain import AdsDomain
from roost.ads.stats_jobs import FILE_PREFIX

SUFFIX = ".json.gz"


def ads_stats_file_routes(ads: AdsDomain) -> list[BaseRoute]:
    async def result_file(request: Request) -> Response:
        name = request.path_params["name"]
        body = await ads.stats_jobs.result_file(name[: -len(SUFFIX)]) if name.endswith(SUFFIX) else None
        if body is None:
            return Response(b"Not Found", status_code=404, media_type="text/plain")
        return Response(body, media_type="application/gzip")

    return [
        Route(FILE_PREFIX + "{name}", result_file, methods=["GET"]),
        Route("/sandbox" + FILE_PREFIX + "{name}", result_file, methods=["GET"]),
    ]
