"""Queries the ORM builds once per connection, then runs with new values: for the few that every turn runs.

Building and compiling a query costs Django far more than running it. On SQLite, opening a turn (seven statements)
took 3.7 ms of CPU on the ORM's thread, 0.4 ms of it in the database; the access check before every socket action
0.6 ms, 0.06 of it in the database (docs/performance.md). Those statements never change shape, only their values.

A ``PreparedQuery`` asks the ORM for its statement once per connection, built with marker values in place of the
caller's, and keeps the SQL, where each of the caller's values goes, and the compiler, whose converters turn the
columns back into what the ORM would return (JSON, dates, model instances). A ``PreparedUpdate`` keeps an UPDATE
whose WHERE the ORM compiled, and prepares each value with its field, as ``QuerySet.update`` does; a
``PreparedDelete``, the ORM's DELETE of rows that nothing refers to and no signal watches; a ``PreparedInsert``, the
rows of a bulk insert, each value prepared by its field, in one statement holding them all; a ``PreparedCreate``,
one new row as ``save`` inserts it, its key read back. The SQL is the ORM's
own, per database vendor; only the values travel, through the same cursor (query counts and wrappers see them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.deletion import Collector
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.db.models.sql import DeleteQuery, UpdateQuery
from django.db.models.sql.compiler import SQLCompiler

Kind = type[int] | type[str]  # what a value of the caller's is: the markers stand in for these only
# Values no query of ours is ever given, within a 32-bit column's range: the ORM compiles a lookup on an integer
# field (Django's own tables' keys are 32-bit) with a value the database cannot hold into no statement at all, on
# PostgreSQL.
_INT_MARKER = -2_147_000_000


def _marker(index: int, kind: Kind) -> int | str:
    return _INT_MARKER - index if kind is int else f"\x00prepared value {index}\x00"


def _slots(params: Sequence[Any], markers: Sequence[int | str]) -> tuple[int | None, ...]:
    """For each parameter of the compiled statement, the caller's value it takes (its index), or None: a constant."""
    where = {(type(m), m): i for i, m in enumerate(markers)}
    slots = tuple(where.get((type(p), p)) if isinstance(p, int | str) else None for p in params)
    missing = set(range(len(markers))) - set(slots)
    if missing:  # the ORM transformed a value (a lookup that wraps it): its place cannot be found
        raise ValueError(f"values {sorted(missing)} do not appear as parameters of the statement")
    return slots


@dataclass(frozen=True)
class _Statement:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[int | None, ...]
    compiler: SQLCompiler | None = None
    # A read's converters by column, found once: the ORM looks them up for every column of every read it runs.
    converters: dict[int, Any] | None = None

    def bind(self, values: Sequence[Any]) -> list[Any]:
        return [param if slot is None else values[slot] for param, slot in zip(self.params, self.slots, strict=True)]


def _prepare(field: Any, value: Any, connection: BaseDatabaseWrapper) -> Any:
    """A value as the ORM writes it to ``field`` (a model instance as its key, JSON as text)."""
    if hasattr(value, "prepare_database_save"):
        value = value.prepare_database_save(field)
    return field.get_db_prep_save(value, connection=connection)


_ATTRIBUTE = "crosswire_prepared"  # where a connection object keeps its statements


class _PerConnection:
    """One statement per connection object (each thread has its own, and each database its vendor's SQL).

    Kept on the connection object itself, so they go with it: a compiler refers to its connection, and a cache
    outside it (even one keyed weakly) would keep every thread's connection, and its open database connection,
    alive for good."""

    def __init__(self, kinds: Sequence[Kind], using: str) -> None:
        self.kinds, self.using = tuple(kinds), using

    def markers(self) -> list[int | str]:
        return [_marker(i, kind) for i, kind in enumerate(self.kinds)]

    def values(self, args: Sequence[Any]) -> list[Any]:
        if len(args) != len(self.kinds):
            raise TypeError(f"expected {len(self.kinds)} values, got {len(args)}")
        return [kind(arg) for kind, arg in zip(self.kinds, args, strict=True)]

    def statement(self, build: Callable[[BaseDatabaseWrapper], _Statement]) -> tuple[BaseDatabaseWrapper, _Statement]:
        connection = connections[self.using]
        statements: dict[_PerConnection, _Statement] = vars(connection).setdefault(_ATTRIBUTE, {})
        statement = statements.get(self)
        if statement is None:
            statement = statements[self] = build(connection)
        return connection, statement


class PreparedQuery:
    """A read: ``build`` makes the queryset from one value per ``kinds`` (ints or strings, compared as they are)."""

    def __init__(self, build: Callable[..., models.QuerySet[Any]], *kinds: Kind, using: str = "default") -> None:
        self._build = build
        self._cache = _PerConnection(kinds, using)

    def _compile(self, connection: BaseDatabaseWrapper) -> _Statement:
        markers = self._cache.markers()
        compiler = self._build(*markers).query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        columns = [column[0] for column in compiler.select[: compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise ValueError("a read of composite fields cannot be prepared")
        converters = compiler.get_converters(columns)
        return _Statement(sql, tuple(params), _slots(params, markers), compiler, converters)

    def _fetch(self, args: Sequence[Any]) -> tuple[SQLCompiler, list[Any]]:
        connection, statement = self._cache.statement(self._compile)
        assert statement.compiler is not None
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, statement.bind(self._cache.values(args)))
            fetched = cursor.fetchall()
        if not statement.converters:
            return statement.compiler, [tuple(row) for row in fetched]
        # As the ORM's results_iter converts them, with the converters it would have looked up again.
        return statement.compiler, list(map(tuple, statement.compiler.apply_converters(fetched, statement.converters)))

    def rows(self, *args: Any) -> list[tuple[Any, ...]]:
        """The rows of a ``values_list`` queryset, converted as the ORM converts them."""
        return self._fetch(args)[1]

    def instances(self, *args: Any) -> list[Any]:
        """The model instances of a plain model queryset (no ``select_related``, no annotations)."""
        compiler, rows = self._fetch(args)
        info = compiler.klass_info
        assert info is not None and not info.get("related_klass_infos"), "a plain model queryset only"
        start, end = info["select_fields"][0], info["select_fields"][-1] + 1
        names = [column[0].target.attname for column in compiler.select[start:end]]
        return [info["model"].from_db(self._cache.using, names, row[start:end]) for row in rows]


class PreparedUpdate:
    """``where(*values).update(**fields)`` with ``fields`` named here once: the WHERE is the ORM's, compiled once;
    each field's value is prepared by the field, as ``QuerySet.update`` prepares it (model instances included)."""

    def __init__(
        self,
        model: type[models.Model],
        fields: Sequence[str],
        where: Callable[..., models.QuerySet[Any]],
        *kinds: Kind,
        using: str = "default",
    ) -> None:
        self._fields = [model._meta.get_field(name) for name in fields]
        if any(hasattr(field, "get_placeholder") for field in self._fields):  # binary, array, range: their own SQL
            raise ValueError("a field with its own placeholder cannot be prepared")
        self._model, self._where = model, where
        self._cache = _PerConnection(kinds, using)

    def _compile(self, connection: BaseDatabaseWrapper) -> _Statement:
        markers = self._cache.markers()
        query = self._where(*markers).query.chain(UpdateQuery)
        compiler = query.get_compiler(connection=connection)
        compiler.pre_sql_setup()  # as an UPDATE's: filters across relations become a key lookup
        where, params = compiler.compile(query.where)
        quote = connection.ops.quote_name
        sets = ", ".join(f"{quote(field.column)} = %s" for field in self._fields)  # type: ignore[union-attr]
        sql = f"UPDATE {quote(self._model._meta.db_table)} SET {sets} WHERE {where}"
        return _Statement(sql, tuple(params), _slots(params, markers))  # the WHERE's; the SET values come first

    def run(self, values: Mapping[str, Any], *args: Any) -> int:
        """Set ``values`` (every field named at construction) on the rows ``where`` finds; how many it changed."""
        connection, statement = self._cache.statement(self._compile)
        prepared = [_prepare(field, values[field.name], connection) for field in self._fields]
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, [*prepared, *statement.bind(self._cache.values(args))])
            return int(cursor.rowcount)


class PreparedDelete:
    """``where(*values).delete()`` for a model whose deletion cascades nowhere (the ORM's fast path, which is one
    DELETE too, in a transaction of its own). While a delete signal has a receiver, the ORM deletes instead."""

    def __init__(
        self,
        model: type[models.Model],
        where: Callable[..., models.QuerySet[Any]],
        *kinds: Kind,
        using: str = "default",
    ) -> None:
        self._model, self._where = model, where
        self._cache = _PerConnection(kinds, using)

    def _compile(self, connection: BaseDatabaseWrapper) -> _Statement:
        markers = self._cache.markers()
        queryset = self._where(*markers)
        if not Collector(using=self._cache.using, origin=queryset).can_fast_delete(queryset):
            raise ValueError(f"deleting {queryset.model.__name__} rows cascades or sends signals: use the ORM")
        sql, params = queryset.query.chain(DeleteQuery).get_compiler(connection=connection).as_sql()
        return _Statement(sql, tuple(params), _slots(params, markers))

    def run(self, *args: Any) -> int:
        """Delete the rows ``where`` finds; how many."""
        values = self._cache.values(args)
        if pre_delete.has_listeners(self._model) or post_delete.has_listeners(self._model):  # the ORM sends them
            return int(self._where(*values).delete()[0])
        connection, statement = self._cache.statement(self._compile)
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, statement.bind(values))
            return int(cursor.rowcount)


def _database_fills(field: Any) -> bool:
    """Whether an INSERT may leave ``field`` out: the database numbers it, defaults it or leaves it null."""
    if getattr(field, "db_returning", False) or field.has_db_default():  # an auto key, a database default
        return True
    return bool(field.null) and not field.has_default()


class PreparedInsert:
    """``bulk_create`` of rows given as values of ``fields`` (no model instances, no primary keys read back, no
    signals: as ``bulk_create``), in one transaction, as one statement holding every row (as many rows a statement
    as the database takes: the ORM's ``bulk_batch_size``).

    ``bulk_create`` builds an instance per row, then a statement as long as all the rows, every time. On a busy
    process that Python work holds the interpreter (the GIL) away from the event loop: 100 raw-event batches took
    2-4 ms, which every stream of the process waited out (docs/performance.md). Not ``executemany`` either: SQLite's
    driver lets go of the interpreter around each row's step and must take it back from the busy event loop, up to
    a switch interval (5 ms) each time; 100 rows cost the ORM's thread about a hundred waits and the event loop as
    many forced hand-overs."""

    def __init__(self, model: type[models.Model], fields: Sequence[str], using: str = "default") -> None:
        self._fields = [model._meta.get_field(name) for name in fields]
        if any(hasattr(field, "get_placeholder") for field in self._fields):  # binary, array, range: their own SQL
            raise ValueError("a field with its own placeholder cannot be prepared")
        # A field left out gets what the database gives it; one whose value comes from Python (a default, or a
        # required value) would make every insert fail, where bulk_create would have filled it.
        left = [f.name for f in model._meta.concrete_fields if f not in self._fields and not _database_fills(f)]
        if left:
            raise ValueError(f"{model.__name__} rows need values for {', '.join(left)}")
        self._model, self._using = model, using
        self._cache = _PerConnection((), using)

    def _compile(self, connection: BaseDatabaseWrapper) -> _Statement:
        """The statement's head; its rows' placeholders are added for each run (the SQL, not the values, is kept)."""
        quote = connection.ops.quote_name
        columns = ", ".join(quote(field.column) for field in self._fields)  # type: ignore[union-attr]
        return _Statement(f"INSERT INTO {quote(self._model._meta.db_table)} ({columns}) VALUES ", (), ())

    def run(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert ``rows``, each one value per field named at construction, in that order."""
        if not rows:
            return
        connection, statement = self._cache.statement(self._compile)
        prepared = [
            [_prepare(field, value, connection) for field, value in zip(self._fields, row, strict=True)] for row in rows
        ]
        size = max(1, connection.ops.bulk_batch_size(self._fields, prepared))
        row_marks = "(" + ", ".join("%s" for _ in self._fields) + ")"
        with transaction.atomic(using=self._using, savepoint=False), connection.cursor() as cursor:
            for start in range(0, len(prepared), size):
                chunk = prepared[start : start + size]
                cursor.execute(statement.sql + ", ".join([row_marks] * len(chunk)), [v for row in chunk for v in row])


class PreparedCreate:
    """``instance.save()`` of a new row, as the ORM inserts it (every concrete field, ``auto_now_add`` filled, the
    key read back), from a statement built once: the ORM's building of the statement for each insert cost three
    times what the database took to run it (docs/performance.md). While a save signal has a receiver, the ORM saves
    instead, and a model whose ``save`` does more must have it done by the caller first (``RoundTrip.measure``)."""

    def __init__(self, model: type[models.Model], using: str = "default") -> None:
        meta = model._meta
        if meta.parents or meta.order_with_respect_to or not isinstance(meta.pk, models.AutoField):  # Big, Small too
            raise ValueError(f"{model.__name__}: only a model of its own with an automatic key can be prepared")
        self._fields = [f for f in meta.local_concrete_fields if f is not meta.pk]
        if any(hasattr(field, "get_placeholder") for field in self._fields):  # binary, array, range: their own SQL
            raise ValueError("a field with its own placeholder cannot be prepared")
        # What the database fills in and save reads back: left to the ORM, which knows when to.
        if any(field.has_db_default() or getattr(field, "generated", False) for field in self._fields):
            raise ValueError(f"{model.__name__}: a field the database fills in cannot be prepared")
        self._model, self._using = model, using
        self._cache = _PerConnection((), using)

    def _compile(self, connection: BaseDatabaseWrapper) -> _Statement:
        quote, meta = connection.ops.quote_name, self._model._meta
        columns = ", ".join(quote(field.column) for field in self._fields)  # type: ignore[union-attr]
        marks = ", ".join("%s" for _ in self._fields)
        sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})"
        returning: tuple[Any, ...] = ()
        if connection.features.can_return_columns_from_insert:
            clause, returning = connection.ops.return_insert_columns([meta.pk])
            sql = f"{sql} {clause}"
        return _Statement(sql, tuple(returning), ())

    def insert(self, instance: models.Model) -> None:
        """Insert ``instance`` (a new one, not saved yet) and give it its key, as ``save`` would."""
        values = [field.pre_save(instance, True) for field in self._fields]
        if (
            pre_save.has_listeners(self._model)
            or post_save.has_listeners(self._model)  # the ORM sends them
            or any(hasattr(value, "resolve_expression") for value in values)  # the ORM compiles them
        ):
            instance.save(force_insert=True, using=self._using)
            return
        instance._prepare_related_fields_for_save(operation_name="save")  # an unsaved related row: as save refuses
        connection, statement = self._cache.statement(self._compile)
        prepared = [_prepare(field, value, connection) for field, value in zip(self._fields, values, strict=True)]
        meta = self._model._meta
        # As save: a failure inside an atomic block marks it for rollback, so it cannot be committed by mistake.
        with transaction.mark_for_rollback_on_error(self._using), connection.cursor() as cursor:
            cursor.execute(statement.sql, prepared)
            if connection.features.can_return_columns_from_insert:
                key = connection.ops.fetch_returned_insert_columns(cursor, statement.params)[0]
            else:
                key = connection.ops.last_insert_id(cursor, meta.db_table, meta.pk.column)  # type: ignore[union-attr]
        instance.pk = key
        instance._state.adding, instance._state.db = False, self._using
