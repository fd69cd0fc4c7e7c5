"""Keep secrets out of the server's logs.

Seat tokens and spectator keys travel in URLs as ``?token=`` (WebSocket URLs, record
downloads), and uvicorn logs URLs with their query strings (the "WebSocket ... [accepted]"
lines of ``uvicorn.error``, and every request line of ``uvicorn.access``).  Anyone who can
read the log could then play a seat.  :class:`RedactTokens` replaces every token value with
``***`` before a record reaches a handler; :func:`install_redaction` puts it on the loggers and
handlers the server writes to.

>>> redact("GET /ws/tables/Ab3?token=s3cr-t_X&since=4 and Authorization: Bearer q.w-e")
'GET /ws/tables/Ab3?token=***&since=4 and Authorization: Bearer ***'
"""

from __future__ import annotations

import logging
import re
from typing import Any

__all__ = ["RedactTokens", "install_redaction", "redact"]


def _encoded(word: str) -> str:
    # Each letter as itself or percent-encoded (%74 for "t"): a query's key is read
    # decoded, so "%74oken=" is a token too.
    return "".join(f"(?:{c}|%{ord(c):02x})" for c in word)


# A token value runs to the next query separator, quote, space or fragment.
_TOKEN_PARAM = re.compile(rf"({_encoded('token')}(?:=|%3d))[^&\s\"'#;,)]+", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
#: Loggers the server writes through; "" is the root (``omega serve`` logs there).
LOGGERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "omega")


def redact(text: str) -> str:
    """``text`` with every ``token=<value>`` and ``Bearer <value>`` value replaced by ``***``.

    >>> redact("/api/tables/x/record.txt?TOKEN=abc")
    '/api/tables/x/record.txt?TOKEN=***'
    >>> redact("/api/tables/x/record.txt?%74oken=abc&t%6Fken%3Ddef")
    '/api/tables/x/record.txt?%74oken=***&t%6Fken%3D***'
    """
    low = text.lower()
    if "ken" not in low and "%" not in low and "earer" not in low:
        return text  # the common case, without running the expressions
    return _BEARER.sub(r"\1***", _TOKEN_PARAM.sub(r"\1***", text))


def _clean(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactTokens(logging.Filter):
    """A filter that rewrites a record's message, arguments and traceback without tokens.

    Arguments are redacted one by one rather than folded into the message, because
    uvicorn's access formatter reads ``record.args`` as a tuple.

    >>> record = logging.LogRecord("uvicorn.error", 20, "f", 1, '%s - "WebSocket %s" [accepted]',
    ...                            ("127.0.0.1:5", "/ws/tables/t?token=abc"), None)
    >>> RedactTokens().filter(record), record.getMessage()
    (True, '127.0.0.1:5 - "WebSocket /ws/tables/t?token=***" [accepted]')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _clean(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _clean(v) for k, v in record.args.items()}
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True  # a malformed record: logging reports it itself
        if redact(message) != message:
            # A token split between the format and an argument (or inside an object's
            # str()): give up the arguments rather than the secret.
            record.msg, record.args = redact(message), ()
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set: store the redacted traceback there.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


def install_redaction() -> RedactTokens:
    """Put one :class:`RedactTokens` on the server's loggers and on their handlers (records
    that propagate to a handler skip the filters of the loggers in between).  Call it after
    uvicorn has configured logging, which replaces handlers.  Installing twice is harmless.
    """
    redactor = RedactTokens()
    for name in LOGGERS:
        logger = logging.getLogger(name)
        targets: list[logging.Filterer] = [logger, *logger.handlers]
        for target in targets:
            if not any(isinstance(f, RedactTokens) for f in target.filters):
                target.addFilter(redactor)
    return redactor
