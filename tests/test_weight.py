"""The page weight middleware (relpos/static/weight.py), driven as plain ASGI.

Each test sends one request through :class:`WeightMiddleware` in front of a small app
(a static folder of its own, or an inner app answering like Streamlit) and reads the
messages it sends back: encodings negotiated from ``Accept-Encoding`` (q-values,
``identity``, ``*``), ``Vary``, ETags and 304s, cache policies, HEAD, nothing encoded
twice, streams and WebSockets untouched, and each body compressed once.
"""

from __future__ import annotations

import gzip

import brotli
import pytest

from relpos.static import compression, weight
from tests.support.apptest import ROOT
from tests.support.streamlit_client import run_in_own_loop

JS = b"export const answer = 42;\n" * 400  # compressible, well above MIN_SIZE
HTML = b"<!doctype html><html><body>" + b"<p>relpos</p>" * 200 + b"</body></html>"


def request(app, path="/", *, method="GET", headers=None, scope_type="http"):
    """Send one request through `app`; (status, headers as a dict of str, body, messages)."""
    scope = {
        "type": scope_type,
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()],
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    run_in_own_loop(app(scope, receive, send))
    start = next(message for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    found = {key.decode().lower(): value.decode() for key, value in start["headers"]}
    return start["status"], found, body, sent


def decoded(headers, body):
    encoding = headers.get("content-encoding", "identity")
    return {"br": brotli.decompress, "gzip": gzip.decompress, "identity": bytes}[encoding](body)


class Inner:
    """An app answering like Streamlit's routes; records the requests that reach it."""

    def __init__(self, body=HTML, content_type="text/html; charset=utf-8", *, extra=(), length=True, status=200):
        self.body, self.content_type, self.extra, self.length, self.status = body, content_type, extra, length, status
        self.scopes = []

    async def __call__(self, scope, receive, send):
        self.scopes.append(scope)
        headers = [(b"content-type", self.content_type.encode()), *self.extra]
        if self.length:
            headers.append((b"content-length", str(len(self.body)).encode()))
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        half = len(self.body) // 2  # in two parts, as a file response would
        await send({"type": "http.response.body", "body": self.body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": self.body[half:], "more_body": False})


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "static"
    (root / "static" / "js").mkdir(parents=True)
    (root / "index.html").write_bytes(HTML)
    (root / "manifest.json").write_bytes(b'{"name": "app"}')
    (root / "static" / "js" / "index.DormvYxC.js").write_bytes(JS)
    (root / "static" / "media" / "font.AbCd1234.woff2").parent.mkdir(parents=True)
    (root / "static" / "media" / "font.AbCd1234.woff2").write_bytes(b"\x00woff2" * 400)
    return root


@pytest.fixture
def served(folder, tmp_path):
    """The middleware on the test folder, with an inner app that must not be reached for it."""
    inner = Inner(body=b"inner", content_type="text/plain")
    store = weight.CompressedStore(tmp_path / "cache")
    yield weight.WeightMiddleware(inner, static_root=folder, store=store), inner, store
    store.close()


# --- negotiation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip, deflate, br, zstd", "br"),  # Chromium's header
        ("br", "br"),
        ("gzip", "gzip"),
        ("gzip;q=1.0, br;q=0.5", "gzip"),
        ("br;q=0.2, gzip;q=0.8", "gzip"),
        ("BR; Q=0.9, gzip;q=0.1", "br"),
        ("br;q=0, gzip;q=0", "identity"),
        ("br;q=0, *", "gzip"),
        ("*", "br"),
        ("*;q=0.5, br;q=0.1", "gzip"),
        ("identity", "identity"),
        ("identity;q=1, br;q=0.5", "identity"),
        ("identity;q=0.1, gzip;q=0.5", "gzip"),
        ("deflate, compress", "identity"),
        ("", "identity"),
        (None, "identity"),
        ("gzip;q=oops, br", "br"),
        ("*;q=0", "identity"),  # nothing acceptable: the body is still sent as is
    ],
)
def test_negotiation(header, expected):
    assert weight.negotiate(header) == expected


# --- static files -------------------------------------------------------------------------


def test_a_hashed_bundle_is_sent_in_brotli_with_a_long_max_age(served):
    app, inner, _ = served
    status, headers, body, _ = request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["content-encoding"] == "br"
    assert brotli.decompress(body) == JS and len(body) < len(JS) / 10
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(body)
    assert headers["content-type"].startswith("text/javascript")
    assert inner.scopes == [], "Streamlit never sees a file the middleware serves"


@pytest.mark.parametrize(("accept", "encoding"), [("gzip", "gzip"), ("identity", None), (None, None)])
def test_each_encoding_or_none(served, accept, encoding):
    app, _, _ = served
    status, headers, body, _ = request(
        app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": accept} if accept else {}
    )
    assert status == 200 and headers.get("content-encoding") == encoding
    assert decoded(headers, body) == JS
    assert headers["vary"] == "Accept-Encoding", "a cache must keep the variants apart"


def test_the_etag_names_the_variant_and_a_revalidation_gets_304(served):
    app, _, _ = served
    _, first, _, _ = request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br"})
    _, plain, _, _ = request(app, "/static/js/index.DormvYxC.js")
    assert first["etag"] != plain["etag"], "two encodings of one file are two representations"
    for tag in (first["etag"], plain["etag"], f"W/{first['etag']}", f'"other", {first["etag"]}', "*"):
        status, headers, body, _ = request(
            app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br", "If-None-Match": tag}
        )
        assert (status, body) == (304, b""), tag
        assert headers["etag"] == first["etag"] and headers["vary"] == "Accept-Encoding"
        assert headers["cache-control"] == weight.IMMUTABLE
    status, _, _, _ = request(app, "/static/js/index.DormvYxC.js", headers={"If-None-Match": '"something-else"'})
    assert status == 200


def test_the_index_page_is_revalidated_not_kept(served):
    app, _, _ = served
    status, headers, body, _ = request(app, "/", headers={"Accept-Encoding": "br"})
    assert status == 200 and brotli.decompress(body) == HTML
    assert headers["cache-control"] == weight.REVALIDATE and headers["etag"]
    status, _, _, _ = request(app, "/", headers={"Accept-Encoding": "br", "If-None-Match": headers["etag"]})
    assert status == 304


def test_a_font_is_not_encoded_again(served):
    app, _, _ = served
    status, headers, body, _ = request(app, "/static/media/font.AbCd1234.woff2", headers={"Accept-Encoding": "br"})
    assert status == 200 and "content-encoding" not in headers and "vary" not in headers
    assert body == b"\x00woff2" * 400 and headers["cache-control"] == weight.IMMUTABLE and headers["etag"]


def test_a_small_file_goes_as_it_is(served):
    app, _, _ = served
    status, headers, body, _ = request(app, "/manifest.json", headers={"Accept-Encoding": "br"})
    assert status == 200 and body == b'{"name": "app"}' and "content-encoding" not in headers


def test_head_sends_the_headers_of_get_and_no_body(served):
    app, _, _ = served
    _, got, body, _ = request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br"})
    status, head, nothing, _ = request(
        app, "/static/js/index.DormvYxC.js", method="HEAD", headers={"Accept-Encoding": "br"}
    )
    assert status == 200 and nothing == b""
    assert head["content-length"] == str(len(body)) and head["etag"] == got["etag"]
    assert head["content-encoding"] == "br"


def test_the_static_files_sit_under_the_base_url(folder, tmp_path):
    inner = Inner(body=b"inner", content_type="text/plain")
    app = weight.WeightMiddleware(inner, static_root=folder, base_url="/class/", store=weight.CompressedStore(None))
    status, _headers, body, _ = request(app, "/class/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br"})
    assert status == 200 and brotli.decompress(body) == JS
    assert request(app, "/class", headers={"Accept-Encoding": "br"})[0] == 200
    request(app, "/static/js/index.DormvYxC.js")
    assert len(inner.scopes) == 1, "outside the base URL Streamlit answers"


def test_a_file_is_compressed_once_then_kept_on_disk(folder, tmp_path):
    store = weight.CompressedStore(tmp_path / "cache")
    app = weight.WeightMiddleware(Inner(), static_root=folder, store=store)
    for _ in range(5):
        request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br"})
    store.wait_background()
    assert store.made["quick"] + store.made["final"] == 1, store.made  # small: final at once
    assert sorted(path.suffix for path in (tmp_path / "cache").iterdir()) == [".br"]
    # a new server (a new store on the same folder) compresses nothing
    again = weight.CompressedStore(tmp_path / "cache")
    app = weight.WeightMiddleware(Inner(), static_root=folder, store=again)
    _, _headers, body, _ = request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br"})
    assert brotli.decompress(body) == JS and again.made == {"quick": 0, "final": 0}


def test_a_large_file_is_sent_at_once_and_its_best_variant_made_in_the_background(folder, tmp_path, monkeypatch):
    big = bytes(range(256)) * 200 + JS * 20  # over the quick-compression threshold
    (folder / "static" / "js" / "PlotlyChart.D9Z0_fxz.js").write_bytes(big)
    store = weight.CompressedStore(tmp_path / "cache")
    app = weight.WeightMiddleware(Inner(), static_root=folder, store=store)
    _, _, quick, _ = request(app, "/static/js/PlotlyChart.D9Z0_fxz.js", headers={"Accept-Encoding": "br"})
    store.wait_background()
    _, _, final, _ = request(app, "/static/js/PlotlyChart.D9Z0_fxz.js", headers={"Accept-Encoding": "br"})
    assert brotli.decompress(quick) == brotli.decompress(final) == big
    assert store.made == {"quick": 1, "final": 1}
    assert final == brotli.compress(big, quality=compression.BROTLI_FINAL)


def test_precompress_fills_the_disk_cache_once(folder, tmp_path):
    store = weight.CompressedStore(tmp_path / "cache")
    written, present = weight.precompress(weight.StaticFolder(folder), store)
    assert (written, present) == (4, 0)  # index.html and the bundle, in br and gzip
    assert weight.precompress(weight.StaticFolder(folder), store) == (0, 4)


# --- answers that pass through to Streamlit -----------------------------------------------


def test_streamlit_never_sees_accept_encoding_so_nothing_is_encoded_twice():
    inner = Inner()
    app = weight.WeightMiddleware(inner, store=weight.CompressedStore(None))
    status, headers, body, _ = request(app, "/explorer", headers={"Accept-Encoding": "gzip, br", "Cookie": "a=b"})
    assert [name for name, _ in inner.scopes[0]["headers"]] == [b"cookie"]
    assert status == 200 and headers["content-encoding"] == "br" and brotli.decompress(body) == HTML
    assert headers["vary"] == "Accept-Encoding" and headers["etag"]


def test_an_answer_already_encoded_passes_as_it_is():
    packed = gzip.compress(HTML)
    inner = Inner(body=packed, extra=[(b"content-encoding", b"gzip")])
    app = weight.WeightMiddleware(inner, store=weight.CompressedStore(None))
    status, headers, body, _ = request(app, "/x", headers={"Accept-Encoding": "br"})
    assert status == 200 and headers["content-encoding"] == "gzip" and body == packed


def test_a_passed_through_answer_gets_an_etag_and_a_304_keeping_its_cookies():
    cookie = (b"set-cookie", b"_streamlit_xsrf=1; Path=/")
    app = weight.WeightMiddleware(Inner(extra=[cookie]), store=weight.CompressedStore(None))
    _, headers, _, _ = request(app, "/explorer", headers={"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip" and headers["set-cookie"].startswith("_streamlit_xsrf")
    assert headers["cache-control"] == weight.REVALIDATE, "no freshness given: revalidate"
    status, again, body, _ = request(
        app, "/explorer", headers={"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]}
    )
    assert (status, body) == (304, b"") and again["etag"] == headers["etag"]


def test_public_without_a_lifetime_becomes_revalidated():
    """The Explorer panel's files come from Streamlit as ``Cache-Control: public``, nothing more."""
    inner = Inner(body=JS, content_type="text/javascript", extra=[(b"cache-control", b"public")])
    app = weight.WeightMiddleware(inner, store=weight.CompressedStore(None))
    _, headers, _, _ = request(
        app, "/_stcore/bidi-components/relpos.explorer_panel/explorer_panel.js", headers={"Accept-Encoding": "br"}
    )
    assert headers["cache-control"] == "public, no-cache" and headers["etag"]
    status, _, _, _ = request(
        app,
        "/_stcore/bidi-components/relpos.explorer_panel/explorer_panel.js",
        headers={"If-None-Match": headers["etag"]},
    )
    assert status == 304


def test_a_body_passed_through_is_compressed_once_per_content():
    store = weight.CompressedStore(None)
    app = weight.WeightMiddleware(Inner(), store=store)
    for _ in range(4):
        request(app, "/explorer", headers={"Accept-Encoding": "br"})
    assert sum(store.made.values()) == 1, store.made


def test_head_passes_through_as_a_get_without_a_body():
    inner = Inner()
    app = weight.WeightMiddleware(inner, store=weight.CompressedStore(None))
    _, got, body, _ = request(app, "/explorer", headers={"Accept-Encoding": "br"})
    status, head, nothing, _ = request(app, "/explorer", method="HEAD", headers={"Accept-Encoding": "br"})
    assert inner.scopes[-1]["method"] == "GET" and status == 200 and nothing == b""
    assert head["etag"] == got["etag"] and head["content-length"] == str(len(body))


@pytest.mark.parametrize(
    "inner",
    [
        Inner(length=False),  # a stream (server-sent events, a download of unknown size)
        Inner(status=206, extra=[(b"content-range", b"bytes 0-99/1000")]),  # a range of a media file
        Inner(status=404),
    ],
    ids=["stream", "range", "404"],
)
def test_streams_ranges_and_errors_pass_untouched(inner):
    app = weight.WeightMiddleware(inner, store=weight.CompressedStore(None))
    _status, headers, body, sent = request(app, "/media/x", headers={"Accept-Encoding": "br"})
    assert body == HTML and "content-encoding" not in headers and "etag" not in headers
    assert len([m for m in sent if m["type"] == "http.response.body"]) == 2, "forwarded part by part"


def test_a_post_and_a_websocket_are_not_touched():
    seen = []

    async def inner(scope, receive, send):
        seen.append((scope["type"], scope["headers"], send))

    app = weight.WeightMiddleware(inner, store=weight.CompressedStore(None))

    async def send(message):
        pass

    async def receive():
        return {}

    for kind, method in (("websocket", "GET"), ("http", "POST")):
        scope = {"type": kind, "method": method, "path": "/_stcore/stream", "headers": [(b"accept-encoding", b"br")]}
        run_in_own_loop(app(scope, receive, send))
    assert all(headers == [(b"accept-encoding", b"br")] and given is send for _, headers, given in seen), (
        "the socket's send is Streamlit's own: back-pressure finds its transport through it"
    )


def shorter(data: bytes) -> bytes:
    return data[: len(data) // 2]


def test_a_transformed_file_is_served_changed_and_revalidated(folder, tmp_path):
    store = weight.CompressedStore(tmp_path / "cache")
    changes = {"static/js/index.*.js": weight.Transform(shorter, "halves")}
    app = weight.WeightMiddleware(Inner(), static_root=folder, store=store, transforms=changes)
    for accept in ("br", "gzip", "identity"):
        status, headers, body, _ = request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": accept})
        assert status == 200 and decoded(headers, body) == shorter(JS), accept
        # the hashed name no longer names the bytes sent: asked again, not kept a year
        assert headers["cache-control"] == "no-cache"
        assert headers["etag"].strip('"').startswith(weight.digest_of(shorter(JS)))
    status, _, _, _ = request(app, "/static/js/index.DormvYxC.js", headers={"If-None-Match": headers["etag"]})
    assert status == 304
    # the disk cache holds the changed file's variants
    other = weight.CompressedStore(tmp_path / "c2")
    written, _ = weight.precompress(weight.StaticFolder(folder, transforms=changes), other)
    assert written == 4
    assert brotli.decompress((tmp_path / "c2" / f"{weight.digest_of(shorter(JS))}.br").read_bytes()) == shorter(JS)


def test_a_transform_that_declines_leaves_the_file_as_shipped(folder, tmp_path):
    app = weight.WeightMiddleware(
        Inner(),
        static_root=folder,
        store=weight.CompressedStore(None),
        transforms={"static/js/*.js": weight.Transform(lambda _: None, "declines")},
    )
    status, headers, body, _ = request(app, "/static/js/index.DormvYxC.js", headers={"Accept-Encoding": "br"})
    assert status == 200 and brotli.decompress(body) == JS
    assert headers["etag"].strip('"').startswith(weight.digest_of(JS))


def test_a_change_is_made_once_and_kept_on_disk_under_its_key(folder, tmp_path):
    made = []

    def counted(data: bytes) -> bytes:
        made.append(len(data))
        return shorter(data)

    def served(key: str) -> bytes:
        changes = {"static/js/index.*.js": weight.Transform(counted, key)}
        static = weight.StaticFolder(folder, transforms=changes, cache_dir=tmp_path / "cache")
        return static.body(static.get("/static/js/index.DormvYxC.js"))

    assert served("halves") == served("halves") == shorter(JS)
    assert len(made) == 1, "a second server reads the change back from disk"
    served("halves, by other code")  # another key: made again
    assert len(made) == 2


# --- the app's lines in every page's head ---------------------------------------------------

PAGE = b"<!doctype html><html><head><title>app</title></head><body>" + b"<p>relpos</p>" * 200 + b"</body></html>"
STYLE = "<style>button { color: #171614; }</style>"


def test_with_head_puts_the_lines_just_before_the_head_closes():
    assert weight.with_head(PAGE, STYLE).startswith(b"<!doctype html><html><head><title>app</title>" + STYLE.encode())
    assert weight.with_head(PAGE, "") is None, "nothing to add: the page as it is"
    assert weight.with_head(b"<p>no head</p>", STYLE) is None


def test_every_page_carries_the_head_lines_from_the_folder_and_from_streamlit(folder, tmp_path):
    """``/`` comes from the static folder, ``/quiz`` from Streamlit (its index.html, for a
    page path): both carry the lines; a script or a JSON answer is left as it is."""
    (folder / "index.html").write_bytes(PAGE)
    store = weight.CompressedStore(tmp_path / "cache")
    changes = {"index.html": weight.Transform(lambda page: weight.with_head(page, STYLE), "style")}
    app = weight.WeightMiddleware(Inner(body=PAGE), static_root=folder, store=store, transforms=changes, head=STYLE)
    for path in ("/", "/index.html", "/quiz"):
        for accept in ("br", "identity"):
            status, headers, body, _ = request(app, path, headers={"Accept-Encoding": accept})
            assert status == 200 and decoded(headers, body) == weight.with_head(PAGE, STYLE), (path, accept)
    json_app = weight.WeightMiddleware(Inner(body=b'{"a": "</head>"}', content_type="application/json"), head=STYLE)
    assert request(json_app, "/_stcore/host-config")[2] == b'{"a": "</head>"}'
    store.close()


def test_the_app_sends_the_themes_style_sheet_in_every_pages_head():
    from relpos.server import asgi
    from relpos.ui.theme import THEME_CSS

    middleware = asgi.app_options(head=THEME_CSS)["middleware"][0]
    assert middleware.kwargs["head"] == THEME_CSS and "index.html" in middleware.kwargs["transforms"]
    assert "THEME_CSS" in (ROOT / "app.py").read_text(encoding="utf-8").split("st.App(")[1].split("\n")[0]
