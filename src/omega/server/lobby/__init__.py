"""The lobby: open tables listed and joined, quick play's matching queue, and ``/ws/lobby``."""
