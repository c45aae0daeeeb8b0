"""HTTP API tests (a package, so module names such as test_errors may repeat in tests/unit)."""
