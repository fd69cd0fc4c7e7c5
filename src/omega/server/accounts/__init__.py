"""Accounts: passwords, users and sessions, the session cookie and its CSRF check, and the
``/api/account`` and ``/api/users`` routes."""
