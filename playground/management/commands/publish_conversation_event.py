from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.conversations.broadcast import publish_conversation_event


class Command(BaseCommand):
    help = "Publish a JSON event to every WebSocket watching a conversation (through the configured channel layer)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("conversation_id", type=int)
        parser.add_argument("payload", help='A JSON object, e.g. \'{"type": "notice", "text": "hello"}\'')

    def handle(self, *args: Any, conversation_id: int, payload: str, **options: Any) -> None:
        try:
            event = json.loads(payload)
        except json.JSONDecodeError as exc:
            raise CommandError(f"payload is not JSON: {exc}") from exc
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise CommandError('payload must be a JSON object with a string "type"')
        if isinstance(get_channel_layer(), InMemoryChannelLayer):
            # The in-memory layer lives inside one process: nothing outside this command would hear the event.
            self.stderr.write("Warning: without REDIS_URL the event only reaches sockets in this process (none).")
        async_to_sync(publish_conversation_event)(conversation_id, event)
        self.stdout.write(f"Published {event['type']!r} to conversation {conversation_id}.")
