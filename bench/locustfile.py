"""
The newsroom under load, for ``bench/load.py`` (``make load``), run by locust headless.

Three kinds of simulated users, signed in by sessions that bench/load.py wrote
into the database (its plan file, ``LOAD_PLAN``, names them and the claims,
quotations and reviews to work on):

- readers of the public site: published case and claim pages, the corrections log;
- editors: open a claim, change its statement, attach evidence, comment, register
  a source with pasted text (whose extraction the background worker does);
- reviewers: list their reviews, open one, approve or request changes.

Every request is appended to ``LOAD_REQUESTS`` (JSON lines: kind, status, start
and end time, milliseconds), and every *acknowledged* write (a POST answered 2xx
or 3xx) to ``LOAD_WRITES`` with the unique token it wrote, so that bench/load.py
can compare both with the database afterwards. Locust's own statistics are not used.
"""

import itertools
import json
import os
import random
import re
import threading
import time
import uuid
from pathlib import Path

from locust import HttpUser, between, events, task

PLAN = json.loads(Path(os.environ["LOAD_PLAN"]).read_text(encoding="utf-8"))
# Open for the whole run, line-buffered; closed when locust quits.
_requests_log = open(os.environ["LOAD_REQUESTS"], "a", encoding="utf-8", buffering=1)  # noqa: SIM115
_writes_log = open(os.environ["LOAD_WRITES"], "a", encoding="utf-8", buffering=1)  # noqa: SIM115
_lock = threading.Lock()
_editors = itertools.cycle(PLAN["editors"])
_reviewers = itertools.cycle(PLAN["reviewers"])

VERSION = re.compile(r'name="version" value="(\d+)"')
DIGEST = re.compile(r'name="digest" value="([0-9a-f]{64})"')


def _log(stream, record):
    with _lock:
        stream.write(json.dumps(record) + "\n")


@events.request.add_listener
def record_request(request_type, name, response_time, response, start_time=None, **kwargs):
    status = getattr(response, "status_code", 0) or 0
    _log(
        _requests_log,
        {
            "kind": name,
            "method": request_type,
            "status": status,
            "start": start_time,
            "end": time.time(),
            "ms": response_time,
        },
    )


@events.quitting.add_listener
def close_logs(**kwargs):
    _requests_log.close()
    _writes_log.close()


def token():
    return f"LD{uuid.uuid4().hex[:16]}"


class SignedIn(HttpUser):
    abstract = True
    wait_time = between(0.5, 2.0)

    def on_start(self):
        with _lock:
            self.identity = next(self.identities)
        self.client.cookies.set("sessionid", self.identity["session"])
        self.client.cookies.set("csrftoken", self.identity["csrf"])

    def post(self, url, data, *, name, htmx=True):
        headers = {"X-CSRFToken": self.identity["csrf"]}
        if htmx:
            headers["HX-Request"] = "true"
        return self.client.post(url, data=data, headers=headers, name=name, allow_redirects=False)

    def acknowledged(self, response, record):
        # A redirect to the login page is a refusal (the session was not
        # accepted), not a saved write.
        to_login = response.headers.get("Location", "").startswith("/login")
        if 200 <= response.status_code < 400 and not to_login:
            _log(
                _writes_log,
                record | {"user": self.identity["username"], "status": response.status_code},
            )


class Reader(HttpUser):
    """Someone reading the published fact-checks."""

    weight = 5
    wait_time = between(0.5, 2.0)

    @task(3)
    def public_claim(self):
        slug, pk = random.choice(PLAN["public_claims"])
        self.client.get(f"/published/{slug}/claims/{pk}/", name="public claim")

    @task(2)
    def public_case(self):
        self.client.get(f"/published/{random.choice(PLAN['public_cases'])}/", name="public case")

    @task(1)
    def corrections_log(self):
        self.client.get("/corrections/", name="corrections log")


class Editor(SignedIn):
    """An editor working through claims."""

    weight = 3
    identities = _editors

    def open_claim(self):
        claim = random.choice(PLAN["claims"])
        response = self.client.get(
            f"/cases/{claim['case']}/claims/{claim['claim']}/", name="claim page"
        )
        return claim, response

    @task(4)
    def edit_statement(self):
        claim, page = self.open_claim()
        version = VERSION.search(page.text or "")
        if page.status_code != 200 or not version:
            return
        mark = token()
        response = self.post(
            f"/cases/{claim['case']}/claims/{claim['claim']}/edit/",
            {
                "statement": f"{claim['statement']} [{mark}]",
                "claimant": claim["claimant"],
                "verdict": claim["verdict"],
                "rationale": claim["rationale"],
                "version": version.group(1),
            },
            name="edit claim",
        )
        self.acknowledged(response, {"kind": "edit", "token": mark, "claim": claim["claim"]})

    @task(2)
    def add_evidence(self):
        claim, page = self.open_claim()
        if page.status_code != 200 or not claim["quotations"]:
            return
        mark = token()
        quotation = random.choice(claim["quotations"])
        response = self.post(
            f"/cases/{claim['case']}/claims/{claim['claim']}/evidence/",
            {"quotation": quotation, "stance": "supports", "note": f"Load test note {mark}"},
            name="add evidence",
        )
        self.acknowledged(
            response,
            {"kind": "evidence", "token": mark, "claim": claim["claim"], "quotation": quotation},
        )

    @task(1)
    def comment(self):
        claim = random.choice(PLAN["claims"])
        mark = token()
        response = self.post(
            f"/cases/{claim['case']}/claims/{claim['claim']}/comments/",
            {"body": f"Load test comment {mark}"},
            name="comment",
        )
        self.acknowledged(response, {"kind": "comment", "token": mark, "claim": claim["claim"]})

    @task(1)
    def register_source(self):
        mark = token()
        response = self.post(
            "/sources/new/",
            {
                "title": f"Load test source {mark}",
                "publisher": "Load test",
                "role": "primary",
                "pasted_text": f"Pasted text of source {mark}.\n\n"
                + " ".join(random.choices(PLAN["words"], k=300)),
            },
            name="register source",
            htmx=False,
        )
        self.acknowledged(response, {"kind": "source", "token": mark})


class Reviewer(SignedIn):
    """A reviewer deciding on the claims assigned to them."""

    weight = 2
    identities = _reviewers

    def on_start(self):
        super().on_start()
        self.open = list(self.identity["assignments"])
        random.shuffle(self.open)

    @task(1)
    def my_reviews(self):
        self.client.get("/reviews/", name="my reviews")

    @task(2)
    def decide(self):
        if not self.open:
            self.my_reviews()
            return
        assignment = self.open[-1]
        page = self.client.get(f"/reviews/{assignment}/", name="review page")
        digest = DIGEST.search(page.text or "")
        if page.status_code != 200 or not digest:
            return
        mark = token()
        decision = random.choice(["approved", "changes_requested"])
        response = self.post(
            f"/reviews/{assignment}/",
            {"decision": decision, "comment": f"Load test review {mark}", "digest": digest[1]},
            name="decide",
            htmx=False,
        )
        if response.status_code in (302, 422):
            self.open.pop()  # decided, or no longer decidable (the claim moved on)
        self.acknowledged(
            response,
            {"kind": "decision", "token": mark, "assignment": assignment, "decision": decision},
        )
