"""tweepy 4.17 `Client` Spaces and compliance-job methods, run as a plain program under `roost run`'s
redirect.

argv[1] is a JSON object: bearer_token (the demo app's), creator_token (the Space creator's OAuth 2.0
user token), compliance_bearer (a fresh app's bearer token), space_id, creator_id, word (in the
Space's title), post_id (a post to check). Prints JSON with what each call gave or the exception it
raised.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import tweepy


def attempt(results: dict[str, Any], name: str, call: Callable[[], Any]) -> None:
    try:
        results[name] = call()
    except Exception as exc:  # recorded for the test to assert on
        results[name] = {"error": type(exc).__name__, "message": str(exc)}


def spaces(response: Any) -> list[dict[str, Any]]:
    return [dict(space.data) for space in response.data or []]


def main() -> None:
    params = json.loads(sys.argv[1])
    app = tweepy.Client(params["bearer_token"])
    creator = tweepy.Client(params["creator_token"])
    space_id = params["space_id"]
    results: dict[str, Any] = {}
    attempt(
        results,
        "get_space",
        lambda: (
            lambda response: {
                "data": dict(response.data.data),
                "users": [str(u.id) for u in response.includes["users"]],
            }
        )(app.get_space(space_id, expansions=["creator_id"], space_fields=["title", "host_ids"])),
    )
    attempt(results, "get_spaces_ids", lambda: spaces(app.get_spaces(ids=[space_id])))
    attempt(results, "get_spaces_creators", lambda: spaces(app.get_spaces(user_ids=[params["creator_id"]])))
    attempt(
        results,
        "search_spaces",
        lambda: (lambda response: {"data": spaces(response), "meta": response.meta})(
            app.search_spaces(params["word"], state="live")
        ),
    )
    attempt(
        results, "get_space_tweets", lambda: [str(t.id) for t in app.get_space_tweets(space_id).data or []]
    )
    attempt(
        results,
        "get_space_buyers",
        lambda: [u.username for u in creator.get_space_buyers(space_id).data or []],
    )
    compliance = tweepy.Client(params["compliance_bearer"])
    attempt(
        results,
        "create_compliance_job",
        lambda: dict(compliance.create_compliance_job("tweets", name="tweepy job").data),
    )
    job_id = results["create_compliance_job"].get("id")
    attempt(results, "get_compliance_job", lambda: dict(compliance.get_compliance_job(job_id).data))
    attempt(
        results,
        "get_compliance_jobs",
        lambda: [dict(job)["id"] for job in compliance.get_compliance_jobs("tweets").data or []],
    )
    attempt(
        results,
        "get_compliance_jobs_none",
        lambda: compliance.get_compliance_jobs("users", status="complete").data,
    )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
