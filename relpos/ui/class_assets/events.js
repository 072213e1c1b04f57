// relpos live class: rerun this page (or its fragment) when the class changes.
//
// Opens one EventSource on /relpos/class/CODE/events (relpos.class_routes.events) and hands
// a new version to Streamlit only when it differs from the one the page was drawn with, so
// a quiet class costs no runs. Versions that arrive faster than minInterval ms apart are
// coalesced into one (a projector counting 60 answers reruns a few times, not 60). Two
// receivers on one page (the teacher's join panel and the open question's count, each in a
// fragment of its own) hear a change at the same moment: their hand-overs go one task apart
// (handOver), since Streamlit sends the widget changes of one task as one rerun of one
// fragment, and the other fragment's count stayed behind. A hand-over whose run is not
// drawn within PENDING_MS is made again.
// The stream outlives a rerun (Streamlit unmounts and mounts the element again): it is
// closed only when no mount claims it for a few seconds. Elements that watch the same
// address share one EventSource (the teacher's join panel, count and roster: one
// connection, not three of the six a browser opens to one host).
//
// It also keeps who this browser is in the class, per class code, sealed by the server
// (relpos.class_routes.identity: no credential in clear), in the browser's local storage and in
// an HttpOnly cookie the server sets when asked (POST data.identityUrl): a new session (a
// server restart, another replica, a second tab) that knows only the code from its URL
// reads the cookie in its first run, or else gets the local copy back
// (setStateValue("identity", …)), so the teacher keeps control and a student their
// answers. Never in the URL, never drawn. Static code, no user text.
const streams = new Map();
const CLOSE_AFTER_MS = 3000;
const PENDING_MS = 5000; // a rerun not drawn by then is taken as lost
// An EventSource reconnects by itself after a dropped connection, but gives up for good on
// an answer that is not a 200 event stream (a proxy's 502 or 503 while the one server
// behind it restarts): then a new one is opened, 1 s later, then 2, 4 … up to 15 s apart.
const REOPEN_MS = [1000, 2000, 4000, 8000, 15000];

const sources = new Map(); // address → the one EventSource its elements share

function subscribe(stream) {
  if (!stream.url) return; // identity only (the teacher's tab makes the changes itself)
  let shared = sources.get(stream.url);
  if (!shared) {
    shared = { url: stream.url, streams: new Set(), refused: 0, latest: null };
    sources.set(stream.url, shared);
    open(shared);
  }
  shared.streams.add(stream);
  stream.shared = shared;
  if (shared.latest !== null) stream.latest = shared.latest; // offered once the mount has drawn
}

function open(shared) {
  const source = new EventSource(shared.url);
  shared.source = source;
  source.onmessage = (event) => {
    shared.refused = 0;
    const version = Number(event.data);
    if (!Number.isFinite(version)) return;
    shared.latest = version;
    for (const stream of shared.streams) offer(stream, version);
  };
  source.addEventListener("gone", () => {
    close(shared); // the class is over: nothing more will come
    for (const stream of shared.streams) {
      stream.ended = true;
      offer(stream, -1);
    }
  });
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED || shared.source !== source || shared.closed) return;
    const wait = REOPEN_MS[Math.min(shared.refused, REOPEN_MS.length - 1)];
    shared.refused += 1;
    shared.reopen = setTimeout(() => {
      if (!shared.closed && shared.source === source) open(shared);
    }, wait);
  };
}

function close(shared) {
  shared.closed = true;
  clearTimeout(shared.reopen);
  if (shared.source) shared.source.close();
  if (sources.get(shared.url) === shared) sources.delete(shared.url);
}

function end(stream) {
  stream.ended = true;
  clearTimeout(stream.lost);
  const shared = stream.shared;
  if (!shared) return;
  shared.streams.delete(stream);
  if (!shared.streams.size) close(shared); // the last element watching this address
}

function offer(stream, version) {
  stream.latest = version;
  // versions only grow: one older than the page's was drawn already (-1: the class is gone)
  if (version === stream.drawn || version === stream.sent || (version >= 0 && version < stream.drawn)) return;
  // one rerun at a time: a second request before the first run is drawn would interrupt it
  // (and the server's back-pressure pauses a session that asks faster than its runs finish)
  if (stream.pending && Date.now() - stream.sentAt < PENDING_MS) return;
  const wait = stream.minInterval - (Date.now() - stream.sentAt);
  if (wait > 0) {
    if (!stream.timer) {
      stream.timer = setTimeout(() => {
        stream.timer = null;
        offer(stream, stream.latest);
      }, wait);
    }
    return;
  }
  stream.sent = version;
  stream.sentAt = Date.now();
  stream.pending = true;
  clearTimeout(stream.lost);
  stream.lost = setTimeout(() => {
    if (!stream.pending || stream.sent !== version || stream.ended) return;
    stream.pending = false; // its run never came (or never drew this receiver): hand it over again
    stream.sent = null;
    offer(stream, stream.latest);
  }, PENDING_MS);
  handOver(stream, version);
}

// Hand-overs to Streamlit, one task each (see the notes at the top), each made after
// Streamlit has sent the one before: its changes go out from a 0 ms timer set by the change,
// so a job's turn is a timer set after the last job. The page's other widget changes that
// must not share a rerun take turns here too (the clicker: relpos/server/assets/page_helpers.js).
const TURN = Symbol.for("relpos.streamlitTurn");
const turns = [];
function nextTurn() {
  const job = turns.shift();
  if (job) job();
  if (turns.length) setTimeout(nextTurn, 0);
}
window[TURN] ||= (job) => {
  turns.push(job);
  if (turns.length === 1) setTimeout(nextTurn, 0);
};
function handOver(stream, version) {
  window[TURN](() => stream.setStateValue && stream.setStateValue("version", version));
}

// The server keeps the identity cookie (HttpOnly: no script reads it, this one included):
// asked once per page load and sealed value, again after a failed ask (the server away).
const keptCookies = new Map();

function keepCookie(data, sealed) {
  if (!data.identityUrl || keptCookies.get(data.code) === sealed) return;
  keptCookies.set(data.code, sealed);
  const retry = () => keptCookies.get(data.code) === sealed && keptCookies.delete(data.code);
  fetch(data.identityUrl, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Relpos-Identity": "1" },
    body: JSON.stringify(sealed ? { sealed } : { forget: true }),
  }).then((answer) => answer.ok || retry(), retry);
}

function remember(data, setStateValue) {
  const name = "relpos.class." + data.code;
  if (data.remember) keepCookie(data, data.remember.sealed);
  else if (data.forget) keepCookie(data, "");
  try {
    if (data.remember) {
      localStorage.setItem(name, JSON.stringify(data.remember)); // sealed: no credential in clear
    } else if (data.forget) {
      localStorage.removeItem(name);
    } else if (data.ask && !asked.has(name)) {
      asked.add(name); // once per page load: a refused identity is not offered again
      const stored = JSON.parse(localStorage.getItem(name) || "null");
      if (stored && stored.code === data.code && stored.sealed) setStateValue("identity", stored);
    }
  } catch (error) {
    // storage blocked (a private window's policy): the session still works until it ends
  }
}
const asked = new Set();

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const id = component.key || component.name || "relpos.class_events";
  let stream = streams.get(id);
  if (stream && stream.url !== data.url) {
    end(stream);
    streams.delete(id);
    stream = undefined;
  }
  if (!stream) {
    stream = { url: data.url, sent: null, sentAt: 0, latest: null, timer: null };
    streams.set(id, stream);
    subscribe(stream);
  }
  clearTimeout(stream.closing);
  clearTimeout(stream.lost);
  stream.drawn = data.version;
  stream.pending = false;
  stream.minInterval = data.minInterval || 0;
  stream.setStateValue = setStateValue;
  if (parentElement) parentElement.dataset.relposClassVersion = String(data.version);
  remember(data, setStateValue);
  if (stream.latest !== null) offer(stream, stream.latest); // a change that came during the run
  return () => {
    stream.closing = setTimeout(() => {
      if (streams.get(id) === stream) {
        end(stream);
        streams.delete(id);
      }
    }, CLOSE_AFTER_MS);
  };
}
