"""The pre-signed storage URLs of batch compliance jobs, served by roost in the shape of the
platform's (`/storage/<bucket>/<job id>/submission|delivery/<owner>_<job id>?X-Goog-...`).

- `PUT` on a submission URL with `Content-Type: text/plain` and the ids, one a line: 200 (the
  signature covers the content type, so another type is refused as the storage service refuses it).
- Resumable jobs: `POST` with `x-goog-resumable: start` answers 201 with the session's `Location`;
  `PUT`s to it carry the file whole or in chunks (`Content-Range: bytes a-b/n`, 308 with `Range` until
  the last), and `Content-Range: bytes */n` asks how much arrived.
- `GET` on a delivery URL: the job's JSON lines once it is complete.
Refusals are the storage service's XML errors (no API credentials are involved: the URL is the key).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.domain.compliance import BUCKETS, ComplianceJobs, StorageError

PREFIX = "/storage/"
_BUCKET_NAMES = frozenset(BUCKETS.values())


def _xml_error(error: StorageError) -> Response:
    details = f"<Details>{escape(error.details)}</Details>" if error.details else ""
    body = (
        "<?xml version='1.0' encoding='UTF-8'?>"
        f"<Error><Code>{error.code}</Code><Message>{escape(error.message)}</Message>{details}</Error>"
    )
    return Response(body, status_code=error.status, media_type="application/xml; charset=UTF-8")


def _target(request: Request, folder: str) -> tuple[int, str]:
    """(job id, bucket) of a well-formed URL for `folder`; anything else is a missing key."""
    params = request.path_params
    bucket, job, name = params["bucket"], params["job_id"], params["name"]
    if bucket not in _BUCKET_NAMES or params["folder"] != folder or not job.isdigit() or len(job) > 19:
        raise StorageError(404, "NoSuchKey", "The specified key does not exist.")
    if not name.endswith(f"_{job}"):
        raise StorageError(404, "NoSuchKey", "The specified key does not exist.")
    return int(job), bucket


def compliance_storage_routes(jobs: ComplianceJobs) -> list[BaseRoute]:
    async def submission(request: Request) -> Response:
        try:
            job_id, bucket = _target(request, "submission")
            if request.method == "GET":  # the signature covers the method: a GET is not what was signed
                raise StorageError(
                    403,
                    "SignatureDoesNotMatch",
                    "Access denied.",
                    "The request signature we calculated does not match the signature you provided. "
                    "Check your Google secret key and signing method.",
                )
            signature = request.query_params.get("X-Goog-Signature", "")
            session = request.query_params.get("upload_id")
            if request.method == "POST":
                if request.headers.get("x-goog-resumable", "").lower() != "start":
                    raise StorageError(
                        400, "InvalidArgument", "Invalid argument.", "POST needs x-goog-resumable: start."
                    )
                upload_id = await jobs.start_session(job_id, bucket, signature)
                scheme = (
                    request.headers.get("x-forwarded-proto", "").split(",")[0].strip() or request.url.scheme
                )
                host = request.headers.get("host") or request.url.netloc
                query = f"{request.url.query}&upload_id={upload_id}"
                location = f"{scheme}://{host}{request.url.path}?{query}"
                return Response(b"", status_code=201, headers={"Location": location})
            content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if session is None and content_type != "text/plain":
                raise StorageError(
                    403,
                    "SignatureDoesNotMatch",
                    "Access denied.",
                    "The request signature we calculated does not match the signature you provided. "
                    "Check your Google secret key and signing method.",
                )
            status, headers = await jobs.upload(
                job_id,
                bucket,
                signature,
                await request.body(),
                request.headers.get("content-range"),
                session,
            )
            return Response(b"", status_code=status, headers=headers)
        except StorageError as error:
            return _xml_error(error)

    async def delivery(request: Request) -> Response:
        try:
            job_id, bucket = _target(request, "delivery")
            body = await jobs.download(job_id, bucket, request.query_params.get("X-Goog-Signature", ""))
        except StorageError as error:
            return _xml_error(error)
        return Response(body, media_type="application/octet-stream")

    async def route(request: Request) -> Response:
        if request.path_params["folder"] == "delivery" and request.method == "GET":
            return await delivery(request)
        return await submission(request)

    return [Route(PREFIX + "{bucket}/{job_id}/{folder}/{name}", route, methods=["GET", "PUT", "POST"])]
