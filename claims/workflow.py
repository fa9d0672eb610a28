"""
The claim's life, in one place: the state machine and the content digest.

``claim_transition`` is the only code that changes a claim's status. Each
action names the states it leaves from, the state it leads to, who may take it,
and what must be true first; an action the claim's state or content does not
allow raises ``TransitionRefused``, whose message says what is missing, and one
the actor may not take raises ``NotAllowed``.

The digest is a SHA-256 over everything a reviewer signs: statement, claimant,
verdict, rationale, the quotation where the claim is made and every piece of
evidence with its quotation in context and its source version. A sign-off
stores the digest it saw; when the content's digest changes, the sign-off no
longer holds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from claims.models import Case, CaseStatus, Claim, ClaimStatus, Decision
from factcheck.audit import record
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from factcheck.roles import is_editor, is_reviewer

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from claims.models import ReviewAssignment
    from sources.models import Quotation


class TransitionRefused(ValidationError):
    """An action that the claim's state or content does not allow (the actor's role: NotAllowed)."""


class Action(models.TextChoices):
    SUBMIT = "submit", gettext_lazy("Submit for review")
    REQUEST_CHANGES = "request_changes", gettext_lazy("Request changes")
    APPROVE = "approve", pgettext_lazy("claim action", "Approve")
    REOPEN = "reopen", gettext_lazy("Back to review")
    PUBLISH = "publish", pgettext_lazy("claim action", "Publish")
    WITHDRAW = "withdraw", pgettext_lazy("claim action", "Withdraw")


EDITOR, REVIEWER, SYSTEM = "editor", "reviewer", "system"


@dataclass(frozen=True)
class Transition:
    action: str
    sources: frozenset
    target: str
    taken_by: str


_ALL = frozenset(ClaimStatus.values)
TRANSITIONS = {
    Action.SUBMIT: Transition(
        Action.SUBMIT,
        frozenset({ClaimStatus.DRAFT, ClaimStatus.CHANGES_REQUESTED}),
        ClaimStatus.IN_REVIEW,
        EDITOR,
    ),
    Action.REQUEST_CHANGES: Transition(
        Action.REQUEST_CHANGES,
        frozenset({ClaimStatus.IN_REVIEW}),
        ClaimStatus.CHANGES_REQUESTED,
        REVIEWER,
    ),
    Action.APPROVE: Transition(
        Action.APPROVE, frozenset({ClaimStatus.IN_REVIEW}), ClaimStatus.APPROVED, REVIEWER
    ),
    # Taken by the system when approved content changes: the sign-offs no longer hold.
    Action.REOPEN: Transition(
        Action.REOPEN, frozenset({ClaimStatus.APPROVED}), ClaimStatus.IN_REVIEW, SYSTEM
    ),
    Action.PUBLISH: Transition(
        Action.PUBLISH, frozenset({ClaimStatus.APPROVED}), ClaimStatus.PUBLISHED, EDITOR
    ),
    # A published claim stays on the public record: what changes after publication
    # is told in the corrections log, not by the claim disappearing from the site.
    Action.WITHDRAW: Transition(
        Action.WITHDRAW,
        _ALL - {ClaimStatus.WITHDRAWN, ClaimStatus.PUBLISHED},
        ClaimStatus.WITHDRAWN,
        EDITOR,
    ),
}


def quotation_content(quotation: Quotation) -> dict[str, Any]:
    """What a reviewer sees of a quotation: its words in context, where, and in which upload."""
    version = quotation.version
    return {
        "source": version.source_id,
        "source_title": version.source.title,
        "version": version.number,
        "version_sha256": version.sha256,
        "start": quotation.start,
        "end": quotation.end,
        "exact": quotation.exact,
        "prefix": quotation.prefix,
        "suffix": quotation.suffix,
        "page": quotation.page,
    }


def claim_content(claim: Claim) -> dict[str, Any]:
    """Everything a reviewer signs off, as plain data."""
    evidence = (
        claim.evidence.select_related("quotation__version__source")
        .defer("quotation__version__extracted_text")
        .order_by("quotation_id")
    )
    return {
        "statement": claim.statement,
        "claimant": claim.claimant,
        "verdict": (
            {"label": claim.verdict.label, "value": str(claim.verdict.value)}
            if claim.verdict
            else None
        ),
        "rationale": claim.rationale,
        "quotation": quotation_content(claim.quotation),
        "evidence": [
            {
                "quotation": quotation_content(item.quotation),
                "stance": item.stance,
                "note": item.note,
            }
            for item in evidence
        ],
    }


def claim_digest(claim: Claim) -> str:
    """The SHA-256 of ``claim_content(claim)`` in a canonical JSON form."""
    canonical = json.dumps(
        claim_content(claim), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _is_assigned_reviewer(claim: Claim, actor: User) -> bool:
    return claim.assignments.filter(reviewer=actor).exists()


#: The audit actions that write a claim's reviewed content, and what each one wrote.
#: A ``claim.update`` names the fields it changed (statement, claimant, verdict,
#: rationale: ``claims.services.EDITABLE_FIELDS``) in its changes.
CREATED, EVIDENCE = "created", "evidence"
CONTENT_ACTIONS = {
    "claim.create": CREATED,
    "claim.update": None,
    "evidence.add": EVIDENCE,
    "evidence.remove": EVIDENCE,
}
#: The parts, in the order a refusal names them ("content": an edit naming no known field).
_CONTENT_PARTS = ("statement", "claimant", "verdict", "rationale", EVIDENCE, "content")
#: How a refusal names each part: "its statement and evidence".
_PART_SAID = {
    "statement": gettext_lazy("statement"),
    "claimant": gettext_lazy("claimant"),
    "verdict": gettext_lazy("verdict"),
    "rationale": gettext_lazy("rationale"),
    EVIDENCE: gettext_lazy("evidence"),
    "content": gettext_lazy("content"),
}
#: The separation of duties' refusal, whole sentences for translators: by what is
#: refused (``doing``), whether it is said to the person themselves, and what they did.
_OWN_WORK_SAID = {
    ("review", True, "wrote"): gettext_lazy(
        "You wrote this claim, so someone else must review it."
    ),
    ("review", True, "wrote_changed"): gettext_lazy(
        "You wrote this claim and changed its %(parts)s, so someone else must review it."
    ),
    ("review", True, "changed"): gettext_lazy(
        "You changed this claim's %(parts)s since it was last in draft, so someone else must "
        "review it."
    ),
    ("review", False, "wrote"): gettext_lazy(
        "%(name)s wrote this claim, so someone else must review it."
    ),
    ("review", False, "wrote_changed"): gettext_lazy(
        "%(name)s wrote this claim and changed its %(parts)s, so someone else must review it."
    ),
    ("review", False, "changed"): gettext_lazy(
        "%(name)s changed this claim's %(parts)s since it was last in draft, so someone else "
        "must review it."
    ),
    ("publish", True, "wrote"): gettext_lazy(
        "You wrote this claim, so someone else must publish it."
    ),
    ("publish", True, "wrote_changed"): gettext_lazy(
        "You wrote this claim and changed its %(parts)s, so someone else must publish it."
    ),
    ("publish", True, "changed"): gettext_lazy(
        "You changed this claim's %(parts)s since it was last in draft, so someone else must "
        "publish it."
    ),
    ("publish", False, "wrote"): gettext_lazy(
        "%(name)s wrote this claim, so someone else must publish it."
    ),
    ("publish", False, "wrote_changed"): gettext_lazy(
        "%(name)s wrote this claim and changed its %(parts)s, so someone else must publish it."
    ),
    ("publish", False, "changed"): gettext_lazy(
        "%(name)s changed this claim's %(parts)s since it was last in draft, so someone else "
        "must publish it."
    ),
}


def contributions_since_draft(claim: Claim) -> dict[int, set[str]]:
    """
    Who wrote or changed ``claim``'s reviewed content since it was last put in
    draft, and what: ``{user id: {"created", "statement", ..., "evidence"}}``.

    Read from the audit trail (``CONTENT_ACTIONS`` about the claim), from the
    last event that put it in draft: its creation, or a later transition whose
    status change ends in draft (none does today; one that did would let the
    desk start the claim's review afresh). The claim's ``author`` counts as
    having created it when nothing put it back in draft since, so that a claim
    made without the trail (an import, a fixture) still has its author. The
    system (no actor) is nobody.
    """
    events = (
        AuditEvent.objects.filter(
            target_type=ContentType.objects.get_for_model(Claim), target_id=str(claim.pk)
        )
        .filter(Q(action__in=list(CONTENT_ACTIONS)) | Q(action__startswith="claim."))
        .order_by("id")
        .values_list("action", "actor_id", "changes")
    )
    contributed: dict[int, set[str]] = {}
    back_in_draft = False
    for action, actor_id, changes in events:
        status = (changes or {}).get("status")
        into_draft = isinstance(status, list) and status[-1:] == [ClaimStatus.DRAFT]
        if action == "claim.create" or into_draft:
            # Only what was written since counts: a return to draft starts the review afresh.
            contributed = {}
            back_in_draft = action != "claim.create"
        if action not in CONTENT_ACTIONS or actor_id is None:
            continue
        part = CONTENT_ACTIONS[action]
        parts = {part} if part else set(changes or {}) & set(_CONTENT_PARTS)
        contributed.setdefault(actor_id, set()).update(parts or {"content"})
    if claim.author_id is not None and not back_in_draft:
        contributed.setdefault(claim.author_id, set()).add(CREATED)
    return contributed


def contributors_since_draft(claim: Claim) -> set[int]:
    """The ids of the people who wrote or changed ``claim``'s reviewed content since draft."""
    return set(contributions_since_draft(claim))


def own_work_refusal(
    *, claim: Claim, user: User | None, doing: str, asked_by: User | None = None
) -> str | None:
    """
    The separation of duties, the one rule every path applies: nobody reviews,
    approves or publishes (``doing``) a claim whose reviewed content they wrote
    or changed since it was last in draft (``contributions_since_draft``),
    whatever roles they hold. Returns the sentence saying why ``user`` may not,
    or None when they may. ``asked_by``, when another person asks it of
    ``user`` (an editor assigning a reviewer), is who the sentence is told to.
    """
    if user is None or user.pk is None:
        return None
    parts = contributions_since_draft(claim).get(user.pk)
    if not parts:
        return None
    yourself = asked_by is None or asked_by.pk == user.pk
    changed = [_PART_SAID[part] for part in _CONTENT_PARTS if part in parts]
    did = ("wrote_changed" if changed else "wrote") if CREATED in parts else "changed"
    sentence = _OWN_WORK_SAID[doing, yourself, did]
    return str(sentence) % {
        "name": user.get_username(),
        "parts": and_list(changed) if changed else "",
    }


def refuse_own_work(*, claim: Claim, user: User | None, doing: str) -> None:
    """Raise NotAllowed (code ``own_work``) when ``own_work_refusal`` refuses ``user``."""
    if refusal := own_work_refusal(claim=claim, user=user, doing=doing):
        raise NotAllowed(refusal, code="own_work")


def _refuse_unless_allowed(claim: Claim, transition: Transition, actor: User | None) -> None:
    if claim.status not in transition.sources:
        allowed = [ClaimStatus(status).label.lower() for status in sorted(transition.sources)]
        raise TransitionRefused(
            _(
                "“%(action)s” is not possible now: the claim is %(status)s. It can be done to "
                "a claim that is %(allowed)s."
            )
            % {
                "action": Action(transition.action).label,
                "status": claim.get_status_display().lower(),
                "allowed": and_list(allowed, conjunction="or"),
            },
            code="wrong_state",
        )
    if transition.taken_by == EDITOR and not is_editor(actor):
        raise NotAllowed(
            _("Only an editor can %(action)s.")
            % {"action": Action(transition.action).label.lower()},
            code="not_editor",
        )
    if transition.action == Action.PUBLISH:
        refuse_own_work(claim=claim, user=actor, doing="publish")
    if transition.taken_by == REVIEWER:
        refuse_own_work(claim=claim, user=actor, doing="review")
        if not (is_reviewer(actor) and _is_assigned_reviewer(claim, actor)):
            raise NotAllowed(
                _("Only a reviewer assigned to this claim can decide on it."), code="not_assigned"
            )


def claim_missing(claim: Claim) -> list[str]:
    """
    What ``claim``'s content lacks to be reviewed, approved or published, as
    phrases ("a verdict", ...); empty when it is complete. A claim can lose a
    part while in review (its evidence removed, its verdict cleared), so every
    step checks, not only submitting.
    """
    missing = []
    if not claim.statement.strip():
        missing.append(_("a statement"))
    if claim.verdict_id is None:
        missing.append(_("a verdict"))
    if not claim.evidence.exists():
        missing.append(_("at least one evidence quotation"))
    return missing


def _refuse_unless_ready(claim: Claim, action: str) -> None:
    if action == Action.SUBMIT:
        missing = claim_missing(claim)
        if not claim.assignments.exists():
            missing.append(_("at least one assigned reviewer"))
        if missing:
            raise TransitionRefused(
                _("The claim cannot go to review yet: it needs %(missing)s.")
                % {"missing": and_list(missing)},
                code="incomplete",
            )
    # Imported here: the seed package builds its case through the services, which use this module.
    from claims.seed.first_case import is_seeded_checklist

    if action == Action.PUBLISH and is_seeded_checklist(claim.rationale):
        raise TransitionRefused(
            _(
                "The claim cannot be published with the seeded checklist as its rationale: that "
                "is a to-do list for the desk. Write the rationale readers will see (what the "
                "evidence shows and why it supports the verdict), and send the claim to review "
                "again."
            ),
            code="checklist_rationale",
        )
    if action in {Action.APPROVE, Action.PUBLISH} and (missing := claim_missing(claim)):
        if action == Action.APPROVE:
            sentence = _(
                "The claim cannot be approved: it needs %(missing)s. An editor must add it and "
                "send the claim to review again."
            )
        else:
            sentence = _(
                "The claim cannot be published: it needs %(missing)s. An editor must add it and "
                "send the claim to review again."
            )
        raise TransitionRefused(sentence % {"missing": and_list(missing)}, code="incomplete")
    if action in {Action.APPROVE, Action.PUBLISH}:
        digest = claim_digest(claim)
        pending = [
            assignment.reviewer.get_username()
            for assignment in claim.assignments.select_related("reviewer")
            if not (assignment.decision == Decision.APPROVED and assignment.signed_digest == digest)
        ]
        if pending:
            raise TransitionRefused(
                _(
                    "Every assigned reviewer must approve the current content first; still "
                    "waiting for %(reviewers)s."
                )
                % {"reviewers": and_list(pending)},
                code="not_signed_off",
            )


def and_list(items: list[str], conjunction: str = "and") -> str:
    """
    ``items`` as a sentence lists them, in the active language: "a", "a and b",
    "a, b and c" (``conjunction`` "or": "a, b or c").
    """
    if len(items) == 1:
        return str(items[0])
    # Translators: what separates the items of a list but the last two ("a, b and c").
    first = pgettext("list separator", ", ").join(str(item) for item in items[:-1])
    if conjunction == "or":
        return _("%(first)s or %(last)s") % {"first": first, "last": items[-1]}
    return _("%(first)s and %(last)s") % {"first": first, "last": items[-1]}


def allowed_actions(claim: Claim, actor: User) -> list[Action]:
    """
    The actions ``actor`` could take on ``claim`` now, for the claim page's
    buttons: an editor's. A reviewer decides on the review page (``claim_transition``).
    """
    actions = []
    for action, transition in TRANSITIONS.items():
        if transition.taken_by != EDITOR:
            continue
        try:
            _refuse_unless_allowed(claim, transition, actor)
        except (TransitionRefused, NotAllowed):
            continue
        actions.append(action)
    return actions


@transaction.atomic
def claim_transition(
    *,
    claim: Claim,
    action: str,
    actor: User | None,
    reason: str = "",
    decision_of: ReviewAssignment | None = None,
) -> Claim:
    """
    Take ``action`` on ``claim`` as ``actor`` (None for the system): check the
    state, the actor's role and the action's preconditions, change the status,
    and record the event. Returns the claim, refreshed. An action the actor may
    not take raises NotAllowed; one the claim is not ready for, TransitionRefused.

    A reviewer's action (approve, request changes) follows from their decision,
    recorded with its comment on the content they saw (``review_decide``):
    ``decision_of`` is their assignment. Without it the action is refused, so
    that no button or request can move a claim without that record.
    """
    transition = TRANSITIONS[Action(action)]
    # Lock the row: two simultaneous decisions must not both see the old state.
    # Only the claim's own row: PostgreSQL cannot lock the nullable side of the
    # outer join that the optional verdict needs.
    claim = (
        Claim.objects.select_for_update(of=("self",))
        .select_related("verdict", "quotation")
        .get(pk=claim.pk)
    )
    if transition.taken_by != SYSTEM:
        _refuse_unless_allowed(claim, transition, actor)
        if transition.taken_by == REVIEWER and (
            decision_of is None or decision_of.reviewer_id != actor.pk
        ):
            raise TransitionRefused(
                _(
                    "A reviewer approves or asks for changes on the claim's review page, where "
                    "the decision is recorded with the content it was made on."
                ),
                code="needs_decision",
            )
    elif claim.status not in transition.sources:
        return claim
    _refuse_unless_ready(claim, transition.action)
    old = claim.status
    claim.status = transition.target
    update = {"status": claim.status, "updated_at": timezone.now()}
    if transition.target == ClaimStatus.PUBLISHED:
        claim.published_at = update["published_at"] = timezone.now()
    Claim.objects.filter(pk=claim.pk).update(**update)
    record(
        actor=actor,
        action=f"claim.{transition.action}",
        target=claim,
        changes={"status": [old, claim.status], **({"reason": reason} if reason else {})},
    )
    if transition.target == ClaimStatus.PUBLISHED:
        _case_published_with(claim, actor=actor)
    return claim


def _case_published_with(claim: Claim, *, actor: User | None) -> None:
    """
    An open case is published with its first published claim: its public page
    is live from then on, and the desk says so. An archived case stays archived.
    """
    opened = Case.objects.filter(pk=claim.case_id, status=CaseStatus.OPEN)
    # A case set back to open in the admin keeps the date it was first published.
    if opened.update(
        status=CaseStatus.PUBLISHED,
        published_at=Coalesce("published_at", Value(claim.published_at)),
        updated_at=timezone.now(),
    ):
        record(
            actor=actor,
            action="case.publish",
            target=Case.objects.get(pk=claim.case_id),
            changes={"status": [CaseStatus.OPEN, CaseStatus.PUBLISHED], "with_claim": claim.pk},
        )
