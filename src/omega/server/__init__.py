"""The game server behind ``omega serve``: tables, seats, storage, WebSockets, computer seats.

See ``docs/server-api.md`` for the HTTP/WebSocket contract and ``docs/architecture.md`` for
the design.  Build the app with :func:`omega.server.app.create_app`.
"""
