"""The Host and Origin checks of web/security.py in front of every request, WebSockets
included (a plain ASGI middleware)."""

from __future__ import annotations

from .api.common import error
from .api.seats import WS_FORBIDDEN, server_port
from .security import HostPolicy


class GuardMiddleware:
    def __init__(self, app, policy: HostPolicy):
        self.app = app
        self.policy = policy

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
            host, port = headers.get("host", ""), server_port(scope)
            refusal = None
            if not self.policy.host_allowed(host, port):
                refusal = (f"refused: Host {host[:60]!r} is not a name of this server "
                           f"({self.policy.shown_names()}; palais serve --allow-host NAME adds one)")
            elif scope["type"] == "http" and scope.get("method") not in ("GET", "HEAD", "OPTIONS") \
                    and not self.policy.origin_allowed(headers.get("origin"), port):
                refusal = (f"refused: Origin {headers.get('origin', '')[:60]!r} is not this "
                           f"server's page; this server answers only its own page")
            if refusal is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": WS_FORBIDDEN})
                    return
                await error(refusal, 403)(scope, receive, send)
                return
        await self.app(scope, receive, send)
