"""The live-class store in one SQLite file: one machine, any number of threads, survives a restart.

The file is opened in WAL mode (readers never wait for the writer) with one connection per
store guarded by a lock, so Streamlit's script threads may share one store. Every change
runs in ``BEGIN IMMEDIATE``, so two stores on the same file (two processes on one machine)
never interleave a read-modify-write. A waiter in this process is woken at once by the
store that made the change (stores on one file share a :class:`~relpos.classroom.notifier.Notifier`);
a change made by another process is seen at the next poll (0.2 s).

No SQLite error reaches a page as it is: a file or disk that refuses (read-only, full, not a
database, deleted while the server runs) raises :class:`~relpos.classroom.errors.StoreFaultError`
saying what is wrong with which file and what to do (:func:`fault`); a file another process
keeps locked too long, :class:`~relpos.classroom.errors.StoreUnavailableError`. The file is
opened at the first call, and again after a fault (someone fixed it), except after it was
deleted: that needs a restart, so a lesson never goes on silently in a file nobody can find.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from relpos.classroom import presence, records, validation
from relpos.classroom.errors import StoreFaultError, StoreUnavailableError, UnknownClassError
from relpos.classroom.model import Answer, Class, Student
from relpos.classroom.notifier import Notifier
from relpos.classroom.store import ClassStore, T, Watch

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, record TEXT NOT NULL, version INTEGER NOT NULL,
    activity INTEGER NOT NULL DEFAULT 0, gone_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS classes_gone_at ON classes (gone_at);
CREATE TABLE IF NOT EXISTS students (
    code TEXT NOT NULL, token TEXT NOT NULL, number INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (code, token), UNIQUE (code, number));
CREATE TABLE IF NOT EXISTS questions (
    code TEXT NOT NULL, id INTEGER NOT NULL, record TEXT NOT NULL, PRIMARY KEY (code, id));
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL, question_id INTEGER NOT NULL, token TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (code, question_id, token));
CREATE TABLE IF NOT EXISTS presence (
    code TEXT NOT NULL, token TEXT NOT NULL, holder TEXT NOT NULL, seen_at REAL NOT NULL,
    PRIMARY KEY (code, token, holder));
CREATE TABLE IF NOT EXISTS health (id INTEGER PRIMARY KEY, checked_at REAL NOT NULL);
"""
#: SQLite's answers that mean "another process holds the file for a moment": try again.
_BUSY = {"SQLITE_BUSY", "SQLITE_LOCKED"}
_TABLES = ("answers", "questions", "presence", "students", "classes")
_NOTIFIERS: dict[str, Notifier] = {}
_NOTIFIERS_LOCK = threading.Lock()


def _notifier_for(path: Path) -> Notifier:
    with _NOTIFIERS_LOCK:
        return _NOTIFIERS.setdefault(str(path), Notifier())


def fault(path: Path, error: Exception) -> StoreUnavailableError:
    """The refusal a page shows for `error` (an ``sqlite3.Error`` or ``OSError``) on the file `path`.

    >>> fault(Path("/data/classes.sqlite3"), sqlite3.OperationalError("attempt to write a readonly database")).message
    "The class store at /data/classes.sqlite3 is read-only, so no class can be started or changed: give the ..."
    """
    name, text = getattr(error, "sqlite_errorname", ""), str(error).lower()
    if name in _BUSY or "locked" in text:
        return StoreUnavailableError("The class server cannot be reached just now; try again in a moment.")
    return StoreFaultError(f"The class store at {path} {_what_is_wrong(name, text, error).format(folder=path.parent)}")


#: What is wrong and what to do, by what SQLite (or the system) said: (names, words in the text, sentence).
_WRONG = (
    (
        ("SQLITE_READONLY", "SQLITE_PERM"),
        ("readonly", "read-only", "permission denied"),
        "is read-only, so no class can be started or changed: give the server's user write access to {folder} "
        "and its files (or set RELPOS_DATA_DIR to a writable folder), then try again.",
    ),
    (
        ("SQLITE_FULL",),
        ("full", "no space left"),
        "cannot grow: the disk is full. Free some space on the disk of {folder} "
        "(or set RELPOS_DATA_DIR to another disk), then try again.",
    ),
    (
        ("SQLITE_NOTADB", "SQLITE_CORRUPT"),
        ("not a database", "malformed"),
        "is not a database (or is damaged): move that file away and try again; "
        "a new, empty store is made in its place.",
    ),
    (
        ("SQLITE_CANTOPEN",),
        ("unable to open",),
        "cannot be opened: {folder} must exist and be writable by the server's user "
        "(or set RELPOS_DATA_DIR to a folder that is).",
    ),
)


def _what_is_wrong(name: str, text: str, error: Exception) -> str:
    """The end of :func:`fault`'s sentence: what is wrong, then what to do (``{folder}`` to fill in)."""
    for names, words, sentence in _WRONG:
        if name.startswith(names) or any(word in text for word in words):
            return sentence
    return f"could not be read or written ({_short(error)}): check the disk and the file, then try again."


def _short(error: Exception) -> str:
    return (getattr(error, "sqlite_errorname", "") or type(error).__name__) + f": {str(error)[:80]}"


def _record(db: _Transaction, code: str) -> Class:
    row = db.execute("SELECT record FROM classes WHERE code = ?", (code,)).fetchone()
    if row is None:  # deleted (expired) since the caller looked
        raise UnknownClassError(f"There is no class with the code {code}; check the code on the projector.")
    return records.load_class(row[0])


class _Transaction:
    """A connection inside ``BEGIN IMMEDIATE``, and whether anything was written."""

    def __init__(self, db: sqlite3.Connection):
        self.db, self.changed = db, False

    def execute(self, sql: str, args=()) -> sqlite3.Cursor:
        self.changed = self.changed or not sql.startswith("SELECT")
        return self.db.execute(sql, args)

    def executemany(self, sql: str, rows) -> None:
        self.changed = True
        self.db.executemany(sql, rows)


class SqliteStore(ClassStore):
    """A :class:`~relpos.classroom.store.ClassStore` in the SQLite file `path` (created with its folder).

    Parameters
    ----------
    path : str or Path
    **options
        ``clock`` and ``rng``, as for :class:`~relpos.classroom.store.ClassStore`.
    """

    def __init__(self, path, **options):
        self.path = Path(path).resolve()
        super().__init__(notifier=_notifier_for(self.path), **options)
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._inode: int | None = None  # of the file this store opened (a deleted file is noticed)
        self._closed = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._drop_connection()

    def _drop_connection(self) -> None:
        """Close the connection; the next call opens the file again (unless the store is closed)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db = None

    def check(self) -> None:
        """Write the health row (and purge, when due): raises unless the file can be read and written now."""
        self.purge_if_due()
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO health (id, checked_at) VALUES (1, ?)", (self._clock(),))

    # ------------------------------------------------------------ plumbing

    def _connection(self) -> sqlite3.Connection:
        """The open connection (opened now if need be), once the file is known to be the one opened."""
        if self._closed:  # a thread still holding a closed store (a test's, a stopped server's)
            raise StoreUnavailableError("This class store is closed.")
        if self._db is None:
            self._db = self._open_file()
        elif self._inode is not None and self._file_inode() != self._inode:
            raise StoreFaultError(
                f"The class store at {self.path} was deleted or replaced while the server ran: restart the "
                "server (it starts a new, empty store; the classes in the old file cannot be reached any more)."
            )
        return self._db

    def _file_inode(self) -> int | None:
        try:
            return os.stat(self.path).st_ino
        except OSError:
            return None

    def _open_file(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # autocommit; each change opens its own transaction (BEGIN IMMEDIATE)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            # a purged class's nicknames and answers are overwritten in the file, not just unlinked
            db.execute("PRAGMA secure_delete=ON")
            db.executescript(_SCHEMA)
        except BaseException:
            db.close()
            raise
        self._inode = self._file_inode()
        return db

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """SQLite's and the file system's errors as the refusal a page shows (:func:`fault`);
        after one the connection is opened again at the next call (the file may be fixed by then)."""
        try:
            yield
        except sqlite3.IntegrityError:
            raise  # a taken code (see _insert_class): the store's own business
        except (sqlite3.Error, OSError) as error:
            refusal = fault(self.path, error)
            if isinstance(refusal, StoreFaultError):
                self._drop_connection()
            raise refusal from error

    @contextmanager
    def _write(self, *codes: str) -> Iterator[_Transaction]:
        """One transaction on `codes`; their waiters are woken only if it wrote (a throttled flood wakes nobody).

        Whatever fails, COMMIT included, raises: a change that was not stored is never reported stored.
        """
        with self._lock, self._faults():
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")  # waits up to 10 s for another process's write
            transaction = _Transaction(db)
            try:
                yield transaction
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        for code in codes if transaction.changed else ():
            self._changed(code)

    def _one(self, sql: str, *args):
        with self._lock, self._faults():
            row = self._connection().execute(sql, args).fetchone()
        return None if row is None else row[0]

    def _all(self, sql: str, *args) -> list:
        with self._lock, self._faults():
            return [row[0] for row in self._connection().execute(sql, args).fetchall()]

    # ------------------------------------------------------------ classes

    def _insert_class(self, record: Class) -> bool:
        try:
            with self._write(record.code) as db:
                db.execute(
                    "INSERT INTO classes (code, record, version, gone_at) VALUES (?, ?, ?, ?)",
                    (record.code, records.dump(record), record.version, record.gone_at),
                )
        except sqlite3.IntegrityError:
            return False
        return True

    def _count_kept(self, now: float) -> int:
        return self._one("SELECT COUNT(*) FROM classes WHERE gone_at > ?", now)

    def _load_class(self, code: str) -> Class | None:
        text = self._one("SELECT record FROM classes WHERE code = ?", code)
        return None if text is None else records.load_class(text)

    def _update_class(self, code: str, change: Callable[[Class], Class]) -> Class:
        with self._write(code) as db:
            old = _record(db, code)
            new = change(old)
            if new != old:
                db.execute(
                    "UPDATE classes SET record = ?, version = ?, gone_at = ? WHERE code = ?",
                    (records.dump(new), new.version, new.gone_at, code),
                )
            if new.question is not None and new.question != old.question:
                db.execute(
                    "INSERT OR REPLACE INTO questions (code, id, record) VALUES (?, ?, ?)",
                    (code, new.question.id, records.dump(new.question)),
                )
        return new

    def _counter(self, code: str, watch: Watch) -> int | None:
        column = "version" if watch == "state" else "activity"
        return self._one(f"SELECT {column} FROM classes WHERE code = ?", code)

    def versions(self, codes) -> dict[str, tuple[int, int] | None]:
        """Both counters of every class in `codes`, 500 codes a query (a watcher of 1,000
        classes reads them all five times a second: ten queries, not 2,000)."""
        codes, found = list(codes), {}
        for start in range(0, len(codes), 500):
            chunk = codes[start : start + 500]
            sql = f"SELECT code, version, activity FROM classes WHERE code IN ({','.join('?' * len(chunk))})"
            with self._lock, self._faults():
                found.update(
                    {code: (state, activity) for code, state, activity in self._connection().execute(sql, chunk)}
                )
        return {code: found.get(code) for code in codes}

    def _delete_gone(self, now: float) -> int:
        codes = self._all("SELECT code FROM classes WHERE gone_at <= ?", now)
        if codes:
            with self._write(*codes) as db:
                for table in _TABLES:
                    db.executemany(f"DELETE FROM {table} WHERE code = ?", [(code,) for code in codes])
        return len(codes)

    # ------------------------------------------------------------ students

    def _add_student(self, code: str, token: str, make: Callable[[int, Callable[[str], bool]], Student]) -> Student:
        with self._write(code) as db:
            (number,) = db.execute(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM students WHERE code = ?", (code,)
            ).fetchone()
            rows = db.execute("SELECT record FROM students WHERE code = ?", (code,)).fetchall()
            names = {validation.nickname_key(n) for row in rows if (n := records.load_student(row[0]).nickname)}
            student = make(number, lambda name: validation.nickname_key(name) in names)
            db.execute(
                "INSERT INTO students (code, token, number, record) VALUES (?, ?, ?, ?)",
                (code, student.token, student.number, records.dump(student)),
            )
            db.execute(
                "INSERT OR REPLACE INTO presence VALUES (?, ?, ?, ?)",
                (code, student.token, presence.JOINED, presence.join_lease(student)),
            )
            db.execute("UPDATE classes SET activity = activity + 1 WHERE code = ?", (code,))
        return student

    def _delete_student(self, code: str, student: Student) -> None:
        with self._write(code) as db:
            for table in ("answers", "presence", "students"):
                db.execute(f"DELETE FROM {table} WHERE code = ? AND token = ?", (code, student.token))
            db.execute("UPDATE classes SET activity = activity + 1 WHERE code = ?", (code,))

    def _load_student(self, code: str, token: str) -> Student | None:
        text = self._one("SELECT record FROM students WHERE code = ? AND token = ?", code, token)
        return None if text is None else records.load_student(text)

    def _load_students(self, code: str) -> list[Student]:
        return [records.load_student(text) for text in self._all("SELECT record FROM students WHERE code = ?", code)]

    def _count_students(self, code: str) -> int:
        return self._one("SELECT COUNT(*) FROM students WHERE code = ?", code)

    def _load_questions(self, code: str):
        return [records.load_question(text) for text in self._all("SELECT record FROM questions WHERE code = ?", code)]

    # ------------------------------------------------------------ who is here

    def _seated(self, code: str, tokens: list[str]) -> set[str]:
        return set(tokens) & set(self._all("SELECT token FROM students WHERE code = ?", code))

    def _load_presence(self, code: str) -> dict[presence.Lease, float]:
        with self._lock, self._faults():
            rows = self._connection().execute("SELECT token, holder, seen_at FROM presence WHERE code = ?", (code,))
            return {(token, holder): seen for token, holder, seen in rows}

    def _update_presence(self, code: str, holder: str, here: list[str], gone: list[str], now: float) -> None:
        with self._write() as db:
            rows = db.execute("SELECT token, holder, seen_at FROM presence WHERE code = ?", (code,))
            before = {(token, owner): seen for token, owner, seen in rows}
            kept = [(code, token, holder) for token in here]
            db.execute("DELETE FROM presence WHERE code = ? AND seen_at <= ?", (code, now - presence.LEASE))
            dropped = [(code, token, holder) for token in gone] + [(code, token, presence.JOINED) for token in here]
            db.executemany("DELETE FROM presence WHERE code = ? AND token = ? AND holder = ?", dropped)
            db.executemany("INSERT OR REPLACE INTO presence VALUES (?, ?, ?, ?)", [(*lease, now) for lease in kept])
            after = presence.renewed(before, holder, here, gone, now)
            moved = presence.present(before, now - presence.LEASE) != presence.present(after, now - presence.LEASE)
            if moved:
                db.execute("UPDATE classes SET activity = activity + 1 WHERE code = ?", (code,))
        if moved:  # a renewal alone wakes nobody
            self._changed(code)

    # ------------------------------------------------------------ answers

    def _update_answer(
        self, code: str, question_id: int, token: str, change: Callable[[Class, Answer | None], tuple[Answer | None, T]]
    ) -> T:
        with self._write(code) as db:
            record = _record(db, code)
            keys = (code, question_id, token)
            row = db.execute(
                "SELECT record FROM answers WHERE code = ? AND question_id = ? AND token = ?", keys
            ).fetchone()
            keep, result = change(record, None if row is None else records.load_answer(row[0]))
            if keep is not None:
                db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (*keys, records.dump(keep)))
                db.execute("UPDATE classes SET activity = activity + 1 WHERE code = ?", (code,))
        return result

    def _load_answer(self, code: str, question_id: int, token: str) -> Answer | None:
        sql = "SELECT record FROM answers WHERE code = ? AND question_id = ? AND token = ?"
        text = self._one(sql, code, question_id, token)
        return None if text is None else records.load_answer(text)

    def _load_answers(self, code: str, question_id: int) -> list[Answer]:
        sql = "SELECT record FROM answers WHERE code = ? AND question_id = ?"
        return [records.load_answer(text) for text in self._all(sql, code, question_id)]
