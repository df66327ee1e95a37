"""ASGI entry point: HTTP to Django (and /sim to the provider simulator), WebSockets to Channels consumers."""

from __future__ import annotations

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
# Set up Django before importing anything that touches models (consumers, auth middleware).
django_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from playground.chat.processes import RunWatchdog  # noqa: E402
from playground.mounts import PrefixDispatcher, load_simulator  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402
from playground.shell.auth import sign_in_stack  # noqa: E402
from playground.shell.origin import SameOriginValidator  # noqa: E402
from playground.shell.raw_send import KeepRawSend  # noqa: E402

SIMULATOR_PREFIX = "/sim"

application = RunWatchdog(
    ProtocolTypeRouter(
        {
            "http": PrefixDispatcher(django_application, {SIMULATOR_PREFIX: load_simulator}),
            "websocket": KeepRawSend(SameOriginValidator(sign_in_stack(URLRouter(websocket_urlpatterns)))),
        }
    )
)

from playground.shell.warm import warm_up  # noqa: E402

# What the first turn and the first page would load on the event loop, loaded before the first connection.
warm_up()
# Long-lived objects made at start-up (Django, the SDKs, what warm_up loaded) move out of the collector's way:
# otherwise every full collection walks them again, a pause of 70-150 ms for every socket of the process.
gc.freeze()
# A full collection walks every tracked object of the process: with a hundred chats streaming that is 50-100 ms in
# which no socket gets a frame, and by default one comes every few seconds. Its trigger (how many younger
# collections come first) is raised tenfold; young objects are still collected as often as before, and the
# collector's own rule (a quarter more long-lived objects than after the last full one) still applies.
_young, _middle, _full = gc.get_threshold()
gc.set_threshold(_young, _middle, _full * 10)
