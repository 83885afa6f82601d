"""The line-based text protocol: the engine server and the client that drives an engine process."""
