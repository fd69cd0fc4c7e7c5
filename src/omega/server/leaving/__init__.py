"""Leaving the site cleanly: a download of an account's data, and closing an account, which
may be reopened for a grace period and then has its personal data removed (docs/privacy.md)."""
