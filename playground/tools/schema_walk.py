"""Following a schema's references the way the validator will, to refuse what would break checking a call.

The meta-schema accepts ``{"$defs": {"x": {"$ref": "#/$defs/x"}}, ...}``, but validating arguments against it
recurses until Python gives up; a ``$ref`` to another document makes jsonschema fetch it (or fail); a ``pattern``
Python cannot compile raises mid-validation. Each is found here when the schema is checked, so it is refused with
a message in the editor or the import preview instead of breaking a conversation later.

The walk is iterative and visits each subschema once, so its cost is linear in the schema's size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jsonschema_specifications import REGISTRY as META_SCHEMAS
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

if TYPE_CHECKING:
    from referencing._core import Resolver

# Each applicator keyword: the shape of its value, and whether its subschemas apply to the same value as their
# parent (a loop through only those never ends) or to a part of it (an item, a property, a key: a loop through
# one of those ends with the arguments, which are finite).
ONE, LIST, MAP = "one", "list", "map"
APPLICATORS: dict[str, tuple[str, bool]] = {
    "not": (ONE, True),
    "if": (ONE, True),
    "then": (ONE, True),
    "else": (ONE, True),
    "allOf": (LIST, True),
    "anyOf": (LIST, True),
    "oneOf": (LIST, True),
    "dependentSchemas": (MAP, True),
    "items": (ONE, False),
    "additionalProperties": (ONE, False),
    "contains": (ONE, False),
    "propertyNames": (ONE, False),
    "unevaluatedItems": (ONE, False),
    "unevaluatedProperties": (ONE, False),
    "prefixItems": (LIST, False),
    "properties": (MAP, False),
    "patternProperties": (MAP, False),
}
REFERENCES = ("$ref", "$dynamicRef")  # both resolve to a schema applied to the same value

# Only the JSON Schema meta-schemas resolve besides the schema itself: jsonschema's default registry would fetch
# any other URI with urlopen, letting a tool's schema make the server read URLs or local files.
LOCAL_ONLY: Registry[Any] = Registry()

LOOP = (
    "This schema leads back to itself through `$ref` without reading any part of the arguments: checking a call"
    " would never end."
)


@dataclass(frozen=True, slots=True)
class Finding:
    path: str  # JSON Pointer in the schema
    message: str


@dataclass
class _Walk:
    pointers: dict[int, str]  # id() of each object in the schema -> its JSON Pointer
    findings: list[Finding] = field(default_factory=list)
    same_value: dict[int, list[int]] = field(default_factory=dict)  # edges a loop must not close


def hazards(schema: dict[str, Any]) -> list[Finding]:
    """What would break validating arguments against ``schema`` (already valid against the meta-schema)."""
    walk = _Walk(_pointers(schema))
    resolver = META_SCHEMAS.resolver_with_root(DRAFT202012.create_resource(schema))
    queue: list[tuple[dict[str, Any], Resolver[Any]]] = [(schema, resolver)]
    seen = {id(schema)}
    while queue:
        node, resolver = queue.pop()
        resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
        walk.findings.extend(_pattern_findings(node, walk.pointers[id(node)]))
        for child, child_resolver, same_value in _children(node, resolver, walk):
            if same_value:
                walk.same_value.setdefault(id(node), []).append(id(child))
            if id(child) not in seen:
                seen.add(id(child))
                queue.append((child, child_resolver))
    return sorted(walk.findings, key=lambda f: f.path) + _loops(walk)


def _children(
    node: dict[str, Any], resolver: Resolver[Any], walk: _Walk
) -> Iterator[tuple[dict[str, Any], Resolver[Any], bool]]:
    """Each subschema the validator may apply next, with the resolver it uses there and whether on the same value."""
    for keyword, (shape, same_value) in APPLICATORS.items():
        if keyword in node:
            yield from ((child, resolver, same_value) for child in _subschemas(node[keyword], shape))
    for keyword in REFERENCES:
        if isinstance(ref := node.get(keyword), str) and (target := _follow(ref, keyword, node, resolver, walk)):
            yield (*target, True)


def _subschemas(value: Any, shape: str) -> list[dict[str, Any]]:
    """The object subschemas in an applicator's value (true/false schemas apply nothing further)."""
    if shape == ONE:
        candidates = [value]
    elif shape == LIST:
        candidates = value if isinstance(value, list) else []
    else:
        candidates = list(value.values()) if isinstance(value, dict) else []
    return [c for c in candidates if isinstance(c, dict)]


def _follow(
    ref: str, keyword: str, node: dict[str, Any], resolver: Resolver[Any], walk: _Walk
) -> tuple[dict[str, Any], Resolver[Any]] | None:
    where = f"{walk.pointers[id(node)]}/{keyword}"
    try:
        resolved = resolver.lookup(ref)
    except (Unresolvable, LookupError, TypeError, ValueError):
        message = f"{ref!r} points nowhere in this schema (only references inside it are followed)."
        walk.findings.append(Finding(where, message))
        return None
    target = resolved.contents
    # A meta-schema (outside this document) is trusted as it is; true/false schemas lead nowhere.
    if not isinstance(target, dict) or id(target) not in walk.pointers:
        return None
    return target, resolved.resolver


def _pattern_findings(node: dict[str, Any], path: str) -> Iterator[Finding]:
    # jsonschema hands these to Python's re at validation time, where a syntax error would escape as an exception.
    pattern = node.get("pattern")
    candidates = [("/pattern", pattern)] if isinstance(pattern, str) else []
    keys = node.get("patternProperties")
    if isinstance(keys, dict):
        candidates.extend((f"/patternProperties/{_escape(k)}", k) for k in keys)
    for where, text in candidates:
        try:
            re.compile(text)
        except re.error as exc:
            yield Finding(path + where, f"Not a regular expression Python can use: {exc}.")


def _loops(walk: _Walk) -> list[Finding]:
    """A finding at each schema where a chain of same-value edges closes into a loop (iterative DFS)."""
    state: dict[int, str] = {}  # "open" while on the current path, "done" after
    closed: list[str] = []
    for start in walk.same_value:
        if start in state:
            continue
        state[start] = "open"
        stack = [(start, iter(walk.same_value.get(start, ())))]
        while stack:
            node, edges = stack[-1]
            child = next(edges, None)
            if child is None:
                state[node] = "done"
                stack.pop()
            elif state.get(child) == "open":
                closed.append(walk.pointers[child])
            elif child not in state:
                state[child] = "open"
                stack.append((child, iter(walk.same_value.get(child, ()))))
    return [Finding(path, LOOP) for path in sorted(set(closed))]


def _pointers(schema: Any) -> dict[int, str]:
    """The JSON Pointer of every object and array in ``schema``, by id()."""
    pointers: dict[int, str] = {}
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            pointers[id(value)] = path
            stack.extend((child, f"{path}/{_escape(key)}") for key, child in value.items())
        elif isinstance(value, list):
            pointers[id(value)] = path
            stack.extend((child, f"{path}/{index}") for index, child in enumerate(value))
    return pointers


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
