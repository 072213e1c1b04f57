// relpos live class: a following student's screen, drawn in the browser.
//
// A student who follows the teacher's stop gets the page once; every later stop is drawn
// here, from the class's view (relpos.class_routes.following, built once per class version
// on the server and the same for every student), so a Next costs the server no page run.
// One EventSource on the class's state stream (relpos.class_routes.events) says when the
// version moves on; the view of that version is fetched and drawn: the stop (heading,
// formulas with the KaTeX Streamlit's st.latex uses, sentences, Plotly figures with the
// plotly.js its st.plotly_chart uses, the table of every pair), the open question with its
// answer field, and after the reveal the student's verdict and the class's results.
// Answers go by POST; a student offline is told so, and the answer is sent once they are
// back. When the class stops being paced, ends, is gone, or the teacher removes this student
// (the view lists removed seats by their tag), the page is handed back to
// Streamlit (a rerun draws the ordinary page).
//
// Text is data: everything is drawn with textContent or KaTeX, never innerHTML.
// The root element reports what it draws for tests and benchmarks: data-version and
// data-stop attributes, and a relpos-follow:drawn event ({version, stop, ms}).
const followers = new Map();
const CLOSE_AFTER_MS = 3000;
const REOPEN_MS = [1000, 2000, 4000, 8000, 15000];
const RETRY_ANSWER_MS = 3000;
// A quiz table's parts (fitTable): the box's padding and border, the row labels' column,
// a number's column ("−0.75", "position 1" in two lines), the least room assumed.
const FIT_BOX_PX = 36;
const FIT_LABEL_PX = 48;
const FIT_CELL_PX = 62;
const FIT_MIN_PX = 200;
// No zoom or pan by drag or wheel (a swipe that starts on a chart scrolls the page); a tap shows a cell.
const PLOT_CONFIG = { displayModeBar: false, responsive: false, scrollZoom: false, doubleClick: false };

// Streamlit's own chunks, at <root>/static/js/…; this file is <root>/_stcore/bidi-components/<name>/follow.js.
const chunks = new Map();
function loadChunk(path, pick) {
  if (!chunks.has(path)) {
    const url = new URL(`../../../${path}`, import.meta.url).href; // served by Streamlit, never a CDN
    const loading = import(url).then(pick);
    loading.catch(() => chunks.delete(path)); // a network blip: tried again at the next draw
    chunks.set(path, loading);
  }
  return chunks.get(path);
}
const plotly = (path) =>
  window.Plotly
    ? Promise.resolve(window.Plotly)
    : loadChunk(path, () => {
        if (!window.Plotly) throw new Error("plotly.js: the chunk did not define window.Plotly");
        return window.Plotly;
      });
const katex = (path) => loadChunk(path, (module) => module.default);

// How many number columns fit beside the row labels in `width` px of the follow view.
export function columnsThatFit(width) {
  const room = Math.max(FIT_MIN_PX, (width || 0) - FIT_BOX_PX);
  return Math.max(1, Math.floor((room - FIT_LABEL_PX) / FIT_CELL_PX));
}

// `count` columns as [start, end) parts in order: as few as hold at most `most` each, their
// sizes within one of each other (5 by 4 go as 3 + 2, not 4 + 1; 10 as 4 + 3 + 3). The same
// as relpos.ui.tables.even_parts, which cuts the pages' quiz tables (tests/js/test_follow_fit.py).
export function evenParts(count, most) {
  const parts = Math.ceil(count / Math.max(1, most));
  const found = [];
  for (let part = 0, start = 0; part < parts; part += 1) {
    const size = Math.floor(count / parts) + (part < count % parts ? 1 : 0);
    found.push([start, start + size]);
    start += size;
  }
  return found;
}

// A quiz table's `count` number columns shared out into as few tables as fit `width` px.
export function fitParts(count, width) {
  return evenParts(count, columnsThatFit(width));
}

function element(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

// The theme's page and text colours, from the CSS variables Streamlit sets on a component's container.
function themed(layout, el) {
  const css = getComputedStyle(el);
  const page = css.getPropertyValue("--st-background-color").trim();
  const text = css.getPropertyValue("--st-text-color").trim();
  if (!page || !text) return layout;
  const axis = (spec) => ({ ...spec, tickcolor: text, linecolor: text });
  return {
    ...layout,
    paper_bgcolor: page,
    plot_bgcolor: layout.plot_bgcolor || page, // the score matrix's grey "not computed yet" stays
    font: { ...layout.font, color: text },
    xaxis: axis(layout.xaxis || {}),
    yaxis: axis(layout.yaxis || {}),
  };
}

class Follower {
  constructor(id) {
    this.id = id;
    this.drawn = -1; // the version on screen
    this.asked = -1; // the version last fetched
    this.shown = { stop: null, question: null };
    this.plots = [];
    this.pending = null; // an answer waiting for the network
    this.mineAsked = new Set();
    this.refused = 0;
    this.root = element("div", "relpos-follow");
    this.root.setAttribute("role", "region");
    this.root.setAttribute("aria-label", "Your teacher's stop");
    this.status = element("p", "rf-status");
    this.status.setAttribute("role", "status");
    this.nav = element("p", "rf-nav");
    this.question = element("div", "rf-question");
    this.stage = element("div", "rf-stage");
    this.offsets = element("div", "rf-offsets");
    this.table = element("div", "rf-table");
    this.root.append(this.status, this.nav, this.question, this.stage, this.offsets, this.table);
    this.onOnline = () => {
      this.say();
      this.sendPending();
      this.load(this.latest ?? this.asked);
    };
    this.onOffline = () => this.say("offline");
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    this.resizer = new ResizeObserver(() => this.resize());
    this.resizer.observe(this.root);
  }

  mount(parent, data, setStateValue) {
    this.data = data;
    this.setStateValue = setStateValue;
    if (this.root.parentElement !== parent) parent.append(this.root);
    if (!this.source) this.open();
    if (data.version > this.asked) this.load(data.version);
  }

  // ------------------------------------------------------------ the stream and the view

  open() {
    const source = new EventSource(this.data.events);
    this.source = source;
    source.onopen = () => {
      this.refused = 0;
      if (navigator.onLine !== false) this.say();
    };
    source.onmessage = (event) => {
      const version = Number(event.data);
      if (Number.isFinite(version)) this.load(version);
    };
    source.addEventListener("gone", () => this.handOver(-1));
    source.onerror = () => {
      if (this.ended) return;
      this.say(navigator.onLine === false ? "offline" : "reconnecting");
      if (source.readyState !== EventSource.CLOSED || this.source !== source) return;
      // a proxy's 502 while its server restarts ends an EventSource for good: open a new one
      const wait = REOPEN_MS[Math.min(this.refused, REOPEN_MS.length - 1)];
      this.refused += 1;
      this.reopen = setTimeout(() => {
        if (!this.ended && this.source === source) this.open();
      }, wait);
    };
  }

  async load(version) {
    this.latest = Math.max(this.latest ?? -1, version);
    if (this.loading || version <= this.drawn) return;
    this.loading = true;
    const started = performance.now();
    try {
      const answer = await fetch(`${this.data.view}?v=${version}`, { cache: "no-store" });
      if (answer.status === 404) {
        this.handOver(-1); // the class is over or gone: the page says which
        return;
      }
      if (!answer.ok) throw new Error(`view: HTTP ${answer.status}`); // the store is away: ask again
      const view = await answer.json();
      this.asked = Math.max(this.asked, version);
      await this.draw(view, started);
      if (navigator.onLine !== false && this.source && this.source.readyState === EventSource.OPEN) this.say();
    } catch (error) {
      this.say(navigator.onLine === false ? "offline" : "reconnecting");
      clearTimeout(this.again);
      this.again = setTimeout(() => this.load(this.latest), RETRY_ANSWER_MS);
    } finally {
      this.loading = false;
    }
    if (this.latest > this.drawn && !this.ended) this.load(this.latest); // a Next during the fetch
  }

  handOver(version) {
    if (this.ended) return;
    this.end();
    this.setStateValue("handover", version); // the page runs again: the ordinary lesson
  }

  end() {
    this.ended = true;
    clearTimeout(this.reopen);
    clearTimeout(this.retry);
    clearTimeout(this.again);
    if (this.source) this.source.close();
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    this.resizer.disconnect();
  }

  say(what) {
    const text = {
      offline: "You are offline. This screen catches up with your teacher once you are back.",
      reconnecting: "Reconnecting to your class…",
    }[what];
    this.status.textContent = text || "";
    this.root.classList.toggle("rf-offline", Boolean(text));
  }

  async draw(view, started) {
    const removed = (view.removed || []).includes(this.data.seat); // the teacher took this seat back
    if (removed || view.ended || !view.paced || view.lesson !== "walkthrough" || !view.stop) {
      this.handOver(view.version);
      return;
    }
    if (view.version <= this.drawn) return;
    this.drawn = view.version;
    const stopKey = JSON.stringify(view.stop);
    const questionKey = JSON.stringify([view.question, view.results]);
    const jobs = [];
    if (stopKey !== this.shown.stop) {
      this.shown.stop = stopKey;
      this.plots = this.plots.filter((plot) => this.question.contains(plot));
      const { index, total, where } = view.stop;
      this.nav.replaceChildren(element("strong", "", `Stop ${index + 1} of ${total}`), ` · ${where}`);
      this.nav.append(element("span", "rf-following", " · you follow your teacher"));
      this.stage.replaceChildren(...view.stop.stage.map((block) => this.block(block, jobs)));
      this.offsets.replaceChildren(...view.stop.offsets.map((block) => this.block(block, jobs)));
      const table = [element("h3", "", "All pairs at once")];
      if (view.stop.table) table.push(this.block(view.stop.table, jobs));
      if (view.stop.table_note) table.push(element("p", "rf-small", view.stop.table_note));
      this.table.replaceChildren(...table);
    }
    if (questionKey !== this.shown.question) {
      this.shown.question = questionKey;
      this.plots = this.plots.filter((plot) => !this.question.contains(plot));
      this.drawQuestion(view, jobs);
    }
    await Promise.allSettled(jobs);
    this.root.dataset.version = String(view.version);
    this.root.dataset.stop = String(view.stop.index + 1);
    const detail = { version: view.version, stop: view.stop.index + 1, ms: performance.now() - started };
    this.root.dispatchEvent(new CustomEvent("relpos-follow:drawn", { bubbles: true, detail }));
  }

  // ------------------------------------------------------------ blocks

  block(spec, jobs) {
    switch (spec.t) {
      case "h":
        return element("h3", "rf-heading", spec.text);
      case "p":
        return this.runs(element("p", spec.small ? "rf-small" : ""), spec.runs, jobs);
      case "ul": {
        const list = element("ul");
        for (const item of spec.items) list.append(this.runs(element("li"), item, jobs));
        return list;
      }
      case "tex": {
        const node = element("div", "rf-tex");
        jobs.push(this.tex(node, spec.tex, true));
        return node;
      }
      case "fig":
        return this.figure(spec.fig, spec.name, jobs);
      case "table":
        return this.tableBlock(spec);
      case "cols": {
        const row = element("div", "rf-cols");
        for (const column of spec.cols) {
          const cell = element("div", "rf-col");
          cell.append(...column.map((block) => this.block(block, jobs)));
          row.append(cell);
        }
        return row;
      }
      case "details": {
        const details = element("details");
        details.append(element("summary", "", spec.summary), ...spec.blocks.map((block) => this.block(block, jobs)));
        return details;
      }
      default:
        return element("span");
    }
  }

  runs(node, runs, jobs) {
    for (const [kind, text] of runs) {
      if (kind === "b") node.append(element("strong", "", text));
      else if (kind === "m") {
        const maths = element("span", "rf-maths", text);
        jobs.push(this.tex(maths, text, false));
        node.append(maths);
      } else node.append(document.createTextNode(text));
    }
    return node;
  }

  async tex(node, source, display) {
    try {
      const { render } = await katex(this.data.katex);
      render(source, node, { displayMode: display, throwOnError: false });
    } catch (error) {
      node.textContent = source; // KaTeX could not load: the formula as written
    }
  }

  figure(fig, name, jobs) {
    const node = element("div", "rf-figure");
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", name);
    this.plots.push(node);
    jobs.push(
      plotly(this.data.plotly).then((Plotly) => {
        const layout = themed({ ...fig.layout, autosize: true, width: undefined }, this.root);
        return Plotly.react(node, fig.data, layout, PLOT_CONFIG);
      }),
    );
    return node;
  }

  tableBlock(spec) {
    if (spec.fit) return this.fitTable(element("div", "rf-fit"), spec);
    const wrap = element("div", "rf-scroll");
    const table = element("table", "rf-pairs");
    const head = element("tr");
    for (const column of spec.columns) head.append(element("th", "", column));
    const body = element("tbody");
    const marked = new Set(spec.marked);
    spec.rows.forEach((cells, number) => {
      const row = element("tr", marked.has(number) ? "rf-marked" : "");
      for (const cell of cells) row.append(element("td", "", cell));
      body.append(row);
    });
    table.append(element("thead"), body);
    table.tHead.append(head);
    wrap.append(table);
    return wrap;
  }

  // A quiz's numbers (spec.fit) never scroll sideways: a table wider than the screen is
  // drawn as a few narrower ones, one under the other, each with the row labels, the
  // columns shared out evenly (a phone: 4 positions fit, 5 go as 3 + 2). Redrawn when the
  // screen turns.
  fitTable(wrap, spec) {
    const [labels, ...columns] = spec.columns;
    const fits = columnsThatFit(this.root.clientWidth);
    const tables = [];
    for (const [start, end] of fitParts(columns.length, this.root.clientWidth)) {
      const part = {
        columns: [labels, ...columns.slice(start, end)],
        rows: spec.rows.map(([label, ...cells]) => [label, ...cells.slice(start, end)]),
        marked: spec.marked,
      };
      const table = this.tableBlock(part).firstChild;
      table.classList.add("rf-fitted");
      tables.push(table);
    }
    wrap.replaceChildren(...tables);
    wrap.relposFit = { spec, fits };
    return wrap;
  }

  refit() {
    for (const wrap of this.root.querySelectorAll(".rf-fit")) {
      const kept = wrap.relposFit;
      if (!kept) continue;
      if (columnsThatFit(this.root.clientWidth) !== kept.fits) this.fitTable(wrap, kept.spec);
    }
  }

  resize() {
    this.refit();
    if (!window.Plotly) return;
    clearTimeout(this.resizing);
    this.resizing = setTimeout(() => {
      for (const plot of this.plots) if (plot.isConnected && plot.data) window.Plotly.Plots.resize(plot);
    }, 100);
  }

  // ------------------------------------------------------------ the question

  drawQuestion(view, jobs) {
    const question = view.question;
    if (!question) {
      this.question.replaceChildren();
      return;
    }
    const box = element("div", "rf-box");
    box.append(element("p", "rf-prompt", question.label || question.prompt)); // "Question 3: …", "Quiz question 1: …"
    for (const block of question.body || []) box.append(this.block(block, jobs)); // a quiz question's numbers and text
    this.ack = element("p", "rf-ack");
    this.ack.setAttribute("role", "status");
    if (question.status === "open") box.append(this.answerForm(question));
    else if (!view.results) box.append(element("p", "rf-small", "This question is closed."));
    box.append(this.ack);
    if (view.results) {
      this.verdict = element("p", "rf-verdict");
      box.append(this.verdict, this.figure(view.results.fig, "The class's answers", jobs));
      if (view.results.caption) box.append(element("p", "rf-small", view.results.caption));
    }
    this.question.replaceChildren(box);
    this.askMine(question, Boolean(view.results));
  }

  answerForm(question) {
    const form = element("form", "rf-answer");
    form.noValidate = true;
    let field;
    if (question.input === "choice") {
      field = element("div", "rf-choices");
      field.setAttribute("role", "radiogroup");
      field.setAttribute("aria-label", "Your answer");
      for (const choice of question.choices) {
        const label = element("label", "rf-choice");
        const radio = element("input");
        Object.assign(radio, { type: "radio", name: `rf-choice-${question.id}`, value: choice });
        label.append(radio, element("span", "", choice));
        field.append(label);
      }
    } else {
      field = element("label", "rf-field");
      const input = element("input");
      Object.assign(input, { type: "text", name: "answer", maxLength: 64, autocomplete: "off" });
      input.setAttribute("enterkeyhint", "send");
      if (question.input === "number") {
        input.inputMode = "decimal";
        input.placeholder = "e.g. 0.25";
      }
      field.append(element("span", "", "Your answer"), input);
    }
    const submit = element("button", "rf-submit", "Submit");
    submit.type = "submit"; // Enter (a phone's Go) submits too
    form.append(field, submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const text = String(data.get("answer") ?? data.get(`rf-choice-${question.id}`) ?? "").trim();
      if (!text) {
        this.tell("Type or choose an answer first.", "warn");
        return;
      }
      this.pending = { question: question.id, answer: text };
      this.sendPending();
    });
    return form;
  }

  tell(text, tone = "") {
    if (!this.ack) return;
    this.ack.textContent = text;
    this.ack.className = `rf-ack ${tone ? `rf-${tone}` : ""}`;
  }

  async sendPending() {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(this.retry);
    try {
      const answer = await fetch(this.data.answer, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Relpos-Token": this.data.token },
        body: JSON.stringify(pending),
      });
      if (answer.status >= 500) throw new Error(`answer: HTTP ${answer.status}`); // not stored: send again
      const reply = await answer.json();
      if (answer.status === 429) {
        // too fast (the server's rate limit): not stored; say so, and send it once, after the wait it names
        const wait = Math.max(RETRY_ANSWER_MS, 1000 * (Number(answer.headers.get("Retry-After")) || 0));
        this.tell(reply.message || "Too fast: your answer is sent again in a moment.", "warn");
        this.retry = setTimeout(() => this.sendPending(), wait);
        return;
      }
      if (this.pending === pending) this.pending = null;
      this.tell(reply.message, answer.ok ? "ok" : "warn");
      if (reply.joined === false) this.handOver(-1); // the class forgot this student: the page says why
    } catch (error) {
      // no network, or the class's server away: keep it, say so, and send it again
      const where = navigator.onLine === false ? "You are offline" : "Your class's server does not answer just now";
      this.tell(`${where}: your answer ${pending.answer} will be sent as soon as it can be.`, "warn");
      this.retry = setTimeout(() => this.sendPending(), RETRY_ANSWER_MS);
    }
  }

  async askMine(question, revealed) {
    const key = `${question.id}:${revealed}`;
    if (this.mineAsked.has(key)) return;
    this.mineAsked.add(key);
    try {
      const answer = await fetch(`${this.data.mine}?q=${question.id}`, {
        headers: { "X-Relpos-Token": this.data.token },
        cache: "no-store",
      });
      const mine = await answer.json();
      if (!answer.ok) return;
      if (revealed && mine.message && this.verdict) {
        this.verdict.textContent = mine.message;
        this.verdict.className = `rf-verdict ${mine.correct ? "rf-ok" : "rf-warn"}`;
      } else if (revealed && this.verdict) {
        this.verdict.textContent = "You did not answer this one.";
      } else if (mine.answer !== null && !this.ack.textContent) {
        this.tell(`Your answer ${mine.answer} is in; your teacher reveals the results.`, "ok");
      }
    } catch (error) {
      this.mineAsked.delete(key); // asked again with the next view
    }
  }
}

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const id = component.key || "relpos.class_follow";
  let follower = followers.get(id);
  if (follower && (follower.ended || follower.data.view !== data.view)) {
    follower.end();
    followers.delete(id);
    follower = undefined;
  }
  if (!follower) {
    follower = new Follower(id);
    followers.set(id, follower);
  }
  clearTimeout(follower.closing);
  follower.mount(parentElement, data, setStateValue);
  return () => {
    follower.closing = setTimeout(() => {
      if (followers.get(id) === follower) {
        follower.end();
        followers.delete(id);
      }
    }, CLOSE_AFTER_MS);
  };
}
