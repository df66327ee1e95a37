"""The built-in tools: every ``@tool`` function of the modules named in ``CROSSWIRE_TOOL_MODULES``, by name.

``BUILTINS`` starts with the example tools (``playground.tools.examples``), so a plain unit test has them; at start
the app replaces them with the configured modules (``install``, called from ``PlaygroundConfig.ready``). A module
that cannot be imported, a function that cannot be described and two tools with the same name stop the start with
ImproperlyConfigured naming the module: a misconfigured server never runs with tools silently missing. Stored tools
refer to a built-in by name, so a name must stay stable once teams use it.

Running one: ``run`` (async: a coroutine function is awaited, a plain one runs in a worker thread) and
``run_blocking`` (the same from synchronous code), both within the tool's time limit. A plain function past its
limit cannot be interrupted: its result is dropped and the thread finishes on its own.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, Iterable
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from playground.tools.content import Content
from playground.tools.modules import ToolDefinitionError, ToolFunction, tools_in

DEFAULT_MODULES = ("playground.tools.examples",)
DEFAULT_TIMEOUT = 10.0  # seconds; CROSSWIRE_TOOL_TIMEOUT overrides it, and @tool(timeout=...) for one tool


class ToolModuleError(Exception):
    """A configured tool module cannot be loaded; the message names it and says why."""


class ToolTimeout(Exception):
    """The tool ran past its time limit (not a TimeoutError the tool raised itself)."""


@dataclass(frozen=True)
class Builtin:
    name: str
    description: str
    parameters: dict[str, Any]
    # Validates then calls: the result, or for an async tool the awaitable of it. Raises ToolArgumentsError,
    # ToolFailure, or whatever the function raises.
    run: Callable[[dict[str, Any]], Content | Awaitable[Content]]
    is_async: bool = False
    timeout: float = DEFAULT_TIMEOUT
    module: str = ""


def _builtin(function: ToolFunction, module: str, timeout: float) -> Builtin:
    return Builtin(
        name=function.name,
        description=function.description,
        parameters=function.parameters,
        run=function.call,
        is_async=function.is_async,
        timeout=function.timeout or timeout,
        module=module,
    )


def load(modules: Iterable[str], *, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Builtin]:
    """The tools of these modules by name; ToolModuleError when one cannot be imported or two share a name."""
    found: dict[str, Builtin] = {}
    for path in modules:
        try:
            module = importlib.import_module(path)
        except ToolDefinitionError as exc:
            problem = f"{path!r} defines a tool Crosswire cannot use: {exc}"
            raise ToolModuleError(f"CROSSWIRE_TOOL_MODULES: {problem}") from exc
        except Exception as exc:  # ImportError, or anything the module raised while being imported
            problem = f"cannot import {path!r}: {type(exc).__name__}: {exc}"
            raise ToolModuleError(f"CROSSWIRE_TOOL_MODULES: {problem}") from exc
        tools = tools_in(module)
        if not tools:
            raise ToolModuleError(f"CROSSWIRE_TOOL_MODULES: {path!r} defines no @tool function")
        for function in tools:
            if function.name in found:
                raise ToolModuleError(
                    f"CROSSWIRE_TOOL_MODULES: two tools are called {function.name!r} "
                    f"(in {found[function.name].module!r} and {path!r}); names must be unique"
                )
            found[function.name] = _builtin(function, path, timeout)
    return found


BUILTINS: dict[str, Builtin] = load(DEFAULT_MODULES)


def install(modules: Iterable[str], *, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Replace the built-ins in place (every importer holds this same dict) with the tools of ``modules``."""
    loaded = load(modules, timeout=timeout)
    BUILTINS.clear()
    BUILTINS.update(loaded)


async def run(builtin: Builtin, arguments: dict[str, Any]) -> Content:
    """Run a built-in off the event loop, within its time limit; ToolTimeout past it."""
    # Validation happens here, before anything is awaited or handed to a thread.
    work = builtin.run(arguments) if builtin.is_async else asyncio.to_thread(builtin.run, arguments)
    task = asyncio.ensure_future(work)  # type: ignore[arg-type]
    try:
        # wait() rather than wait_for(): a TimeoutError the tool raises itself stays the tool's error.
        done, _ = await asyncio.wait({task}, timeout=builtin.timeout)
    finally:
        if not task.done():  # past the limit, or the run was stopped while waiting
            task.cancel()
    if not done:
        raise ToolTimeout(_limit_message(builtin))
    return task.result()  # type: ignore[no-any-return]


# Synchronous callers wait on these threads; a plain tool past its limit keeps its thread until it returns.
_WORKERS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="crosswire-tool")


def run_blocking(builtin: Builtin, arguments: dict[str, Any]) -> Content:
    """``run`` for synchronous code: the calling thread waits, at most the tool's time limit."""
    if builtin.is_async:
        # A fresh event loop on a worker thread: the caller may itself be inside a running loop.
        return _WORKERS.submit(asyncio.run, run(builtin, arguments)).result()
    future = _WORKERS.submit(builtin.run, arguments)
    done, _ = futures.wait([future], timeout=builtin.timeout)
    if not done:
        raise ToolTimeout(_limit_message(builtin))
    return future.result()  # type: ignore[return-value]


def _limit_message(builtin: Builtin) -> str:
    return f"{builtin.name} did not finish within its time limit of {builtin.timeout:g} s and was stopped."
