"""twarc 2 compliance jobs, run as a plain program under `roost run`'s redirect: twarc's client
methods (compliance_job_create, compliance_job_list, compliance_job_get) and its command's upload
(a `requests.put` of the file with `Content-Type: text/plain`) and download (`_download_job`).

argv[1] is a JSON object: bearer_token (a fresh app's), control (roost's base URL, to move its clock
while the job is processed), ids (the tweet ids to check), outfile. Prints JSON with what each step
gave.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import requests
from twarc import Twarc2
from twarc.command2 import _download_job


def main() -> None:
    params = json.loads(sys.argv[1])
    client = Twarc2(bearer_token=params["bearer_token"])
    results: dict[str, Any] = {}
    job = client.compliance_job_create("tweets", "twarc job")["data"]
    results["created"] = job
    uploaded = requests.put(
        job["upload_url"], data="\n".join(params["ids"]).encode(), headers={"Content-Type": "text/plain"}
    )
    results["upload_status"] = uploaded.status_code
    results["after_upload"] = client.compliance_job_get(job["id"])["data"]["status"]
    results["listed"] = [item["id"] for item in client.compliance_job_list("tweets", "in_progress")["data"]]
    results["none_failed"] = client.compliance_job_list("tweets", "failed")
    requests.post(params["control"] + "/_roost/clock", json={"advance_seconds": 60})
    done = client.compliance_job_get(job["id"])["data"]
    results["done"] = done["status"]
    _download_job(done, params["outfile"], True)
    with open(params["outfile"], encoding="utf-8") as handle:
        results["lines"] = [json.loads(line) for line in handle if line.strip()]
    print(json.dumps(results))


if __name__ == "__main__":
    main()
