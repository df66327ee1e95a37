"""The web processes that run chats, so a dead one's runs are recovered at once rather than after a timeout."""

from __future__ import annotations

from django.db import models


class RunProcess(models.Model):
    """A running web process: it beats every few seconds while alive (playground.chat.processes)."""

    id = models.CharField(max_length=80, primary_key=True)  # host:pid:random, unique for each start
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.id
