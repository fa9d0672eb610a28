"""
Rendered list rows, stored under what they show.

After any write a desk page is rendered anew (factcheck/desk_pages.py), yet
most rows of a list (a case's claims, the case list, My reviews) show exactly
what they showed before. Rendering a row costs more than fetching it, so each
row is stored under a digest of every value that its objects hold: each loaded
field and attribute of the row's object and of the related objects loaded with
it, with the partial that renders it, the site's URL prefix, today's date, the
time zone and the language. The code that renders is in the cache's key prefix
(settings). A row whose data changed has a new key and is rendered again:
nothing is ever invalidated, and no stored row is older than its data. A
whole list is stored as well, under a digest of all its rows' values: a list
shown again as it was (the case page after a write elsewhere) is one read;
otherwise its rows are read with one ``get_many``.

A row partial is rendered with its object alone, without the request, so that
it is the same for every user: it must not use ``user``, ``perms`` or
``csrf_token`` (a ``{% stored %}`` partial may hold a CSRF token: it is given a
stand-in, factcheck/templatetags/stored.py), and it may show only what the view
has loaded (a deferred field, read in the template, would not be in the digest).
"""

import dataclasses
import datetime
import decimal
import hashlib
import io
import logging
import pickle
import types
import uuid

from django.core.cache import caches
from django.db.models import Model
from django.db.models.fields.files import FieldFile
from django.template.loader import get_template
from django.urls import get_script_prefix
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

logger = logging.getLogger(__name__)

CACHE_ALIAS = "fragments"
#: The lists last shown by this process, in front of the shared cache.
NEARBY_CACHE_ALIAS = "fragments-nearby"
#: Unused rows age out; a row that is still shown is stored again when it is next rendered.
CACHE_SECONDS = 6 * 60 * 60
#: Plain values written as text, by their exact types.
_AS_TEXT = {
    datetime.datetime: datetime.datetime.isoformat,
    datetime.date: datetime.date.isoformat,
    datetime.time: datetime.time.isoformat,
    datetime.timedelta: repr,
    decimal.Decimal: str,
    uuid.UUID: str,
}
#: What pickle writes by value (plain values, their subclasses such as enums,
#: and the time zones of datetimes) or by name (classes and functions: an
#: enum's or a pickled value's).
_PICKLED_AS_THEY_ARE = (
    str,
    bytes,
    int,
    float,
    bool,
    decimal.Decimal,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    uuid.UUID,
    type(None),
    datetime.tzinfo,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
)
#: Attributes of a model instance that are not its data (the related objects
#: loaded with it and the ones prefetched for it are described apart).
_NOT_DATA = frozenset({"_state", "_prefetched_objects_cache"})


def _instance(label):
    """Never called: it stands for a model instance in a description."""
    raise NotImplementedError


def _named(kind, value):
    """Never called: it stands for a value that is described by another (a file by its name)."""
    raise NotImplementedError


class _Describer(pickle.Pickler):
    """
    Pickles a row's context as the plain values it holds: a model instance as
    its label, every loaded attribute with its name and, in turn, the related
    objects loaded with it and the ones prefetched for it. Anything else that
    is not a plain value (a queryset, a manager, a lazy object) could hide a
    query, or its contents could change under it: it is refused (TypeError).

    Pickle walks the values in C and calls ``reducer_override`` only for what
    is not a str, int, float, bytes, list, tuple or dict of the exact type; it
    writes an object met twice (the case every claim holds) or met again
    through a cycle (claim -> case -> claims) as a reference to the first.
    """

    def reducer_override(self, value):
        if isinstance(value, Model):
            data = vars(value)
            prefetched = data.get("_prefetched_objects_cache", {})
            # Given as the state, written after the instance is memoised, so that a
            # cycle back to it is written as a reference.
            return (
                _instance,
                (value._meta.label,),
                (
                    {name: item for name, item in data.items() if name not in _NOT_DATA},
                    value._state.fields_cache,
                    {name: list(items) for name, items in prefetched.items()},
                ),
            )
        # Plain values that pickle itself would write with their classes' names,
        # which costs it a module lookup for each in every row: as text instead.
        kind = type(value)
        if kind in _AS_TEXT:
            return (_named, (kind.__name__, _AS_TEXT[kind](value)))
        if isinstance(value, _PICKLED_AS_THEY_ARE):
            return NotImplemented
        if isinstance(value, FieldFile):
            return (_named, ("file", value.name))
        if isinstance(value, memoryview):
            return (bytes, (bytes(value),))
        if isinstance(value, (list, tuple)):
            return (_named, (type(value).__qualname__, tuple(value)))
        if isinstance(value, dict):
            return (_named, (type(value).__qualname__, tuple(value.items())))
        if (
            dataclasses.is_dataclass(value)
            and not isinstance(value, type)
            and type(value).__dataclass_params__.frozen
        ):
            # A value object (a TextPart): its fields, which are all it can hold.
            fields = tuple(
                (field.name, getattr(value, field.name)) for field in dataclasses.fields(value)
            )
            return (_named, (f"{type(value).__module__}.{type(value).__qualname__}", fields))
        raise TypeError(f"A stored fragment cannot be keyed on a {type(value).__name__}")


def _hash(value):
    """
    A digest of ``value`` described by ``_Describer``. In the order Django sets
    attributes, not sorted: that order is the same for every instance loaded by
    the same query, and a different one only costs a miss. So does whatever
    else pickle varies between runs; equal bytes are always equal values.
    """
    buffer = io.BytesIO()
    _Describer(buffer, protocol=5).dump(value)
    return hashlib.sha256(buffer.getbuffer()).hexdigest()


def _surroundings():
    """What a row's HTML depends on besides its context, the same for a whole list."""
    return (
        get_script_prefix(),  # in every URL the row links to
        timezone.localdate().isoformat(),
        timezone.get_current_timezone_name(),
        translation.get_language(),
    )


def digest(template_name, context, surroundings=None):
    """
    The key of ``template_name`` rendered with ``context`` (see the module),
    with ``surroundings`` (``_surroundings()``), the same for a list's rows.
    """
    return "fragment:" + _hash((template_name, surroundings or _surroundings(), context))


def render_fragments(template_name, contexts, *, constants=None):
    """
    ``template_name`` (a partial, ``"page.html#row"``) rendered with each
    context of ``contexts``, in order. The whole list is stored too, under a
    digest of all its contexts: a list shown again unchanged is one read from
    the cache. Otherwise the stored rows come from the cache, and the rest are
    rendered and stored. ``constants`` are given to every row as well but are
    not in the digest: only what is the same for every request (the caller
    vouches for it).
    """
    constants = constants or {}
    surroundings = _surroundings()
    try:
        list_key = "fragment-list:" + _hash((template_name, surroundings, contexts))
    except (TypeError, pickle.PicklingError):
        # A view passed what cannot be keyed: rendered every time, which is correct
        # and only slower; the log says which (the tests call digest() and fail).
        logger.exception("Rows of %s cannot be stored", template_name)
        template = get_template(template_name)
        return [template.render(context | constants) for context in contexts]
    # A list is keyed by all it shows: a copy in this process's memory is never out of
    # date, and saves fetching some 50 KB from the shared cache on every visit.
    nearby = caches[NEARBY_CACHE_ALIAS]
    html = nearby.get(list_key)
    if html is None:
        cache = caches[CACHE_ALIAS]
        html = cache.get(list_key)
        if html is None:
            html = _render_rows(cache, template_name, contexts, surroundings, constants)
            cache.set(list_key, html, CACHE_SECONDS)
        nearby.set(list_key, html, CACHE_SECONDS)
    return [mark_safe(row) for row in html]  # noqa: S308


def _render_rows(cache, template_name, contexts, surroundings, constants):
    """Each row's HTML: the stored ones from the cache, the rest rendered and stored."""
    keys = [digest(template_name, context, surroundings) for context in contexts]
    stored = cache.get_many(set(keys))
    missing = {}
    template = None
    for key, context in zip(keys, contexts, strict=True):
        if key not in stored and key not in missing:
            template = template or get_template(template_name)
            missing[key] = template.render(context | constants)
    if missing:
        cache.set_many(missing, CACHE_SECONDS)
    return [stored[key] if key in stored else missing[key] for key in keys]


class RenderedRows(list):
    """
    ``[(object, html)]``, which a template writes whole (``{{ rows }}``): one
    string joined in Python, where a ``{% for %}`` loop costs a context and a
    variable lookup for each row.
    """

    def __str__(self):
        # Each row is a rendered template fragment, escaped as it was rendered.
        return mark_safe("".join(html for _object, html in self))  # noqa: S308

    __html__ = __str__


def rendered_rows(template_name, name, objects):
    """
    ``[(object, html)]`` for ``objects``, each rendered by the partial
    ``template_name`` with the object as ``name`` and nothing else
    (``RenderedRows``).
    """
    objects = list(objects)
    html = render_fragments(template_name, [{name: item} for item in objects])
    return RenderedRows(zip(objects, html, strict=True))
