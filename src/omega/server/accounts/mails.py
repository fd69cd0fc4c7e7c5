"""The mails accounts send: a link that verifies an address, a word to an address that is
already another account's, and a password reset's link.  Each is one template from which
both the plain text and the HTML part are made (the HTML escapes every value), so the two
never say different things.  Every sentence is one of the catalogs (``{name}`` for a value),
and a mail is written in the language :meth:`MailTemplate.render` is given.

>>> mail = VERIFY.render("https://omega.example/#verify-email=7.1.x", username="Ann",
...                      address="ann@example.com", hours=48)
>>> mail.subject, RESET.render("L", lang="de", username="Ann", minutes=30).subject
('Confirm your email address on Omega', 'Setze dein Omega-Passwort zurück')
>>> "https://omega.example/#verify-email=7.1.x" in mail.text, '<a href="https://omega.example/' in (mail.html or "")
(True, True)
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from omega.i18n import DEFAULT, N_, fill_in, gettext

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
    it (English, each marked for the catalogs); ``{name}`` placeholders are filled by :meth:`render`."""

    subject: str
    before: tuple[str, ...]
    link_label: str = ""
    after: tuple[str, ...] = ()

    def render(self, link: str | None, *, lang: str = DEFAULT, **values: object) -> Rendered:
        """The mail in ``lang`` with ``values`` filled in.

        >>> TAKEN.render(None, address="a@example.com").html is not None
        True
        """
        plain = {k: str(v) for k, v in values.items()}
        escaped = {k: html.escape(v) for k, v in plain.items()}

        def both(paragraphs: tuple[str, ...]) -> tuple[list[str], list[str]]:
            # Translated first, then filled: a value is never read as words.
            words = [gettext(p, lang) for p in paragraphs]
            return ([fill_in(w, plain) for w in words],
                    [f"<p>{fill_in(html.escape(w, quote=False), escaped)}</p>" for w in words])

        text_parts, html_parts = both(self.before)
        if link is not None:
            text_parts.append(link)
            html_parts.append(f'<p><a href="{html.escape(link)}">{html.escape(gettext(self.link_label, lang))}</a></p>')
        text_after, html_after = both(self.after)
        return Rendered(fill_in(gettext(self.subject, lang), plain), "\n\n".join(text_parts + text_after) + "\n",
                        f'<!doctype html>\n<html lang="{lang}"><body>\n' + "\n".join(html_parts + html_after)
                        + "\n</body></html>\n")


#: To an address an account asked for: the link that verifies it.
VERIFY = MailTemplate(
    N_("Confirm your email address on Omega"),
    (N_("Hello {username},"),
     N_("to make {address} the email address of your Omega account, follow this link within {hours} hours:")),
    N_("Confirm this address"),
    (N_("If you did not ask for this, ignore this mail: nothing changes."),),
)

#: To an address an account asked for that another account has verified: no link.
TAKEN = MailTemplate(
    N_("Your email address on Omega"),
    (N_("Someone asked to add {address} to an Omega account, but another Omega account already has "
        "this address, so nothing changed."),
     N_("If it was you: remove the address from your other account first (its account page), or, "
        "if you forgot that account's password, use \"Forgot password?\" on the login form.")),
)

#: To an account's verified address: the link that resets its password, once.
RESET = MailTemplate(
    N_("Reset your Omega password"),
    (N_("Hello {username},"),
     N_("someone, we hope you, asked to reset the password of the Omega account {username}. To choose "
        "a new password, follow this link within {minutes} minutes; it works once, and logs out "
        "every device logged in to the account:")),
    N_("Choose a new password"),
    (N_("If you did not ask for this, ignore this mail: your password stays as it is."),),
)
