"""Batch compliance jobs: the v2 operations (app-only). The upload and download URLs the jobs carry
are served by `platform/compliance_storage.py`."""

from __future__ import annotations

from roost.core.params import Enum, Param, Snowflake
from roost.platform.operations import APP, Operation, RateLimit
from roost.platform.pipeline import Call, Objects

JOB_TYPES = ("tweets", "users")
LIMIT = RateLimit(app=150)


async def create_job(call: Call) -> Objects:
    row = await call.domain.compliance.create(call.principal.app_id, call.body, call.origin)
    return Objects([row], single=True)


async def jobs(call: Call) -> Objects:
    params = call.params
    rows = await call.domain.compliance.list_jobs(
        call.principal.app_id, params["type"], params.get("status"), call.origin
    )
    return Objects(rows)  # live traffic: no meta


async def job(call: Call) -> Objects:
    row = await call.domain.compliance.get(call.principal.app_id, call.params["id"], call.origin)
    return Objects([row], single=True)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "createComplianceJobs",
        "POST",
        "/2/compliance/jobs",
        create_job,
        (APP,),
        body=True,
        returns="compliance_job",
        rate_limit=LIMIT,
        tag="Compliance",
        summary="Create Compliance Job",
    ),
    Operation(
        "getComplianceJobs",
        "GET",
        "/2/compliance/jobs",
        jobs,
        (APP,),
        params=(
            Param("type", Enum(JOB_TYPES), required=True),
            Param("status", Enum(("created", "in_progress", "failed", "complete"))),
        ),
        returns="compliance_job",
        rate_limit=LIMIT,
        tag="Compliance",
        summary="Get Compliance Jobs",
    ),
    Operation(
        "getComplianceJobsById",
        "GET",
        "/2/compliance/jobs/{id}",
        job,
        (APP,),
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        returns="compliance_job",
        rate_limit=LIMIT,
        tag="Compliance",
        summary="Get Compliance Job by ID",
    ),
)
