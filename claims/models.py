from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models, router, transaction
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce, Greatest, Length
from django.db.models.lookups import Exact
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from factcheck.languages import LANGUAGE_CHOICES
from factcheck.text import without_control_characters
from sources.models import Quotation, Reanchoring, Source, SourceVersion, WrittenInLanguage


class Rating(models.Model):
    """One step of the desk's rating scale, editable in the admin."""

    label = models.CharField(max_length=60, unique=True)
    order = models.PositiveSmallIntegerField(
        unique=True, help_text=gettext_lazy("Position on the scale, from least to most accurate.")
    )
    value = models.DecimalField(
        max_digits=4,
        decimal_places=1,
        null=True,
        blank=True,
        help_text=gettext_lazy(
            "Numeric value for ClaimReview markup. Leave empty for ratings "
            "that are not on the accuracy scale (such as “Unproven”)."
        ),
    )
    meaning = models.TextField(
        help_text=gettext_lazy("What the rating means, shown to editors and readers.")
    )
    #: Public pages' ETags name it: a relabelled rating changes every page that shows it.
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["order"]

    def __str__(self):
        return self.label

    def clean(self):
        super().clean()
        if self.pk is None:
            return
        stored = Rating.objects.filter(pk=self.pk).values_list("label", flat=True).first()
        if stored not in (None, self.label) and self.is_on_the_public_record():
            raise ValidationError(
                {
                    "label": ValidationError(
                        _(
                            "“%(label)s” is the verdict of published fact-checks or named in "
                            "the corrections log, whose entries are sealed with their words: it "
                            "keeps its label. Add a rating with the new label instead (its "
                            "meaning, value and order can still be changed here)."
                        )
                        % {"label": stored},
                        code="rating_published",
                    )
                },
                code="rating_published",
            )

    def is_on_the_public_record(self):
        """Whether a published claim has this verdict or a published correction names it."""
        published = Correction.objects.filter(status=CorrectionStatus.PUBLISHED)
        return (
            Claim.objects.filter(verdict=self, status=ClaimStatus.PUBLISHED).exists()
            or published.filter(models.Q(old_verdict=self) | models.Q(new_verdict=self)).exists()
        )


class CaseStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("case status", "Open")
    PUBLISHED = "published", pgettext_lazy("case status", "Published")
    ARCHIVED = "archived", pgettext_lazy("case status", "Archived")


class Case(WrittenInLanguage, models.Model):
    """A fact-check of one piece (the source under check) and the claims made in it."""

    Status = CaseStatus

    title = models.CharField(max_length=300)
    slug = models.SlugField(max_length=120, unique=True)
    source_under_check = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="cases_under_check"
    )
    lead_editor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="led_cases",
    )
    status = models.CharField(max_length=20, choices=Status, default=Status.OPEN)
    #: The language the piece and the case are written in (factcheck.languages):
    #: the piece's when the case is opened, unless the desk says otherwise. The
    #: public pages are served in it, and ClaimReview gives it as ``inLanguage``.
    language = models.CharField(
        gettext_lazy("language"), max_length=16, blank=True, choices=LANGUAGE_CHOICES
    )
    #: The number its latest claim was given (``Claim.number``): never given again,
    #: even once that claim is deleted.
    last_claim_number = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # The case list reads its page from here instead of sorting every case.
        indexes = [models.Index(fields=["-created_at", "-id"], name="case_newest_first")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=CaseStatus.values),
                name="case_status_valid",
            ),
        ]

    def __str__(self):
        return self.title

    def save(self, *args, **kwargs):
        # The claims' counter moves in the database alone (next_claim_number): a case
        # read before a claim was made must not write its older count back.
        if not self._state.adding and kwargs.get("update_fields") is None:
            kwargs["update_fields"] = [
                field.name
                for field in self._meta.concrete_fields
                if not field.primary_key and field.name != "last_claim_number"
            ]
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("claims:case_detail", args=[self.slug])

    #: Addresses under /cases/ that are pages of their own, not cases.
    RESERVED_SLUGS = frozenset({"new"})

    def clean(self):
        super().clean()
        if self.slug in self.RESERVED_SLUGS:
            raise ValidationError(
                {
                    "slug": ValidationError(
                        _("“%(slug)s” is the address of a page of its own: choose another.")
                        % {"slug": self.slug},
                        code="reserved",
                    )
                },
                code="reserved",
            )
        if self.pk is None:
            return
        stored = Case.objects.filter(pk=self.pk).values("slug", "source_under_check_id").first()
        if stored is None:
            return
        errors = {}
        if stored["slug"] != self.slug and (
            self.claims.filter(status=ClaimStatus.PUBLISHED).exists()
            or self.corrections.filter(status=CorrectionStatus.PUBLISHED).exists()
        ):
            errors["slug"] = ValidationError(
                _(
                    "The case's public pages, feeds and the sealed entries of the corrections "
                    "log use the address “%(slug)s”: it stays, so that no link given out breaks."
                )
                % {"slug": stored["slug"]},
                code="case_in_use",
            )
        if stored["source_under_check_id"] != self.source_under_check_id and self.claims.exists():
            errors["source_under_check"] = ValidationError(
                _(
                    "Every claim of this case quotes its piece under check: it stays. Open a new "
                    "case for another piece."
                ),
                code="case_in_use",
            )
        if errors:
            raise ValidationError(errors, code="case_in_use")


class ClaimStatus(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("claim status", "Draft")
    IN_REVIEW = "in_review", pgettext_lazy("claim status", "In review")
    CHANGES_REQUESTED = "changes_requested", pgettext_lazy("claim status", "Changes requested")
    APPROVED = "approved", pgettext_lazy("claim status", "Approved")
    PUBLISHED = "published", pgettext_lazy("claim status", "Published")
    WITHDRAWN = "withdrawn", pgettext_lazy("claim status", "Withdrawn")


def own_passage_carried_on(quotation_id):
    """
    The re-anchorings of the quotation a claim quotes (``quotation_id``, a value
    or an ``OuterRef``): any at all means its passage changed or is gone in a
    newer version of the piece, a flag that clearing does not deal with
    (claims.services.claim_flags_clear) and that the claim page says so of.
    """
    return Reanchoring.objects.filter(quotation_id=quotation_id)


def next_claim_number(case_id, using=None):
    """
    The number the next claim of case ``case_id`` gets (``Case.last_claim_number``
    moved on, past any number its claims hold). Call it in the transaction that
    saves the claim: the case's row stays locked until then, so that two claims
    made at once take two numbers.
    """
    cases = Case.objects.db_manager(using).filter(pk=case_id)
    highest = Claim.objects.filter(case_id=OuterRef("pk")).order_by("-number").values("number")[:1]
    cases.update(
        last_claim_number=Greatest(models.F("last_claim_number"), Coalesce(Subquery(highest), 0))
        + 1
    )
    return cases.values_list("last_claim_number", flat=True).get()


class Claim(models.Model):
    """
    A checkable statement made in the piece under check, anchored to its words.

    ``version`` counts saved edits, for optimistic locking: an edit form carries
    the version it was opened at, and a save against an older one is refused.
    """

    Status = ClaimStatus

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="claims")
    #: The claim's number in its case (1, 2, …), given when it is made and never
    #: changed: people write "claim 9" in comments and mails, and a claim made
    #: later of an earlier sentence must not renumber the others.
    number = models.PositiveIntegerField(blank=True, editable=False)
    # A checkable statement is a sentence or two; the limit is on input, not in the database.
    statement = models.TextField(max_length=1000)
    claimant = models.CharField(max_length=300, blank=True)
    quotation = models.ForeignKey(
        Quotation,
        on_delete=models.PROTECT,
        related_name="claims_made",
        help_text=gettext_lazy("Where the piece under check makes the claim."),
    )
    verdict = models.ForeignKey(
        Rating, null=True, blank=True, on_delete=models.PROTECT, related_name="claims"
    )
    rationale = models.TextField(blank=True, help_text=gettext_lazy("Markdown."))
    status = models.CharField(max_length=20, choices=Status, default=Status.DRAFT)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="authored_claims",
    )
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["case", "quotation__start", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ClaimStatus.values),
                name="claim_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="claim_version_positive"
            ),
            models.CheckConstraint(
                condition=~models.Q(status="published") | models.Q(published_at__isnull=False),
                name="claim_published_has_date",
            ),
            models.UniqueConstraint(fields=["case", "number"], name="claim_number_in_case"),
        ]
        indexes = [
            models.Index(fields=["case", "status"]),
            # The claims waiting for reviewers: joined to each reviewer's open
            # assignments for the navigation's count, without reading the claims.
            models.Index(
                fields=["id"], condition=models.Q(status="in_review"), name="claim_in_review"
            ),
        ]
        permissions = [
            ("publish_claim", gettext_lazy("Can publish an approved claim")),
            ("assign_reviewer", gettext_lazy("Can assign reviewers to a claim")),
            ("sign_off_claim", gettext_lazy("Can sign off claims as a reviewer")),
        ]

    def __str__(self):
        text = self.statement if len(self.statement) <= 80 else self.statement[:79] + "…"
        return text

    def save(self, *args, **kwargs):
        """A new claim is given the next number of its case (``number``)."""
        if self.number is not None:
            return super().save(*args, **kwargs)
        using = kwargs.get("using") or router.db_for_write(Claim, instance=self)
        with transaction.atomic(using=using):
            self.number = next_claim_number(self.case_id, using=using)
            if Claim.case.is_cached(self):
                self.case.last_claim_number = self.number
            return super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("claims:claim_detail", args=[self.case.slug, self.pk])

    def get_public_url(self):
        return reverse("claims:public_claim", args=[self.case.slug, self.pk])

    @cached_property
    def retraction(self):
        """
        The published entry of the corrections log that retracted this claim's
        fact-check, or None. Reads the claim's prefetched corrections when the
        public pages have them, and nothing when the claim was read with
        ``is_retracted`` false (the desk's claim page).
        """
        if getattr(self, "is_retracted", None) is False:
            return None
        for correction in self.corrections.all():
            if (
                correction.kind == CorrectionKind.RETRACTION
                and correction.status == CorrectionStatus.PUBLISHED
            ):
                return correction
        return None

    def clean(self):
        super().clean()
        if self.case_id and self.quotation_id:
            source_id = self.quotation.version.source_id
            if source_id != self.case.source_under_check_id:
                raise ValidationError(
                    {
                        "quotation": ValidationError(
                            _(
                                "A claim must quote the piece under check of its case "
                                "(“%(piece)s”), not another source."
                            )
                            % {"piece": self.case.source_under_check},
                            code="quotation_not_from_piece_under_check",
                        )
                    },
                    code="quotation_not_from_piece_under_check",
                )


class FlagKind(models.TextChoices):
    #: A quoted passage reads differently in a new version of its source.
    QUOTATION_CHANGED = "quotation_changed", gettext_lazy("Quoted text changed")
    #: A quoted passage is not in a new version of its source.
    QUOTATION_GONE = "quotation_gone", gettext_lazy("Quoted text gone")
    #: A reason written before flags were rows, kept as it was written.
    OTHER = "other", gettext_lazy("Other")


class ClaimFlagQuerySet(models.QuerySet):
    def open(self):
        return self.filter(cleared_at__isnull=True)


class ClaimFlag(models.Model):
    """
    Why a claim must be looked at again: a quotation it relies on (its own or
    its evidence's) changed or is gone in a new version of its source. Raised
    by re-anchoring (claims/receivers.py); cleared when the change is confirmed
    or the text comes back, or by an editor who dealt with it. Cleared flags
    stay, as the record of what was raised.
    """

    Kind = FlagKind

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="flags")
    kind = models.CharField(max_length=30, choices=Kind)
    #: The quotation the flag is about, and the version where it changed or was lost.
    quotation = models.ForeignKey(
        Quotation, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    version = models.ForeignKey(
        SourceVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    #: What re-anchoring found there (for a change: the new words).
    reanchoring = models.ForeignKey(
        Reanchoring, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    #: For ``OTHER`` only: the reason as it was written.
    note = models.TextField(blank=True)
    raised_at = models.DateTimeField(default=timezone.now)
    cleared_at = models.DateTimeField(null=True, blank=True)
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    objects = ClaimFlagQuerySet.as_manager()

    class Meta:
        ordering = ["raised_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["claim", "kind", "quotation", "version"],
                condition=models.Q(cleared_at__isnull=True),
                name="claimflag_one_open_per_reason",
            )
        ]
        indexes = [
            models.Index(
                fields=["claim"],
                condition=models.Q(cleared_at__isnull=True),
                name="claimflag_open_by_claim",
            )
        ]

    def __str__(self):
        return _("%(kind)s (claim %(id)s)") % {"kind": self.get_kind_display(), "id": self.claim_id}

    @property
    def is_open(self):
        return self.cleared_at is None

    @property
    def reason(self):
        """The flag as one sentence (on one line), for the audit trail and sign-offs."""
        if self.kind == FlagKind.OTHER:
            return self.note
        quoted = f"The text quoted from “{self.version.source}”"
        if self.kind == FlagKind.QUOTATION_CHANGED:
            sentence = (
                f"{quoted} changed in version {self.version.number}: it read "
                f"“{self.quotation.exact}” and now reads "
                f"“{self.reanchoring.new_quotation.exact}”. "
                "Confirm the new wording on the source page."
            )
        else:
            sentence = (
                f"{quoted} is no longer in version {self.version.number}: “{self.quotation.exact}”."
            )
        # A quoted passage may hold line breaks of its own.
        return " ".join(sentence.split())


class Stance(models.TextChoices):
    SUPPORTS = "supports", gettext_lazy("Supports")
    CONTRADICTS = "contradicts", gettext_lazy("Contradicts")
    CONTEXT = "context", gettext_lazy("Context")


class Evidence(models.Model):
    """A quotation from a source that bears on a claim, and how."""

    Stance = Stance

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="evidence")
    quotation = models.ForeignKey(Quotation, on_delete=models.PROTECT, related_name="evidence")
    stance = models.CharField(max_length=20, choices=Stance)
    note = models.TextField(blank=True)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["claim", "added_at", "id"]
        verbose_name_plural = gettext_lazy("evidence")
        constraints = [
            models.UniqueConstraint(
                fields=["claim", "quotation"], name="evidence_quotation_once_per_claim"
            ),
            models.CheckConstraint(
                condition=models.Q(stance__in=Stance.values),
                name="evidence_stance_valid",
            ),
        ]

    def __str__(self):
        return _("%(stance)s: %(quotation)s") % {
            "stance": self.get_stance_display(),
            "quotation": self.quotation,
        }


class Decision(models.TextChoices):
    PENDING = "pending", pgettext_lazy("review decision", "Pending")
    APPROVED = "approved", pgettext_lazy("review decision", "Approved")
    CHANGES_REQUESTED = "changes_requested", pgettext_lazy("review decision", "Changes requested")


class ReviewAssignment(models.Model):
    """A reviewer asked to sign off a claim, and their decision."""

    Decision = Decision

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="assignments")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_assignments"
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    assigned_at = models.DateTimeField(auto_now_add=True)
    due_on = models.DateField(gettext_lazy("due"), null=True, blank=True)
    decision = models.CharField(max_length=20, choices=Decision, default=Decision.PENDING)
    decided_at = models.DateTimeField(null=True, blank=True)
    comment = models.TextField(blank=True)
    signed_digest = models.CharField(
        max_length=64,
        blank=True,
        help_text=gettext_lazy("SHA-256 of the claim content the reviewer approved."),
    )

    class Meta:
        ordering = ["claim", "assigned_at", "id"]
        indexes = [
            # A reviewer's assignments in the order My reviews shows them all (reviews_for).
            models.Index(
                fields=["reviewer", "-decided_at", "due_on", "assigned_at", "id"],
                name="assignment_review_queue",
            ),
            # Their undecided assignments (decided_at null) in the order My reviews
            # lists the ones awaiting a decision, holding every column of the table
            # that the list reads (reviews_for), so that a page of them is read from
            # the front of the index alone: PostgreSQL's generic plan, guessing a few
            # dozen rows, sorts a busy reviewer's 500 otherwise (7.6 ms instead of
            # 0.3). The navigation's count on every desk page is read from it alone too.
            models.Index(
                fields=["reviewer", "due_on", "assigned_at", "id", "claim", "decision"],
                condition=models.Q(decided_at__isnull=True),
                name="assignment_awaiting_by_due",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["claim", "reviewer"], name="assignment_reviewer_once_per_claim"
            ),
            models.CheckConstraint(
                condition=models.Q(decision__in=Decision.values),
                name="assignment_decision_valid",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(decision="pending", decided_at__isnull=True)
                    | (~models.Q(decision="pending") & models.Q(decided_at__isnull=False))
                ),
                name="assignment_decided_has_date",
            ),
            models.CheckConstraint(
                condition=~models.Q(decision="approved")
                | models.Q(Exact(Length("signed_digest"), 64)),
                name="assignment_approval_has_digest",
            ),
        ]

    def __str__(self):
        return _("%(reviewer)s on “%(claim)s”") % {"reviewer": self.reviewer, "claim": self.claim}

    @property
    def awaits_decision(self):
        """Whether the reviewer has something to decide now: the claim is in review, undecided."""
        return self.decision == Decision.PENDING and self.claim.status == ClaimStatus.IN_REVIEW

    @property
    def is_overdue(self):
        # A claim not yet sent to review (or gone from it) cannot be late.
        return (
            self.awaits_decision and self.due_on is not None and self.due_on < timezone.localdate()
        )

    def clean(self):
        super().clean()
        if self.claim_id and self.reviewer_id and self.claim.author_id == self.reviewer_id:
            raise ValidationError(
                {
                    "reviewer": ValidationError(
                        _("The claim's author cannot review it."), code="author_cannot_review"
                    )
                },
                code="author_cannot_review",
            )


class CorrectionKind(models.TextChoices):
    CORRECTION = "correction", gettext_lazy("Correction")
    CLARIFICATION = "clarification", gettext_lazy("Clarification")
    UPDATE = "update", gettext_lazy("Update")
    #: The fact-check of a claim is withdrawn from the public record's verdicts:
    #: its page stays, marked retracted, and search engines get no ClaimReview for it.
    RETRACTION = "retraction", gettext_lazy("Retraction")


class CorrectionStatus(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("correction status", "Draft")
    APPROVED = "approved", pgettext_lazy("correction status", "Approved")
    PUBLISHED = "published", pgettext_lazy("correction status", "Published")


class PublishedRecordError(Exception):
    """Raised when code tries to change or delete a published correction."""


class CorrectionQuerySet(models.QuerySet):
    def published_retractions(self):
        """The published entries that retracted a claim's fact-check."""
        return self.filter(kind=CorrectionKind.RETRACTION, status=CorrectionStatus.PUBLISHED)


#: Each text of a correction at most: a log entry is read in full, in the log and every feed.
CORRECTION_TEXT_CHARS = 5000


def _log_entry_text(*args, **kwargs):
    # A validator, not max_length: full_clean (and so correction_draft) refuses a
    # longer text, and the column is untouched (SQLite would rebuild the table,
    # and its append-only triggers with it, for a max_length).
    return models.TextField(*args, validators=[MaxLengthValidator(CORRECTION_TEXT_CHARS)], **kwargs)


class Correction(models.Model):
    """
    A public correction, clarification or update to a published case or claim.

    Drafted by an editor, approved by a second person, then published. A
    published entry is never changed: it carries a SHA-256 over its content and
    the previous entry's hash (a chain that ``verify_corrections`` walks), the
    model refuses to save it again, and a database trigger refuses updates. A
    later change is a new entry that ``supersedes`` it.
    """

    Kind = CorrectionKind
    Status = CorrectionStatus
    #: What the entry says, in its own words: limited and cleaned alike.
    TEXT_FIELDS = ("what_was_wrong", "what_is_right", "reason")

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="corrections")
    claim = models.ForeignKey(
        Claim, null=True, blank=True, on_delete=models.PROTECT, related_name="corrections"
    )
    kind = models.CharField(max_length=20, choices=Kind, default=Kind.CORRECTION)
    what_was_wrong = _log_entry_text()
    what_is_right = _log_entry_text(gettext_lazy("what is right now"))
    reason = _log_entry_text(gettext_lazy("why"), blank=True)
    old_verdict = models.ForeignKey(
        Rating, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    new_verdict = models.ForeignKey(
        Rating,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=gettext_lazy("Set when the correction changes the claim's published verdict."),
    )
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_by",
    )
    status = models.CharField(max_length=20, choices=Status, default=Status.DRAFT)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    sequence = models.PositiveIntegerField(
        null=True,
        blank=True,
        unique=True,
        help_text=gettext_lazy("Position in the published chain."),
    )
    previous_sha256 = models.CharField(max_length=64, blank=True)
    sha256 = models.CharField(gettext_lazy("SHA-256"), max_length=64, blank=True)

    objects = CorrectionQuerySet.as_manager()

    class Meta:
        ordering = ["-published_at", "-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=CorrectionKind.values),
                name="correction_kind_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=CorrectionStatus.values),
                name="correction_status_valid",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(
                        status__in=["draft", "approved"],
                        published_at__isnull=True,
                        sequence__isnull=True,
                    )
                    | models.Q(
                        Exact(Length("sha256"), 64),
                        status="published",
                        published_at__isnull=False,
                        sequence__isnull=False,
                    )
                ),
                name="correction_published_is_chained",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="approved") | models.Q(approved_at__isnull=False),
                name="correction_approved_has_date",
            ),
        ]
        indexes = [models.Index(fields=["status", "-published_at"])]
        permissions = [("publish_correction", gettext_lazy("Can publish a correction"))]

    def __str__(self):
        # Translators: a log entry named by its kind and what it corrects: "Correction to …".
        return _("%(kind)s to %(corrected)s") % {
            "kind": self.get_kind_display(),
            "corrected": self.claim or self.case,
        }

    def save(self, *args, **kwargs):
        if not self._state.adding:
            stored = Correction.objects.filter(pk=self.pk).values_list("status", flat=True).first()
            if stored == CorrectionStatus.PUBLISHED:
                raise PublishedRecordError(
                    "A published correction is never changed; publish a new entry that "
                    "supersedes it."
                )
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("claims:correction_detail", args=[self.pk])

    def delete(self, *args, **kwargs):
        if self.status == CorrectionStatus.PUBLISHED:
            raise PublishedRecordError("A published correction is never deleted.")
        return super().delete(*args, **kwargs)

    def clean_fields(self, exclude=None):
        # Pasted from a PDF, they would reach the public feeds, which cannot carry them.
        # Dropped before the fields are checked, so that the length and blank checks
        # see the text that will be stored.
        for name in self.TEXT_FIELDS:
            setattr(self, name, without_control_characters(getattr(self, name)))
        super().clean_fields(exclude=exclude)

    def clean(self):
        super().clean()
        if self.claim_id and self.case_id and self.claim.case_id != self.case_id:
            raise ValidationError(
                {
                    "claim": ValidationError(
                        _("The claim must belong to the corrected case."), code="claim_not_in_case"
                    )
                },
                code="claim_not_in_case",
            )
        if self.new_verdict_id and not self.claim_id:
            raise ValidationError(
                {
                    "new_verdict": ValidationError(
                        _("Only a correction of a claim can change a verdict."),
                        code="verdict_without_claim",
                    )
                },
                code="verdict_without_claim",
            )
        if self.kind == CorrectionKind.RETRACTION and not self.claim_id:
            raise ValidationError(
                {
                    "claim": ValidationError(
                        _("A retraction names the published claim whose fact-check it retracts."),
                        code="retraction_without_claim",
                    )
                },
                code="retraction_without_claim",
            )
        if self.kind == CorrectionKind.RETRACTION and self.new_verdict_id:
            raise ValidationError(
                {
                    "new_verdict": ValidationError(
                        _("A retraction gives no new verdict: it withdraws the fact-check."),
                        code="retraction_with_verdict",
                    )
                },
                code="retraction_with_verdict",
            )


class Comment(models.Model):
    """One message in a claim's discussion between its editors and reviewers."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="claim_comments"
    )
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["claim", "created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(body=""), name="comment_not_empty"),
        ]

    def __str__(self):
        return _("%(author)s on “%(claim)s”") % {"author": self.author, "claim": self.claim}


class ReportStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("report status", "Open")
    CONVERTED = "converted", gettext_lazy("Turned into a correction")
    CLOSED = "closed", gettext_lazy("Closed with a reply")


class ErrorReport(models.Model):
    """A reader's report of an error on a public page, waiting in the editors' inbox."""

    Status = ReportStatus

    page_url = models.CharField(max_length=500)
    case = models.ForeignKey(
        Case, null=True, blank=True, on_delete=models.SET_NULL, related_name="error_reports"
    )
    claim = models.ForeignKey(
        Claim, null=True, blank=True, on_delete=models.SET_NULL, related_name="error_reports"
    )
    message = models.TextField(gettext_lazy("what is wrong"))
    email = models.EmailField(blank=True)
    sender_key = models.CharField(
        max_length=64,
        help_text=gettext_lazy("A keyed hash of the sender's address, for rate limiting."),
    )
    status = models.CharField(max_length=20, choices=ReportStatus, default=ReportStatus.OPEN)
    reply = models.TextField(blank=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    correction = models.ForeignKey(
        Correction, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ReportStatus.values), name="errorreport_status_valid"
            ),
        ]

    def __str__(self):
        return _("Report on %(page)s: %(message)s") % {
            "page": self.page_url,
            "message": self.message[:60],
        }
