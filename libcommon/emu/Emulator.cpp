// Stub.
