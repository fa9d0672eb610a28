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
page's rows are read with one ``get_many``.

A row partial is rendered with its object alone, without the request, so that
it is the same for every user: it must not use ``user``, ``perms`` or
``csrf_token``, and it may show only what the view has loaded (a deferred
field, read in the template, would not be in the digest).
"""

import datetime
import decimal
import hashlib
import logging
import pickle
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
#: Unused rows age out; a row that is still shown is stored again when it is next rendered.
CACHE_SECONDS = 6 * 60 * 60
_PLAIN = (
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
)
#: The exact types of most field values: a set lookup before the isinstance checks.
_PLAIN_TYPES = frozenset({*_PLAIN, datetime.datetime, type(None)})


def _plain(value, memo):
    """
    ``value`` as plain values, which differ whenever ``value`` does: a model
    instance as its description (``_described``).
    """
    if type(value) in _PLAIN_TYPES or isinstance(value, _PLAIN):
        return value
    if isinstance(value, Model):
        return _described(value, memo)
    if isinstance(value, FieldFile):
        return ("file", value.name)
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, *(_plain(item, memo) for item in value))
    if isinstance(value, dict):
        return ("dict", *sorted((repr(key), _plain(item, memo)) for key, item in value.items()))
    # A queryset, a manager, a lazy object: it could hide a query, or its
    # contents could change under it. Load plain values instead.
    raise TypeError(f"A stored fragment cannot be keyed on a {type(value).__name__}")


def _hash(value):
    # pickle, not repr: several times faster on dates and times. Equal bytes are
    # always equal values, so whatever pickle varies between runs costs a miss at most.
    return hashlib.sha256(pickle.dumps(value, protocol=5)).hexdigest()


#: Keys of ``memo`` besides instances' ids: the instances being described, by
#: depth, and the lowest depth that a description in progress has referred back to.
_OPEN, _REFERRED = "open", "referred"


def _described(instance, memo):
    """
    What ``instance`` holds, as plain values: its label, every loaded
    attribute with its name and, in turn, the related objects loaded with it
    and the ones prefetched for it. ``memo`` keeps each instance's, for the
    rows that share one (every claim of a case holds the case).
    """
    key = id(instance)
    if key in memo:
        return memo[key]
    being_described = memo.setdefault(_OPEN, {})
    if key in being_described:
        # Met again while being described (a cycle): named, not described again.
        depth = being_described[key]
        memo[_REFERRED] = min(memo.get(_REFERRED, depth), depth)
        return ("again", instance._meta.label, instance.pk)
    depth = being_described[key] = len(being_described)
    referred_above = memo.pop(_REFERRED, None)
    # In the order Django sets them, not sorted: the order is the same for every
    # instance loaded by the same query, and a different one only costs a miss.
    attributes = tuple(
        (name, _plain(value, memo))
        for name, value in vars(instance).items()
        if name != "_state" and name != "_prefetched_objects_cache"
    )
    related = tuple(
        (name, _plain(value, memo)) for name, value in instance._state.fields_cache.items()
    )
    prefetched = tuple(
        (name, _plain(list(items), memo))
        for name, items in getattr(instance, "_prefetched_objects_cache", {}).items()
    )
    description = (instance._meta.label, attributes, related, prefetched)
    del being_described[key]
    referred = memo.pop(_REFERRED, None)
    if referred is None or referred >= depth:
        # Complete on its own. One that names an object still being described
        # (the case a claim was met through) would not be as another row's.
        memo[key] = description
    # The describers above learn what was referred back to above them.
    above = [d for d in (referred_above, referred) if d is not None and d < depth]
    if above:
        memo[_REFERRED] = min(above)
    return description


def _surroundings():
    """What a row's HTML depends on besides its context, the same for a whole list."""
    return (
        get_script_prefix(),  # in every URL the row links to
        timezone.localdate().isoformat(),
        timezone.get_current_timezone_name(),
        translation.get_language(),
    )


def digest(template_name, context, memo=None, surroundings=None):
    """
    The key of ``template_name`` rendered with ``context`` (see the module).
    ``memo`` as for ``_described`` and ``surroundings`` (``_surroundings()``)
    are shared by the digests of one list's rows.
    """
    described = (
        template_name,
        surroundings or _surroundings(),
        _plain(context, {} if memo is None else memo),
    )
    return "fragment:" + _hash(described)


def render_fragments(template_name, contexts):
    """
    ``template_name`` (a partial, ``"page.html#row"``) rendered with each
    context of ``contexts``, in order: stored ones from the cache, the rest
    rendered and stored.
    """
    memo = {}
    surroundings = _surroundings()
    try:
        keys = [digest(template_name, context, memo, surroundings) for context in contexts]
    except TypeError:
        # A view passed what cannot be keyed: rendered every time, which is correct
        # and only slower; the log says which (the tests call digest() and fail).
        logger.exception("Rows of %s cannot be stored", template_name)
        template = get_template(template_name)
        return [template.render(context) for context in contexts]
    cache = caches[CACHE_ALIAS]
    stored = cache.get_many(set(keys))
    missing = {}
    template = None
    for key, context in zip(keys, contexts, strict=True):
        if key not in stored and key not in missing:
            template = template or get_template(template_name)
            missing[key] = template.render(context)
    if missing:
        cache.set_many(missing, CACHE_SECONDS)
    return [mark_safe(stored[key] if key in stored else missing[key]) for key in keys]  # noqa: S308


def rendered_rows(template_name, name, objects):
    """
    ``[(object, html)]`` for ``objects``, each rendered by the partial
    ``template_name`` with the object as ``name`` and nothing else.
    """
    objects = list(objects)
    html = render_fragments(template_name, [{name: item} for item in objects])
    return list(zip(objects, html, strict=True))
