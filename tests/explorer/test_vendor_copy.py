"""The live panel's copy of plotly.js is made safely by many sessions at once.

On a fresh server a whole class opens the Explorer together, and every session that finds
no copy makes one: none may fail, and the copy in place is always whole.
"""

from __future__ import annotations

import threading

from relpos.ui import live


def _copy_at_once(sessions: int) -> list[str]:
    """`sessions` threads call vendor_plotly at the same moment; the errors they met."""
    start, errors = threading.Barrier(sessions), []

    def copy():
        start.wait()
        try:
            live.vendor_plotly()
        except Exception as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=copy) for _ in range(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_sessions_copying_at_once_never_fail(tmp_path, monkeypatch):
    target = tmp_path / "vendor" / "plotly.min.js"
    monkeypatch.setattr(live, "VENDORED_PLOTLY", target)
    expected = live.PLOTLY_JS.read_bytes()
    for _ in range(5):
        target.unlink(missing_ok=True)
        assert _copy_at_once(12) == []
        assert target.read_bytes() == expected
        assert sorted(path.name for path in target.parent.iterdir()) == ["plotly.min.js"], "no temporary file left"
