"""A store's change counters: how a page learns, without reading the class, that it changed.

Each class has two counters. ``version(code)`` counts changes of what students follow (stop,
pace, question, end, a removed seat); ``version(code, "activity")`` counts joins, stored
answers, removals and changes of who is here (what the projector and the roster show).
:meth:`ChangeCounters.wait_for_change` blocks until one moves; the process's
:class:`~relpos.classroom.notifier.Notifier` wakes it as soon as this process stores a change,
and it reads the counter again every :attr:`ChangeCounters.poll_seconds` for changes stored
elsewhere. :class:`relpos.classroom.store.ClassStore` has them; a backend reads a counter
(``_counter``) and calls ``_changed`` after every change it stores.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Literal

from relpos.classroom import codes
from relpos.classroom.errors import InputError, UnknownClassError
from relpos.classroom.notifier import Notifier

__all__ = ["ChangeCounters", "Watch"]

#: ``state``: what students follow; ``activity``: joins, answers and who is here.
Watch = Literal["state", "activity"]


class ChangeCounters(ABC):
    """A class's two change counters, read and waited on over a backend's ``_counter``.

    The store that has them sets ``_notifier`` (shared by the stores of one process that see
    the same data).
    """

    #: Longest a waiter sleeps before reading the version again (changes made elsewhere).
    poll_seconds = 0.2
    _notifier: Notifier

    @abstractmethod
    def _counter(self, code: str, watch: Watch) -> int | None:
        """Counter `watch` of class `code`; None when there is no such class."""

    def version(self, code: str, watch: Watch = "state") -> int:
        """A counter that grows with every change of `watch`."""
        if watch not in ("state", "activity"):
            raise InputError("watch is 'state' or 'activity'.")
        code = codes.normalise_code(code)
        current = self._counter(code, watch)
        if current is None:
            raise UnknownClassError(f"There is no class with the code {code}; check the code on the projector.")
        return current

    def wait_for_change(self, code: str, since: int, timeout: float, *, watch: Watch = "state") -> int:
        """Block until ``version(code, watch) != since`` or `timeout` seconds pass; the version then."""
        code = codes.normalise_code(code)
        deadline = time.monotonic() + max(0.0, min(float(timeout), 600.0))
        while True:
            seen = self._notifier.generation(code)
            current = self.version(code, watch)
            remaining = deadline - time.monotonic()
            if current != since or remaining <= 0:
                return current
            self._notifier.wait(code, seen, min(remaining, self.poll_seconds))

    def versions(self, codes) -> dict[str, tuple[int, int] | None]:
        """Both counters of each class (one read per class here; a backend reads them all at once)."""
        found = {}
        for code in codes:
            state = self._counter(code, "state")
            found[code] = None if state is None else (state, self._counter(code, "activity") or 0)
        return found

    @property
    def notifier(self) -> Notifier:
        """What wakes this process's waiters when a class changes (see :meth:`listen_for_changes`)."""
        return self._notifier

    def listen_for_changes(self) -> None:  # noqa: B027 (most backends need nothing)
        """Nothing to do here: a backend whose changes come from elsewhere starts its listener."""

    def _changed(self, code: str) -> None:
        """Wake this process's waiters on `code` (a backend calls it after every stored change)."""
        self._notifier.notify(code)
