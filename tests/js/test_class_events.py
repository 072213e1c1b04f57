"""The class's event receiver (relpos/ui/class_assets/events.js) in Node, without a browser.

The teacher's page has two receivers of the class's activity: the join panel's and the open
question's count, each in a fragment of its own. Both hear a new version at the same moment.
Streamlit sends the widget changes made in one task as one rerun of one fragment (its
WidgetStateManager.scheduleFlush: the first change's fragment for the whole batch), so two
hand-overs in one task reran only the join panel, and "a of N answered" beside Reveal stayed
behind (issue 34, point 6). Here a stand-in for Streamlit batches as Streamlit does; each
receiver's hand-over must reach it in a batch of its own. A hand-over whose run never comes
is made again.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.required import node

EVENTS_JS = Path(__file__).resolve().parents[2] / "relpos" / "ui" / "class_assets" / "events.js"

SCRIPT = """
const sources = [];
globalThis.EventSource = class {
  static OPEN = 1;
  static CLOSED = 2;
  constructor(url) { this.url = url; this.readyState = 1; sources.push(this); }
  addEventListener() {}
  close() { this.readyState = 2; }
};
globalThis.window = globalThis;
globalThis.localStorage = { getItem: () => null, setItem() {}, removeItem() {} };
// Streamlit's batching: every change made before its 0 ms timer fires goes in one rerun,
// of the first change's fragment.
const batches = [];
let batch = null;
const widgetManager = (fragment) => (name, value) => {
  if (!batch) {
    batch = [];
    setTimeout(() => { batches.push(batch); batch = null; }, 0);
  }
  batch.push({ fragment, name, value });
};
const { default: mount } = await import(%s);
const url = "/relpos/class/ABC234/events?watch=activity";
const data = (version) => ({ url, code: "ABC234", version, minInterval: 250 });
mount({ key: "join-panel", data: data(1), setStateValue: widgetManager("join panel"), parentElement: null });
mount({ key: "count", data: data(1), setStateValue: widgetManager("count"), parentElement: null });
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
await sleep(20);
for (const source of sources) source.onmessage({ data: "2" }); // one answer, heard by both receivers
await sleep(50);
const first = batches.splice(0);
await sleep(%d); // no run came back: the hand-overs are made again
process.stdout.write(JSON.stringify({ sources: sources.length, first, again: batches }));
process.exit(0);
"""


def test_two_receivers_on_one_page_each_rerun_their_own_fragment():
    pending_ms = 5000  # events.js PENDING_MS
    done = subprocess.run(
        [node(), "--input-type=module", "-e", SCRIPT % (json.dumps(EVENTS_JS.as_uri()), pending_ms + 300)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["sources"] == 1, "two receivers of one address share one EventSource"
    fragments = [[change["fragment"] for change in batch] for batch in seen["first"]]
    assert sorted(fragments) == [["count"], ["join panel"]], f"Streamlit's reruns: {fragments}"
    assert all(batch[0]["value"] == 2 for batch in seen["first"])
    again = sorted(change["fragment"] for batch in seen["again"] for change in batch)
    assert again == ["count", "join panel"], f"a hand-over whose run never came was not made again: {seen['again']}"
