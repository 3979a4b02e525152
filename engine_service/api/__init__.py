"""The gRPC transport: decode requests, call the use cases, encode replies and errors."""
