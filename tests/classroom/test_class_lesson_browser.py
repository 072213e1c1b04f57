"""Issue 34 as a class lives it: a teacher runs the worked example and five quiz questions
from a 1280 × 720 projector alone, with no answer visible before Reveal.

One class for the module, in real Chromium: the teacher in presenter mode at 1280 × 720
(the projector, and the teacher's only screen), Ada on a 390 × 844 touch phone who opens
the join link, "-Grace" on a 1280 × 720 laptop who types the code on the Overview, and one
more student as the suite's class harness joins (tests/support/class_students.py: a
session of Streamlit's protocol that follows and answers as follow.js does). The tests run
in order, each on where the one before left the class:

1. the projector starts the class from its first screen, shows a code a room reads, and
   the phone's join link opens on the join box (points 4, 5, 6);
2. the worked example: a predicted score and "which key gains most" stay hidden on the
   projector and the phone until Reveal; the question's count and controls share one
   screen; the console stays open; a phone answers with Enter and 44 px choices that all
   fit (points 1, 6, 8; the clicker steps the lesson);
3. five quiz questions reach every screen with their numbers, their answers hidden until
   Reveal; the phone answers one while offline, told so (points 2, 9);
4. the CSV for a spreadsheet, the private link's feedback and resume, and the end of the
   class, asked first and said in view (points 3, 10, 11).

Screenshots of the projector and the phone at an open question and after Reveal go to
test-artifacts/screens/ (docs/screenshots/class-*.png are copies of them).
"""

from __future__ import annotations

import csv
import io
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from relpos.classroom.stores import open_store
from relpos.core.examples import worked_example
from relpos.quizbank.checking import make_quiz
from tests.support.browser import SCREENSHOTS
from tests.support.class_students import Classroom, Follower, class_server

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.timeout(600)]

WITHIN = 90_000  # ms: a first page load on a busy 2-core machine; waits end at their condition
PROJECTOR, PHONE = {"width": 1280, "height": 720}, {"width": 390, "height": 844}
FOLLOW = ".relpos-follow"
QUESTION_ROW = ".st-key-classroom-question_row"  # the open question's count and controls
CONSOLE = "Class console: students, quiz, results, end"
TIME_ZONE = "Europe/Berlin"  # the teacher's browser's zone: the CSV's times are in it
QUIZ_SEED = 42  # README's quiz, the console's default


@dataclass
class Lesson:
    """The class the module's tests share, and who is in it."""

    server: object
    teacher: object = None
    phone: object = None
    laptop: object = None
    harness: Classroom | None = None
    code: str = ""
    contexts: list = field(default_factory=list)

    @property
    def store(self):
        return open_store(f"sqlite://{self.server.data_dir / 'classes.sqlite3'}")

    @property
    def student(self) -> Follower:
        return self.harness.joined[0]

    def page(self, **options):
        """A new browser context's tab (`options`: Playwright's context options)."""
        context = BROWSER.new_context(**options)
        context.set_default_timeout(WITHIN)
        self.contexts.append(context)
        return context.new_page()

    def question(self):
        """The class's current question, once the teacher's click has been run."""
        deadline = time.monotonic() + WITHIN / 1000
        while (question := self.store.get_class(self.code).question) is None:
            assert time.monotonic() < deadline, "no question asked"
            time.sleep(0.1)
        return question


BROWSER = None  # the session's Chromium (the lesson fixture sets it)


@pytest.fixture(scope="module")
def lesson(chromium, tmp_path_factory):
    global BROWSER
    BROWSER = chromium
    with class_server(tmp_path_factory.mktemp("class-lesson"), "class-lesson") as server:
        shared = Lesson(server)
        try:
            yield shared
        finally:
            if shared.harness:
                shared.harness.close()
            for context in shared.contexts:
                context.close()


def _shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)  # a chart's last transition
    page.screenshot(path=SCREENSHOTS / f"{name}.png")


#: Scrolls Streamlit's main area so the current stop's heading sits under the sticky navigation bar.
STOP_UNDER_BAR_JS = """() => {
  const heading = document.getElementById('current-stop');
  const bar = document.querySelector('.st-key-lesson-nav').getBoundingClientRect().bottom;
  document.querySelector('[data-testid=stMain]').scrollBy(0, heading.getBoundingClientRect().top - bar - 8);
}"""


def _shot_stop_and_controls(page, name: str) -> None:
    """The projector twice: the stop under the navigation bar (`name`), and where the teacher
    works, the question's row and what follows it (`name`-controls)."""
    controls = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop")
    page.evaluate(STOP_UNDER_BAR_JS)
    _shot(page, name)
    page.evaluate("(top) => document.querySelector('[data-testid=stMain]').scrollTo(0, top)", controls)
    _shot(page, f"{name}-controls")


def _in_view(page, locator, *, below: float = 0.0) -> bool:
    """Whether `locator` is wholly on the screen (and below `below`, a sticky bar's bottom)."""
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        bool(box)
        and box["y"] >= below - 1
        and box["y"] + box["height"] <= size["height"] + 1
        and (box["x"] + box["width"] <= size["width"] + 1)
    )


def _nav_bottom(page) -> float:
    return page.evaluate("() => document.querySelector('.st-key-lesson-nav').getBoundingClientRect().bottom")


def _console_open(page) -> bool:
    return page.evaluate(
        """(label) => [...document.querySelectorAll('[data-testid=stExpander] details')]
             .some((details) => details.open && details.querySelector('summary').innerText.includes(label))""",
        CONSOLE,
    )


def _main_text(page) -> str:
    return page.locator("[data-testid=stMain]").inner_text()


#: The page's run is over and nothing of an earlier run is left on it (Streamlit keeps an
#: earlier run's elements, stale, until the run that replaces them ends).
RUN_OVER_JS = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  return app?.getAttribute('data-test-script-state') === 'notRunning' && !document.querySelector('[data-stale=true]');
}"""


def _settled_main_text(page) -> str:
    """The main area's text once its run is over: the previous question's results, drawn
    stale until then, are gone."""
    page.wait_for_function(RUN_OVER_JS, timeout=30_000)
    return _main_text(page)


def _phone_text(page) -> str:
    return page.locator(FOLLOW).inner_text()


#: The cell texts of the teacher's score matrix ("Scores e_ij computed so far"), as plotly.js holds them.
TEACHER_SCORES_JS = """() => {
  const plot = [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
    .find((node) => String(node.layout?.title?.text || '').includes('Scores e'));
  return plot ? plot.data[0].text : null;
}"""
#: The same matrix in a following student's view.
FOLLOW_SCORES_JS = """() => {
  const plot = [...document.querySelectorAll('.relpos-follow .rf-figure')]
    .find((node) => node.getAttribute('aria-label') === 'Scores computed so far');
  return plot ? plot.data[0].text : null;
}"""


def _teacher_clicks(page, name) -> None:
    page.get_by_role("button", name=name).first.click(no_wait_after=True)


def _clicker(page, presses: int, stop: int) -> None:
    """The clicker's Page Down, `presses` times 0.3 s apart; the lesson shows stop `stop`."""
    for _ in range(presses):
        page.keyboard.press("PageDown")
        page.wait_for_timeout(300)
    try:
        page.locator(".st-key-lesson-nav").get_by_text(f"Stop {stop} of 20").wait_for()
    except PlaywrightTimeout as error:
        shown = page.locator(".st-key-lesson-nav").inner_text().replace("\n", " ")
        state = page.evaluate(
            "() => document.querySelector('[data-testid=stApp]').getAttribute('data-test-script-state')"
        )
        raise AssertionError(f"{presses} Page Downs: the lesson shows {shown!r} ({state}), not stop {stop}") from error


def _answered(page, count: str) -> None:
    """Wait until the open question's row says "`count` answered"."""
    try:
        page.locator(QUESTION_ROW).get_by_text(f"{count} here answered").wait_for()
    except PlaywrightTimeout as error:
        row = page.locator(QUESTION_ROW).all_inner_texts()
        joined = page.get_by_text(re.compile("joined")).all_inner_texts()
        raise AssertionError(f"not {count} answered: the row says {row}, the join panel {joined}") from error


def _reveal_and_count_on_one_screen(page) -> list[str]:
    """Reveal scrolled into view: the question's count beside it, under the navigation bar."""
    reveal = page.get_by_role("button", name="Reveal")
    reveal.scroll_into_view_if_needed()
    count = page.locator(QUESTION_ROW).get_by_text(re.compile(r"\d+ of \d+ here answered"))
    problems = []
    if count.count() != 1:
        problems.append(f"no count beside Reveal: {page.locator(QUESTION_ROW).count()} question rows")
    elif not (_in_view(page, count, below=_nav_bottom(page)) and _in_view(page, reveal, below=_nav_bottom(page))):
        problems.append(f"the count {count.bounding_box()} and Reveal {reveal.bounding_box()} are not on one screen")
    return problems


# ------------------------------------------------------------------------------------ 1


def test_the_projector_starts_the_class_and_two_students_join(lesson):
    """Points 4, 5 and 6: Start a class on the projector's first screen, a code a room reads
    from the back, a join screen with the code and a large QR code; the phone's join link
    opens on the join box, with no teacher's control."""
    teacher = lesson.teacher = lesson.page(viewport=PROJECTOR, accept_downloads=True, timezone_id=TIME_ZONE)
    teacher.goto(lesson.server.url("walkthrough", {"presenter": 1}))
    start = teacher.get_by_role("button", name="Start a class")
    start.wait_for()
    teacher.wait_for_timeout(1000)  # the page settled: fonts and charts drawn
    assert _in_view(teacher, start), f"Start a class is below the projector's first screen: {start.bounding_box()}"
    start.click(no_wait_after=True)
    code_box = teacher.locator("[aria-label^='Join code']").first
    code_box.wait_for()
    lesson.code = code = code_box.inner_text().strip()
    letters = teacher.evaluate("(node) => parseFloat(getComputedStyle(node).fontSize)", code_box.element_handle())
    assert letters >= 0.1 * PROJECTOR["height"], f"the join code is {letters} px, under a tenth of the screen"

    teacher.get_by_role("button", name="Join screen").click()
    dialog = teacher.get_by_role("dialog")
    dialog.get_by_text(code).first.wait_for()
    qr = dialog.get_by_role("img").first.bounding_box()
    assert qr["height"] >= 0.4 * PROJECTOR["height"], f"the join screen's QR code is {qr['height']:.0f} px tall"
    _shot(teacher, "class-projector-join-screen")
    teacher.keyboard.press("Escape")
    dialog.wait_for(state="hidden")

    phone = lesson.phone = lesson.page(viewport=PHONE, has_touch=True, is_mobile=True)
    phone.goto(lesson.server.url("walkthrough", {"class": code}))
    join = phone.get_by_role("button", name="Join the class")
    join.wait_for()
    assert _in_view(phone, join), f"the phone's join button is below its first screen: {join.bounding_box()}"
    teacher_controls = re.compile("^(Start a class|Next|Previous|Reveal)")
    assert phone.get_by_role("button", name=teacher_controls).count() == 0
    _shot(phone, "class-phone-join")
    phone.get_by_label("Nickname (optional)").fill("Ada")
    join.click(no_wait_after=True)

    laptop = lesson.laptop = lesson.page(viewport=PROJECTOR)
    laptop.goto(lesson.server.url(""))  # the code typed on the Overview
    laptop.get_by_label("Class code").fill(code.lower())
    laptop.get_by_label("Nickname (optional)").fill("-Grace")  # a spreadsheet would run it as a formula
    laptop.get_by_role("button", name="Join", exact=True).click(no_wait_after=True)
    lesson.harness = Classroom(lesson.server, "walkthrough", code)
    lesson.harness.join_all(1, spread=0)
    assert not lesson.harness.errors, lesson.harness.errors
    for page in (phone, laptop):
        page.locator(f"{FOLLOW}[data-stop='1']").wait_for()
        assert page.get_by_role("button", name=teacher_controls).count() == 0
    teacher.get_by_text("3 students").first.wait_for()


# ------------------------------------------------------------------------------------ 2


def test_the_worked_example_keeps_each_answer_hidden_until_the_reveal(lesson):
    """Points 1, 6 and 8 at the pair (1, 4) and at row 1's softmax: the asked score or verdict
    is nowhere on the projector or the phone while the question is open, and everywhere after
    Reveal; the count and Reveal share one screen; the console stays open through Ask, Reveal,
    Hide and Next; the phone submits with Enter, and its choices are 44 px and all on screen."""
    teacher, phone, laptop = lesson.teacher, lesson.phone, lesson.laptop
    _clicker(teacher, 3, 4)  # three Page Downs 0.3 s apart: pair (1, 4)
    phone.locator(f"{FOLLOW}[data-stop='4']").wait_for()
    teacher.get_by_text(CONSOLE).click()
    teacher.get_by_role("button", name="End the class").wait_for()
    assert _console_open(teacher)

    _teacher_clicks(teacher, re.compile("^Ask: predict e"))
    asked = lesson.question()
    truth = worked_example().attention().scores[0, 3]
    shown = f"{truth:.1f}"  # 0.7: the score line's and the verdict's
    teacher.get_by_role("button", name="Reveal").wait_for()
    phone.get_by_label("Your answer").wait_for()
    problems = _reveal_and_count_on_one_screen(teacher)
    if not _console_open(teacher):
        problems.append("the console folded when the question was asked")
    # the projector: no score in the cell, the score line, the results; the phone: the same
    cell = teacher.evaluate(TEACHER_SCORES_JS)[0][3]
    if cell:
        problems.append(f"the projector's cell (1, 4) shows {cell!r}")
    for where, text in (("projector", _main_text(teacher)), ("phone", _phone_text(phone))):
        if "true value" in text or f"= {shown}" in text.replace("\n", " "):
            problems.append(f"the {where} shows the answer {shown} before Reveal")
    if phone.evaluate(FOLLOW_SCORES_JS)[0][3]:
        problems.append("the phone's score matrix shows the asked cell")
    _shot_stop_and_controls(teacher, "class-projector-question")
    _shot(phone, "class-phone-question")

    field = phone.get_by_label("Your answer")
    field.fill(shown)
    field.press("Enter")  # the phone keyboard's Go
    phone.get_by_text("is in").first.wait_for()
    laptop.get_by_label("Your answer").fill("0.1")
    laptop.get_by_role("button", name="Submit").click()
    laptop.get_by_text("is in").first.wait_for()
    assert lesson.student.answer(asked.id, "-0.3")["status"] == "accepted"
    _answered(teacher, "3 of 3")

    _teacher_clicks(teacher, "Reveal")
    phone.get_by_text(f"Right: {shown}").wait_for()
    laptop.get_by_text("Not quite").first.wait_for()
    teacher.get_by_text(f"1 of 3 right (true value {shown})").wait_for()
    if teacher.evaluate(TEACHER_SCORES_JS)[0][3] != f"{truth:.2f}":
        problems.append(f"after Reveal the projector's cell (1, 4) shows {teacher.evaluate(TEACHER_SCORES_JS)[0][3]!r}")
    if not _console_open(teacher):
        problems.append("the console folded at Reveal")
    phone.get_by_text(f"true value {shown}").first.wait_for()
    _shot_stop_and_controls(teacher, "class-projector-reveal")
    _shot(phone, "class-phone-reveal")
    _teacher_clicks(teacher, "Hide")
    teacher.get_by_role("button", name="Reveal").wait_for()
    if not _console_open(teacher):
        problems.append("the console folded at Hide")

    _clicker(teacher, 1, 5)  # row 1's softmax
    phone.locator(f"{FOLLOW}[data-stop='5']").wait_for()
    if not _console_open(teacher):
        problems.append("the console folded at Next")
    takeaway = "gained the most weight"
    teacher.get_by_text(takeaway).first.wait_for()  # shown at the stop, before anything is asked
    _teacher_clicks(teacher, "Ask: which key gains most?")
    _answered(teacher, "0 of 3")
    choices = phone.locator(f"{FOLLOW} .rf-choice")
    choices.first.wait_for()
    for where, text in (("projector", _main_text(teacher)), ("phone", _phone_text(phone))):
        if takeaway in text or "true value" in text:
            problems.append(f"the {where} shows which key gains most before Reveal")
    boxes = [choices.nth(index).bounding_box() for index in range(choices.count())]
    if len(boxes) != 6 or any(box["height"] < 44 or box["x"] < 0 or box["x"] + box["width"] > 390 for box in boxes):
        problems.append(f"the phone's choices are not six 44 px targets on its screen: {boxes}")
    problems += _reveal_and_count_on_one_screen(teacher)
    choices.filter(has_text="key 1").click()
    phone.get_by_role("button", name="Submit").click()
    phone.get_by_text("is in").first.wait_for()
    _teacher_clicks(teacher, "Reveal")
    phone.locator(f"{FOLLOW} .rf-verdict").get_by_text("Right.").wait_for()
    teacher.get_by_text(takeaway).first.wait_for()
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------ 3


#: Whether every one of `wanted` is among the cells under `selector` (a minus sign read as "-").
CELLS_HOLD_JS = """([selector, wanted]) => {
  const cells = new Set([...document.querySelectorAll(selector)]
    .map((node) => node.textContent.trim().replace('\u2212', '-')));
  return wanted.every((value) => cells.has(value));
}"""


def _shows_numbers(page, selector: str, wanted: list[str]) -> bool:
    """Whether the quiz question's numbers `wanted` are drawn in `selector` (within the wait)."""
    try:
        page.wait_for_function(CELLS_HOLD_JS, arg=[selector, wanted], timeout=30_000)
    except PlaywrightTimeout:
        return False
    return True


#: The right edges of the tables under `selector` that run past the screen (a sideways scroll).
PAST_THE_SCREEN_JS = """(selector) => [...document.querySelectorAll(selector)]
  .map((node) => node.getBoundingClientRect().right).filter((right) => right > innerWidth + 1)"""


def _pick_quiz_question(page, number: int) -> None:
    """The console's question picker set to `number` (its list opened again if a run of the
    page, a student's answer arriving, closed it before the pick)."""
    deadline = time.monotonic() + WITHIN / 1000
    while True:
        page.get_by_label("Question", exact=True).click()
        try:
            page.get_by_role("option", name=re.compile(rf"^{number}\. ")).click(timeout=5000)
            break
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, f"the console's question picker never offered question {number}"
    page.wait_for_function(
        "(number) => document.querySelector('[data-testid=stSelectbox] input')?.value.startsWith(number + '. ')",
        arg=number,
    )


def test_five_quiz_questions_reach_every_screen_with_their_answers_hidden_until_the_reveal(lesson):
    """Point 2 and the issue's "done when": the quiz as a class, from the console, five
    questions: each one's numbers on the projector and the phone, no verdict or true value
    before Reveal, the phone's right answer judged right after it. Point 9: the phone answers
    question 2 offline; it is told so, and the answer is sent once it is back."""
    teacher, phone = lesson.teacher, lesson.phone
    quiz = make_quiz(QUIZ_SEED)
    assert _console_open(teacher)
    problems = []
    for number, question in enumerate(quiz, start=1):
        if number > 1:
            _pick_quiz_question(teacher, number)
        _teacher_clicks(teacher, "Ask this quiz question")
        label = f"Quiz question {number}: {question.title}"  # headed once, by its place in the quiz
        teacher.get_by_text(label).first.wait_for()
        phone.locator(f"{FOLLOW} .rf-prompt").get_by_text(label, exact=True).wait_for()
        if re.search(r"Question \d+: Question", _main_text(teacher)):
            problems.append(f"question {number}: the projector heads it twice")
        answer = phone.get_by_label("Your answer")
        answer.wait_for()
        if question.scenario is not None:  # "with the numbers above": the numbers are above
            wanted = [f"{value:g}" for value in question.scenario.queries]
            screens = (
                ("projector", teacher, "[data-testid=stTable] td"),
                ("phone", phone, f"{FOLLOW} .rf-box td"),
            )
            for where, page, cells in screens:
                if not _shows_numbers(page, cells, wanted):
                    problems.append(f"question {number}: the {where} does not show the queries {wanted}")
            scenario = question.scenario
            every = [f"{value:g}" for value in (*scenario.queries, *scenario.keys, *scenario.table)]
            if not _shows_numbers(phone, f"{FOLLOW} .rf-box td", every):
                problems.append(f"question {number}: the phone does not show every number {every}")
            if wide := phone.evaluate(PAST_THE_SCREEN_JS, f"{FOLLOW} .rf-box table"):
                problems.append(f"question {number}: the phone's tables run past its screen: {wide}")
        for where, text in (("projector", _settled_main_text(teacher)), ("phone", _phone_text(phone))):
            if "true value" in text or "Correct" in text:
                problems.append(f"question {number}: the {where} shows the answer before Reveal")
        if number == 1:
            teacher.get_by_role("button", name="Reveal").scroll_into_view_if_needed()
            _shot(teacher, "class-projector-quiz-question")
            _shot(phone, "class-phone-quiz-question")
        if number == 2:  # offline: told so, and the answer goes once the phone is back
            phone.context.set_offline(True)
            phone.get_by_text("You are offline").first.wait_for()
            answer.fill(question.answer_text)
            answer.press("Enter")
            phone.get_by_text(f"your answer {question.answer_text} will be sent").wait_for()
            phone.context.set_offline(False)
        else:
            answer.fill(question.answer_text)
            answer.press("Enter")
        phone.get_by_text("is in").first.wait_for()
        _answered(teacher, "1 of 3")
        _teacher_clicks(teacher, "Reveal")
        phone.locator(f"{FOLLOW} .rf-verdict").get_by_text("Correct").wait_for()
        teacher.get_by_text("1 of 1 right").first.wait_for()
        if number == 1:
            _shot(teacher, "class-projector-quiz-reveal")
    assert not problems, "\n".join(problems)


def test_a_double_click_on_next_steps_two_stops(lesson):
    """Two quick clicks on the projector's Next (the mouse, not the clicker's keys) step two
    stops, and the students follow to the second: the clicks are queued as the clicker's
    presses are, not merged by Streamlit into one press."""
    teacher, phone = lesson.teacher, lesson.phone
    stop = lesson.store.get_class(lesson.code).pace.index + 1
    nav = teacher.locator(".st-key-lesson-nav")
    nav.get_by_role("button", name=re.compile("^Next")).dblclick()
    try:
        nav.get_by_text(f"Stop {stop + 2} of 20").wait_for(timeout=30_000)
    except PlaywrightTimeout as error:
        shown = nav.inner_text().replace("\n", " ")
        raise AssertionError(f"a double-click on Next from stop {stop}: the lesson shows {shown!r}") from error
    phone.locator(f"{FOLLOW}[data-stop='{stop + 2}']").wait_for()
    teacher.wait_for_timeout(1500)  # a third step, if any, would have come by now
    assert lesson.store.get_class(lesson.code).pace.index + 1 == stop + 2


# ------------------------------------------------------------------------------------ 4


#: Whether some element whose own text holds the words is wholly on the screen.
SAID_IN_VIEW_JS = """(words) => [...document.querySelectorAll('p, div, span')]
  .filter((node) => [...node.childNodes].some((child) => child.nodeType === 3 && child.textContent.includes(words)))
  .some((node) => {
    const box = node.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
  })"""


def _download_csv(teacher) -> str:
    with teacher.expect_download() as download:
        teacher.get_by_role("link", name="Download results (CSV)").click()
    return Path(download.value.path()).read_bytes().decode("utf-8")


def test_the_csv_the_private_link_and_the_end_of_the_class(lesson):
    """Point 10: the CSV opens cleanly in a spreadsheet (a byte order mark, plain decimals,
    the teacher's browser's time zone, whole quiz texts, stops named as on screen, totals
    per student, no cell a spreadsheet runs as a formula). Point 11: saving the private link
    says so; ending the class asks first and says it has ended where the teacher looks. Point
    3: the private link opens the class at its stop, in presenter mode, and no student moves."""
    teacher, phone = lesson.teacher, lesson.phone
    text = _download_csv(teacher)
    assert text.startswith("\ufeff"), "no byte order mark: Excel garbles e₁₄"
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert {row["time_zone"] for row in rows} == {TIME_ZONE}
    assert "pair (1, 4)" in {row["stop"] for row in rows} and "row 1, softmax" in {row["stop"] for row in rows}
    assert not re.search(r"\d\.\d*0000000\d|\d\.\d*9999999\d", text), "float noise in the CSV"
    assert any("With the numbers above" in row["prompt"] for row in rows), "a quiz question reduced to its title"
    students = {row["student"]: (row["student_answered"], row["student_correct"]) for row in rows}
    assert students["Ada"] == ("7", "7") and students["'-Grace"] == ("1", "0"), students
    assert [name for name in students if name.startswith("anonymous")], f"the harness's student: {students}"

    with teacher.expect_download() as download:
        teacher.get_by_role("button", name="Save my private teacher link").click()
    teacher.get_by_text(f"Saved relpos_teacher_{lesson.code}.txt").wait_for()
    saved = urlsplit(Path(download.value.path()).read_text(encoding="utf-8").strip())
    link = urlunsplit((*urlsplit(lesson.server.base_url)[:2], *saved[2:]))
    stop = lesson.store.get_class(lesson.code).pace.index + 1
    resumed = lesson.page(viewport=PROJECTOR)
    resumed.goto(link)
    resumed.locator(".st-key-lesson-nav").get_by_text(f"Stop {stop} of 20").wait_for()
    assert resumed.get_by_role("switch", name="Presenter mode").is_checked(), "the private link left presenter mode"
    phone.wait_for_timeout(1000)  # a jump back to stop 1 would have reached the phone by now
    assert phone.get_attribute(FOLLOW, "data-stop") == str(stop), "the private link moved the students"
    resumed.context.close()
    lesson.contexts.remove(resumed.context)

    teacher.get_by_role("button", name="End the class").click()
    dialog = teacher.get_by_role("dialog")
    dialog.get_by_text(f"Class {lesson.code} ends for every student").wait_for()
    dialog.get_by_role("button", name="End the class now").click()
    dialog.wait_for(state="hidden")
    teacher.get_by_text(f"Class {lesson.code} has ended").first.wait_for()
    # the notice or the toast wholly on the screen (a toast fades after a few seconds: one look)
    seen = teacher.evaluate(SAID_IN_VIEW_JS, f"Class {lesson.code} has ended")
    assert seen, "the class ended out of the teacher's view"
    phone.locator(FOLLOW).wait_for(state="detached")  # the phone stops following: no class to follow
    # the students are told, and it stays said: what happened and what they can do now
    for student in (phone, lesson.laptop):
        notice = student.locator(".st-key-classroom-over_notice")
        notice.get_by_text(f"Class {lesson.code} has ended").wait_for()
        student.wait_for_timeout(5000)  # the page's later runs (the receiver forgetting the seat)
        said = notice.inner_text() if notice.count() else ""
        assert f"Class {lesson.code} has ended" in said and "This lesson is yours now" in said, said
        assert notice.get_by_role("link", name="Join another class").is_visible()
    phone.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    _shot(phone, "class-phone-ended")
    _shot(lesson.laptop, "class-laptop-ended")
