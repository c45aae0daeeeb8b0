"""Who changes an ads account, and when: what every write of the rule layer records."""

from __future__ import annotations

from dataclasses import dataclass

from roost.core.records import Row


@dataclass(frozen=True, slots=True)
class Actor:
    """The account a request acts on (as loaded and checked by the pipeline), the user the change
    is recorded under in the account history, and the request's instant (every write of one
    request, a batch's items included, carries the same timestamps)."""

    account: Row
    user_id: int
    now_ms: int

    @property
    def account_id(self) -> str:
        return str(self.account["id"])
