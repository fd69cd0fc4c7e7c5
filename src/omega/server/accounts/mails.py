"""The mails accounts send: a link that verifies an address, a word to an address that is
already another account's, and a password reset's link.  Each is one template from which
both the plain text and the HTML part are made (the HTML escapes every value), so the two
never say different things.

>>> mail = VERIFY.render("https://omega.example/#verify-email=7.1.x", username="Ann",
...                      address="ann@example.com", hours=48)
>>> mail.subject
'Confirm your email address on Omega'
>>> "https://omega.example/#verify-email=7.1.x" in mail.text, '<a href="https://omega.example/' in (mail.html or "")
(True, True)
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from string import Template

__all__ = ["MailTemplate", "Rendered", "VERIFY", "TAKEN", "RESET"]


@dataclass(frozen=True)
class Rendered:
    """A mail's subject, plain text and HTML."""

    subject: str
    text: str
    html: str | None


@dataclass(frozen=True)
class MailTemplate:
    """A subject, the paragraphs before the link, the link's words and the paragraphs after
    it; ``$name`` placeholders are filled by :meth:`render`."""

    subject: str
    before: tuple[str, ...]
    link_label: str = ""
    after: tuple[str, ...] = ()

    def render(self, link: str | None, **values: object) -> Rendered:
        """The mail with ``values`` filled in (every placeholder must be given: KeyError).

        >>> TAKEN.render(None, address="a@example.com").html is not None
        True
        """
        plain = {k: str(v) for k, v in values.items()}
        escaped = {k: html.escape(v) for k, v in plain.items()}
        text_parts = [Template(p).substitute(plain) for p in self.before]
        html_parts = [f"<p>{Template(p).substitute(escaped)}</p>" for p in self.before]
        if link is not None:
            text_parts.append(link)
            html_parts.append(f'<p><a href="{html.escape(link)}">{html.escape(self.link_label)}</a></p>')
        text_parts += [Template(p).substitute(plain) for p in self.after]
        html_parts += [f"<p>{Template(p).substitute(escaped)}</p>" for p in self.after]
        return Rendered(Template(self.subject).substitute(plain), "\n\n".join(text_parts) + "\n",
                        "<!doctype html>\n<html><body>\n" + "\n".join(html_parts) + "\n</body></html>\n")


#: To an address an account asked for: the link that verifies it.
VERIFY = MailTemplate(
    "Confirm your email address on Omega",
    ("Hello $username,",
     "to make $address the email address of your Omega account, follow this link within $hours hours:"),
    "Confirm this address",
    ("If you did not ask for this, ignore this mail: nothing changes.",),
)

#: To an address an account asked for that another account has verified: no link.
TAKEN = MailTemplate(
    "Your email address on Omega",
    ("Someone asked to add $address to an Omega account, but another Omega account already has "
     "this address, so nothing changed.",
     "If it was you: remove the address from your other account first (its account page), or, "
     "if you forgot that account's password, use \"Forgot password?\" on the login form."),
)

#: To an account's verified address: the link that resets its password, once.
RESET = MailTemplate(
    "Reset your Omega password",
    ("Hello $username,",
     "someone, we hope you, asked to reset the password of the Omega account $username. To choose "
     "a new password, follow this link within $minutes minutes; it works once, and logs out "
     "every device logged in to the account:"),
    "Choose a new password",
    ("If you did not ask for this, ignore this mail: your password stays as it is.",),
)
