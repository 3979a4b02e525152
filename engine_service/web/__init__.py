"""The web port: Connect (JSON and binary) and gRPC-Web to the same servicer, and the page."""
