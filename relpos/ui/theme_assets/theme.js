// relpos: rerun the page when the reader's theme changes, so the figures follow it.
//
// The server draws a figure's own colours (markers, guide lines, blank cells) for the
// theme the browser names with each run (st.context.theme.type, relpos.plots.style). A
// switch in the app menu, or of the system setting under "System", restyles the page at
// once but starts no run: those colours would stay the old theme's until the next click.
// This element has no face. It compares the theme shown (the colour scheme Streamlit gives
// its app element, from the theme's background) with the one this run drew for
// (data.theme) and, when they differ, hands the shown one to Streamlit as its state,
// whose change reruns the page, once per switch. Static code, no user text. Streamlit's
// app element is found by the selector Python sends (data.dom.app, relpos.server.internals).
const watch = { drawn: null, asked: null, setStateValue: null, observed: null, frame: 0, app: null };

function appElement() {
  return watch.app && document.querySelector(watch.app);
}

function shownTheme() {
  const app = appElement();
  return app && getComputedStyle(app).colorScheme === "dark" ? "dark" : "light";
}

function check() {
  watch.frame = 0;
  const shown = shownTheme();
  if (shown === watch.drawn) {
    watch.asked = null; // drawn in the theme shown: nothing to ask
    return;
  }
  if (shown === watch.asked || !watch.setStateValue) return; // its run is on the way
  watch.asked = shown;
  watch.setStateValue("theme", shown);
}

function soon() {
  if (!watch.frame) watch.frame = requestAnimationFrame(check);
}

// Streamlit restyles its app element (a new class) when the theme changes.
function observe() {
  const app = appElement();
  if (!app || watch.observed === app) return;
  watch.observed = app;
  new MutationObserver(soon).observe(app, { attributes: true, attributeFilter: ["class", "style"] });
}

if (window.matchMedia) window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", soon);

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  watch.drawn = data.theme;
  watch.app = data.dom.app;
  watch.setStateValue = setStateValue;
  if (parentElement) parentElement.dataset.relposTheme = String(data.theme);
  observe();
  soon();
}
