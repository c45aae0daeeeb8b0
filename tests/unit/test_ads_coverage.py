"""The ads coverage list is built from what the SDK's classes really call: their path attributes,
the method written beside each, suffixes added to a base path, the methods of their mixins."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ads_coverage.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ads_coverage", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ads_coverage"] = module
    spec.loader.exec_module(module)
    return module


def test_calls_come_from_the_sdk_classes() -> None:
    script = _script()
    calls = {(call.path, call.method): call.classes for call in script.sdk_calls()}
    # A collection: listed (the shared `all`) and created (`save` without an id).
    assert {
        ("/accounts/{account_id}/line_items", "GET"),
        ("/accounts/{account_id}/line_items", "POST"),
    } <= set(calls)
    # `save` with an id is a PUT of the resource; `delete` a DELETE.
    assert ("/accounts/{account_id}/campaigns/{id}", "PUT") in calls
    assert ("/accounts/{account_id}/campaigns/{id}", "DELETE") in calls
    # A suffix added to a base path (`RESOURCE_OPTIONS + 'behaviors'`).
    assert calls[("/targeting_criteria/behaviors", "GET")] == ("TargetingCriteria",)
    assert ("/stats/jobs/accounts/{account_id}", "POST") in calls


def test_the_list_marks_what_roost_does_not_serve() -> None:
    script = _script()
    calls = [
        script.SdkCall("/accounts/{account_id}/things", "GET", ("Thing",)),
        script.SdkCall("/accounts/{account_id}/things/{id}", "GET", ("Thing",)),
        script.SdkCall("/accounts/{account_id}/things/{id}", "PUT", ("Thing",)),
    ]
    text = script.render(calls, {"/accounts/{}/things/{}": {"GET"}})
    assert "**1 of 2** paths" in text
    assert "| `/accounts/{account_id}/things` | GET | Thing | **no** |" in text
    assert "| `/accounts/{account_id}/things/{id}` | GET, PUT | Thing | yes; not PUT |" in text
