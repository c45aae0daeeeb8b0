"""The `compliance_job` object kind: every field by default, as live traffic shows the job."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.core.clock import iso_ms
from roost.core.fields import ObjectKind, RenderContext, Row

COMPLIANCE_JOB_FIELDS = (
    "created_at",
    "download_expires_at",
    "download_url",
    "id",
    "name",
    "resumable",
    "status",
    "type",
    "upload_expires_at",
    "upload_url",
)
# The order of live traffic's job objects.
COMPLIANCE_JOB_DEFAULTS = (
    "id",
    "type",
    "name",
    "resumable",
    "status",
    "created_at",
    "upload_url",
    "upload_expires_at",
    "download_url",
    "download_expires_at",
)


def _field(row: Row, name: str) -> Any:
    if name == "id":
        return str(row["id"])
    if name == "resumable":
        return bool(row["resumable"])
    if name in ("created_at", "upload_expires_at", "download_expires_at"):
        return iso_ms(row[name])
    return row[name]  # type, name, status, upload_url, download_url


def render_compliance_job(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        value = _field(row, name)
        if value is not None:
            out[name] = value
    return out


COMPLIANCE_KINDS = (
    ObjectKind(
        "compliance_job",
        "compliance_job",
        ("compliance_job.fields",),
        COMPLIANCE_JOB_FIELDS,
        {},
        COMPLIANCE_JOB_DEFAULTS,
        {"tweet": "compliance_jobs", "post": "compliance_jobs"},
        render_compliance_job,
        lambda row: row["id"],
    ),
)
