"""A tool module as a team would write one: typed functions, docstrings, a nested model, an enum, async."""

from __future__ import annotations

import asyncio
import time
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, Field

from playground.tools.modules import tool
from playground.tools.results import ToolFailure


class Speed(Enum):
    STANDARD = "standard"
    EXPRESS = "express"


class Address(BaseModel):
    street: str
    country: Annotated[str, Field(description="ISO 3166 code, e.g. FR", min_length=2, max_length=2)]


class Item(BaseModel):
    sku: str
    quantity: int = 1


@tool
def place_order(
    items: list[Item],
    address: Address,
    speed: Speed = Speed.STANDARD,
    gift_note: str | None = None,
    reference: Annotated[str, Field(description="Your own reference")] = "",
) -> dict[str, object]:
    """Place an order for delivery.

    The order is only simulated.

    Args:
        items: What to send, one entry per product.
        address: Where to send it.
        speed: How fast it must arrive; express costs more.
        gift_note: A note printed on the packing slip,
            when the order is a gift.
        reference: Not used: the Field description wins.
    """
    return {
        "skus": [item.sku for item in items],
        "quantities": [item.quantity for item in items],
        "country": address.country,
        "speed": speed.value,
        "speed_is_enum": isinstance(speed, Speed),
        "gift": gift_note,
    }


@tool(name="track", description="Where a parcel is now.")
async def track_parcel(parcel_id: str) -> str:
    """Ignored: the decorator's description wins.

    Parameters
    ----------
    parcel_id
        The carrier's id, e.g. PX-1.
    """
    await asyncio.sleep(0)
    return f"{parcel_id}: out for delivery"


@tool(timeout=0.2)
async def slow_async(seconds: float) -> str:
    """Sleep, as a tool that hangs would."""
    await asyncio.sleep(seconds)
    return "woke up"


@tool(timeout=0.2)
def slow_sync(seconds: float) -> str:
    """Block a thread, as a tool stuck on I/O would."""
    time.sleep(seconds)
    return "woke up"


@tool
def explode(reason: str) -> str:
    """Fail as a buggy tool does."""
    raise ValueError(reason)


@tool
def refuse(reason: str) -> str:
    """Fail on purpose, with a message meant for the model."""
    raise ToolFailure(reason)


@tool
def own_timeout() -> str:
    """A tool whose own network call timed out: its TimeoutError is its error, not the time limit."""
    raise TimeoutError("the upstream service did not answer")


@tool
def no_arguments() -> list[int]:
    """Return a non-text value."""
    return [1, 2, 3]


class Category(BaseModel):
    name: str
    children: list[Category] = []


@tool
def file_under(category: Category) -> str:
    """File the order under a category tree."""
    return category.name


def helper(x: int) -> int:
    """Not decorated: not a tool."""
    return x
