"""The live-class store in Redis: every replica of the app pointed at one Redis shares each class.

Keys (``P`` = ``relpos:class:CODE``), each with a time-to-live of the class's lifetime plus
five minutes, so Redis forgets a class by itself:

* ``P`` (hash): ``record`` (the class as JSON) and ``version``;
* ``P:activity``, ``P:joined``: counters (joins and stored answers; the last student number);
* ``P:students`` (hash token → student), ``P:questions`` (hash id → question);
* ``P:names`` (hash nickname key → token: who has a nickname, so two "Ada" become "Ada", "Ada (2)");
* ``P:answer:ID:TOKEN`` (one student's answer) and ``P:answered:ID`` (set of tokens);
* ``relpos:classes`` (sorted set code → when it may be deleted), for :meth:`expire`.

A read-modify-write WATCHes the keys it read and retries when another client changed them
first (``MULTI``/``EXEC``): the class record for a teacher's change, the class record and the
student's own answer key for an answer (so students answering at once never conflict). Each
change is published on ``relpos:changed:CODE``; one listener thread per store wakes its
process's waiters, and a waiter reads the version again at least every 0.5 s in case a
message was lost while reconnecting.

A store's calls share a pool of at most :data:`MAX_CONNECTIONS` connections, and a call that
finds them all busy waits for one (up to :data:`POOL_WAIT` seconds) instead of failing: a
whole class clicking at once on one replica (its script threads share the store) is a
queue of millisecond calls, not a wall of "cannot be reached".
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

import redis

from relpos.classroom import presence, records, validation
from relpos.classroom.errors import StoreFaultError, UnknownClassError, unavailable_as_error
from relpos.classroom.model import Answer, Class, Question, Student
from relpos.classroom.store import ClassStore, T, Watch

__all__ = ["RedisStore"]

#: Keys outlive their class by this much (seconds), so a late reader still gets the clear error.
TTL_MARGIN = 300
#: Connections one store (one server process) opens to Redis at most; the listener holds one.
MAX_CONNECTIONS = 50
#: Seconds a call waits for a free connection before the store counts as unreachable.
POOL_WAIT = 10


def _refused(error: Exception) -> StoreFaultError:
    """A Redis that answers but refuses (out of memory, a read-only replica, a failing disk)."""
    return StoreFaultError(
        f"The Redis class store refused the change ({str(error)[:120]}): check its memory limit "
        "(maxmemory), its disk and that it is not a read-only replica, then try again."
    )


# Loading its data after a restart is a ConnectionError (BusyLoadingError): a moment's wait.
_reachable = unavailable_as_error(redis.ConnectionError, redis.TimeoutError, faults=(redis.RedisError,), fault=_refused)


def _lease(token: str, holder: str) -> str:
    """A lease's member in the class's ``here`` sorted set (a token has no ``:``)."""
    return f"{token}:{holder}"


def _token_of(member: str) -> str:
    return member.partition(":")[0]


def _leases(members) -> dict[presence.Lease, float]:
    """``ZRANGE … WITHSCORES`` of a ``here`` set as (token, holder) → when written."""
    return {tuple(member.split(":", 1)): seen for member, seen in members}


class RedisStore(ClassStore):
    """A :class:`~relpos.classroom.store.ClassStore` in the Redis at `url` (``redis://host:6379/0``).

    Parameters
    ----------
    url : str
    prefix : str
        First part of every key and channel (two deployments may share one Redis).
    **options
        ``clock`` and ``rng``, as for :class:`~relpos.classroom.store.ClassStore`.
    """

    poll_seconds = 0.5

    def __init__(self, url: str, *, prefix: str = "relpos", **options):
        super().__init__(**options)
        self._pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=MAX_CONNECTIONS,
            timeout=POOL_WAIT,
            decode_responses=True,
            socket_timeout=10,
            health_check_interval=30,
        )
        self._redis = redis.Redis(connection_pool=self._pool)
        self._prefix = prefix
        self._index = f"{prefix}:classes"
        self._stopping = threading.Event()
        self._listener: threading.Thread | None = None
        self._listener_lock = threading.Lock()

    def close(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            self._listener.join(timeout=5)
        self._redis.close()
        self._pool.disconnect()

    @_reachable
    def check(self) -> None:
        """Write a health key (and purge, when due): raises unless Redis answers and takes writes now."""
        self.purge_if_due()
        self._redis.set(f"{self._prefix}:health", str(self._clock()), ex=60)

    # ------------------------------------------------------------ plumbing

    def _key(self, code: str, *parts) -> str:
        return ":".join(map(str, (self._prefix, "class", code, *parts)))

    def _channel(self, code: str) -> str:
        return f"{self._prefix}:changed:{code}"

    def _ttl(self, record: Class) -> int:
        return max(60, math.ceil(record.expires_at - self._clock()) + TTL_MARGIN)

    def _transact(self, keys: list[str], body: Callable[[redis.client.Pipeline], T]) -> T:
        """Run `body` on a pipeline WATCHing `keys` (it reads, then calls ``multi()`` and queues
        writes), again whenever another client wrote one of the keys in between."""
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(*keys)
                    result = body(pipe)
                    pipe.execute()
                    return result
                except redis.WatchError:
                    continue

    def _record(self, pipe, code: str) -> Class:
        text = pipe.hget(self._key(code), "record")
        if text is None:  # deleted by its time-to-live since the caller looked
            raise UnknownClassError(f"There is no class with the code {code}; check the code on the projector.")
        return records.load_class(text)

    # ------------------------------------------------------------ classes

    @_reachable
    def _insert_class(self, record: Class) -> bool:
        key = self._key(record.code)

        def body(pipe) -> bool:
            taken = bool(pipe.exists(key))
            pipe.multi()
            if not taken:
                pipe.hset(key, mapping={"record": records.dump(record), "version": record.version})
                for counter in ("activity", "joined"):
                    pipe.set(self._key(record.code, counter), 0, ex=self._ttl(record))
                pipe.expire(key, self._ttl(record))
                pipe.zadd(self._index, {record.code: record.gone_at})
            return not taken

        return self._transact([key], body)

    @_reachable
    def _count_kept(self, now: float) -> int:
        return self._redis.zcount(self._index, f"({now}", "+inf")

    @_reachable
    def _load_class(self, code: str) -> Class | None:
        text = self._redis.hget(self._key(code), "record")
        return None if text is None else records.load_class(text)

    @_reachable
    def _update_class(self, code: str, change: Callable[[Class], Class]) -> Class:
        def body(pipe) -> tuple[Class, bool]:
            old = self._record(pipe, code)
            new = change(old)
            pipe.multi()
            if new != old:
                pipe.hset(self._key(code), mapping={"record": records.dump(new), "version": new.version})
                pipe.zadd(self._index, {code: new.gone_at})
                pipe.publish(self._channel(code), "1")
            if new.question is not None and new.question != old.question:
                pipe.hset(self._key(code, "questions"), str(new.question.id), records.dump(new.question))
                pipe.expire(self._key(code, "questions"), self._ttl(new))
            return new, new != old

        new, changed = self._transact([self._key(code)], body)
        if changed:
            self._changed(code)
        return new

    @_reachable
    def _counter(self, code: str, watch: Watch) -> int | None:
        if watch == "state":
            value = self._redis.hget(self._key(code), "version")
            return None if value is None else int(value)
        exists, value = (
            self._redis.pipeline(transaction=False).exists(self._key(code)).get(self._key(code, "activity")).execute()
        )
        return int(value or 0) if exists else None

    @_reachable
    def _delete_gone(self, now: float) -> int:
        codes = self._redis.zrangebyscore(self._index, "-inf", now)
        for code in codes:
            self._redis.delete(*self._keys_of(code))
            self._redis.zrem(self._index, code)
        return len(codes)

    def _keys_of(self, code: str) -> list[str]:
        """Every key of class `code`, named from its questions and who answered them (a SCAN
        for ``P:*`` would walk every key of Redis once per class purged)."""
        fixed = [
            self._key(code),
            *(self._key(code, part) for part in ("activity", "joined", "students", "questions", "names", "here")),
        ]
        ids = self._redis.hkeys(self._key(code, "questions"))
        answered = [self._key(code, "answered", question) for question in ids]
        answers = [
            self._key(code, "answer", question, token)
            for question, key in zip(ids, answered, strict=True)
            for token in self._redis.smembers(key)
        ]
        return [*fixed, *answered, *answers]

    # ------------------------------------------------------------ students

    @_reachable
    def _add_student(self, code: str, token: str, make: Callable[[int, Callable[[str], bool]], Student]) -> Student:
        record = self._load_class(code)
        if record is None:
            raise UnknownClassError(f"There is no class with the code {code}; check the code on the projector.")
        names = self._key(code, "names")

        def taken(name: str) -> bool:  # HSETNX claims a free name for this student atomically
            return not self._redis.hsetnx(names, validation.nickname_key(name), token)

        student = make(self._redis.incr(self._key(code, "joined")), taken)  # INCR: one number per student, no retry
        students, here = self._key(code, "students"), self._key(code, "here")
        pipe = self._redis.pipeline()
        pipe.hset(students, student.token, records.dump(student))
        pipe.zadd(here, {_lease(student.token, presence.JOINED): presence.join_lease(student)})
        for key in (students, names, here):
            pipe.expire(key, self._ttl(record))
        pipe.incr(self._key(code, "activity"))
        pipe.publish(self._channel(code), "1")
        pipe.execute()
        self._changed(code)
        return student

    @_reachable
    def _delete_student(self, code: str, student: Student) -> None:
        answered = [self._key(code, "answered", question.id) for question in self._load_questions(code)]
        here = self._key(code, "here")
        leases = [member for member in self._redis.zrange(here, 0, -1) if _token_of(member) == student.token]
        pipe = self._redis.pipeline()
        pipe.hdel(self._key(code, "students"), student.token)
        if leases:
            pipe.zrem(here, *leases)
        if (
            student.nickname is not None
            and self._redis.hget(self._key(code, "names"), validation.nickname_key(student.nickname)) == student.token
        ):
            pipe.hdel(self._key(code, "names"), validation.nickname_key(student.nickname))
        for key in answered:
            pipe.srem(key, student.token)
            pipe.delete(self._key(code, "answer", key.rsplit(":", 1)[1], student.token))
        pipe.incr(self._key(code, "activity"))
        pipe.publish(self._channel(code), "1")
        pipe.execute()
        self._changed(code)

    @_reachable
    def _load_student(self, code: str, token: str) -> Student | None:
        text = self._redis.hget(self._key(code, "students"), token)
        return None if text is None else records.load_student(text)

    @_reachable
    def _load_students(self, code: str) -> list[Student]:
        return [records.load_student(text) for text in self._redis.hvals(self._key(code, "students"))]

    @_reachable
    def _count_students(self, code: str) -> int:
        return self._redis.hlen(self._key(code, "students"))

    @_reachable
    def _load_questions(self, code: str) -> list[Question]:
        return [records.load_question(text) for text in self._redis.hvals(self._key(code, "questions"))]

    # ------------------------------------------------------------ who is here

    @_reachable
    def _seated(self, code: str, tokens: list[str]) -> set[str]:
        found = self._redis.hmget(self._key(code, "students"), tokens)
        return {token for token, record in zip(tokens, found, strict=True) if record is not None}

    @_reachable
    def _load_presence(self, code: str) -> dict[presence.Lease, float]:
        return _leases(self._redis.zrange(self._key(code, "here"), 0, -1, withscores=True))

    @_reachable
    def _update_presence(self, code: str, holder: str, here: list[str], gone: list[str], now: float) -> None:
        key, fresh = self._key(code, "here"), now - presence.LEASE

        def body(pipe) -> bool:
            record = self._record(pipe, code)
            before = _leases(pipe.zrange(key, 0, -1, withscores=True))
            after = presence.renewed(before, holder, here, gone, now)
            pipe.multi()
            pipe.zremrangebyscore(key, "-inf", fresh)
            dropped = [_lease(token, holder) for token in gone] + [_lease(token, presence.JOINED) for token in here]
            if dropped:
                pipe.zrem(key, *dropped)
            if here:
                pipe.zadd(key, {_lease(token, holder): now for token in here})
            pipe.expire(key, self._ttl(record))
            moved = presence.present(before, fresh) != presence.present(after, fresh)
            if moved:  # a renewal alone wakes nobody
                pipe.incr(self._key(code, "activity"))
                pipe.publish(self._channel(code), "1")
            return moved

        if self._transact([key], body):
            self._changed(code)

    # ------------------------------------------------------------ answers

    @_reachable
    def _update_answer(
        self, code: str, question_id: int, token: str, change: Callable[[Class, Answer | None], tuple[Answer | None, T]]
    ) -> T:
        answer_key, answered = self._key(code, "answer", question_id, token), self._key(code, "answered", question_id)

        def body(pipe) -> tuple[T, bool]:
            record = self._record(pipe, code)
            previous = pipe.get(answer_key)
            keep, result = change(record, None if previous is None else records.load_answer(previous))
            pipe.multi()
            if keep is not None:
                pipe.set(answer_key, records.dump(keep), ex=self._ttl(record))
                pipe.sadd(answered, token)
                pipe.expire(answered, self._ttl(record))
                pipe.incr(self._key(code, "activity"))
                pipe.publish(self._channel(code), "1")
            return result, keep is not None

        result, stored = self._transact([self._key(code), answer_key], body)
        if stored:
            self._changed(code)
        return result

    @_reachable
    def _load_answer(self, code: str, question_id: int, token: str) -> Answer | None:
        text = self._redis.get(self._key(code, "answer", question_id, token))
        return None if text is None else records.load_answer(text)

    @_reachable
    def _load_answers(self, code: str, question_id: int) -> list[Answer]:
        tokens = sorted(self._redis.smembers(self._key(code, "answered", question_id)))
        if not tokens:
            return []
        texts = self._redis.mget([self._key(code, "answer", question_id, token) for token in tokens])
        return [records.load_answer(text) for text in texts if text is not None]

    # ------------------------------------------------------------ waking waiters

    @_reachable
    def versions(self, codes) -> dict[str, tuple[int, int] | None]:
        """Both counters of every class in `codes`, in one round trip."""
        codes, pipe = list(codes), self._redis.pipeline(transaction=False)
        for code in codes:
            pipe.hget(self._key(code), "version").get(self._key(code, "activity"))
        answers = pipe.execute()
        pairs = zip(answers[::2], answers[1::2], strict=True)
        return {
            code: None if state is None else (int(state), int(activity or 0))
            for code, (state, activity) in zip(codes, pairs, strict=True)
        }

    def listen_for_changes(self) -> None:
        self._start_listener()

    def wait_for_change(self, code: str, since: int, timeout: float, *, watch: Watch = "state") -> int:
        self._start_listener()
        return super().wait_for_change(code, since, timeout, watch=watch)

    def _start_listener(self) -> None:
        with self._listener_lock:
            if self._listener is None:
                self._listener = threading.Thread(target=self._listen, name="relpos-classroom-redis", daemon=True)
                self._listener.start()

    def _listen(self) -> None:
        """Wake this process's waiters on every published change, reconnecting after a failure."""
        pattern, start = f"{self._prefix}:changed:", len(f"{self._prefix}:changed:")
        while not self._stopping.is_set():
            try:
                with self._redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    pubsub.psubscribe(pattern + "*")
                    self._notifier.notify_all()  # anything published while (re)connecting was missed
                    while not self._stopping.is_set():
                        message = pubsub.get_message(timeout=0.5)
                        if message is not None:
                            self._notifier.notify(message["channel"][start:])
            except redis.RedisError:
                self._stopping.wait(0.5)
