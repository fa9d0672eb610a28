from django import forms
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from factcheck.languages import LANGUAGE_CHOICES
from sources.models import Source, SourceRole
from sources.services import check_upload, too_large_message


class SourceForm(forms.ModelForm):
    class Meta:
        model = Source
        fields = [
            "title",
            "publisher",
            "authors",
            "url",
            "published_on",
            "accessed_on",
            "role",
            "notes",
        ]
        # The model's fields are named by Django from their names, untranslated.
        labels = {
            "title": gettext_lazy("Title"),
            "publisher": gettext_lazy("Publisher"),
            "authors": gettext_lazy("Authors"),
            "role": gettext_lazy("Role"),
            "notes": gettext_lazy("Notes"),
        }
        widgets = {
            "published_on": forms.DateInput(attrs={"type": "date"}),
            "accessed_on": forms.DateInput(attrs={"type": "date"}),
            "notes": forms.Textarea(attrs={"rows": 3}),
        }

    def clean(self):
        cleaned = super().clean()
        published, accessed = cleaned.get("published_on"), cleaned.get("accessed_on")
        today = timezone.localdate()
        for name, day in (("published_on", published), ("accessed_on", accessed)):
            if day and day > today:
                self.add_error(
                    name,
                    ValidationError(
                        _("%(day)s is in the future."),
                        code="future",
                        params={"day": date_format(day, "DATE_FORMAT")},
                    ),
                )
        if published and accessed and accessed < published:
            self.add_error(
                "accessed_on",
                ValidationError(
                    _("A source is read on or after the day it was published."),
                    code="read_before_published",
                ),
            )
        return cleaned


class UploadForm(forms.Form):
    """
    A document for a source: a file (PDF, HTML, text, Markdown, Word, OpenDocument,
    or an image to read by OCR) or pasted text. Its type is decided from its bytes,
    never from its name.
    """

    file = forms.FileField(
        required=False,
        label=gettext_lazy("File"),
        help_text=gettext_lazy(
            "PDF, HTML, plain text, Markdown, Word (.docx) or OpenDocument (.odt), or a scan "
            "or screenshot (PNG, JPEG, WebP) to read by OCR. The type is read from the file "
            "itself."
        ),
    )
    pasted_text = forms.CharField(
        required=False,
        label=gettext_lazy("Or paste the text"),
        widget=forms.Textarea(attrs={"rows": 6}),
        strip=False,
    )

    def __init__(self, *args, max_bytes, require_document=True, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_bytes = max_bytes
        self.require_document = require_document
        self.fields["file"].help_text = " ".join(
            [
                str(self.fields["file"].help_text),
                _("Up to %(size)s.") % {"size": filesizeformat(max_bytes)},
            ]
        )

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        pasted = cleaned.get("pasted_text") or ""
        if upload and pasted.strip():
            raise ValidationError(_("Choose a file or paste text, not both."), code="both")
        if upload:
            if upload.size > self.max_bytes:
                # Refused before reading: the size is known from the upload itself.
                self.add_error(
                    "file",
                    ValidationError(
                        too_large_message(upload.size, self.max_bytes), code="too_large"
                    ),
                )
                return cleaned
            content = upload.read()
            filename = upload.name
            field = "file"
        elif pasted.strip():
            content = pasted.encode("utf-8")
            filename = "pasted.txt"
            field = "pasted_text"
        else:
            # A file that was chosen but refused (empty, say) has its own error already.
            if self.require_document and not self.has_error("file"):
                raise ValidationError(_("Choose a file to upload or paste the text."), code="empty")
            cleaned["content"] = None
            return cleaned
        try:
            check_upload(content, filename)
        except ValidationError as error:
            self.add_error(field, error)
            return cleaned
        cleaned["content"] = content
        cleaned["filename"] = filename
        return cleaned


class CaptureForm(forms.Form):
    """The address of a web page to fetch now and keep as a source's next version."""

    url = forms.URLField(
        label=gettext_lazy("Web address"),
        max_length=2000,
        assume_scheme="https",
        help_text=gettext_lazy(
            "The page is fetched now and kept as it was sent, with a record of the exchange "
            "(WARC). A web page or a PDF; its type is read from what the server sends."
        ),
        widget=forms.URLInput(attrs={"autocomplete": "url", "spellcheck": "false"}),
    )


class SourceCaptureForm(CaptureForm):
    """A new source from a web address: the page is its first version."""

    title = forms.CharField(
        label=gettext_lazy("Title"),
        required=False,
        max_length=500,
        help_text=gettext_lazy("Optional: without one, the source is named after the address."),
    )
    role = forms.ChoiceField(
        label=gettext_lazy("Role"), choices=SourceRole.choices, initial=SourceRole.PRIMARY
    )


class QuoteFinderForm(forms.Form):
    q = forms.CharField(
        label=gettext_lazy("Find a passage"),
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": gettext_lazy("Paste the words you want to quote")}
        ),
        max_length=5000,
        strip=True,
        error_messages={
            "required": gettext_lazy("Type some words of the text to find them."),
            "max_length": gettext_lazy(
                "A passage to find is at most %(limit_value)d characters; "
                "this one has %(show_value)d. Type fewer words."
            ),
        },
    )


class SelectionForm(forms.Form):
    start = forms.IntegerField(min_value=0)
    end = forms.IntegerField(min_value=1)
    selected_text = forms.CharField(strip=False, max_length=200_000)


class LanguageForm(forms.Form):
    """The language a text is written in: one of factcheck.languages, or not known."""

    language = forms.ChoiceField(
        label=gettext_lazy("Language"),
        choices=LANGUAGE_CHOICES,
        required=False,
        error_messages={
            "invalid_choice": gettext_lazy(
                "“%(value)s” is not a language this desk knows: choose one from the list."
            )
        },
    )

    def refusal(self) -> str:
        """What an invalid form says, for the page it was posted from."""
        return _("The language was not changed: %(reason)s") % {
            "reason": " ".join(self.errors["language"])
        }
