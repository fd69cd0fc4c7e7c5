"""The game tables: their state and rules of play, events, time control, who is calling,
the action path (:class:`~omega.server.tables.core.TableCore`), storage of tables, presence,
records and links, and the table's HTTP routes and WebSocket.  The core knows no other
feature: accounts, ratings and chat plug in through hooks set when the app is wired."""
