"""The ads operation table: what the ads pipeline needs to serve one endpoint."""

from __future__ import annotations

from dataclasses import dataclass

from roost.ads.call import AdsHandler
from roost.ads.params import AdsParam, Bool, Int, Kind, SortBy, Text

# Rate-limit categories (15-minute windows unless noted), as the platform groups its endpoints.
WRITE = "write"  # POST/PUT/DELETE: 450 per minute per user, one category
ENTITY_READ = "entity_read"  # core entity reads under an account: 10,000 per 15 minutes per account
ACCOUNT_READ = "account_read"  # other reads under an account: 2,000 per 15 minutes
ACCOUNT_LIST = "account_list"  # GET accounts
CATALOG = "catalog"  # targeting option catalogs: 400 per 15 minutes
TV_CATALOG = "tv_catalog"  # tv_markets and tv_shows: 2,000 per 15 minutes
GLOBAL_READ = "global_read"  # reference data without an account: 5 per 15 minutes per endpoint
ANALYTICS = "analytics"  # synchronous stats and active entities: 250 per 15 minutes per user


@dataclass(frozen=True)
class AdsOperation:
    operation_id: str
    method: str
    # Without the version segment: /accounts/{account_id}/campaigns. `{account_id}` makes the
    # pipeline load the account, check the caller's access and hand it to the handler.
    path: str
    handler: AdsHandler
    params: tuple[AdsParam, ...] = ()
    category: str = ENTITY_READ
    write: bool = False  # needs a write-capable app and a role that may change the account
    roles: tuple[str, ...] = ()  # roles allowed to write here; empty: ACCOUNT_ADMIN and AD_MANAGER
    sandbox_only: bool = False
    versions: tuple[str, ...] = ("12", "11")
    body: str | None = None  # "json": the body is a JSON document (batch, audience estimate)
    paginated: bool = False  # `next_cursor` is part of the envelope
    status: int = 200
    summary: str = ""
    max_body: int | None = None  # a body cap above the server's (custom audience users: 5,000,000)

    @property
    def account_scoped(self) -> bool:
        return "{account_id}" in self.path


def list_params(
    sort: tuple[str, ...] = (),
    count_default: int = 200,
    count_max: int = 1000,
    total: bool = True,
    deleted: bool = True,
) -> tuple[AdsParam, ...]:
    """count, cursor and, as the endpoint supports them, sort_by, with_total_count, with_deleted."""
    params: list[AdsParam] = [
        AdsParam("count", Int(1, count_max), default=count_default),
        AdsParam("cursor", Text(max_length=512)),
    ]
    if sort:
        params.append(AdsParam("sort_by", SortBy(sort)))
    if total:
        params.append(AdsParam("with_total_count", Bool(), default=False))
    if deleted:
        params.append(AdsParam("with_deleted", Bool(), default=False))
    return tuple(params)


def path_param(name: str) -> AdsParam:
    return AdsParam(name, Kind(), required=True, in_path=True)


ACCOUNT_ID = path_param("account_id")
