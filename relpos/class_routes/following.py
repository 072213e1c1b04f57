"""Following a live class without a page run: the class's view as JSON, answers by HTTP.

A student who follows the teacher's stop would otherwise rerun the whole page at every
Next (about 0.15 s of server CPU a student, all under one interpreter lock: 60 students
waited up to 16 s). Instead their page draws once, and its follow view
(``relpos/ui/follow_assets/follow.js``) draws every later stop in the browser:

* ``GET /relpos/class/{code}/view?v=N``: the class at version N as JSON (the stop's blocks
  as its lesson draws them, the open question, the results once revealed). It is built
  once per class version and process and the same bytes serve every student, so a Next
  costs the server one build and one small response a student. The event stream
  (:mod:`relpos.class_routes.events`) says when N moves on. The routes draw no lesson
  themselves: app.py hands :func:`view_route` each lesson's :data:`StopView` (the
  walkthrough's is :func:`relpos.topics.walkthrough.spec.follow_view`).
* ``POST /relpos/class/{code}/answer``: a student's answer (``{"question", "answer"}``),
  judged and stored by the store as the answer box's button does it. Answers are
  rate-limited per student, per client address and per class (:func:`answer_refusal`)
  before the body is read or a thread or the store is used: one client sending a thousand
  answers a second made the teacher's Next take 23 s; refused, it costs the event loop
  a short 429 each.
* ``GET /relpos/class/{code}/mine?q=ID``: the student's own answer to question ID, and
  after the reveal its verdict.

The student is named by their token, sent in the ``X-Relpos-Token`` header (the page hands
it to its follow view; it is never in a URL) or the class's sealed identity cookie
(:mod:`relpos.class_routes.identity`). The view
holds no token and, while a question is open, not its answer: anyone with the code may
read it.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from relpos.class_routes import events, identity
from relpos.class_routes.store import class_store
from relpos.classroom import codes, questions
from relpos.classroom.errors import ClassroomError, InputError, NotJoinedError, StoreUnavailableError
from relpos.classroom.limits import TokenBucket
from relpos.classroom.model import Class, Question
from relpos.classroom.questions import question_label
from relpos.classroom.quiz import quiz_of
from relpos.classroom.results import Results
from relpos.plots.classroom import answer_bars
from relpos.plots.plain import plain_figure
from relpos.server import asgi
from relpos.text import numbers
from relpos.text.rich import runs

__all__ = [
    "ANSWER_PATH",
    "JOIN_PATH",
    "MINE_PATH",
    "TOKEN_HEADER",
    "VIEW_PATH",
    "StopView",
    "answer_refusal",
    "class_view",
    "quiz_blocks",
    "results_figure",
    "view_bytes",
    "view_route",
]

#: How a lesson shows a following student the teacher's stop: the class's pace state (the
#: lesson's URL state) and the open question's (kind, stop id), or None, to the stop's blocks.
StopView = Callable[[str, tuple[str, str] | None], dict]

VIEW_PATH = "/relpos/class/{code}/view"
#: The short join link a projector shows (``host:8501/j/K7QX2M``): it leads to the lesson's join box.
JOIN_PATH = "/j/{code}"
#: The page a short join link opens (the live class runs on the walkthrough).
JOIN_PAGE = "walkthrough"
ANSWER_PATH = "/relpos/class/{code}/answer"
MINE_PATH = "/relpos/class/{code}/mine"
TOKEN_HEADER = "x-relpos-token"
#: Class versions whose view this process keeps (a class moves on one version a Next).
KEEP_VIEWS = 256
#: The longest answer body read (a number, a choice or a quiz answer is a few dozen bytes).
MAX_BODY = 2048

#: One student's answers: a few at once (an answer, a change of mind, the follow view sending
#: it again every 3 s after a network error), then one a second; a person never needs more.
STUDENT_ANSWERS = TokenBucket(4, rate=1.0)
#: One client address: a whole class behind one school NAT answers a question within
#: seconds (up to 300 seats), then 30 a second; a single script gets no more than that.
ADDRESS_ANSWERS = TokenBucket(300, rate=30.0)
#: One class: every seat answering twice at once, then 100 a second; what a flood from
#: many addresses may cost one class's store.
CLASS_ANSWERS = TokenBucket(600, rate=100.0)

_views: OrderedDict[tuple[str, int], tuple[bytes, bytes]] = OrderedDict()
_views_lock = threading.Lock()
_building: dict[tuple[str, int], asyncio.Future] = {}


# ---------------------------------------------------------------- the view


def results_figure(results: Results, *, presenter: bool = False):
    """The class's answers as bars, the true value marked; and the caption under them."""
    question = results.question
    if results.bins:
        bars = [(b.label, b.count, b.holds_truth) for b in results.bins]
    else:
        bars = [(c.label, c.count, c.correct) for c in results.counts]
    labels, counts, marks = zip(*bars, strict=True) if bars else ((), (), ())
    truth = question.truth
    shown = numbers.as_written(truth) if isinstance(truth, float) else str(truth)
    title = f"{results.answered} answer{'' if results.answered == 1 else 's'} · true value {shown}"
    fig = answer_bars(labels, counts, marks, title, height=300)
    if presenter:
        fig.update_layout(font={"size": 20}, height=340)
    caption = f"{results.correct} of {results.answered} right (true value {shown})." if results.answers else ""
    return fig, caption


def quiz_blocks(quiz) -> list[dict]:
    """A quiz question as the quiz page shows it: its numbers (q, k and aᴷ, positions from
    1), then its text. A question with "the numbers above" is unanswerable without them."""
    blocks = []
    scenario = quiz.scenario
    if scenario is not None:
        positions = [f"position {p + 1}" for p in range(scenario.n)]
        rows = [["q_i", *map(numbers.as_written, scenario.queries)], ["k_j", *map(numbers.as_written, scenario.keys)]]
        # "fit": drawn to the screen's width, a phone's too (no sideways scrolling; follow.js fitTable)
        blocks.append({"t": "table", "columns": ["", *positions], "rows": rows, "marked": [], "fit": True})
        k = (len(scenario.table) - 1) // 2
        offsets = [f"aᴷ{numbers.offset_subscript(o)}" for o in range(-k, k + 1)]
        row = ["aᴷ", *map(numbers.as_written, scenario.table)]
        blocks.append({"t": "table", "columns": ["", *offsets], "rows": [row], "marked": [], "fit": True})
    blocks.extend({"t": "p", "runs": runs(line), "small": False} for line in quiz.prompt.split("\n") if line.strip())
    return blocks


def _question_view(question: Question) -> dict:
    """What a student's device shows of a question: never its answer while it is open."""
    view = {"id": question.id, "kind": question.kind, "prompt": question.prompt, "status": question.status}
    view["label"] = question_label(question)  # the heading the projector shows too
    if question.kind == "choice":
        view["choices"] = list(question.choices)
    if question.kind == "quiz":
        quiz = quiz_of(question.quiz)
        view["body"] = quiz_blocks(quiz)
        view["input"] = "number" if quiz.answer_kind == "number" else "text"
    else:
        view["input"] = "choice" if question.kind == "choice" else "number"
    return view


def class_view(record: Class, results: Results | None, stops: Mapping[str, StopView]) -> dict:
    """The class as a following student sees it (see the module notes); `stops` draws the
    teacher's stop, by lesson (a lesson without one shows none)."""
    question = record.question
    view = {
        "code": record.code,
        "version": record.version,
        "lesson": record.lesson,
        "paced": record.pace.paced,
        "ended": record.ended_at is not None,
        "question": None if question is None or question.status == "hidden" else _question_view(question),
        "results": None,
        "removed": list(record.removed),  # seat tags: a removed student's page hands over and says so
    }
    stop_view = stops.get(record.lesson)
    if stop_view is not None and record.pace.state:
        asked = (question.kind, question.stop) if question is not None and question.is_open else None
        view["stop"] = stop_view(record.pace.state, asked)
    if question is not None and question.revealed and results is not None:
        fig, caption = results_figure(results)
        view["results"] = {"fig": plain_figure(fig), "caption": caption}
    return view


def view_bytes(code: str, stops: Mapping[str, StopView]) -> tuple[int, bytes, bytes]:
    """The class's current view: its version, the JSON and the JSON in gzip (store reads here);
    `stops` as for :func:`class_view`, the same in one process (its views are kept by version)."""
    store = class_store()
    record = store.get_class(code)
    key = (record.code, record.version)
    with _views_lock:
        if key in _views:
            _views.move_to_end(key)
            return record.version, *_views[key]
    question = record.question
    results = store.results(record.code) if question is not None and question.revealed else None
    body = json.dumps(class_view(record, results, stops), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = gzip.compress(body, compresslevel=6)
    with _views_lock:
        _views[key] = (body, packed)
        while len(_views) > KEEP_VIEWS:
            _views.popitem(last=False)
    return record.version, body, packed


def _cached(code: str, version: int) -> tuple[bytes, bytes] | None:
    with _views_lock:
        return _views.get((code, version))


def _view_response(body: bytes, packed: bytes, request: Request) -> Response:
    headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
        return Response(packed, media_type="application/json", headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def _gone(error: ClassroomError) -> JSONResponse:
    """A class that is over or unknown (404); a store that cannot answer just now (503: the
    page keeps following and asks again)."""
    if isinstance(error, StoreUnavailableError):
        return JSONResponse({"message": error.message}, status_code=503, headers={"Retry-After": "2"})
    return JSONResponse({"gone": True, "message": error.message}, status_code=404)


def _followed(code: str) -> bool:
    """Whether this process has built a view of `code` (its students follow here)."""
    with _views_lock:
        return any(seen == code for seen, _ in _views)


def _build(code: str, wanted: int, stops: Mapping[str, StopView]) -> asyncio.Future:
    """The build of `code`'s view for version `wanted`, started unless one is under way (on the event loop)."""
    pending = _building.get((code, wanted))
    if pending is None:
        pending = _building[code, wanted] = asyncio.ensure_future(asyncio.to_thread(view_bytes, code, stops))
        pending.add_done_callback(functools.partial(_built, code, wanted))
    return pending


def _built(code: str, wanted: int, done: asyncio.Future) -> None:
    _building.pop((code, wanted), None)
    if not done.cancelled():
        done.exception()  # retrieved: a build nobody awaited (started ahead) logs no "never retrieved"


def view_route(stops: Mapping[str, StopView]) -> Route:
    """The route of the class's view (``GET`` :data:`VIEW_PATH`), the teacher's stop drawn by
    `stops` (a lesson's name to its :data:`StopView`); app.py hands it to the server.

    When a followed class moves on, its new view is built at once (:func:`events.on_state_change`),
    not when the first student's fetch arrives: at a Next, the fetches of a whole class
    reach the server over a few tenths of a second while it sends them the event."""

    def ahead(code: str, version: int) -> None:
        if _followed(code) and _cached(code, version) is None:
            _build(code, version, stops)

    events.on_state_change("follow view", ahead)

    async def class_view_route(request: Request) -> Response:
        """The class's view: from this process's cache when the asked version is in it."""
        try:
            code = codes.normalise_code(request.path_params["code"])
        except ClassroomError as error:
            return _gone(error)
        try:
            wanted = int(request.query_params.get("v", "-1"))
        except ValueError:
            wanted = -1
        cached = _cached(code, wanted)
        if cached is not None:  # every student of a Next but the first: no store read, no build
            return _view_response(*cached, request)
        # the first request of a version builds it (unless its change did); the others of that moment wait for it
        try:
            _, body, packed = await asyncio.shield(_build(code, wanted, stops))
        except ClassroomError as error:
            return _gone(error)
        return _view_response(body, packed, request)

    return Route(VIEW_PATH, class_view_route, methods=["GET"])


# ---------------------------------------------------------------- a student's answer


def _token(request: Request, code: str) -> str:
    """The student's token: the follow view's header, else the sealed identity cookie."""
    return request.headers.get(TOKEN_HEADER, "") or identity.student_token(request, code)


def _submit(code: str, token: str, question_id: int, text: str) -> dict:
    ack = class_store().submit_answer(code, token, question_id, text)
    return {"status": ack.status, "stored": ack.stored, "message": ack.message, "answer": ack.answer.text}


def answer_refusal(code: str, token: str, address: str) -> Response | None:
    """A 429 if this answer is over a limit (the student's first: a flood from one seat
    spends nothing of its address's or class's allowance), else None."""
    for limit, key in ((STUDENT_ANSWERS, token), (ADDRESS_ANSWERS, address), (CLASS_ANSWERS, code)):
        wait = limit.wait(key)
        if wait:
            seconds = max(1, math.ceil(wait))
            message = f"Too fast: answers from here are paused for {seconds} s; yours is sent again then."
            return JSONResponse(
                {"message": message, "too_fast": True}, status_code=429, headers={"Retry-After": str(seconds)}
            )
    return None


async def answer_route(request: Request) -> Response:
    """Store a student's answer; the reply says what counts now (or why it was refused).

    The rate limits come first: a refused answer costs no body read, thread or store call."""
    try:
        code = codes.normalise_code(request.path_params["code"])
        refusal = answer_refusal(code, _token(request, code), request.client.host if request.client else "")
        if refusal is not None:
            return refusal
        body = await asgi.bounded_body(request, MAX_BODY)
        if body is None:
            raise InputError("That answer is too long.")
        sent = json.loads(body or b"{}")
        question_id, text = int(sent["question"]), str(sent["answer"])
    except ClassroomError as error:
        return JSONResponse({"message": error.message}, status_code=400)
    except (ValueError, KeyError, TypeError, RecursionError):
        return JSONResponse({"message": "Send the question's number and your answer."}, status_code=400)
    try:
        reply = await asyncio.to_thread(_submit, code, _token(request, code), question_id, text)
    except NotJoinedError as error:
        return JSONResponse({"message": error.message, "joined": False}, status_code=403)
    except StoreUnavailableError as error:  # not stored, so not acknowledged: the page sends it again
        return JSONResponse({"message": error.message}, status_code=503, headers={"Retry-After": "2"})
    except ClassroomError as error:
        return JSONResponse({"message": error.message}, status_code=409)
    return JSONResponse(reply)


def _mine(code: str, token: str, question_id: int) -> dict:
    store = class_store()
    answer = store.my_answer(code, token, question_id)
    record = store.get_class(code)
    question = record.question
    reply = {"question": question_id, "answer": None if answer is None else answer.text}
    if answer is not None and question is not None and question.id == question_id and question.revealed:
        verdict = questions.grade(question, answer.text)
        reply.update(correct=verdict.correct, message=verdict.message)
    return reply


async def mine_route(request: Request) -> Response:
    """The student's answer to a question, with its verdict once the results are revealed."""
    try:
        code = codes.normalise_code(request.path_params["code"])
        question_id = int(request.query_params.get("q", ""))
    except ClassroomError as error:
        return _gone(error)
    except ValueError:
        return JSONResponse({"message": "Name the question: ?q=1."}, status_code=400)
    try:
        reply = await asyncio.to_thread(_mine, code, _token(request, code), question_id)
    except NotJoinedError as error:
        return JSONResponse({"message": error.message, "joined": False}, status_code=403)
    except ClassroomError as error:
        return _gone(error)
    return JSONResponse(reply, headers={"Cache-Control": "no-store"})


async def join_route(request: Request) -> Response:
    """A short join link: to the lesson's join box (an unknown code is said there, plainly)."""
    code = "".join(ch for ch in request.path_params["code"][:16] if ch.isalnum())
    base = request.url.path[: -len(request.url.path.rsplit("/j/", 1)[1]) - 3]  # the app's base path
    return RedirectResponse(f"{base}/{JOIN_PAGE}?class={code}", status_code=307)


asgi.register_routes(
    Route(JOIN_PATH, join_route, methods=["GET"]),
    Route(ANSWER_PATH, answer_route, methods=["POST"]),
    Route(MINE_PATH, mine_route, methods=["GET"]),
)
