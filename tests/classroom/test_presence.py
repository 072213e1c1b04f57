"""Who is here now, on SQLite and on a real Redis (see conftest.py): leases on seats that the
server processes holding students' streams renew, a closed tab dropped at once, a dead
process's leases lapsing, and the teacher's roster (relpos.classroom.presence)."""

from __future__ import annotations

import pytest

from relpos.class_routes import leases
from relpos.classroom import codes, model, presence, questions
from relpos.classroom.errors import InputError, NotJoinedError, NotTeacherError
from relpos.classroom.presence import JOIN_GRACE, LEASE
from tests.classroom.conftest import FakeClock
from tests.classroom.test_store_limits import _left_of

REPLICA_A, REPLICA_B = "replicaA", "replicaB"


def _here(store, code, credential) -> list[str]:
    attendance = store.attendance(code, credential)
    return [student.label for student in attendance.present]


def test_a_student_is_here_while_a_stream_holds_their_seat_and_gone_once_it_closes(started, clock):
    store, code, credential = started
    mia, bo = store.join(code, "Mia"), store.join(code, "Bo")
    assert _here(store, code, credential) == ["Mia", "Bo"]  # just joined: their pages open a stream
    clock.advance(JOIN_GRACE + 1)
    assert _here(store, code, credential) == []  # no stream came: not here
    activity = store.version(code, "activity")
    assert store.note_presence(code, REPLICA_A, here=[mia.token, bo.token]) == frozenset()
    assert _here(store, code, credential) == ["Mia", "Bo"]
    assert store.version(code, "activity") == activity + 1  # the teacher's roster reruns
    clock.advance(presence.RENEW)
    store.note_presence(code, REPLICA_A, here=[mia.token, bo.token])  # a renewal: nobody woken
    assert store.version(code, "activity") == activity + 1
    store.note_presence(code, REPLICA_A, gone=[bo.token])  # Bo closed the tab
    assert _here(store, code, credential) == ["Mia"]
    assert store.version(code, "activity") == activity + 2
    attendance = store.attendance(code, credential)
    assert [s.label for s in attendance.away] == ["Bo"]
    assert attendance.headcount() == "1 student here · 1 left"


def test_a_lease_nobody_renews_lapses(started, clock):
    """A server killed without a word holds its leases no more after LEASE seconds."""
    store, code, credential = started
    mia = store.join(code, "Mia")
    store.note_presence(code, REPLICA_A, here=[mia.token])
    clock.advance(LEASE - 1)
    assert _here(store, code, credential) == ["Mia"]
    clock.advance(2)
    assert _here(store, code, credential) == []


def test_two_replicas_share_who_is_here_and_one_closing_keeps_the_other(started, make_store, clock):
    store, code, credential = started
    other = make_store()  # a second replica on the same data
    mia = store.join(code, "Mia")
    clock.advance(JOIN_GRACE + 1)
    store.note_presence(code, REPLICA_A, here=[mia.token])
    other.note_presence(code, REPLICA_B, here=[mia.token])  # Mia's second tab, on the other replica
    activity = store.version(code, "activity")
    store.note_presence(code, REPLICA_A, gone=[mia.token])  # one tab closed
    assert _here(other, code, credential) == ["Mia"]
    assert store.version(code, "activity") == activity  # who is here did not change
    other.note_presence(code, REPLICA_B, gone=[mia.token])
    assert _here(store, code, credential) == []


def test_a_token_without_a_seat_gets_no_lease_and_is_handed_back(started, clock):
    store, code, credential = started
    mia = store.join(code, "Mia")
    made_up = codes.new_token()
    assert store.note_presence(code, REPLICA_A, here=[mia.token, made_up]) == {made_up}
    store.remove_student(code, credential, mia.number)
    assert store.note_presence(code, REPLICA_A, here=[mia.token]) == {mia.token}  # removed: stop renewing
    assert store.attendance(code, credential).students == ()


def test_answers_of_students_who_left_still_count(started, clock):
    store, code, credential = started
    question = store.ask(code, credential, questions.number_question("Predict e₁₂", 0.5))
    students = [store.join(code, name) for name in ("Mia", "Mia", "Bo", "Cy")]
    assert [s.label for s in students] == ["Mia", "Mia (2)", "Bo", "Cy"]  # two Mias told apart
    for student in students[:3]:
        store.submit_answer(code, student.token, question.id, "0.5")
    clock.advance(JOIN_GRACE + 1)
    store.note_presence(code, REPLICA_A, here=[s.token for s in students[1:]])  # the first Mia left
    attendance = store.attendance(code, credential)
    assert attendance.progress() == "2 of 3 here answered · 1 left (1 of them answered)"
    assert store.results(code, credential=credential).answered == 3


def test_removing_a_student_drops_their_leases_and_tells_their_page(started, clock):
    store, code, credential = started
    mia, bo = store.join(code, "Mia"), store.join(code, "Bo")
    store.note_presence(code, REPLICA_A, here=[mia.token, bo.token])
    version = store.version(code)
    store.remove_student(code, credential, mia.number)
    record = store.get_class(code)
    assert record.version == version + 1  # every following page fetches the view once
    assert record.removed == (presence.seat_tag(mia.token),)
    assert _here(store, code, credential) == ["Bo"]
    with pytest.raises(NotJoinedError, match="Your teacher removed you from class"):
        store.join(code, token=mia.token)
    with pytest.raises(NotJoinedError, match="not in class"):  # a made-up token is not told it was removed
        store.join(code, token=codes.new_token())


def test_presence_limits_hold_in_the_store(started):
    store, code, _ = started
    mia = store.join(code, "Mia")
    for holder in ("", "a:b", "x" * 65, presence.JOINED, None):
        with pytest.raises(InputError):
            store.note_presence(code, holder, here=[mia.token])
    with pytest.raises(InputError):
        store.note_presence(code, REPLICA_A, here=["<not a token>"])
    with pytest.raises(InputError):
        store.note_presence(code, REPLICA_A, here=[mia.token] * (2 * model.MAX_STUDENTS + 1))
    with pytest.raises(NotTeacherError):
        store.attendance(code, "not-the-credential")


def test_a_purged_class_leaves_no_lease(store, clock):
    record, credential = store.create_class()
    mia = store.join(record.code, "Mia")
    store.note_presence(record.code, REPLICA_A, here=[mia.token])
    store.end(record.code, credential)
    clock.advance(model.ENDED_KEEP + store.purge_grace + store.purge_seconds + 1)
    store.purge_if_due()
    assert _left_of(store, record.code) == 0


def test_a_tab_closed_right_after_joining_leaves_at_once(started):
    """The join's own lease ends with the seat's first lease from a stream."""
    store, code, credential = started
    mia = store.join(code, "Mia")
    store.note_presence(code, REPLICA_A, here=[mia.token])
    store.note_presence(code, REPLICA_A, gone=[mia.token])
    assert _here(store, code, credential) == []


# ---------------------------------------------------------------- a server process's leases


class _Counted:
    """A store whose note_presence calls are counted (how many writes the streams cost)."""

    def __init__(self, store):
        self.store, self.calls = store, []

    def note_presence(self, code, holder, here=(), gone=()):
        self.calls.append((sorted(here), sorted(gone)))
        return self.store.note_presence(code, holder, here, gone)


def test_a_process_writes_its_seats_in_one_call_renews_them_and_drops_a_closed_tab(started, clock):
    store, code, credential = started
    students = [store.join(code, f"S{number}") for number in range(30)]
    clock.advance(JOIN_GRACE + 1)
    counted, ticks = _Counted(store), FakeClock(0.0)
    held = leases.Presence(counted, holder=REPLICA_A, clock=ticks, background=False)
    leaves = [held.arrive(code, student.token) for student in students]
    held.flush()
    assert len(counted.calls) == 1 and len(counted.calls[0][0]) == 30  # 30 arrivals, one write
    assert len(_here(store, code, credential)) == 30
    for _ in range(9):  # a tick a second: nothing is due before RENEW seconds
        ticks.advance(leases.TICK)
        clock.advance(leases.TICK)
        held.flush()
    assert len(counted.calls) == 1
    ticks.advance(presence.RENEW)
    clock.advance(presence.RENEW)
    held.flush()
    assert len(counted.calls) == 2  # every lease renewed at once
    leaves[0]()  # a reload: the stream closes and a new one opens within the grace
    held.arrive(code, students[0].token)
    leaves[1]()  # a closed tab
    ticks.advance(leases.GRACE)
    held.flush()
    assert counted.calls[-1] == ([], [students[1].token])  # one write: the closed tab only
    assert len(_here(store, code, credential)) == 29 and "S1" not in _here(store, code, credential)


def test_a_process_stops_renewing_a_removed_seat(started, clock):
    store, code, credential = started
    mia, bo = store.join(code, "Mia"), store.join(code, "Bo")
    counted, ticks = _Counted(store), FakeClock(0.0)
    held = leases.Presence(counted, holder=REPLICA_A, clock=ticks, background=False)
    for student in (mia, bo):
        held.arrive(code, student.token)
    held.flush()
    store.remove_student(code, credential, mia.number)
    ticks.advance(presence.RENEW)
    held.flush()
    ticks.advance(presence.RENEW)
    held.flush()
    assert counted.calls[-1] == ([bo.token], [])  # Mia's stream is still open, but her seat is gone
