"""Python functions as built-in tools: the ``@tool`` decorator and what it derives from a typed function.

A module named in ``CROSSWIRE_TOOL_MODULES`` marks its tools like this::

    from playground.tools.modules import tool

    @tool
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        \"\"\"Current weather for a city.

        Args:
            city: The city, e.g. Paris.
            unit: Temperature unit.
        \"\"\"

* The JSON Schema comes from the signature through pydantic: one field per parameter, its type hint as the type
  (nested models, enums, ``Literal``, ``X | None``, ``Annotated[..., Field(...)]``), its default making it optional.
  Extra keys are refused (``additionalProperties: false``) and pydantic's generated titles are left out: they only
  repeat the names and cost the model tokens.
* The description is the docstring without its sections; the ``Args:`` (Google), ``Parameters`` (NumPy) or
  ``:param x:`` (reST) entries become the parameters' descriptions, unless a ``Field(description=...)`` says
  otherwise.
* A call is validated by the same pydantic model, in strict JSON mode, so what the schema refuses is refused
  ("3" is not an integer) and the function gets typed values (model instances, enum members).

The decorator returns the function unchanged, so it can still be called and tested directly. Everything here is
done when the module is imported: a function that cannot be described fails the start, naming itself.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, overload

import docstring_parser
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

F = TypeVar("F", bound=Callable[..., Any])
MARK = "__crosswire_tool__"  # the attribute the decorator sets; loading looks for it


class ToolDefinitionError(Exception):
    """A decorated function that cannot become a tool (no type hint, ``*args``, a type pydantic cannot describe)."""


class ToolArgumentsError(Exception):
    """The arguments of a call do not fit the function's parameters; the message says which and why."""


@dataclass(frozen=True)
class ToolFunction:
    name: str
    description: str
    parameters: dict[str, Any]
    model: type[BaseModel]
    function: Callable[..., Any]
    timeout: float | None  # seconds; None: the administrator's default (CROSSWIRE_TOOL_TIMEOUT)

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.function)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments for the function, typed; ToolArgumentsError when they do not fit."""
        try:
            # JSON mode: enums from their values, tuples from arrays, dates from ISO strings, as a model sends them.
            checked = self.model.model_validate_json(json.dumps(arguments), strict=True)
        except ValidationError as exc:
            raise ToolArgumentsError(_summary(exc)) from None
        return {name: getattr(checked, name) for name in type(checked).model_fields}

    def call(self, arguments: dict[str, Any]) -> Any:
        """Validate, then call: a result, or for an async function the coroutine to await."""
        return self.function(**self.validate(arguments))


@overload
def tool(function: F, /) -> F: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, timeout: float | None = None
) -> Callable[[F], F]: ...


def tool(
    function: F | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
) -> F | Callable[[F], F]:
    """Mark a function as a built-in tool: ``@tool`` or ``@tool(name=..., description=..., timeout=...)``."""

    def mark(target: F) -> F:
        setattr(target, MARK, describe(target, name=name, description=description, timeout=timeout))
        return target

    return mark(function) if function is not None else mark


def describe(
    function: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
) -> ToolFunction:
    where = f"{function.__module__}.{function.__qualname__}"
    docs = docstring_parser.parse(inspect.getdoc(function) or "")
    model = _arguments_model(function, where, {p.arg_name: _one_line(p.description) for p in docs.params})
    try:
        schema = _inline_references(_without_titles(model.model_json_schema()))
    except Exception as exc:  # pydantic raises several kinds for types it cannot put in a schema
        raise ToolDefinitionError(f"{where}: its parameters cannot be described as JSON Schema: {exc}") from exc
    if timeout is not None and timeout <= 0:
        raise ToolDefinitionError(f"{where}: timeout must be a positive number of seconds, got {timeout!r}")
    text = description if description is not None else _description(docs)
    return ToolFunction(name or function.__name__, text, schema, model, function, timeout)


def _arguments_model(function: Callable[..., Any], where: str, documented: dict[str, str]) -> type[BaseModel]:
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # a hint naming something that does not exist
        raise ToolDefinitionError(f"{where}: its type hints cannot be read: {exc}") from exc
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise ToolDefinitionError(f"{where}: *args, **kwargs and positional-only parameters cannot be arguments")
        if parameter.name not in hints:
            raise ToolDefinitionError(f"{where}: parameter {parameter.name!r} needs a type hint")
        hint = hints[parameter.name]
        default = ... if parameter.default is parameter.empty else parameter.default
        doc = documented.get(parameter.name)
        # An explicit Field(description=...) in the hint wins over the docstring.
        extra = {"description": doc} if doc and not _described(hint) else {}
        fields[parameter.name] = (hint, Field(default, **extra))
    try:
        return create_model(  # type: ignore[call-overload, no-any-return]
            f"{function.__name__}_arguments", __config__=ConfigDict(extra="forbid"), **fields
        )
    except Exception as exc:
        raise ToolDefinitionError(f"{where}: its parameters cannot become a pydantic model: {exc}") from exc


def _described(hint: Any) -> bool:
    if typing.get_origin(hint) is not Annotated:
        return False
    return any(isinstance(extra, FieldInfo) and extra.description for extra in typing.get_args(hint)[1:])


def _description(docs: docstring_parser.Docstring) -> str:
    parts = [docs.short_description or "", docs.long_description or ""]
    return "\n\n".join(part.strip() for part in parts if part and part.strip())


def _one_line(text: str | None) -> str:
    # Docstring entries wrap at the source's line length; a schema description reads better on one line.
    return " ".join((text or "").split())


# Keywords whose value is a map of names to schemas, or a schema / list of schemas: titles are removed below them,
# never a property that happens to be called "title".
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _without_titles(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _without_titles(sub) for name, sub in value.items()}
        elif key in _SCHEMA_VALUES:
            out[key] = _without_titles(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_without_titles(sub) for sub in value]
        else:
            out[key] = value
    # pydantic sorts keywords alphabetically; a person reads "type" first and "additionalProperties" last.
    return dict(sorted(out.items(), key=lambda item: _ORDER.get(item[0], 50)))


_ORDER = {key: n for n, key in enumerate(("type", "description", "enum", "const", "default", "properties"))}
_ORDER["additionalProperties"] = 98


def _inline_references(schema: dict[str, Any]) -> dict[str, Any]:
    """Nested models written in place instead of as ``$ref``: not every provider takes references (Gemini's subset
    does not), and a model reads a schema more easily in one piece. A model that contains itself stays a reference."""
    definitions: dict[str, Any] = schema.get("$defs") or {}
    recursive: set[str] = set()

    def resolve(node: Any, inlining: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, inlining) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name not in definitions or name in inlining:
                recursive.add(name)
                return node
            siblings = {key: resolve(value, inlining) for key, value in node.items() if key != "$ref"}
            return {**resolve(definitions[name], (*inlining, name)), **siblings}
        return {key: resolve(value, inlining) for key, value in node.items() if key != "$defs"}

    out: dict[str, Any] = resolve(schema, ())
    kept: dict[str, Any] = {}
    while missing := sorted(name for name in recursive if name in definitions and name not in kept):
        for name in missing:  # resolving a kept definition may find further recursive ones
            kept[name] = resolve(definitions[name], (name,))
    if kept:
        out["$defs"] = kept
    return out


def _summary(error: ValidationError) -> str:
    """Pydantic's errors in the words the loop uses for a schema mismatch: where, then what."""
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"])
        problems.append(f"{where}: {item['msg']}" if where else item["msg"])
    return "; ".join(problems)


def tools_in(module: Any) -> list[ToolFunction]:
    """The tools a module defines, in the order it defines them (decorated functions it only imports are not)."""
    found = []
    for value in vars(module).values():
        described = getattr(value, MARK, None)
        if isinstance(described, ToolFunction) and getattr(value, "__module__", None) == module.__name__:
            found.append(described)
    return found


def described(function: Callable[..., Any]) -> ToolFunction:
    """What ``@tool`` derived from a decorated function."""
    value = getattr(function, MARK, None)
    if not isinstance(value, ToolFunction):
        raise TypeError(f"{function!r} is not decorated with @tool")
    return value
