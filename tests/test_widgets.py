from html.parser import HTMLParser

import pytest
from django import forms
from django.template import Context, Template

from factcheck.widgets import LongModelChoiceField, LongSelect, options_html

CHOICES = [("", "---------"), ("1", "Ann <script>"), ("Desk", [("2", "Bea"), ("3", "Cy & co")])]


class Structure(HTMLParser):
    """Tags with their attributes (in any order) and text: what a browser builds."""

    def __init__(self, html):
        super().__init__()
        self.parts = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.parts.append((tag, frozenset(attrs)))

    def handle_endtag(self, tag):
        self.parts.append(("/" + tag,))

    def handle_data(self, data):
        if data.strip():
            self.parts.append(data)


@pytest.mark.parametrize("value", ["1", "3", None])
def test_a_long_select_writes_the_same_markup_as_djangos_select(value):
    attrs = {"id": "id_reviewer", "required": True, "disabled": False, "aria-describedby": "x"}

    expected = forms.Select(choices=CHOICES).render("reviewer", value, attrs)
    written = LongSelect(choices=CHOICES).render("reviewer", value, attrs)

    assert Structure(written).parts == Structure(expected).parts
    assert "&lt;script&gt;" in written and "Cy &amp; co" in written


@pytest.mark.django_db
def test_a_long_choice_of_users_marks_the_chosen_one_as_djangos_field_does(
    editor, django_assert_num_queries
):
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.order_by("username")
    field = LongModelChoiceField(queryset=users)
    expected = forms.Select(choices=forms.ModelChoiceField(queryset=users).choices).render(
        "reviewer", editor.pk
    )

    with django_assert_num_queries(1):
        written = field.widget.render("reviewer", editor.pk)

    assert Structure(written).parts == Structure(expected).parts
    assert f'<option value="{editor.pk}" selected>' in written


@pytest.mark.parametrize("selected", ["1", 3, "", None, "9"])
def test_options_in_a_template_are_written_as_djangos_select_writes_them(selected):
    flat = [("", "Anyone"), ("1", "Ann <script>"), ("3", "Cy & co"), (3, "Cy again")]

    expected = forms.Select(choices=flat).render("reviewer", selected)
    written = f'<select name="reviewer">{options_html(flat, selected)}</select>'

    assert Structure(written).parts == Structure(expected).parts
    assert written.count(" selected") == (0 if selected in ("9",) else 1)


def test_the_case_page_filter_marks_the_chosen_reviewer():
    written = Template("{% load options %}{% options reviewers reviewer %}").render(
        Context({"reviewers": [("4", "Dee"), ("12", "Eve")], "reviewer": "12"})
    )
    assert written == '<option value="4">Dee</option><option value="12" selected>Eve</option>'


def test_a_remembered_option_list_follows_its_selection_and_its_labels():
    reviewers = [("4", "Dee"), ("12", "Eve")]

    assert options_html(reviewers, "12") == options_html(list(reviewers), 12)
    assert '<option value="4" selected>' in options_html(reviewers, "4")
    assert ">Eva</option>" in options_html([("4", "Dee"), ("12", "Eva")], "12")
    # A choice that cannot be remembered (a list, unhashable) is written all the same.
    assert options_html([["4", "Dee"]], "4") == '<option value="4" selected>Dee</option>'


class Everything(forms.Form):
    """A field of each widget the renderer writes in Python, with awkward values."""

    title = forms.CharField(help_text="As credited.", max_length=20)
    email = forms.EmailField(required=False)
    url = forms.URLField(required=False)
    number = forms.IntegerField(required=False, widget=forms.NumberInput(attrs={"step": 2}))
    password = forms.CharField(widget=forms.PasswordInput(render_value=True))
    search = forms.CharField(required=False, widget=forms.SearchInput())
    phone = forms.CharField(required=False, widget=forms.TelInput(attrs={"data-x": '"<&>'}))
    due_on = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    token = forms.CharField(widget=forms.HiddenInput())
    agreed = forms.BooleanField(required=False, widget=forms.CheckboxInput(attrs={"x": False}))
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))


AWKWARD = {
    "title": 'Say "<b>hi</b>" & go',
    "email": "not an address",
    "url": "https://example.com/?a=1&b=<2>",
    "number": "0",
    "password": "p<a>ss",
    "search": "",
    "phone": "+1 & 2",
    "due_on": "2026-13-45",
    "token": "'quoted'",
    "agreed": "on",
    "notes": '\nfirst line\n<second> & "third"',
}


@pytest.mark.parametrize("data", [None, AWKWARD, {"notes": "", "agreed": ""}])
@pytest.mark.parametrize("name", list(Everything.base_fields))
def test_the_form_renderer_writes_each_input_exactly_as_djangos_templates(name, data):
    from django.forms.renderers import DjangoTemplates

    from factcheck.widgets import FormRenderer

    ours = Everything(data, renderer=FormRenderer())[name]
    djangos = Everything(data, renderer=DjangoTemplates())[name]

    assert str(ours) == str(djangos)
    assert type(ours.form.renderer) is FormRenderer
