"""``{{ user|display_name }}``: a person as the pages name them (factcheck.people)."""

from django import template

from factcheck.people import display_name

register = template.Library()

register.filter("display_name", display_name)
