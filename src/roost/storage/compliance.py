"""Batch compliance jobs and account standing: the statements behind `/2/compliance/jobs*`, the
pre-signed upload and download URLs, and the control plane's standing writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema_spaces import account_standing, compliance_jobs
from roost.storage.statements import insert_all

_insert_job = insert_all(compliance_jobs)
_job = select(compliance_jobs).where(compliance_jobs.c.id == bindparam("id"))
_jobs_of_app = (
    select(compliance_jobs)
    .where(compliance_jobs.c.app_id == bindparam("app_id"), compliance_jobs.c.type == bindparam("type"))
    .order_by(compliance_jobs.c.id.desc())
)
_open_jobs = select(compliance_jobs).where(
    compliance_jobs.c.app_id == bindparam("app_id"),
    compliance_jobs.c.type == bindparam("type"),
    or_(compliance_jobs.c.status == "created", compliance_jobs.c.status == "in_progress"),
)
# Every column but the id, rewritten from the whole row.
_update_job = (
    update(compliance_jobs)
    .where(compliance_jobs.c.id == bindparam("job_id"))
    .values({c.name: bindparam(c.name) for c in compliance_jobs.columns if c.name != "id"})
)
_standing = select(account_standing).where(account_standing.c.user_id == bindparam("user_id"))
_insert_standing = insert_all(account_standing)
_update_standing = (
    update(account_standing)
    .where(account_standing.c.user_id == bindparam("key"))
    .values({c.name: bindparam(c.name) for c in account_standing.columns if c.name != "user_id"})
)
_all_standing = select(account_standing)


async def insert_job(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_job, row)


async def get_job_tx(tx: Executor, job_id: int) -> Row | None:
    return await tx.fetch_one(_job, {"id": job_id})


async def jobs_tx(tx: Executor, app_id: int, job_type: str) -> list[Row]:
    return await tx.fetch_all(_jobs_of_app, {"app_id": app_id, "type": job_type})


async def open_jobs_tx(tx: Executor, app_id: int, job_type: str) -> list[Row]:
    return await tx.fetch_all(_open_jobs, {"app_id": app_id, "type": job_type})


async def update_job(tx: Executor, row: dict[str, Any]) -> None:
    values = {name: value for name, value in row.items() if name != "id"}
    await tx.execute(_update_job, {**values, "job_id": row["id"]})


async def get_standing_tx(tx: Executor, user_id: int) -> Row | None:
    return await tx.fetch_one(_standing, {"user_id": user_id})


async def put_standing(tx: Executor, row: dict[str, Any], exists: bool) -> None:
    if exists:
        values = {name: value for name, value in row.items() if name != "user_id"}
        await tx.execute(_update_standing, {**values, "key": row["user_id"]})
    else:
        await tx.execute(_insert_standing, row)


async def all_standing_tx(tx: Executor) -> dict[int, Row]:
    return {row["user_id"]: row for row in await tx.fetch_all(_all_standing)}


class ComplianceStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def job(self, job_id: int) -> Row | None:
        return await self._db.fetch_one(_job, {"id": job_id})
