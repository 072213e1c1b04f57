"""Issue 38, points 6 and 7: the private teacher link and the identity cookie (relpos.class_routes.identity).

* the cookie is set by the server only, HttpOnly, SameSite=Strict, Secure over HTTPS, at the
  app's base path, and holds a sealed identity, never the teacher's credential;
* the private link carries a resume token in its fragment, which opens the class for
  RESUME_SECONDS; its page sends no Referer and replaces itself with the lesson.

The browser's side (history, Referer, document.cookie) is tests/classroom/test_identity_browser.py.
"""

from __future__ import annotations

import json
import time

import pytest

from relpos.class_routes import following, identity, results_csv
from relpos.classroom.model import Pace
from relpos.ui import classroom
from tests.classroom.conftest import app_store_at
from tests.support.routes import call

CSRF = {"X-Relpos-Identity": "1"}


@pytest.fixture
def class_store(tmp_path, monkeypatch):
    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        yield classroom.store()


def _keep(code: str, sealed: str, **options):
    body = json.dumps({"sealed": sealed}).encode()
    path = f"/relpos/class/{code}/identity"
    return call(identity.identity_route, path, body=body, path_params={"code": code}, **options)


def _redeem(code: str, token: str, *, query: str = "", headers=CSRF):
    path = f"/relpos/class/{code}/teach"
    return call(
        identity.redeem_route, path, body=token.encode(), headers=headers, query=query, path_params={"code": code}
    )


def test_a_sealed_identity_opens_only_for_its_class_and_holds_no_credential_in_clear():
    credential = "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39"
    sealed = identity.seal("teacher", "ABC234", credential)
    assert credential not in sealed and "teacher" not in sealed
    assert identity.unseal(sealed, "ABC234") == ("teacher", credential)
    assert identity.seal("teacher", "ABC234", credential) == sealed  # one value: kept once, not at every run
    assert identity.unseal(sealed, "ABC235") is None  # another class's
    assert identity.unseal(sealed[:-2] + ("AA" if sealed[-2:] != "AA" else "BB"), "ABC234") is None  # tampered
    assert identity.unseal(f"teacher.{credential}", "ABC234") is None  # the old cookie's clear text


def test_the_identity_cookie_is_set_by_the_server_httponly_strict_and_secure_over_https():
    sealed = identity.seal("student", "ABC234", "studentToken123456789a")
    answer = _keep("ABC234", sealed, headers=CSRF)
    assert answer.status == 204
    (cookie,) = answer.set_cookies
    assert cookie.startswith(f"relpos-class-ABC234={sealed};")
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {part.strip() for part in cookie.split(";")}
    assert "Secure" not in cookie  # plain HTTP: a Secure cookie would not be kept at all
    secure = _keep("ABC234", sealed, headers=CSRF, scheme="https").set_cookies[0]
    assert "Secure" in secure.split("; ")
    proxied = _keep("ABC234", sealed, headers={**CSRF, "X-Forwarded-Proto": "https"}).set_cookies[0]
    assert "Secure" in proxied.split("; ")


def test_an_https_public_address_makes_the_cookie_secure_behind_a_proxy_that_says_nothing(monkeypatch):
    """A TLS proxy that sends no X-Forwarded-Proto made the cookie go without Secure: the
    server's configured public address says the app is served over HTTPS."""
    sealed = identity.seal("student", "ABC234", "studentToken123456789a")
    monkeypatch.setenv("RELPOS_PUBLIC_URL", "https://teach.school.example/")
    assert "Secure" in _keep("ABC234", sealed, headers=CSRF).set_cookies[0].split("; ")
    monkeypatch.setenv("RELPOS_PUBLIC_URL", "http://192.168.1.20:8501")
    assert "Secure" not in _keep("ABC234", sealed, headers=CSRF).set_cookies[0]


def test_the_cookie_keeps_only_what_this_server_sealed_and_only_for_this_apps_scripts():
    sealed = identity.seal("teacher", "ABC234", "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
    assert _keep("ABC234", sealed).status == 403  # no X-Relpos-Identity: a cross-site form
    assert _keep("ABC234", "teacher.0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39", headers=CSRF).status == 403
    assert _keep("ABC235", sealed, headers=CSRF).status == 403  # sealed for another class
    resume = identity.resume_token("ABC234", "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
    assert _keep("ABC234", resume, headers=CSRF).status == 403  # a link's token is not an identity
    body = json.dumps({"forget": True}).encode()
    dropped = call(identity.identity_route, "/x", body=body, headers=CSRF, path_params={"code": "ABC234"})
    assert dropped.status == 204 and "Max-Age=0" in dropped.set_cookies[0]


def test_the_cookie_lives_at_the_apps_base_path(monkeypatch):
    monkeypatch.setattr(identity, "_base", lambda: "/relpos-app")
    cookies = _keep("ABC234", identity.seal("student", "ABC234", "t" * 22), headers=CSRF).set_cookies
    assert "Path=/relpos-app/" in cookies[0]
    assert cookies[1].startswith("relpos-class-ABC234=; Path=/; Max-Age=0")  # an old script-set cookie dropped


def test_the_follow_view_names_a_student_by_the_sealed_cookie_not_a_clear_one():
    token = "studentToken123456789a"
    sealed = identity.seal("student", "ABC234", token)

    def named(cookie: str) -> str:
        from starlette.requests import Request

        headers = [(b"cookie", cookie.encode())]
        return following._token(Request({"type": "http", "headers": headers, "query_string": b""}), "ABC234")

    assert named(f"relpos-class-ABC234={sealed}") == token
    assert named(f"relpos-class-ABC234=student.{token}") == ""  # an old, readable cookie
    assert named(f"relpos-class-ABC234={identity.seal('teacher', 'ABC234', token)}") == ""


def test_the_private_link_is_the_teach_page_with_a_token_in_its_fragment_only():
    credential = "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39"
    link = identity.teach_link("https://school.example/relpos/", "ABC234", credential, presenter=True)
    address, _, fragment = link.partition("#")
    assert address == "https://school.example/relpos/relpos/class/ABC234/teach?presenter=1"
    assert credential not in link
    assert identity.unseal(fragment, "ABC234") == ("resume", credential)


def test_the_teach_page_sends_no_referrer_and_holds_nothing_secret():
    answer = call(identity.teach_page, "/relpos/class/ABC234/teach", method="GET", path_params={"code": "ABC234"})
    assert answer.status == 200
    assert answer.header("referrer-policy") == "no-referrer" and answer.header("cache-control") == "no-store"
    page = answer.body.decode()
    assert 'content="no-referrer"' in page and "location.replace(" in page and "history.replaceState" in page
    # the token leaves the address bar before the page asks anything of the server
    assert page.index("history.replaceState") < page.index("fetch(")


def test_a_resume_token_opens_its_class_once_redeemed_and_expires(class_store):
    record, credential = class_store.create_class("walkthrough", Pace(index=3, step="r1j1", state="i=1&j=1"))
    answer = _redeem(record.code, identity.resume_token(record.code, credential), query="presenter=1")
    assert answer.status == 200, answer.body
    assert json.loads(answer.body)["next"] == f"/walkthrough?class={record.code}&presenter=1"
    (cookie,) = answer.set_cookies
    assert "HttpOnly" in cookie and credential not in cookie
    kept = cookie.split(";", 1)[0].split("=", 1)[1]
    assert identity.unseal(kept, record.code) == ("teacher", credential)
    stale = identity.resume_token(record.code, credential, now=time.time() - identity.RESUME_SECONDS - 1)
    expired = _redeem(record.code, stale)
    assert expired.status == 403 and not expired.set_cookies
    assert "has expired" in json.loads(expired.body)["message"]
    forged = identity.resume_token(record.code, "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
    assert _redeem(record.code, forged).status == 403  # sealed right, but not this class's credential
    assert _redeem(record.code, identity.resume_token(record.code, credential), headers={}).status == 403


# ---------------------------------------------------------------- point 13: the results CSV


def _results(code: str, cookie: str = "", query: str = "tz=Asia%2FKolkata"):
    headers = {"Cookie": cookie} if cookie else {}
    path = f"/relpos/class/{code}/results.csv"
    return call(results_csv.results_route, path, method="GET", headers=headers, query=query, path_params={"code": code})


def test_the_results_csv_goes_to_the_teachers_browser_only(class_store):
    record, credential = class_store.create_class()
    student = class_store.join(record.code, "Ada")
    code = record.code
    assert _results(code).status == 403  # no session, no cookie: the address alone opens nothing
    student_cookie = f"relpos-class-{code}={identity.seal('student', code, student.token)}"
    assert _results(code, student_cookie).status == 403
    clear = f"relpos-class-{code}=teacher.{credential}"  # the old readable cookie: not sealed by the server
    assert _results(code, clear).status == 403
    answer = _results(code, f"relpos-class-{code}={identity.seal('teacher', code, credential)}")
    assert answer.status == 200, answer.body
    assert answer.header("content-type").startswith("text/csv")
    assert answer.header("cache-control") == "no-store"
    assert answer.header("content-disposition") == f'attachment; filename="relpos_class_{code}.csv"'
    text = answer.body.decode("utf-8")
    assert text.startswith("\ufeff") and "time_zone" in text.splitlines()[0]


def test_without_a_cookie_secret_a_restarted_server_opens_what_it_sealed(tmp_path, monkeypatch):
    """The key is kept in the data directory (readable by its user only): a restart, which
    reads it again, still opens every browser's identity."""
    monkeypatch.setenv("RELPOS_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(identity.internals, "option_if_set", lambda name: None)
    monkeypatch.setattr(identity, "_key", None)
    sealed = identity.seal("teacher", "ABC234", "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
    assert (tmp_path / "identity.key").stat().st_mode & 0o777 == 0o600
    monkeypatch.setattr(identity, "_key", None)  # the process restarted: its key read again
    assert identity.unseal(sealed, "ABC234") == ("teacher", "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
    assert [path.name for path in tmp_path.iterdir()] == ["identity.key"]  # nothing half-written left


# ---------------------------------------------------------------- a hostile client


def test_a_long_body_is_refused_having_read_no_more_than_its_limit():
    """A 200 MB POST to the identity route was read whole before its 403 (a few at once could
    fill a replica's memory): bodies are now read up to their route's limit and no further."""
    from starlette.requests import Request

    from relpos.server import asgi
    from tests.support.streamlit_client import run_in_own_loop

    reads = []

    async def endless():
        reads.append(1)
        return {"type": "http.request", "body": b"x" * 1024, "more_body": True}

    def request(headers=()):
        scope = {"type": "http", "method": "POST", "path": "/", "headers": list(headers), "query_string": b""}
        return Request(scope, endless)

    assert run_in_own_loop(asgi.bounded_body(request(), 4096)) is None
    assert len(reads) == 5  # 4 KiB allowed: the fifth chunk is one too many, and the last read
    reads.clear()
    assert run_in_own_loop(asgi.bounded_body(request([(b"content-length", b"209715200")]), 4096)) is None
    assert reads == []  # a stated length over the limit: not a byte read
    long = json.dumps({"sealed": "A" * 5000}).encode()
    path = "/relpos/class/ABC234/identity"
    assert call(identity.identity_route, path, body=long, headers=CSRF, path_params={"code": "ABC234"}).status == 413
    assert _redeem("ABC234", "A" * 5000).status == 403


def test_a_sealed_value_carries_nothing_along_and_the_cookie_holds_the_servers_own_text():
    """The base64 decoder skipped characters outside its alphabet, so a sealed value followed
    by "=; Domain=…" still opened, and the route copied it into Set-Cookie: a script could
    widen the cookie to a parent domain."""
    sealed = identity.seal("student", "ABC234", "studentToken123456789a")
    for riding in ("=; Domain=school.example; Max-Age=99999999", "\r\nSet-Cookie: x=1", " ", "=="):
        assert identity.unseal(sealed + riding, "ABC234") is None, riding
        assert _keep("ABC234", sealed + riding, headers=CSRF).status == 403, riding
    (cookie,) = _keep("ABC234", sealed, headers=CSRF).set_cookies
    assert cookie.split(";")[0] == f"relpos-class-ABC234={identity.seal('student', 'ABC234', 'studentToken123456789a')}"


def test_nested_json_is_a_refusal_not_a_server_error(class_store):
    nested = b"[" * 100_000
    path = "/relpos/class/ABC234/identity"
    answer = call(identity.identity_route, path, body=nested, headers=CSRF, path_params={"code": "ABC234"})
    assert answer.status in (403, 413)
    record, _ = class_store.create_class()
    deep = b"[" * 1500  # under the answer's 2 KB: parsed, and too deep for the parser
    headers = {"X-Relpos-Token": "nested-json-sender"}
    answer = call(following.answer_route, "/a", body=deep, headers=headers, path_params={"code": record.code})
    assert answer.status == 400, answer.body


def test_an_emptied_key_file_is_replaced_not_used(tmp_path, monkeypatch, caplog):
    """An empty identity.key (a crash while it was written) gave the key b"": anyone could then
    open and seal values. A key shorter than MIN_KEY_BYTES is replaced by a new one."""
    monkeypatch.setenv("RELPOS_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(identity.internals, "option_if_set", lambda name: None)
    monkeypatch.setattr(identity, "_key", None)
    (tmp_path / "identity.key").write_text("\n")
    sealed = identity.seal("teacher", "ABC234", "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
    kept = (tmp_path / "identity.key").read_bytes().strip()
    assert len(kept) >= identity.MIN_KEY_BYTES and "too short" in caplog.text
    monkeypatch.setattr(identity, "_key", None)  # a restart reads the new key
    assert identity.unseal(sealed, "ABC234") == ("teacher", "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39")
