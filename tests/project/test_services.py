"""The real services the deployment uses: PostgreSQL through DATABASE_URL and Redis through REDIS_URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from channels_redis.core import RedisChannelLayer

from tests.conftest import Services

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]


def test_database_url_connects_to_postgresql(services: Services, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": services.database_url,
        "CROSSWIRE_DATA_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "playground.settings",
    }
    code = (
        "import django; django.setup(); from django.db import connection; connection.ensure_connection(); "
        "print(connection.vendor, connection.pg_version >= 130000)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["postgresql", "True"]


async def test_redis_layer_carries_group_messages_between_layer_instances(services: Services) -> None:
    # Two instances stand for two processes: nothing is shared between them but Redis. A private prefix keeps
    # this test away from the servers other tests run on the same Redis.
    sender = RedisChannelLayer(hosts=[services.redis_url], prefix="crosswire-test")
    receiver = RedisChannelLayer(hosts=[services.redis_url], prefix="crosswire-test")
    channel = await receiver.new_channel()
    await receiver.group_add("conversation.1", channel)
    try:
        await sender.group_send("conversation.1", {"type": "conversation.event", "payload": {"type": "notice"}})
        assert await receiver.receive(channel) == {"type": "conversation.event", "payload": {"type": "notice"}}
    finally:
        await receiver.group_discard("conversation.1", channel)
        await receiver.close_pools()
        await sender.close_pools()
