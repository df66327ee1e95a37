"""Realistic leaf values chosen by property name, so generated tool arguments read like a real model's.

A property is matched on the words of its name (``start_date`` -> ``start``, ``date``; ``userEmail`` -> ``user``,
``email``). What the user wrote wins over canned values: a place, a number or an enum value named in the message is
used first, which is how "weather in Paris and Tokyo" ends up as two calls with ``"city": "Paris"`` and ``"Tokyo"``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

CITIES = ("Paris", "Tokyo", "Lisbon", "Nairobi", "Montreal", "Osaka", "Berlin", "Buenos Aires", "Sydney", "Oslo")
COUNTRIES = ("France", "Japan", "Portugal", "Kenya", "Canada", "Germany", "Argentina", "Australia", "Norway")
PEOPLE = ("Ada Lovelace", "Alan Turing", "Grace Hopper", "Katherine Johnson", "Edsger Dijkstra", "Barbara Liskov")
WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "granite", "harbor", "indigo", "juniper")

# Preferred enum members: the value a careful model picks when the user did not say.
PREFERRED_ENUM = ("celsius", "metric", "en", "eur", "medium", "json", "asc", "default", "auto")

PLACE_WORDS = frozenset({"city", "location", "place", "town", "destination", "origin", "where", "region", "area"})

_WORD_SPLIT = re.compile(r"[^a-zA-Z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class Hints:
    """What the user's message offers to fill arguments with."""

    text: str = ""
    numbers: tuple[float, ...] = ()
    places: tuple[str, ...] = ()


@dataclass
class Cursor:
    """Consumes the user's numbers in order (``add 2 and 3`` -> ``a=2``, ``b=3``) across one call's arguments."""

    hints: Hints
    next_number: int = 0
    used: dict[str, int] = field(default_factory=dict)

    def take_number(self, accept: Callable[[float], bool]) -> float | None:
        for i in range(self.next_number, len(self.hints.numbers)):
            if accept(self.hints.numbers[i]):
                self.next_number = i + 1
                return self.hints.numbers[i]
        return None


def name_words(name: str) -> set[str]:
    return {w.lower() for w in _WORD_SPLIT.split(name) if w}


def iso_date(rng: random.Random) -> str:
    return (date(2025, 6, 2) + timedelta(days=rng.randrange(0, 200))).isoformat()


def iso_datetime(rng: random.Random) -> str:
    return f"{iso_date(rng)}T{rng.randrange(7, 20):02d}:{rng.choice((0, 15, 30, 45)):02d}:00Z"


def person(rng: random.Random) -> str:
    return rng.choice(PEOPLE)


def email(rng: random.Random) -> str:
    first, last = person(rng).lower().split()
    return f"{first}.{last}@example.com"


def _identifier(rng: random.Random) -> str:
    return f"id_{rng.getrandbits(40):010x}"


def uuid4(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _query(rng: random.Random, hints: Hints) -> str:
    words = [w for w in re.findall(r"[\w'-]+", hints.text) if not w.startswith("/")]
    return " ".join(words[:12]) or rng.choice(WORDS)


_BY_WORD: dict[str, Callable[[random.Random, Hints], str]] = {
    "country": lambda rng, h: rng.choice(COUNTRIES),
    "date": lambda rng, h: iso_date(rng),
    "day": lambda rng, h: iso_date(rng),
    "datetime": lambda rng, h: iso_datetime(rng),
    "timestamp": lambda rng, h: iso_datetime(rng),
    "time": lambda rng, h: f"{rng.randrange(7, 20):02d}:{rng.choice((0, 30)):02d}",
    "email": lambda rng, h: email(rng),
    "name": lambda rng, h: person(rng),
    "author": lambda rng, h: person(rng),
    "user": lambda rng, h: person(rng).split()[0].lower(),
    "username": lambda rng, h: person(rng).split()[0].lower(),
    "phone": lambda rng, h: f"+33 1 {rng.randrange(10, 99)} {rng.randrange(10, 99)} {rng.randrange(10, 99)} 00",
    "url": lambda rng, h: f"https://example.com/{rng.choice(WORDS)}",
    "link": lambda rng, h: f"https://example.com/{rng.choice(WORDS)}",
    "website": lambda rng, h: "https://example.com",
    "query": _query,
    "q": _query,
    "search": _query,
    "keywords": _query,
    "prompt": _query,
    "question": _query,
    "topic": _query,
    "text": _query,
    "message": _query,
    "content": _query,
    "body": _query,
    "title": lambda rng, h: f"Notes on {rng.choice(WORDS)}",
    "subject": lambda rng, h: f"About {rng.choice(WORDS)}",
    "language": lambda rng, h: "en",
    "lang": lambda rng, h: "en",
    "locale": lambda rng, h: "en-GB",
    "currency": lambda rng, h: "EUR",
    "unit": lambda rng, h: "celsius",
    "units": lambda rng, h: "metric",
    "timezone": lambda rng, h: "Europe/Paris",
    "tz": lambda rng, h: "Europe/Paris",
    "symbol": lambda rng, h: rng.choice(("AAPL", "MSFT", "NVDA")),
    "ticker": lambda rng, h: rng.choice(("AAPL", "MSFT", "NVDA")),
    "color": lambda rng, h: rng.choice(("teal", "crimson", "ochre")),
    "id": lambda rng, h: _identifier(rng),
    "uuid": lambda rng, h: uuid4(rng),
    "zip": lambda rng, h: "75001",
    "postcode": lambda rng, h: "75001",
    "expression": lambda rng, h: " + ".join(_number_text(n) for n in h.numbers) or "2 + 3",
    "path": lambda rng, h: f"notes/{rng.choice(WORDS)}.txt",
    "file": lambda rng, h: f"{rng.choice(WORDS)}.txt",
    "filename": lambda rng, h: f"{rng.choice(WORDS)}.txt",
    "status": lambda rng, h: "open",
    "category": lambda rng, h: "general",
}

_NUMBERS_BY_WORD: dict[str, tuple[float, float]] = {
    "temperature": (12, 28),
    "age": (21, 65),
    "count": (1, 5),
    "limit": (5, 10),
    "n": (1, 5),
    "page": (1, 1),
    "days": (1, 7),
    "hours": (1, 8),
    "quantity": (1, 4),
    "year": (2024, 2025),
    "price": (5, 120),
    "amount": (5, 120),
    "latitude": (48.8566, 48.8566),
    "lat": (48.8566, 48.8566),
    "longitude": (2.3522, 2.3522),
    "lon": (2.3522, 2.3522),
    "lng": (2.3522, 2.3522),
}


def _number_text(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def string_for(name: str, rng: random.Random, hints: Hints, cursor: Cursor) -> str | None:
    """A realistic string for a property called ``name``, or None when the name says nothing."""
    words = name_words(name)
    if words & PLACE_WORDS or "address" in words:
        return place_for(name, rng, hints, cursor)
    for word in sorted(words, key=lambda w: (w not in _BY_WORD, -len(w))):
        if word in _BY_WORD:
            return _BY_WORD[word](rng, hints)
    if name.lower().endswith("id"):
        return _identifier(rng)
    return None


def place_for(name: str, rng: random.Random, hints: Hints, cursor: Cursor) -> str:
    taken = cursor.used.get("place", 0)
    cursor.used["place"] = taken + 1
    if taken < len(hints.places):
        return hints.places[taken]
    return rng.choice(CITIES)


def number_range_for(name: str) -> tuple[float, float] | None:
    words = name_words(name)
    for word in words:
        if word in _NUMBERS_BY_WORD:
            return _NUMBERS_BY_WORD[word]
    return None


def pick_enum(options: list[object], rng: random.Random, hints: Hints) -> object:
    mentioned = hints.text.lower()
    for option in options:
        if isinstance(option, str) and option and re.search(rf"\b{re.escape(option.lower())}\b", mentioned):
            return option
    for preferred in PREFERRED_ENUM:
        for option in options:
            if isinstance(option, str) and option.lower() == preferred:
                return option
    return rng.choice(options)


def filler(name: str, rng: random.Random) -> str:
    """The value of last resort: a word, marked with the property name so a reader sees where it went."""
    return f"{rng.choice(WORDS)}" if not name else f"{name.lower()}-{rng.choice(WORDS)}"
