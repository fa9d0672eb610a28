import re

from django import forms
from django.contrib.auth import get_user_model
from django.core.validators import slug_re
from django.db.models import Value
from django.db.models.functions import Coalesce, Concat, Lower, NullIf
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from claims.models import (
    CORRECTION_TEXT_CHARS,
    Case,
    Claim,
    Correction,
    Decision,
    ErrorReport,
    Evidence,
    Rating,
)
from claims.services import reviewer_already_assigned
from factcheck.http import id_or_none
from factcheck.languages import LANGUAGE_CHOICES
from factcheck.roles import EDITOR, REVIEWER
from factcheck.text import without_control_characters
from sources.models import Quotation, Source, SourceRole

#: A case's address as its help text describes it: words joined by single hyphens.
CASE_ADDRESS = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class ClaimForm(forms.ModelForm):
    """
    The claim's editable fields, and the version the editor opened them at.

    Each field also carries, hidden, the value it was opened with, so
    ``changed_data`` names what this editor typed: the fields to keep from
    their form when someone else saved meanwhile, and the unsaved edits a
    workflow action must not throw away.
    """

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)

    class Meta:
        model = Claim
        fields = ["statement", "claimant", "verdict", "rationale"]
        widgets = {
            "statement": forms.Textarea(attrs={"rows": 3}),
            "rationale": forms.Textarea(attrs={"rows": 8}),
        }
        labels = {
            "statement": gettext_lazy("Statement"),
            "claimant": gettext_lazy("Claimant"),
            "verdict": gettext_lazy("Verdict"),
            "rationale": gettext_lazy("Rationale"),
        }
        help_texts = {
            "rationale": gettext_lazy("Markdown: **bold**, *italic*, lists, [links](https://…).")
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["verdict"].queryset = Rating.objects.order_by("order")
        self.fields["verdict"].empty_label = _("No verdict yet")
        for name in self._meta.fields:
            self.fields[name].show_hidden_initial = True
        if not self.is_bound:
            self.initial["version"] = self.instance.version

    def typed_fields(self):
        """The editable fields whose value differs from the one the form was opened with."""
        return [name for name in self.changed_data if name != "version"]

    @classmethod
    def reopened(cls, data, *, current, keep):
        """
        A form opened afresh at ``current`` (someone else's save) that keeps
        the fields named in ``keep`` as typed in ``data`` and takes every other
        field from ``current``: a field this editor did not touch is not
        written back with the text they had opened.
        """
        merged = data.copy()
        merged["version"] = current.version
        for name, saved in forms.model_to_dict(current, fields=cls._meta.fields).items():
            saved = "" if saved is None else saved
            merged[f"initial-{name}"] = saved
            if name not in keep:
                merged[name] = saved
        # A form of its own instance: validating a ModelForm writes into it.
        return cls(merged, instance=type(current).objects.get(pk=current.pk))


class ClaimCreateForm(forms.Form):
    """A new claim from a selection of the piece under check."""

    start = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    end = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    selected_text = forms.CharField(strip=False, widget=forms.HiddenInput)
    #: The version of the piece the page showed: a newer one since is said to be so.
    version = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    statement = forms.CharField(
        max_length=Claim._meta.get_field("statement").max_length,
        widget=forms.Textarea(attrs={"rows": 2}),
        label=gettext_lazy("Statement"),
        help_text=gettext_lazy("The checkable statement, in neutral words."),
    )
    claimant = forms.CharField(required=False, max_length=300, label=gettext_lazy("Claimant"))

    SELECTION_FIELDS = ("start", "end", "selected_text")

    def forget_selection(self):
        """
        Show the form again without the selection it was sent with (which the
        page no longer shows, or never did), keeping what was typed: the
        person selects the passage again before sending.
        """
        self.data = self.data.copy()
        for name in self.SELECTION_FIELDS:
            self.data.pop(name, None)

    @classmethod
    def for_passage(cls, version, query):
        """
        An unbound form holding the passage that `query`'s `start` and `end`
        pick from `version` (the keyboard's alternative to a selection), with
        the statement field focused and what was already typed in it and the
        claimant's (sent along with the pick); None when they pick nothing valid.
        """
        try:
            start, end = int(query["start"]), int(query["end"])
        except (KeyError, TypeError, ValueError):
            return None
        if (
            version is None
            or not version.is_ready
            or not 0 <= start < end <= len(version.extracted_text)
        ):
            return None
        form = cls(
            initial={
                "start": start,
                "end": end,
                "selected_text": version.extracted_text[start:end],
                "statement": query.get("statement", ""),
                "claimant": query.get("claimant", ""),
            }
        )
        form.fields["statement"].widget.attrs["autofocus"] = True
        return form


class PassageFinderForm(forms.Form):
    """Words to find in the piece under check."""

    # Found as they are typed: a box emptied must be sent (and clear what it found),
    # which a required field's check in the browser would stop.
    use_required_attribute = False

    passage = forms.CharField(
        label=gettext_lazy("Find a passage by its words"),
        max_length=2000,
        strip=False,
        help_text=gettext_lazy(
            "Type or paste the words the claim quotes, from the start of a word, capitals "
            "aside; the claim is made of the match you pick, those words exactly."
        ),
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )

    def clean_passage(self):
        # Kept as typed (spaces are part of a passage), but spaces alone find nothing useful.
        passage = self.cleaned_data["passage"]
        if not passage.strip():
            raise forms.ValidationError(
                _("Type some words of the piece to find them."), code="blank"
            )
        return passage


class EvidenceForm(forms.Form):
    quotation = forms.ModelChoiceField(queryset=Quotation.objects.none(), widget=forms.HiddenInput)
    stance = forms.ChoiceField(choices=Evidence.Stance.choices, label=gettext_lazy("Stance"))
    note = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Note")
    )

    def __init__(self, *args, claim, **kwargs):
        super().__init__(*args, **kwargs)
        # Evidence comes from the case's other sources, never the piece under check.
        self.fields["quotation"].queryset = Quotation.objects.exclude(
            version__source=claim.case.source_under_check_id
        )
        self.fields["quotation"].error_messages["required"] = _(
            "Pick a quotation from the search results first."
        )


class EvidenceQuoteForm(forms.Form):
    """
    A passage of a source's ``version`` to quote and attach as evidence, as
    the button pressed (``via``) says: selected with the mouse (``start``,
    ``end`` and ``selected_text``, which quote.js fills in) or picked among the
    passages its words were found in (``passage``, as "start-end").
    """

    VIA_SELECTION = "selection"
    VIA_PASSAGE = "passage"

    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    start = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    end = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    selected_text = forms.CharField(
        strip=False, required=False, max_length=200_000, widget=forms.HiddenInput
    )
    passage = forms.RegexField(regex=r"^[0-9]{1,12}-[0-9]{1,12}$", required=False)
    via = forms.ChoiceField(
        choices=[(VIA_SELECTION, VIA_SELECTION), (VIA_PASSAGE, VIA_PASSAGE)], required=False
    )
    stance = forms.ChoiceField(choices=Evidence.Stance.choices, label=gettext_lazy("Stance"))
    note = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Note")
    )

    def __init__(self, *args, **kwargs):
        # Beside the claim page's other evidence form: its fields need ids of their own.
        kwargs.setdefault("auto_id", "quote_%s")
        super().__init__(*args, **kwargs)

    def clean(self):
        data = super().clean()
        if data.get("via") == self.VIA_PASSAGE:
            if not data.get("passage"):
                raise forms.ValidationError(
                    _("Pick one of the passages found first, or select the passage in the text."),
                    code="no_passage",
                )
            data["start"], data["end"] = (int(part) for part in data["passage"].split("-"))
            # The words are the text's own there: the service reads them from it.
            data["selected_text"] = None
        elif data.get("start") is None or data.get("end") is None or not data.get("selected_text"):
            raise forms.ValidationError(
                _(
                    "Nothing is selected in the source's text, so nothing was attached: select "
                    "the passage, or find its words and pick it, then attach."
                ),
                code="nothing_selected",
            )
        return data


class PersonChoiceField(forms.ModelChoiceField):
    """A choice of one user, named as the pages name people: full name, then username."""

    def label_from_instance(self, obj):
        name = obj.get_full_name()
        if not name:
            return obj.username
        return _("%(name)s (%(username)s)") % {"name": name, "username": obj.username}


def by_name(people):
    """``people`` in the order of the names they are shown by, whatever their case."""
    shown = Coalesce(NullIf(Concat("first_name", Value(" "), "last_name"), Value(" ")), "username")
    return people.alias(shown_name=Lower(shown)).order_by("shown_name", "username")


class AssignForm(forms.Form):
    reviewer = PersonChoiceField(
        queryset=get_user_model().objects.none(), label=gettext_lazy("Reviewer")
    )
    due_on = forms.DateField(
        required=False, label=gettext_lazy("Due"), widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, *args, claim, **kwargs):
        super().__init__(*args, **kwargs)
        self.claim = claim
        self.fields["reviewer"].queryset = by_name(
            get_user_model()
            .objects.filter(groups__name=REVIEWER, is_active=True)
            .exclude(pk=claim.author_id)
            .exclude(review_assignments__claim=claim)
        )

    @cached_property
    def reviewers_left(self):
        """Whether anyone is left to assign (the page says so when nobody is)."""
        return self.fields["reviewer"].queryset.exists()

    def clean(self):
        # A page opened before another editor assigned the same reviewer still offers
        # them: say that, not "not one of the available choices".
        if self.has_error("reviewer", "invalid_choice"):
            assigned = (
                self.claim.assignments.filter(reviewer_id=id_or_none(self.data.get("reviewer")))
                .select_related("reviewer")
                .first()
            )
            if assigned is not None:
                del self.errors["reviewer"]
                self.add_error("reviewer", reviewer_already_assigned(reviewer=assigned.reviewer))
        return super().clean()

    def clean_due_on(self):
        due_on = self.cleaned_data["due_on"]
        if due_on is not None and due_on < timezone.localdate():
            raise forms.ValidationError(
                _("The due date %(date)s has passed: pick today or a later day."),
                code="past",
                params={"date": date_format(due_on, "DATE_FORMAT")},
            )
        return due_on


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[
            (Decision.APPROVED, pgettext_lazy("claim action", "Approve")),
            (Decision.CHANGES_REQUESTED, gettext_lazy("Request changes")),
        ],
        widget=forms.RadioSelect,
        label=gettext_lazy("Decision"),
    )
    comment = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        label=gettext_lazy("Comment"),
        help_text=gettext_lazy("Required when you request changes."),
    )
    digest = forms.CharField(widget=forms.HiddenInput, max_length=64)


class CommentForm(forms.Form):
    body = forms.CharField(label=gettext_lazy("Comment"), widget=forms.Textarea(attrs={"rows": 3}))


class CaseForm(forms.ModelForm):
    class Meta:
        model = Case
        fields = ["title", "slug", "source_under_check", "lead_editor", "language"]
        labels = {
            "title": gettext_lazy("Title"),
            "slug": gettext_lazy("Slug"),
            "source_under_check": gettext_lazy("Source under check"),
            "lead_editor": gettext_lazy("Lead editor"),
            "language": gettext_lazy("Language"),
        }
        help_texts = {
            "slug": gettext_lazy("The case's address: lowercase words joined by hyphens."),
            "language": gettext_lazy(
                "The language of the piece and of the case's public pages, which are served in it."
            ),
        }
        field_classes = {
            "lead_editor": PersonChoiceField,
        }

    def clean_slug(self):
        # Addresses are lowercase; two cases differing in case only would be one to a reader.
        slug = self.cleaned_data["slug"].lower()
        if not CASE_ADDRESS.fullmatch(slug):
            raise forms.ValidationError(
                _(
                    "Use lowercase letters and digits, in words joined by single hyphens "
                    "(e.g. “three-numbers-one-announcement”)."
                ),
                code="address",
            )
        if Case.objects.filter(slug__iexact=slug).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(_("A case with this address already exists."))
        return slug

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["source_under_check"].queryset = Source.objects.filter(
            role=SourceRole.UNDER_CHECK
        ).order_by("title")
        self.fields["lead_editor"].queryset = by_name(
            get_user_model().objects.filter(groups__name=EDITOR)
        )
        # Left blank, the case takes the language detected in its piece (case_create).
        self.fields["language"].choices = [
            ("", _("As detected in the piece under check")),
            *LANGUAGE_CHOICES[1:],
        ]


class _LogEntryTextarea(forms.Textarea):
    """
    A correction's text read as the model will store it (``Correction.clean_fields``):
    a refused form shows it back without the control characters it would lose.
    """

    def value_from_datadict(self, data, files, name):
        value = super().value_from_datadict(data, files, name)
        return without_control_characters(value) if isinstance(value, str) else value


class CorrectionForm(forms.ModelForm):
    """An editor's draft of a correction; published entries never come back to a form."""

    report = forms.IntegerField(required=False, widget=forms.HiddenInput)

    class Meta:
        model = Correction
        fields = [
            "case",
            "claim",
            "kind",
            "what_was_wrong",
            "what_is_right",
            "reason",
            "new_verdict",
            "supersedes",
        ]
        labels = {
            "case": gettext_lazy("Case"),
            "claim": gettext_lazy("Claim"),
            "kind": gettext_lazy("Kind"),
            "what_was_wrong": gettext_lazy("What was wrong"),
            "what_is_right": gettext_lazy("What is right now"),
            "reason": gettext_lazy("Why"),
            "new_verdict": gettext_lazy("New verdict"),
            "supersedes": gettext_lazy("Supersedes"),
        }
        widgets = {
            "what_was_wrong": _LogEntryTextarea(attrs={"rows": 3}),
            "what_is_right": _LogEntryTextarea(attrs={"rows": 3}),
            "reason": _LogEntryTextarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Only what the public site shows can be corrected (correction_draft checks it too).
        self.fields["case"].queryset = Case.objects.filter(
            pk__in=Claim.objects.filter(status="published").values("case_id")
        )
        # A retracted claim gets no further entry (correction_draft refuses it too).
        retracted = Correction.objects.published_retractions().values("claim_id")
        self.fields["claim"].queryset = (
            Claim.objects.filter(status="published")
            .exclude(pk__in=retracted)
            .select_related("case")
        )
        self.fields["claim"].help_text = _(
            "Leave empty for a correction of the case as a whole (a retraction names its claim)."
        )
        self.fields["kind"].help_text = _(
            "A retraction withdraws a published claim's fact-check and its verdict; the public "
            "page stays, marked retracted."
        )
        self.fields["new_verdict"].queryset = Rating.objects.order_by("order")
        self.fields["new_verdict"].empty_label = _("The verdict stays")
        self.fields["supersedes"].queryset = (
            Correction.objects.filter(status="published")
            .exclude(claim_id__in=retracted)
            .select_related("claim", "case")
            .order_by("-sequence")
        )
        for name in Correction.TEXT_FIELDS:
            # The model's validator refuses more; the browser stops the typing there.
            self.fields[name].widget.attrs["maxlength"] = str(CORRECTION_TEXT_CHARS)
        self.fields["claim"].error_messages["invalid_choice"] = _(
            "This claim cannot be corrected any more: it is no longer published, or its "
            "fact-check was retracted."
        )
        self.fields["supersedes"].label_from_instance = lambda entry: (
            _("Entry %(sequence)s: %(entry)s") % {"sequence": entry.sequence, "entry": entry}
        )


class ErrorReportForm(forms.Form):
    """A reader's report. ``website`` is a honeypot: people never see it, bots fill it in."""

    message = forms.CharField(
        label=gettext_lazy("What is wrong?"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
    )
    email = forms.EmailField(
        label=gettext_lazy("Your e-mail (optional, for our reply)"), required=False, max_length=254
    )
    website = forms.CharField(required=False, label=gettext_lazy("Leave this empty"))
    # Where the reader was: context for the editors, which the reader never sees
    # and cannot correct. What does not fit is cut or dropped, never refused.
    page_url = forms.CharField(widget=forms.HiddenInput, required=False, strip=False)
    case = forms.CharField(widget=forms.HiddenInput, required=False)
    claim = forms.CharField(widget=forms.HiddenInput, required=False)

    def clean_page_url(self):
        return self.cleaned_data["page_url"][: ErrorReport._meta.get_field("page_url").max_length]

    def clean_case(self):
        case = self.cleaned_data["case"]
        return case if slug_re.fullmatch(case) else ""

    def clean_claim(self):
        return id_or_none(self.cleaned_data["claim"])


class ReplyForm(forms.Form):
    reply = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label=gettext_lazy("Reply"))
