"""
The desk's roles and what each may do.

Roles are Django groups, created with their permissions by a data migration
(``factcheck/migrations/0003_roles.py``) from the table below, so that the
permissions a role grants are written down in one place and can be checked
with ``user.has_perm``.
"""

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from factcheck.exceptions import NotAllowed

# The groups' names, as stored; ``ROLE_LABELS`` names them for people.
EDITOR = "Editor"
REVIEWER = "Reviewer"

ROLE_LABELS = {EDITOR: pgettext_lazy("role", "Editor"), REVIEWER: pgettext_lazy("role", "Reviewer")}

#: Extra permissions, beyond Django's add/change/delete/view, declared on models.
PUBLISH_CLAIM = "claims.publish_claim"
ASSIGN_REVIEWER = "claims.assign_reviewer"
SIGN_OFF_CLAIM = "claims.sign_off_claim"
PUBLISH_CORRECTION = "claims.publish_correction"

_VIEW_ALL = [
    "sources.view_source",
    "sources.view_sourceversion",
    "sources.view_quotation",
    "claims.view_case",
    "claims.view_claim",
    "claims.view_evidence",
    "claims.view_rating",
    "claims.view_reviewassignment",
    "claims.view_correction",
]

ROLE_PERMISSIONS = {
    EDITOR: [
        *_VIEW_ALL,
        "sources.add_source",
        "sources.change_source",
        "sources.add_sourceversion",
        "sources.add_quotation",
        "claims.add_rating",
        "claims.change_rating",
        "claims.add_case",
        "claims.change_case",
        "claims.add_claim",
        "claims.change_claim",
        "claims.add_evidence",
        "claims.change_evidence",
        "claims.delete_evidence",
        "claims.add_reviewassignment",
        "claims.delete_reviewassignment",
        "claims.add_correction",
        "claims.change_correction",
        "claims.add_comment",
        "claims.view_comment",
        "claims.view_errorreport",
        "claims.change_errorreport",
        PUBLISH_CLAIM,
        ASSIGN_REVIEWER,
        PUBLISH_CORRECTION,
    ],
    REVIEWER: [
        *_VIEW_ALL,
        "sources.add_quotation",
        "claims.add_comment",
        "claims.view_comment",
        SIGN_OFF_CLAIM,
    ],
}


def held_roles(user):
    """
    The names of the role groups ``user`` is in: one query, then kept on the
    user object for the rest of the request, so that a page asking several
    times costs one query.
    """
    if not hasattr(user, "held_role_names"):
        user.held_role_names = frozenset(
            user.groups.filter(name__in=ROLE_PERMISSIONS).values_list("name", flat=True)
        )
    return user.held_role_names


def is_editor(user):
    return user.is_authenticated and (user.is_superuser or EDITOR in held_roles(user))


def _editor_only(doing):
    """The refusal for a non-editor trying ``doing``, a whole sentence in the active language."""
    # Whole sentences, so that each language can build its own; callers name what
    # was tried in English.
    sentences = {
        "edit a claim": _("Only an editor can edit a claim."),
        "change evidence": _("Only an editor can change evidence."),
        "clear a claim's review flag": _("Only an editor can clear a claim's review flag."),
        "assign reviewers": _("Only an editor can assign reviewers."),
        "draft a correction": _("Only an editor can draft a correction."),
        "publish a correction": _("Only an editor can publish a correction."),
        "discard a correction": _("Only an editor can discard a correction."),
        "withdraw": _("Only an editor can withdraw."),
    }
    if doing in sentences:
        return sentences[doing]
    # Translators: %(doing)s is an action, as in "Only an editor can publish a claim."
    return _("Only an editor can %(doing)s.") % {"doing": doing}


def require_editor(user, doing):
    """Raise NotAllowed unless ``user`` is an editor; ``doing`` names what was tried."""
    if not is_editor(user):
        raise NotAllowed(_editor_only(doing), code="not_editor")


def is_reviewer(user):
    return user.is_authenticated and (user.is_superuser or REVIEWER in held_roles(user))


def role_names(user):
    """The names of the roles ``user`` holds, for display."""
    if not user.is_authenticated:
        return []
    held = held_roles(user)
    names = [str(ROLE_LABELS[name]) for name in ROLE_PERMISSIONS if name in held]
    if user.is_superuser:
        names.insert(0, _("Administrator"))
    return names


# Object-level rules: who may see which case and claim.
#
# Editors (and administrators) work on every case. A reviewer works on the
# claims assigned to them, and so on the cases those claims belong to; other
# claims and cases are outside their reach. A user without a role reaches
# nothing internal. Views look objects up through these querysets, so an
# object outside one's reach is a 404, the same answer as one that does not
# exist; a missing role is a 403 (``permission_required``).


def sees_every_case(user):
    """
    Whether ``user`` may read every case and claim: whoever may edit claims
    (editors and administrators). A permission, not a group lookup, so that it
    costs no query once the request's permission check has loaded them.
    """
    return user.is_authenticated and user.has_perm("claims.change_claim")


def works_on_reviews(user):
    """Whether ``user`` holds the reviewer's permission to sign off."""
    return user.is_authenticated and user.has_perm(SIGN_OFF_CLAIM)


def cases_visible_to(user):
    """The cases ``user`` may open: all for editors, those with a claim assigned to a reviewer."""
    return cases_in_reach(claim_reach(user), user.pk)


def cases_in_reach(reach, user_id):
    """The cases of the claims that the user ``user_id``, reaching ``reach``, may open."""
    from claims.models import Case

    if reach == EVERY_CLAIM:
        return Case.objects.all()
    if reach == ASSIGNED_CLAIMS:
        return Case.objects.filter(pk__in=claims_in_reach(reach, user_id).values("case_id"))
    return Case.objects.none()


#: How far a user reaches among claims (``claim_reach``).
EVERY_CLAIM, ASSIGNED_CLAIMS, NO_CLAIM = "every", "assigned", "none"


def claim_reach(user):
    """Which claims ``user`` may open: EVERY_CLAIM, ASSIGNED_CLAIMS or NO_CLAIM."""
    if sees_every_case(user):
        return EVERY_CLAIM
    if works_on_reviews(user):
        return ASSIGNED_CLAIMS
    return NO_CLAIM


def claims_in_reach(reach, user_id):
    """The claims that the user ``user_id``, reaching ``reach`` (``claim_reach``), may open."""
    from claims.models import Claim

    if reach == EVERY_CLAIM:
        return Claim.objects.all()
    if reach == ASSIGNED_CLAIMS:
        return Claim.objects.filter(assignments__reviewer_id=user_id)
    return Claim.objects.none()


def claims_visible_to(user):
    """The claims ``user`` may open: all for editors, a reviewer's assigned claims."""
    return claims_in_reach(claim_reach(user), user.pk)


def claim_ids_visible_to(user):
    """None when ``user`` sees every claim, else the ids of those they may open."""
    if sees_every_case(user):
        return None
    return list(claims_visible_to(user).values_list("pk", flat=True))


def can_sign_off(user, assignment):
    """
    Whether ``user`` may decide on ``assignment``: only its own reviewer, who
    holds the Reviewer role and has not written or changed the claim's content
    since it was last in draft (``claims.workflow.own_work_refusal``).
    """
    # Imported here: claims.workflow imports this module.
    from claims.workflow import own_work_refusal

    return (
        user.is_authenticated
        and assignment.reviewer_id == user.pk
        and user.has_perm(SIGN_OFF_CLAIM)
        and own_work_refusal(claim=assignment.claim, user=user, doing="review") is None
    )
