"""End-to-end tests that drive the real agent CLIs against the fake model server."""
