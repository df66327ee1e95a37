"""The Conversations list's query: full-text search, filters, sort and keyset pagination, all held in the URL.

PostgreSQL searches with its full-text engine (``websearch`` syntax, ranked, highlighted snippets) over the GIN
index of migration 0008; SQLite, for local use, matches every word as a substring and cuts its own snippets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import date, datetime

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import QueryDict
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from playground.compare.models import Comparison, ComparisonRun
from playground.conversations.models import Conversation
from playground.conversations.search_index import facets_key
from playground.review.models import Label, Verdict

PAGE_SIZE = 50
SORTS = {"recent": "Most recent", "oldest": "Oldest", "relevance": "Best match"}
SNIPPET_CHARS = 160
CONFIG = "simple"  # no stemming: tool names, ids and argument values are matched as written


@dataclass(frozen=True)
class ListQuery:
    q: str = ""
    endpoint: str = ""
    format: str = ""
    model: str = ""
    tool: str = ""
    status: str = ""
    errors: str = ""  # "1": only conversations with an error
    invalid: str = ""  # "1": only conversations with invalid tool-call arguments
    author: str = ""
    since: str = ""  # YYYY-MM-DD, inclusive
    until: str = ""
    label: str = ""
    verdict: str = ""  # a verdict kind (review.Verdict.Kind), or "any": conversations a reviewer judged so
    repeats: str = ""  # "hide": a comparison's repeats left out, its first run of each column kept
    sort: str = "recent"
    after: str = ""  # the keyset cursor of the last row of the previous page

    @classmethod
    def from_get(cls, data: QueryDict) -> ListQuery:
        values = {f.name: data.get(f.name, "").strip()[:200] for f in fields(cls)}
        if values["sort"] not in SORTS:
            values["sort"] = "recent"
        return cls(**values)

    def filtered(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self) if f.name not in ("sort", "after"))

    def dates_crossed(self) -> bool:
        """From is after To: nothing can match, and the page says why rather than only that nothing does."""
        since, until = _day(self.since), _day(self.until)
        return since is not None and until is not None and since > until

    def url_for_next(self, cursor: str) -> str:
        query = QueryDict(mutable=True)
        for f in fields(self):
            value = cursor if f.name == "after" else getattr(self, f.name)
            if value:
                query[f.name] = value
        return "?" + query.urlencode()


@dataclass(frozen=True)
class Origin:
    """Where a conversation came from, or went, in Compare: shown beside its title, linked to the comparison."""

    comparison_id: int
    label: str
    title: str


@dataclass
class Row:
    conversation: Conversation
    snippet: SafeString | str = ""
    origin: Origin | None = None


@dataclass
class ListPage:
    rows: list[Row]
    next_url: str = ""
    full_text: bool = False
    facets: dict[str, list[str]] = field(default_factory=dict)


def search_conversations(team_id: int, query: ListQuery) -> ListPage:
    rows = _filtered(team_id, query)
    full_text = connection.vendor == "postgresql" and bool(query.q)
    if query.q:
        ranked = query.sort == "relevance"
        rows = _full_text(rows, query.q, ranked) if full_text else _substring(rows, query.q)
    rows = _ordered(rows, query.sort if query.q or query.sort != "relevance" else "recent", full_text)
    rows = _after(rows, query, full_text)
    found = list(rows[: PAGE_SIZE + 1])
    origins = comparison_origins([c.pk for c in found[:PAGE_SIZE]])
    page = ListPage([Row(c, _snippet(c, query.q), origins.get(c.pk)) for c in found[:PAGE_SIZE]], full_text=full_text)
    if len(found) > PAGE_SIZE:
        page.next_url = query.url_for_next(_cursor(found[PAGE_SIZE - 1], query, full_text))
    return page


def _filtered(team_id: int, query: ListQuery) -> QuerySet[Conversation]:
    rows = Conversation.objects.filter(team_id=team_id, indexed_at__isnull=False).select_related("created_by")
    exact = {"endpoint_name": query.endpoint, "format": query.format, "model": query.model, "status": query.status}
    rows = rows.filter(**{k: v for k, v in exact.items() if v})
    if query.tool:
        rows = rows.filter(called_tools__contains=f" {query.tool} ")
    if query.errors == "1":
        rows = rows.filter(has_error=True)
    if query.invalid == "1":
        rows = rows.filter(invalid_calls__gt=0)
    if query.author:
        rows = rows.filter(created_by__username=query.author)
    if since := _day(query.since):
        rows = rows.filter(created_at__date__gte=since)
    if until := _day(query.until):
        rows = rows.filter(created_at__date__lte=until)
    if query.label:
        rows = rows.filter(labels__name=query.label)
    if query.repeats == "hide":
        rows = rows.exclude(comparison_runs__repeat__gt=0)
    if query.verdict:
        judged = Verdict.objects.filter(conversation=OuterRef("pk"))
        if query.verdict != "any":
            judged = judged.filter(kind=query.verdict)
        rows = rows.filter(Exists(judged))
    # A subquery, not a join and COUNT: a GROUP BY over every row would be computed before the page is cut.
    verdicts = Verdict.objects.filter(conversation=OuterRef("pk")).order_by().values("conversation")
    total = verdicts.annotate(n=Count("pk")).values("n")
    return rows.annotate(verdict_total=Coalesce(Subquery(total), 0))


def comparison_origins(conversation_ids: list[int]) -> dict[int, Origin]:
    """One read for the page: each conversation's part in its newest comparison (a column, a repeat, a replay)."""
    origins: dict[int, Origin] = {}
    runs = ComparisonRun.objects.filter(conversation_id__in=conversation_ids).select_related("comparison")
    for run in runs.order_by("-comparison__created_at", "-comparison_id"):
        if run.conversation_id in origins:
            continue
        comparison = run.comparison
        if comparison.kind == Comparison.Kind.REPLAY:
            label = "replay" if run.position else "replayed"
        else:
            label = f"compare · column {run.position + 1}"
            if comparison.repeat > 1:
                label += f" · run {run.repeat + 1} of {comparison.repeat}"
        origins[run.conversation_id] = Origin(comparison.pk, label, str(comparison))
    return origins


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _full_text(rows: QuerySet[Conversation], text: str, ranked: bool) -> QuerySet[Conversation]:
    # The same expression as the GIN index (to_tsvector('simple', COALESCE(search_text, ''))), so it is used.
    vector = SearchVector("search_text", config=CONFIG)
    search = SearchQuery(text, config=CONFIG, search_type="websearch")
    # The match as `vector @@ query`, the form the GIN index answers. The rank only where it orders the list: it
    # builds each row's vector again. The snippet is cut in Python around the words (see _cut): ts_headline took
    # 2 ms a row, most of a search's time, for the same marks ('simple' has no stemming to find other forms).
    # alias(), not annotate(): an annotation would be selected too, building every row's vector again (1 ms each).
    matched = rows.alias(document=vector).filter(document=search)
    return matched.annotate(rank=SearchRank(vector, search)) if ranked else matched


def _substring(rows: QuerySet[Conversation], text: str) -> QuerySet[Conversation]:
    for word in _words(text):
        if word.startswith("-") and len(word) > 1:  # "-word" leaves rows out, as PostgreSQL's web search does
            rows = rows.exclude(search_text__icontains=word[1:])
        else:
            rows = rows.filter(search_text__icontains=word)
    return rows


def _words(text: str) -> list[str]:
    return [w.strip('"') for w in text.split() if w.strip('"')][:10]


def _ordered(rows: QuerySet[Conversation], sort: str, full_text: bool) -> QuerySet[Conversation]:
    if sort == "oldest":
        return rows.order_by("updated_at", "pk")
    if sort == "relevance" and full_text:
        return rows.order_by("-rank", "-pk")
    return rows.order_by("-updated_at", "-pk")


def _cursor(row: Conversation, query: ListQuery, full_text: bool) -> str:
    if query.sort == "relevance" and full_text:
        return f"{row.rank!r}_{row.pk}"  # type: ignore[attr-defined]
    return f"{row.updated_at.isoformat()}_{row.pk}"


def _after(rows: QuerySet[Conversation], query: ListQuery, full_text: bool) -> QuerySet[Conversation]:
    """Rows past the cursor in the list's order: (value, pk) keyset, so page N costs what page 1 does."""
    value, _, pk_text = query.after.rpartition("_")
    if not value or not pk_text.isdigit():
        return rows
    pk = int(pk_text)
    try:
        if query.sort == "relevance" and full_text:
            rank = float(value)
            return rows.filter(Q(rank__lt=rank) | Q(rank=rank, pk__lt=pk))
        moment = datetime.fromisoformat(value)
    except ValueError:
        return rows  # a cursor someone edited: start from the top rather than fail
    if query.sort == "oldest":
        return rows.filter(Q(updated_at__gt=moment) | Q(updated_at=moment, pk__gt=pk))
    return rows.filter(Q(updated_at__lt=moment) | Q(updated_at=moment, pk__lt=pk))


def _snippet(conversation: Conversation, text: str) -> SafeString | str:
    # A search's operators ("-word" leaves rows out, "or" joins two) are not words to mark.
    marks = [w for w in _words(text) if not w.startswith("-") and w.lower() != "or"]
    return _cut(_after_title(conversation), marks) if marks else ""


def _after_title(conversation: Conversation) -> str:
    """The indexed text without its title, which the row shows just above the snippet: the title it starts with,
    and the first message that usually is the title again."""
    title = conversation.title.strip()
    return "\n".join(part for part in conversation.search_text.split("\n") if not title or part.strip() != title)


def _cut(text: str, words: list[str]) -> SafeString | str:
    """Around the first match, with every word marked (escaped first, so the text cannot inject markup). The indexed
    parts (a message, a call's name, its arguments, a result) are set apart by " · ", not run together."""
    lower = text.lower()
    hits = [i for i in (lower.find(w.lower()) for w in words) if i >= 0]
    if not hits:
        return ""
    first = min(hits)
    start = max(0, first - SNIPPET_CHARS // 3)
    if start:  # from the start of a word: "…ity unit" read as a typo
        space = re.search(r"\s", text[start:first])
        start = start + space.end() if space else first
    parts = (" ".join(line.split()) for line in text[start : start + SNIPPET_CHARS].split("\n"))
    piece = " · ".join(part for part in parts if part)
    marked = escape(piece)
    for word in sorted(set(words), key=len, reverse=True):
        pattern = re.compile(re.escape(escape(word)), re.IGNORECASE)
        marked = pattern.sub(lambda m: f"<mark>{m.group(0)}</mark>", marked)
    prefix = "…" if start else ""
    # Escaped before marking: only the <mark> tags are markup.
    return mark_safe(prefix + marked + ("…" if start + SNIPPET_CHARS < len(text) else ""))


# The filter menus change only when a conversation is indexed (a run ended, an import): computed once per team and
# kept until then, or FACETS_TTL_S at most (a cache per process: another process's index shows here that late).
FACETS_TTL_S = 30


def facets(team_id: int) -> dict[str, list[str]]:
    """The values the filter menus offer: what this team's conversations actually hold."""
    menus = cache.get(facets_key(team_id))
    if menus is None:
        menus = _facets(team_id)
        cache.set(facets_key(team_id), menus, FACETS_TTL_S)
    # Labels come and go in review, without any index: read each time (a team has a few).
    labels = Label.objects.filter(team_id=team_id, conversations__isnull=False).order_by("name")
    return {**menus, "label": list(labels.values_list("name", flat=True).distinct())}


def _facets(team_id: int) -> dict[str, list[str]]:
    # order_by() clears the model's ordering, which DISTINCT would otherwise include (and so repeat values).
    rows = Conversation.objects.filter(team_id=team_id, indexed_at__isnull=False).order_by()

    def values(name: str) -> list[str]:
        return sorted({v for v in rows.values_list(name, flat=True).distinct()[:200] if v})

    tools = sorted({t for text in rows.values_list("called_tools", flat=True).distinct()[:2000] for t in text.split()})
    present = set(values("status"))
    return {
        "endpoint": values("endpoint_name"),
        "format": values("format"),
        "model": values("model"),
        "tool": tools,
        "status": [s for s in Conversation.Status.values if s in present],
        "author": values("created_by__username"),
    }
