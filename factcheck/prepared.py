"""
Reads whose SQL is compiled once per process, then run again with new values.

Building and compiling a queryset costs Django more than PostgreSQL takes to
answer it: about 2 ms for the claim page's claim with its quotation, version,
source, verdict and author (70 columns), against 0.3 ms to run it. A page read
the same way on every request can skip that work:

    claim_rows = PreparedRead(
        lambda reach, *, case_id, pk, user_id: claims_in_reach(reach, user_id)
        .filter(case_id=case_id, pk=pk)
        .select_related("verdict")
    )
    claim = claim_rows.one(EVERY_CLAIM, case_id=3, pk=7, user_id=5)

The function builds the queryset from *shape* arguments (positional: anything
hashable that changes the query's form, such as a user's reach) and *values*
(keyword: ints, strings, or tuples of ints for ``__in``, that only fill in
parameters; the function must not branch on them). For each database, shape
and tuple length the queryset is built and compiled twice, with different
stand-in values; the two compilations must give the same SQL text and differ
in exactly the parameters where the stand-ins went, or preparing fails (a
value that changes the query's form, such as a pattern for ``__icontains`` or
a slice's bounds, must be a shape argument or stay with the ORM). Later calls
put the real values in those places and hand the SQL to Django's own compiler
state, so that rows become model instances (with ``select_related`` and
annotations), or ``values()`` and ``values_list()`` rows, exactly as the
queryset would make them. Prefetches are not run: read them with their own
prepared reads and ``remember_related``. ``sliced()`` gives the rows to
``CountedPaginator``, each page's bounds compiled once; ``count()`` counts them.
"""

import copy
import secrets
import threading

from django.core.exceptions import EmptyResultSet
from django.db import connections, router
from django.db.models import QuerySet

#: Stand-ins: within the range of every integer column (Django turns a lookup
#: of a value out of its column's range into an empty read, whatever the SQL
#: would say), and text no desk holds.
_INT_STAND_IN_BASE = 30011
_TEXT_STAND_IN_TAG = secrets.token_hex(8)
#: What the database's integers hold: another int is left to the ORM (see __call__).
_INT_RANGE = range(-(2**63), 2**63)


#: Stand-ins per read, at most: more (a long list for ``__in``) is left to the ORM.
MAX_STAND_INS = 1000


def _items(name, value):
    """``value`` as ``[(index, item)]``: a tuple's items (ints, for ``__in``), or itself."""
    if type(value) is tuple:
        if not all(type(item) is int for item in value):
            raise TypeError(f"A prepared read's tuple {name}= must hold ints only.")
        return list(enumerate(value))
    if type(value) not in (int, str):
        raise TypeError(
            f"A prepared read's value {name}= must be an int, a str or a tuple of ints, "
            f"not {type(value).__name__}: pass other values as shape arguments."
        )
    return [(None, value)]


def _stand_ins(values, round_):
    """``{(name, index): stand-in}``: one for each item, of its type, unlike any other."""
    stand_ins = {}
    for name, value in sorted(values.items()):
        for index, item in _items(name, value):
            number = len(stand_ins)
            if type(item) is int:
                stand_ins[name, index] = _INT_STAND_IN_BASE + 2 * number + round_
            else:
                stand_ins[name, index] = f"\ufffe{_TEXT_STAND_IN_TAG}:{number}:{round_}"
    return stand_ins


def _with_stand_ins(values, stand_ins):
    return {
        name: tuple(stand_ins[name, index] for index in range(len(value)))
        if type(value) is tuple
        else stand_ins[name, None]
        for name, value in values.items()
    }


#: Forms kept per read; past this, they are dropped and compiled again as used.
MAX_PREPARED_FORMS = 1000


class _Bounds(tuple):
    """A slice's ``(start, stop)``, as the last shape argument: cut from the built queryset."""


class PreparationError(Exception):
    """The queryset's form depends on a value: it cannot be prepared as it is."""


class _Prepared:
    """One compiled form of a read: SQL, parameters, and where the values go."""

    def __init__(self, queryset, compiler, sql, params, slots):
        self.queryset = queryset
        self.model = queryset.model
        self.compiler = compiler
        self.sql = sql
        self.params = params
        self.slots = slots

    def params_for(self, values):
        """The parameters with ``values`` in their places."""
        params = list(self.params)
        for position, (name, index) in self.slots:
            params[position] = values[name] if index is None else values[name][index]
        return params


def _preparable(values):
    """
    Whether a prepared form may run with ``values``: else the ORM reads them. No
    row holds an int beyond the database's (SQLite would fail on one), and a
    long tuple would need more stand-ins than a read has.
    """
    items = [item for name, value in values.items() for _index, item in _items(name, value)]
    return len(items) <= MAX_STAND_INS and not any(
        type(item) is int and item not in _INT_RANGE for item in items
    )


class _CompiledQuery:
    """
    Stands in for a QuerySet's query where Django's iterables (models, values,
    values_list) ask it for a compiler, and hands over one that already knows
    its SQL; what else they read of the query comes from the prepared one.
    """

    def __init__(self, compiler, query):
        self._compiler = compiler
        self._query = query

    def get_compiler(self, using=None, connection=None, elide_empty=True):
        return self._compiler

    def __getattr__(self, name):
        return getattr(self._query, name)


class PreparedRead:
    """
    A read built by ``build(*shape, **values)``, compiled once per database and
    shape. It reads from ``using``, or else from the database that the routers
    (``DATABASE_ROUTERS``) name for its model, as the queryset would.
    """

    def __init__(self, build, *, using=None):
        self.build = build
        self.using = using
        self._model = None
        self._prepared = {}
        self._lock = threading.Lock()

    def _alias(self, shape, values):
        if self.using is not None:
            return self.using
        if self._model is None:
            self._model = self._built(shape, _with_stand_ins(values, _stand_ins(values, 0))).model
        return router.db_for_read(self._model)

    def _built(self, shape, values):
        if shape and type(shape[-1]) is _Bounds:
            start, stop = shape[-1]
            return self.build(*shape[:-1], **values)[start:stop]
        return self.build(*shape, **values)

    def _compile(self, alias, shape, values):
        queryset = self._built(shape, values)
        if queryset._prefetch_related_lookups:
            raise PreparationError("A prepared read does not prefetch: prepare each relation.")
        compiler = queryset.query.get_compiler(using=alias)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:
            return queryset, None, None, None
        return queryset, compiler, sql, tuple(params)

    def _prepare(self, alias, shape, values):
        rounds = [_stand_ins(values, round_) for round_ in (0, 1)]
        (queryset, compiler, sql, params), (_queryset, _compiler, other_sql, other_params) = (
            self._compile(alias, shape, _with_stand_ins(values, stand_ins)) for stand_ins in rounds
        )
        if sql is None or other_sql is None:
            if sql is not other_sql:
                raise PreparationError("Whether the read is empty depends on a value.")
            return _Prepared(queryset, None, None, None, ())
        if sql != other_sql or len(params) != len(other_params):
            raise PreparationError("The read's SQL depends on a value: make it a shape argument.")
        by_stand_in = {stand_in: item for item, stand_in in rounds[0].items()}
        slots = []
        for position, (first, second) in enumerate(zip(params, other_params, strict=True)):
            item = by_stand_in.get(first)
            if item is not None and second == rounds[1][item] and type(first) is type(second):
                slots.append((position, item))
            elif first != second:
                raise PreparationError(f"Parameter {position} changed with a value but is none.")
        # A value found in no parameter does not change the read (the SQL text did not
        # change with it either): a shape that ignores it, such as an editor's reach.
        return _Prepared(queryset, compiler, sql, params, tuple(slots))

    def _prepared_for(self, shape, values):
        """``(alias, form)``: the database to read from and the read's form for it."""
        alias = self._alias(shape, values)
        # A tuple's length is part of the form: ``IN`` has a placeholder for each item.
        # (Whether the last shape argument is a slice's bounds too: a shape argument
        # that is a tuple of two ints would be equal to them.)
        key = (
            alias,
            shape,
            bool(shape) and type(shape[-1]) is _Bounds,
            tuple(
                sorted(
                    (name, len(value) if type(value) is tuple else None)
                    for name, value in values.items()
                )
            ),
        )
        prepared = self._prepared.get(key)
        if prepared is None:
            with self._lock:
                prepared = self._prepared.get(key)
                if prepared is None:
                    prepared = self._prepare(alias, shape, values)
                    if len(self._prepared) >= MAX_PREPARED_FORMS:
                        self._prepared = {}
                    self._prepared[key] = prepared
        return alias, prepared

    def __call__(self, *shape, **values):
        """The rows, as the queryset gives them (instances, or ``values()`` rows), in a list."""
        if not _preparable(values):
            return list(self._built(shape, values))
        alias, prepared = self._prepared_for(shape, values)
        if prepared.compiler is None:
            return []
        params = prepared.params_for(values)
        compiler = copy.copy(prepared.compiler)
        # This thread's connection, not the one that was current when it was prepared.
        compiler.connection = connections[alias]
        compiler.as_sql = lambda *args, **kwargs: (prepared.sql, params)
        queryset = QuerySet(
            model=prepared.model,
            query=_CompiledQuery(compiler, prepared.queryset.query),
            using=alias,
        )
        # Rows as the prepared queryset gives them: instances, dicts or tuples.
        queryset._iterable_class = prepared.queryset._iterable_class
        queryset._fields = prepared.queryset._fields
        return list(queryset)

    def count(self, *shape, **values):
        """How many rows the read gives: its compiled SQL, counted by the database."""
        if not _preparable(values):
            return self._built(shape, values).count()
        alias, prepared = self._prepared_for(shape, values)
        if prepared.compiler is None:
            return 0
        # The text is the ORM's own compilation; every value stays a parameter.
        counting = f"SELECT COUNT(*) FROM ({prepared.sql}) counted"  # noqa: S608
        with connections[alias].cursor() as cursor:
            cursor.execute(counting, prepared.params_for(values))
            return cursor.fetchone()[0]

    def one(self, *shape, **values):
        """The one row, as ``QuerySet.get()`` gives it (or raises)."""
        rows = self(*shape, **values)
        if len(rows) == 1:
            return rows[0]
        model = self._prepared_for(shape, values)[1].model
        if not rows:
            raise model.DoesNotExist(f"{model._meta.object_name} matching query does not exist.")
        raise model.MultipleObjectsReturned(
            f"get() returned more than one {model._meta.object_name}."
        )

    def sliced(self, *shape, **values):
        """
        The rows as a sequence that ``CountedPaginator`` cuts pages from:
        ``rows[start:stop]`` reads those rows only, each page's bounds compiled
        once as a shape. (It cannot count them: the paginator is given a count.)
        """
        return _Sliced(self, shape, values)


class _Sliced:
    def __init__(self, read, shape, values):
        self.read, self.shape, self.values = read, shape, values

    def __getitem__(self, bounds):
        if not (
            isinstance(bounds, slice)
            and bounds.step is None
            and type(bounds.start) is int
            and type(bounds.stop) is int
        ):
            raise TypeError("A prepared read's rows are cut as rows[start:stop] only.")
        return self.read(*self.shape, _Bounds((bounds.start, bounds.stop)), **self.values)


def remember_related(instance, name, rows):
    """
    Keep ``rows`` as ``instance``'s related objects ``name`` (a reverse foreign
    key), as ``prefetch_related`` does: ``instance.<name>.all()`` gives them
    without a query, each row knows ``instance``, and a query built on from
    them (``instance.<name>.filter(...)``) is still limited to ``instance``'s.
    """
    field = getattr(type(instance), name).field
    for row in rows:
        field.set_cached_value(row, instance)
    cache = instance.__dict__.setdefault("_prefetched_objects_cache", {})
    cache.pop(field.remote_field.cache_name, None)
    # The related manager's own queryset, filtered on the instance, holding the rows.
    queryset = getattr(instance, name).get_queryset()
    queryset._result_cache = rows
    queryset._prefetch_done = True
    cache[field.remote_field.cache_name] = queryset
