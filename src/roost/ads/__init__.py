"""The Advertising Management API (v12, also served as /11 and /5): its own envelope, parameters,
errors and rate-limit categories on the shared authentication, storage, clock and ids."""
