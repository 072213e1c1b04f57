"""How a store wakes the threads of its process that wait for a class to change.

A store calls :meth:`Notifier.notify` after every change it stores; a waiter
(:meth:`relpos.classroom.counters.ChangeCounters.wait_for_change`, the server's event streams)
sleeps in :meth:`Notifier.wait` or :meth:`Notifier.wait_any` until then. Stores of one
process that see the same data share one notifier.
"""

from __future__ import annotations

import threading

__all__ = ["Notifier"]


class Notifier:
    """Wakes the threads of this process that wait for a change of one class.

    A waiter notes :meth:`generation` of its class before it reads a version, then waits
    for that generation to move; so a change between the read and the wait is never
    missed, and a change of another class only costs a waiter an in-memory comparison.
    """

    def __init__(self):
        self._condition = threading.Condition()
        self._generations: dict[str, int] = {}
        self._everything = 0  # moved by notify_all (a reconnect may have missed changes)
        self._total = 0  # moved by every notification (a watcher of many classes waits on it)

    def generation(self, code: str) -> tuple[int, int]:
        return self._generations.get(code, 0), self._everything

    @property
    def total(self) -> int:
        """Notifications so far, of any class (see :meth:`wait_any`)."""
        return self._total

    def notify(self, code: str) -> None:
        with self._condition:
            self._generations[code] = self._generations.get(code, 0) + 1
            self._total += 1
            self._condition.notify_all()

    def notify_all(self) -> None:
        with self._condition:
            self._everything += 1
            self._total += 1
            self._condition.notify_all()

    def wait_any(self, seen_total: int, timeout: float) -> None:
        """Return when any class was notified since :attr:`total` was `seen_total`, or after `timeout` s."""
        with self._condition:
            self._condition.wait_for(lambda: self._total != seen_total, timeout)

    def wait(self, code: str, seen: tuple[int, int], timeout: float) -> None:
        """Return when the generation of `code` differs from `seen`, or after `timeout` seconds."""
        with self._condition:
            self._condition.wait_for(lambda: self.generation(code) != seen, timeout)
