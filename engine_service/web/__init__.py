"""The browser table's gateway: gRPC-Web to the same servicer, and the bundled page."""
