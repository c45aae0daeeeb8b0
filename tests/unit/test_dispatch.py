"""Pure helpers of the delivery dispatcher."""

from __future__ import annotations

from roost.config import Settings
from roost.events.aaa import v1_status, v1_time
from roost.events.dispatch import delivery_timeout, retry_schedule, signature_header


def test_signature_header_follows_the_brand() -> None:
    assert signature_header("x") == "x-twitter-webhooks-signature"
    assert signature_header("service") == "x-service-webhooks-signature"


def test_retry_schedule() -> None:
    default = retry_schedule({})
    # Three retries with growing gaps, the last about 5 minutes after the first attempt (the platform's).
    assert default == [30, 90, 180] and sum(default) == 300
    assert retry_schedule({"delivery_retry_schedule": "1, 2"}) == [1, 2]
    assert retry_schedule({"delivery_retry_schedule": ""}) == []
    assert retry_schedule({"delivery_retry_schedule": "x"}) == default


def test_delivery_timeout_follows_the_seed_unless_set() -> None:
    # The seed's Limits table: 10 seconds for webhook deliveries and the CRC.
    assert delivery_timeout(Settings(db_url="sqlite://")) == 10.0
    assert delivery_timeout(Settings(db_url="sqlite://", extra={"delivery_timeout_seconds": "2.5"})) == 2.5
    for bad in ("0", "-1", "x", "61", "nan"):
        settings = Settings(db_url="sqlite://", extra={"delivery_timeout_seconds": bad})
        assert delivery_timeout(settings) == 10.0


def test_v1_status() -> None:
    assert v1_time(1522082006000) == "Mon Mar 26 16:33:26 +0000 2018"
    post = {"id": 5, "author_id": 7, "text": "hi", "created_at": 1522082006000}
    status = v1_status(post, None)
    assert status["created_at"] == "Mon Mar 26 16:33:26 +0000 2018"
    assert (status["id"], status["id_str"], status["text"]) == (5, "5", "hi")
    assert status["user"] == {"id": 7, "id_str": "7"}
    assert status["truncated"] is False and status["timestamp_ms"] == "1522082006000"
    assert status["entities"] == {"hashtags": [], "urls": [], "user_mentions": [], "symbols": []}
