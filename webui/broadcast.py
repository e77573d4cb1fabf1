"""A versioned signal that any number of waiting threads (one per browser stream) can follow.

>>> b = Broadcaster()
>>> b.publish(b"frame")
1
>>> b.wait(0, timeout=0.1)
(1, b'frame')
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["Broadcaster"]


class Broadcaster:
    """Holds the latest value and its version; :meth:`wait` returns as soon as a newer one is published."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.version = 0
        self.value: Any = None
        self.closed = False

    def publish(self, value: Any = None) -> int:
        """Publish a new value (or just a new version); wakes every waiter."""
        with self._cond:
            self.version += 1
            if value is not None:
                self.value = value
            self._cond.notify_all()
            return self.version

    def wait(self, seen: int, timeout: float) -> tuple[int, Any]:
        """Wait until the version is newer than ``seen`` (or ``timeout`` passes); returns (version, value)."""
        with self._cond:
            if self.version <= seen and not self.closed:
                self._cond.wait_for(lambda: self.version > seen or self.closed, timeout)
            return self.version, self.value

    def close(self) -> None:
        """Wake every waiter for good (the server is stopping)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()
