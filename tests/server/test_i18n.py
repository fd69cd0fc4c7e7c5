"""Languages over real HTTP round trips on SQLite and PostgreSQL: the page comes in the
visitor's language (``Accept-Language``, or the ``omega_lang`` cookie the page's Language
setting writes, which wins), with ``<html lang dir>`` and its catalog inlined; a language's
catalog as cacheable JSON; and a refusal keeps its stable code while its message is put in
the reader's language."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from .server_helpers import Api, LiveServer, error_code


def page(server: LiveServer, **headers: str) -> tuple[str, dict[str, Any], httpx.Response]:
    """The page's ``<html>`` tag, its inlined catalog, and the response."""
    r = httpx.get(f"{server.url}/", headers=headers)
    assert r.status_code == 200, r.text
    html_tag = re.search(r"<html[^>]*>", r.text)
    block = re.search(r'<script type="application/json" id="omega-i18n">(.*?)</script>', r.text, re.S)
    assert html_tag and block, r.text[:500]
    return html_tag[0], json.loads(block[1]), r


def test_a_visitor_gets_the_page_in_their_language_without_setting_anything(server: LiveServer) -> None:
    tag, data, r = page(server, **{"accept-language": "fr-FR,fr;q=0.9,en;q=0.8"})
    assert tag == '<html lang="fr" dir="ltr">'
    assert data["lang"] == "fr" and data["messages"]["Settings"] == "Réglages"
    assert "Omega a besoin de JavaScript pour jouer." in r.text
    # The answer differs by language, so caches must key it on what chooses it.
    assert "Accept-Language" in r.headers["vary"] and "Cookie" in r.headers["vary"]
    # A language the site does not speak falls back to English; a regional one finds its language.
    assert page(server, **{"accept-language": "pt-BR,pt;q=0.9"})[0] == '<html lang="en" dir="ltr">'
    assert page(server)[1]["messages"] == {}
    assert page(server, **{"accept-language": "de-AT"})[1]["lang"] == "de"
    # The right-to-left language turns the whole page.
    assert page(server, **{"accept-language": "ar-EG"})[0] == '<html lang="ar" dir="rtl">'
    # The setting (a cookie) wins over the browser's languages; an unknown one is ignored.
    tag, data, _ = page(server, **{"accept-language": "fr-FR", "cookie": "omega_lang=es"})
    assert tag == '<html lang="es" dir="ltr">' and data["messages"]["Settings"] == "Ajustes"
    assert page(server, **{"accept-language": "fr-FR", "cookie": "omega_lang=xx"})[1]["lang"] == "fr"
    # Every page path is the same page: a table's link opens in French too.
    for path in ("/t/abc", "/u/ann", "/leaderboard/3"):
        r = httpx.get(f"{server.url}{path}", headers={"accept-language": "fr"})
        assert '<html lang="fr" dir="ltr">' in r.text, path


def test_each_page_preloads_its_own_modules_only(server: LiveServer) -> None:
    # A table's first load does not fetch the lobby's modules, nor the lobby's the table's
    # (tests/test_page_modules.py holds index.html's list equal to the imports).
    table, lobby, profile = (httpx.get(f"{server.url}{path}").text for path in ("/t/abc", "/", "/u/ann"))
    assert 'href="/static/js/tablestate.js" data-page="table"' in table and "lobby.js" not in table
    assert 'href="/static/js/lobby.js" data-page="lobby"' in lobby and "tablestate.js" not in lobby
    assert "data-page=" not in profile and 'href="/static/js/api.js"' in profile


def test_a_refusal_keeps_its_code_and_speaks_the_readers_language(server: LiveServer) -> None:
    def refusal(**headers: str) -> tuple[str, str]:
        r = httpx.get(f"{server.url}/api/tables/nosuchtable", headers=headers)
        assert r.status_code == 404, r.text
        return error_code(r), r.json()["error"]["message"]

    assert refusal() == ("not_found", "there is no table 'nosuchtable'")
    assert refusal(**{"accept-language": "fr-FR,fr"}) == ("not_found", "il n'y a pas de table 'nosuchtable'")
    assert refusal(**{"accept-language": "fr-FR", "cookie": "omega_lang=de"}) == (
        "not_found", "es gibt keinen Tisch 'nosuchtable'")
    # A body the schema refuses, in Spanish: the code is the API's, the words the reader's.
    r = httpx.post(f"{server.url}/api/tables", json={"players": 2, "size": 99},
                   headers={"accept-language": "es", "origin": server.url})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    assert r.json()["error"]["message"].startswith("petición no válida: ")
    # A rule the server words once is said in the reader's language where it refuses and
    # where the page shows it under the field (GET /api/config, with the levels' names).
    r = httpx.post(f"{server.url}/api/account/register", json={"username": "a!", "password": "x" * 12},
                   headers={"accept-language": "fr", "origin": server.url})
    assert r.status_code == 400 and "un nom d'utilisateur fait de 3 à 20 caractères" in r.json()["error"]["message"]
    config = httpx.get(f"{server.url}/api/config", headers={"accept-language": "de"}).json()
    assert config["levels"][0]["name"] == "Anfänger"
    assert config["username"]["rule"].startswith("ein Benutzername hat 3 bis 20 Zeichen")
    # The rules' own refusal (omega.game's IllegalMove) too: an occupied cell, in German.
    api = Api(server.url)
    t = api.create(players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    api.turn(t["id"], t["token"], ["e5", "a1"])
    api.http.headers["accept-language"] = "de"
    r = api.act(t["id"], t["invites"]["1"], {"type": "turn", "cells": ["e5", "b2"]})
    assert r.status_code == 422, r.text
    assert (error_code(r), r.json()["error"]["message"]) == ("illegal_move", "das Feld e5 ist von Weiß besetzt")
    # A seat's default name is sent as a message too, for the page to show in its language;
    # a name the player writes replaces it.
    seats = api.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 6}])["state"]["seats"]
    assert [(s["name"], s["name_text"]) for s in seats] == [
        ("Player 1", {"id": "Player {number}", "params": {"number": 1}}),
        ("Computer (Easy)", {"id": "Computer ({level})", "params": {"level": {"id": "Easy", "params": {}}}})]
    api.close()


def test_a_languages_catalog_is_served_as_cacheable_json(server: LiveServer) -> None:
    r = httpx.get(f"{server.url}/api/i18n/de")
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["lang"] == "de" and data["dir"] == "ltr" and data["messages"]["White"] == "Weiß"
    assert [lang["code"] for lang in data["languages"]] == ["en", "fr", "es", "de", "ar"]
    assert "max-age" in r.headers["cache-control"]
    again = httpx.get(f"{server.url}/api/i18n/de", headers={"if-none-match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    # Which language this request would get, and the languages offered.
    offered = httpx.get(f"{server.url}/api/i18n", headers={"accept-language": "es-MX"}).json()
    assert offered["lang"] == "es" and offered["default"] == "en"
    unknown = httpx.get(f"{server.url}/api/i18n/xx", headers={"accept-language": "fr"})
    assert unknown.status_code == 404 and error_code(unknown) == "not_found"
    assert unknown.json()["error"]["message"].startswith("le site ne parle pas 'xx'")
