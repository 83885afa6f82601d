"""The routes of `palais serve`, one module per concern (docs/web.md, "HTTP and WebSocket API"):
games (make, delete, rematch, list), seats (views, actions, hints, resign, the WebSocket),
records (download, upload), analysis (review), pages (the page, static files, catalogs).
Each module's `routes(server)` lists its routes over one Server (web/api/common.py)."""
