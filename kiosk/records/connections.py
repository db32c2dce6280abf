"""One database connection per thread, all closed at once: the record stores' (SQLite and PostgreSQL) pool.

Neither sqlite3 nor psycopg connections are shared between threads here: the display's request
threads and the recorder each get their own, opened on first use.

>>> opened = []
>>> pool = PerThread(lambda: opened.append(object()) or opened[-1])
>>> pool.get() is pool.get(), len(opened)
(True, 1)
"""

from __future__ import annotations

import threading
from typing import Callable, Generic, TypeVar

C = TypeVar("C")


class PerThread(Generic[C]):
    """`get()` gives this thread's connection, opened by `open_conn` on first use (or again when
    `usable` says the last one is not); `close()` closes every one, `close_errors` ignored."""

    def __init__(self, open_conn: Callable[[], C], usable: Callable[[C], bool] = lambda conn: True,
                 close_errors: tuple[type[BaseException], ...] = ()) -> None:
        self._open = open_conn
        self._usable = usable
        self._close_errors = close_errors
        self._local = threading.local()
        self._all: list[C] = []
        self._lock = threading.Lock()

    def get(self) -> C:
        conn = getattr(self._local, "conn", None)
        if conn is None or not self._usable(conn):
            conn = self._open()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()  # type: ignore[attr-defined]
            except self._close_errors:
                pass
        self._local = threading.local()
