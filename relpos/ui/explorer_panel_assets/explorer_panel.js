// The Explorer panel (a Streamlit custom component, v2).
//
// Python sends a spec (relpos.topics.explorer.panel_spec.release_spec): the inputs, the slider groups, the
// seven figures as Plotly JSON *skeletons* (layout, colour scale and range, templates;
// no cells, no outline paths; what all seven share comes once, as spec.layout and
// spec.trace) and the recipes for their cells (decimals, hover fields, the offset map's).
// The browser fills every cell itself, with one code path: attention.js recomputes the
// numbers from the inputs and traceUpdate / cellsOf build z, the cell text and the hover
// data. drawFigures does it when a spec arrives (first load and every release, any n);
// while a slider moves (up to DRAG_REPAINT_MAX_N tokens) every input event marks the panels it
// changes and, one animation frame later, redrawCells swaps exactly those panels' cells
// (colour ranges stay: colours hold still while a slider moves). On release the values go
// back to Python as component state ("values"), which rebuilds captions, tables, URL and
// the skeletons, and sends a new spec. Python fits the colour ranges afresh, but a panel
// keeps the range it shows while its numbers stay inside it (keptRanges): colours change
// only where numbers did, and Python's fit is taken on a structural change (n, k, d, a
// preset, the seed …), when numbers leave the range, or when the learner asks ("Fit
// colours"). Pointing at or tapping a cell outlines the same (i, j) in all seven panels.
// The panels wear the page's theme (themeColours): plotly.js draws them directly, so
// st.plotly_chart's theming never reaches them; a switch of theme redraws them at once.
// The sliders sit in a sticky bar that never takes more than a quarter of the screen
// (sliderColumns: one row of them, two on a large screen, scrolling sideways); a spec with
// `presenter` gets the projector's layout (the ep-presenter class: larger text, two
// panels a row, in the spec's order).
//
// The panel reports what it does as DOM events (bubbling from its root element, or from
// the document while it is detached): relpos-explorer-panel:paint (every repaint, with its
// timings), relpos-explorer-panel:restyle (a repaint that needed a full Plotly.restyle),
// relpos-explorer-panel:send (a hand-back to Python), relpos-explorer-panel:spec (a spec drawn: how many
// figures, when) and relpos-explorer-panel:mount. It draws a spec handed to it as a
// relpos-explorer-panel:load event on its root ({ spec, redraw }), as if Python had sent it: tests
// and benchmarks compare the drawing with Python's figures without a server round trip.
import { attend, formatFixed, hoverData, offsetCells, outlinePaths } from "./attention.js";

// Which panels a change can touch: an a^K slider never changes the content panel.
const AFFECTS = {
  a: ["bias", "scores", "weights", "difference"],
  q: ["content", "bias", "scores", "content_weights", "weights", "difference"],
  keys: ["content", "scores", "content_weights", "weights", "difference"],
  bias: ["content", "bias", "scores", "weights", "difference"], // content: its hover names the bias
};
const SCORE_PANELS = ["content", "bias", "scores"]; // one hover template, which follows the bias
const LOGITS = { content_weights: "content", weights: "scores" }; // the softmax behind a weight panel
const MATRIX = { a: "table", q: "queries", keys: "keys" };
const SEND_DELAY_MS = 120; // a burst of key presses is sent once
// No zoom or pan by drag, wheel or double tap (as relpos.ui.charts.CHART_CONFIG): a swipe
// that starts on a panel scrolls the page on a phone, a tap still shows the cell (issue 12).
// Not plotly.js's "responsive": its resize (Plotly.Plots.resize) deletes a figure's height
// 100 ms after a window resize, and a figure drawn in between, for a new n, then keeps the
// old height. The panel follows its container's width itself (ExplorerPanel.followWidth).
const PLOT_CONFIG = { displayModeBar: false, responsive: false, scrollZoom: false, doubleClick: false };
const CELL_KEYS = new Set(["z", "text", "customdata"]); // what a redraw of the cells may change
// Panels drawn on one colour range (Python fits them together): kept or re-fitted together.
const RANGE_GROUPS = [["content", "bias", "scores"], ["difference"]];
// A finger drags a slider by its own movement, at least this many px per step: 80 steps
// in a 90 px track would be a pixel each (WCAG 2.5.5 asks 44 px targets; 2.5.7 a drag
// that does not demand pixel precision).
const TOUCH_PX_PER_STEP = 4;

// One plotly.js on every page: the panel draws with the copy that Streamlit's own
// st.plotly_chart loads (its Plotly chunk assigns window.Plotly when evaluated). On a page
// without st.plotly_chart the panel imports that chunk itself: same URL, so the browser
// loads it once per tab and keeps it (a hashed, immutable name), and every other page's
// charts then need no plotly.js of their own. Python hands over the chunk's path below the
// app's root (spec.plotly); this file is served at <root>/_stcore/bidi-components/<name>/.
let plotlyPromise = null;
function loadPlotly(chunk) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyPromise) {
    if (!chunk) return Promise.reject(new Error("plotly.js: no chunk path from Python"));
    const url = new URL(`../../../${chunk}`, import.meta.url).href; // served by Streamlit, never a CDN
    plotlyPromise = import(url).then(() => {
      if (!window.Plotly) throw new Error(`plotly.js: ${chunk} did not define window.Plotly`);
      return window.Plotly;
    });
    plotlyPromise.catch(() => {
      plotlyPromise = null; // a failed load (a network blip) is tried again with the next spec
    });
  }
  return plotlyPromise;
}

// The theme's page and text colours, from the CSS variables Streamlit sets for its theme on
// a component's container (null outside one: Plotly's own colours then).
function themeColours(el) {
  const css = getComputedStyle(el);
  const page = css.getPropertyValue("--st-background-color").trim();
  const text = css.getPropertyValue("--st-text-color").trim();
  return page && text ? { page, text } : null;
}

// A figure's layout in the theme's colours: its background, and its text, ticks and axis
// lines (titles and colour bars take the layout's font colour).
function themed(layout, colours) {
  if (!colours) return layout;
  const axis = (spec) => ({ ...spec, tickcolor: colours.text, linecolor: colours.text });
  return {
    ...layout,
    paper_bgcolor: colours.page,
    plot_bgcolor: colours.page,
    font: { ...layout.font, color: colours.text },
    xaxis: axis(layout.xaxis),
    yaxis: axis(layout.yaxis),
  };
}

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text; // never innerHTML: labels are data
  return node;
}

// The property moves the thumb; the attribute lets page tools (and tests) read the value.
function setValue(input, value) {
  input.value = value;
  input.setAttribute("value", input.value);
}

// Draw new cells into a one-heatmap figure. Plotly.restyle re-runs the whole figure
// (defaults, margins, both axes, the colour bar: ~20 ms a panel on this machine) although
// only the cells changed; the colour range is fixed (Python set zmin/zmax) and the axes
// stay, so recomputing the trace and redrawing its layer is enough (~2 ms a panel). That
// reaches into plotly.js (the trace module's calc and plot, gd.calcdata), so anything
// but the plain case (one heatmap, fixed colour range, only cell data changing) goes
// through Plotly.restyle instead, and so does a plotly.js without these internals.
function redrawCells(plot, update) {
  const full = plot._fullData && plot._fullData.length === 1 && plot._fullData[0];
  const module = full && full._module;
  const info = plot._fullLayout && plot._fullLayout._plots && plot._fullLayout._plots.xy;
  const layer = info && info.plot && info.plot.select("g.heatmaplayer");
  const plain = module && module.name === "heatmap" && !full.zauto && plot.calcdata && layer && !layer.empty();
  if (!plain || !Object.keys(update).every((key) => CELL_KEYS.has(key)) || !drawLayer(plot, update, info, layer)) {
    window.Plotly.restyle(plot, update, [0]);
    return true; // reported: tests check that a slider's paint never needs this
  }
  return false;
}

// The smallest and largest finite number of a matrix.
function extent(matrix) {
  let low = Infinity;
  let high = -Infinity;
  for (const row of matrix) {
    for (const value of row) {
      if (Number.isFinite(value)) {
        if (value < low) low = value;
        if (value > high) high = value;
      }
    }
  }
  return [low, high];
}

// The trace's new cells through its own calc and plot; false if plotly.js refused them.
function drawLayer(plot, update, info, layer) {
  const full = plot._fullData[0];
  for (const [key, [value]] of Object.entries(update)) {
    plot.data[0][key] = value; // what Plotly.react diffs against when Python's figures arrive
    full[key] = value; // what calc, plot and the hover labels read
  }
  try {
    const calcdata = full._module.calc(plot, full); // [cell data] for this trace
    calcdata[0].trace = full;
    plot.calcdata[0] = calcdata;
    full._module.plot(plot, info, [calcdata], layer);
    return true;
  } catch (error) {
    console.warn("relpos Explorer panel: redrawing the cells failed, using Plotly.restyle", error);
    return false;
  }
}

function structureOf(spec) {
  return JSON.stringify([spec.n, spec.k, spec.d, spec.drag_repaint, !!spec.presenter, spec.groups.map((g) => g.labels.length)]);
}

// The slider bar stays short (never more than a quarter of the screen): the open group's
// sliders take as few rows as fit, at most --ep-rows (the style sheet's choice for the
// screen), and what does not fit is reached by scrolling the rows sideways. Returns the
// grid's column count: every slider at least its row's min-width, and the row filled.
function sliderColumns(count, width, item, gap, most) {
  const fit = Math.max(1, Math.floor((width + gap) / (item + gap)));
  if (count <= fit) return fit; // one row, its tracks as wide as a full row's
  return Math.ceil(count / Math.min(most, Math.ceil(count / fit)));
}

let noteCount = 0; // ids of the group notes (a tab panel names its note as its description)

class ExplorerPanel {
  // `dom`: Streamlit's elements the panel finds (data.dom, relpos.server.internals).
  constructor(dom) {
    this.dom = dom;
    this.el = element("div", { class: "relpos-explorer-panel" });
    // Where the keyboard was, so a remount (Streamlit re-creates the component's container
    // now and then while reruns overlap) gives it back instead of dropping it on <body>.
    this.el.addEventListener("focusin", (event) => (this.lastFocused = event.target));
    this.el.addEventListener("focusout", (event) => event.relatedTarget && (this.lastFocused = null));
    this.sliderGrids = {};
    this.barWidth = 0;
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        const width = this.controls ? this.controls.clientWidth : 0;
        if (width && width !== this.barWidth) this.fitSliders(); // the sidebar folded, the window resized …
      }).observe(this.el);
    }
    this.structure = null;
    this.figureText = {};
    this.plots = {};
    this.heights = {}; // each panel's height in its spec (followWidth keeps it)
    this.marks = {};
    this.dirty = new Set();
    this.pendingInputs = [];
    this.frame = 0;
    this.sentSeq = -1;
    this.tab = "a";
    this.fitted = {}; // Python's colour range of each panel in the last spec
    this.ranges = {}; // the range each panel is drawn with
    this.sentInputs = null; // the inputs of the last hand-back, to know Python's answer to it
    this.marked = null; // the (i, j) outlined in every panel
    this.queue = Promise.resolve(); // plotly.js is loaded with the first spec (it names the chunk)
    this.watchTheme();
    this.el.addEventListener("relpos-explorer-panel:load", (event) => {
      if (event.detail.redraw) this.figureText = {};
      this.load(event.detail.spec, null, true);
    });
    this.report("mount");
  }

  // A switch of theme (the app menu, or the system's under "System") restyles Streamlit's
  // app element: the panels are drawn again in the new colours, cells and ranges as they are.
  watchTheme() {
    const app = document.querySelector(this.dom.app);
    if (!app) return;
    const redraw = () => {
      if (!this.spec || !this.el.isConnected || JSON.stringify(themeColours(this.el)) === this.drawnColours) return;
      this.figureText = {};
      this.queue = this.queue.then(() => this.drawFigures(this.spec)).catch((error) => this.fail(error));
    };
    // a frame later: the component's container takes the new theme's variables in the same render
    new MutationObserver(() => requestAnimationFrame(redraw)).observe(app, { attributes: true, attributeFilter: ["class", "style"] });
  }

  report(kind, detail = {}) {
    const target = this.el.isConnected ? this.el : document;
    target.dispatchEvent(new CustomEvent(`relpos-explorer-panel:${kind}`, { bubbles: true, detail }));
  }

  // --- the container Streamlit gives us (the same panel survives a remount) --------
  attach(root) {
    if (this.el.parentNode === root) return;
    root.appendChild(this.el); // moves the sliders and the drawn plots: nothing is rebuilt
    const active = document.activeElement;
    if (this.lastFocused && this.el.contains(this.lastFocused) && (!active || active === document.body)) {
      this.lastFocused.focus({ preventScroll: true });
    }
    this.followWidth(); // a new container may be wider or narrower
  }

  // Each drawn figure as wide as its box, at the height its spec gives: a relayout with
  // autosize sizes the figure to its box afresh and forgets the height, so it is given again.
  followWidth() {
    for (const [name, plot] of Object.entries(this.plots)) {
      if (!plot._fullLayout || !plot.clientWidth || Math.abs(plot.clientWidth - plot._fullLayout.width) < 1) continue;
      const height = this.heights[name];
      window.Plotly.relayout(plot, height ? { autosize: true, height } : { autosize: true });
    }
  }

  detach(root) {
    if (this.el.parentNode === root) root.removeChild(this.el);
  }

  // --- data from Python -----------------------------------------------------------
  load(spec, setStateValue, force = false) {
    if (setStateValue) this.setStateValue = setStateValue;
    if (force) this.unsent = false; // tests: draw this spec even over values never handed back
    this.queue = this.queue
      .then(() => loadPlotly(spec && spec.plotly))
      .then(() => this.apply(spec))
      .catch((error) => this.fail(error));
    return this.queue;
  }

  async apply(spec) {
    const structure = structureOf(spec);
    // Older than the last hand-back, or the learner has moved on since: keep what is shown.
    if (structure === this.structure && (this.unsent || spec.seq < this.sentSeq)) return;
    this.sentSeq = Math.max(this.sentSeq, spec.seq);
    this.spec = spec;
    this.values = Object.fromEntries(spec.groups.map((g) => [g.name, g.values.slice()]));
    this.scalar = spec.scalar;
    if (structure !== this.structure) {
      this.structure = structure;
      this.figureText = {};
      this.el.classList.toggle("ep-presenter", !!spec.presenter);
      this.build(spec);
      this.fitSliders();
    } else {
      this.syncControls();
    }
    await this.drawFigures(spec);
    this.setStale(false);
  }

  // Each skeleton with its cells filled in, drawn with Plotly.react; a panel whose skeleton
  // and inputs are those it shows already is left alone (a paint since forgets what it shows).
  async drawFigures(spec) {
    const started = performance.now();
    const inputs = JSON.stringify([spec.queries, spec.keys, spec.table, spec.scalar, spec.decimals, spec.hover]);
    const colours = themeColours(this.el);
    this.drawnColours = JSON.stringify(colours);
    const shared = JSON.stringify([spec.layout, spec.trace, colours]);
    const computed = this.compute();
    const ranges = this.keptRanges(spec, computed);
    let drawn = 0;
    for (const name of Object.keys(spec.figures)) {
      // The learner moved a slider while this spec was being drawn: its numbers are old.
      // The rest stays as painted, and the panels are painted again from the new values.
      if (this.unsent) break;
      const skeleton = JSON.stringify(spec.figures[name]);
      const range = ranges[name] || this.fitted[name];
      const shown = shared + skeleton + JSON.stringify(range) + (name === "offsets" ? JSON.stringify(spec.offsets) : inputs);
      if (this.figureText[name] === shown) continue; // unchanged since the last spec
      this.figureText[name] = shown;
      const figure = this.assemble(spec, JSON.parse(skeleton), name === "offsets" ? null : this.cellsOf(name, computed));
      if (range) [figure.data[0].zmin, figure.data[0].zmax] = range;
      const layout = themed({ ...figure.layout, dragmode: false }, colours);
      this.heights[name] = layout.height;
      await window.Plotly.react(this.plots[name], figure.data, layout, PLOT_CONFIG);
      this.ranges[name] = range;
      this.listen(this.plots[name]);
      drawn += 1;
    }
    this.showMarks();
    this.fitButton.hidden = !Object.keys(this.fitted).some((name) => !sameRange(this.ranges[name], this.fitted[name]));
    if (this.unsent && spec.drag_repaint) this.repaintValues();
    requestAnimationFrame(() => this.report("spec", { seq: spec.seq, drawn, startedAt: started, presentedAt: performance.now(), spec }));
  }

  // Python's colour range of every panel in `spec`; and the ranges to keep instead: a
  // panel group keeps the range it is drawn with when the spec is Python's answer to the
  // last hand-back (the same inputs: the learner moved a slider, nothing else changed)
  // and every number of the group still lies inside it.
  keptRanges(spec, computed) {
    const answer = this.sentInputs !== null && this.sentInputs === JSON.stringify([spec.queries, spec.keys, spec.table, spec.scalar]);
    if (answer) this.sentInputs = null;
    this.fitted = {};
    for (const [name, figure] of Object.entries(spec.figures)) {
      const trace = figure.data[0];
      if (typeof trace.zmin === "number" && typeof trace.zmax === "number") this.fitted[name] = [trace.zmin, trace.zmax];
    }
    const kept = {};
    if (!answer) return kept;
    for (const group of RANGE_GROUPS) {
      const shown = this.ranges[group[0]];
      const fits = shown && group.every((name) => {
        const [low, high] = extent(computed.result[name]);
        return sameRange(this.ranges[name], shown) && low >= shown[0] && high <= shown[1];
      });
      if (fits) for (const name of group) kept[name] = shown;
    }
    return kept;
  }

  // "Fit colours": Python's ranges for the numbers shown now (the last spec's).
  fitColours() {
    for (const [name, range] of Object.entries(this.fitted)) {
      if (sameRange(this.ranges[name], range)) continue;
      window.Plotly.restyle(this.plots[name], { zmin: [range[0]], zmax: [range[1]] }, [0]);
      this.ranges[name] = range;
      delete this.figureText[name];
    }
    this.fitButton.hidden = true;
  }

  // --- one cell outlined in every panel (pointing or tapping) -----------------------
  listen(plot) {
    if (plot.relposListening || typeof plot.on !== "function") return;
    plot.relposListening = true;
    plot.on("plotly_hover", (event) => {
      const point = event && event.points && event.points[0];
      if (!point || typeof point.x !== "number" || typeof point.y !== "number") return;
      const origin = this.spec.origin || 0;
      this.marked = [Math.round(point.y - origin), Math.round(point.x - origin)];
      this.showMarks();
    });
    plot.on("plotly_unhover", () => {
      this.marked = null;
      this.showMarks();
    });
  }

  showMarks() {
    for (const [name, plot] of Object.entries(this.plots)) {
      const mark = this.marks[name];
      const layout = plot._fullLayout;
      const cell = this.marked;
      const inside = cell && layout && layout.xaxis && cell[0] >= 0 && cell[1] >= 0 && cell[0] < this.spec.n && cell[1] < this.spec.n;
      mark.hidden = !inside;
      if (!inside) continue;
      const origin = this.spec.origin || 0;
      const x = (value) => layout.xaxis._offset + layout.xaxis.l2p(value + origin);
      const y = (value) => layout.yaxis._offset + layout.yaxis.l2p(value + origin);
      const [left, right] = [x(cell[1] - 0.5), x(cell[1] + 0.5)].sort((a, b) => a - b);
      const [top, bottom] = [y(cell[0] - 0.5), y(cell[0] + 0.5)].sort((a, b) => a - b);
      Object.assign(mark.style, {
        left: `${plot.offsetLeft + left}px`,
        top: `${plot.offsetTop + top}px`,
        width: `${right - left}px`,
        height: `${bottom - top}px`,
      });
    }
  }

  // A figure as Python built it: the parts all seven share, the skeleton (a copy, filled in
  // place), its cells (the offset map's when `cells` is null) and the outline's paths.
  assemble(spec, figure, cells) {
    figure.layout = { ...structuredClone(spec.layout), ...figure.layout };
    figure.data[0] = { ...structuredClone(spec.trace), ...figure.data[0], ...(cells || offsetCells(spec.n, spec.k, spec.offsets)) };
    outlinePaths(figure.layout.shapes, spec);
    return figure;
  }

  fail(error) {
    this.el.replaceChildren(element("p", { class: "ep-error", role: "alert" }, `Explorer panel failed: ${error}`));
  }

  // --- the DOM ------------------------------------------------------------------------
  build(spec) {
    this.el.replaceChildren();
    this.plots = {};
    this.marks = {};
    this.ranges = {};
    this.marked = null;
    // the window, the sidebar or the layout change the panels' width: one relayout a frame
    this.resizes = this.resizes || new ResizeObserver(() => {
      cancelAnimationFrame(this.resizeFrame);
      this.resizeFrame = requestAnimationFrame(() => this.followWidth());
    });
    this.resizes.disconnect();
    this.sentInputs = null;
    this.notes = {};
    this.sliderGrids = {};
    // the new grids are unfitted: a build while the panel is unmounted cannot fit them, and
    // the ResizeObserver must not take the old grids' fit for theirs once it is back at the
    // same width (each slider would stay on a row of its own)
    this.barWidth = 0;
    this.controls = this.buildControls(spec);
    const notes = element("div", { class: "ep-notes" });
    notes.append(...Object.values(this.notes));
    this.el.append(this.controls, notes);
    const grid = element("div", { class: "ep-grid" });
    for (const name of Object.keys(spec.figures)) {
      const figure = element("figure", { class: `ep-panel ep-${name}` });
      const plot = element("div", { class: "ep-plot", role: "img", "aria-label": `Heatmap: ${spec.titles[name]}` });
      const caption = element("figcaption", { class: "ep-caption" }, spec.captions[name]);
      const mark = element("div", { class: "ep-mark", "aria-hidden": "true" });
      mark.hidden = true;
      figure.append(plot, mark, caption);
      grid.appendChild(figure);
      this.plots[name] = plot;
      this.marks[name] = mark;
      this.resizes.observe(plot);
    }
    this.el.appendChild(grid);
  }

  buildControls(spec) {
    const controls = element("div", { class: "ep-controls", role: "group", "aria-label": "Values" });
    const tabs = element("div", { class: "ep-tabs", role: "tablist", "aria-label": "Which values the sliders set" });
    this.tabButtons = {};
    this.groupPanels = {};
    this.sliders = {};
    for (const group of spec.groups) {
      const button = element("button", { type: "button", role: "tab", class: "ep-tab", "data-group": group.name });
      button.textContent = group.title;
      button.addEventListener("click", () => this.openTab(group.name));
      button.addEventListener("keydown", (event) => this.tabKey(event, group.name));
      this.tabButtons[group.name] = button;
      tabs.appendChild(button);
      this.groupPanels[group.name] = this.buildGroup(group, spec);
    }
    const bar = element("div", { class: "ep-bar" });
    this.fitButton = element("button", { type: "button", class: "ep-fit", title: "Colour ranges fitted to the numbers shown now" }, "Fit colours");
    this.fitButton.hidden = true;
    this.fitButton.addEventListener("click", () => this.fitColours());
    bar.append(tabs, this.buildToggle(spec), this.fitButton);
    controls.append(bar, ...Object.values(this.groupPanels));
    this.status = element("p", { class: "ep-status", role: "status", "aria-live": "polite" });
    controls.appendChild(this.status);
    this.openTab(this.tab in this.tabButtons ? this.tab : "a", false);
    return controls;
  }

  buildToggle(spec) {
    const label = element("label", { class: "ep-toggle" });
    this.toggle = element("input", { type: "checkbox", role: "switch" });
    this.toggle.checked = spec.scalar;
    this.toggle.addEventListener("change", (event) => {
      this.scalar = this.toggle.checked;
      this.changed("bias", event);
      this.release();
    });
    label.append(this.toggle, element("span", { title: spec.toggle }, spec.toggle)); // cut short on phones
    return label;
  }

  buildGroup(group, spec) {
    const panel = element("div", { role: "tabpanel", class: "ep-group", "data-group": group.name });
    panel.setAttribute("aria-label", group.title);
    if (group.note) {
      // below the sticky bar, not in it: a sentence to read once, not a control to reach
      const id = `ep-note-${(noteCount += 1)}`;
      this.notes[group.name] = element("p", { class: "ep-note", id, "data-group": group.name }, group.note);
      panel.setAttribute("aria-describedby", id);
    }
    const grid = element("div", { class: "ep-sliders" });
    grid.addEventListener("scroll", () => this.shade(grid), { passive: true });
    this.sliderGrids[group.name] = grid;
    this.sliders[group.name] = group.labels.map((label, index) => {
      const row = element("label", { class: "ep-slider" });
      const input = element("input", {
        type: "range",
        min: spec.low,
        max: spec.high,
        step: spec.step,
        "aria-label": label,
      });
      setValue(input, group.values[index]);
      const output = element("output", {}, formatFixed(group.values[index], 2));
      input.addEventListener("input", (event) => this.slide(group.name, index, input, output, event));
      input.addEventListener("change", () => this.release());
      this.touchDrag(input, (event) => this.slide(group.name, index, input, output, event));
      row.append(element("span", { class: "ep-label" }, label), input, output);
      grid.appendChild(row);
      return { input, output };
    });
    panel.appendChild(grid);
    return panel;
  }

  // A finger (or pen) on a slider moves its value by the finger's own movement, from the
  // value it has, one step per TOUCH_PX_PER_STEP px or more: no dead zone before the drag
  // starts, no jump to where the finger landed. A mouse keeps the native slider.
  touchDrag(input, moved) {
    let drag = null;
    input.addEventListener("touchstart", (event) => event.preventDefault(), { passive: false }); // no native drag
    input.addEventListener("pointerdown", (event) => {
      if (event.pointerType === "mouse") return;
      event.preventDefault();
      input.setPointerCapture(event.pointerId);
      input.focus({ preventScroll: true });
      const step = Number(input.step) || 1;
      const steps = (Number(input.max) - Number(input.min)) / step;
      const track = input.getBoundingClientRect().width;
      drag = { id: event.pointerId, x: event.clientX, value: Number(input.value), step, px: Math.max(TOUCH_PX_PER_STEP, track / steps), moved: false };
    });
    input.addEventListener("pointermove", (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      const steps = Math.round((event.clientX - drag.x) / drag.px);
      const value = Math.min(Number(input.max), Math.max(Number(input.min), drag.value + steps * drag.step));
      const text = String(Number(value.toFixed(6))); // on the step grid, without 0.25000000000000006
      if (input.value === text) return;
      input.value = text;
      drag.moved = true;
      moved(event);
    });
    const end = (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      const changed = drag.moved;
      drag = null;
      if (changed) this.release();
    };
    input.addEventListener("pointerup", end);
    input.addEventListener("pointercancel", end);
  }

  openTab(name, focus = true) {
    this.tab = name;
    for (const [group, button] of Object.entries(this.tabButtons)) {
      const open = group === name;
      button.setAttribute("aria-selected", String(open));
      button.tabIndex = open ? 0 : -1;
      this.groupPanels[group].hidden = !open;
      if (this.notes && this.notes[group]) this.notes[group].hidden = !open;
    }
    if (this.sliderGrids[name]) this.shade(this.sliderGrids[name]);
    if (focus) this.tabButtons[name].focus();
  }

  // A link to a slider (SLIDER_LINK) followed: its group opened, the bar on screen above
  // the panels, the slider scrolled to the middle of its row and given the keyboard. On a
  // phone or at 200 % zoom the slider a task names is far along a row that scrolls sideways.
  showSlider(label) {
    for (const [group, sliders] of Object.entries(this.sliders || {})) {
      const found = sliders.find(({ input }) => input.getAttribute("aria-label") === label);
      if (!found) continue;
      this.openTab(group, false);
      const row = found.input.closest(".ep-slider");
      const grid = this.sliderGrids[group];
      this.el.scrollIntoView({ block: "start" }); // the bar sticks under the header
      const gridBox = grid.getBoundingClientRect();
      const rowBox = row.getBoundingClientRect();
      grid.scrollLeft += rowBox.left - gridBox.left - (gridBox.width - rowBox.width) / 2;
      this.shade(grid);
      found.input.focus({ preventScroll: true });
      row.classList.add("ep-found");
      clearTimeout(this.foundTimer);
      this.foundTimer = setTimeout(() => row.classList.remove("ep-found"), FOUND_MS);
      return true;
    }
    return false;
  }

  // Every group's sliders laid out for the bar's width (sliderColumns).
  fitSliders() {
    const width = this.controls ? this.controls.clientWidth : 0;
    if (!width) return; // detached: the ResizeObserver fits them once the panel is back
    this.barWidth = width;
    const most = Number(getComputedStyle(this.el).getPropertyValue("--ep-rows")) || 1;
    for (const [name, grid] of Object.entries(this.sliderGrids)) {
      const first = grid.firstElementChild;
      if (!first) continue;
      const style = getComputedStyle(grid);
      const room = width - (parseFloat(style.paddingLeft) || 0) - (parseFloat(style.paddingRight) || 0);
      const item = parseFloat(getComputedStyle(first).minWidth) || 0;
      const gap = parseFloat(style.columnGap) || 0;
      grid.style.setProperty("--ep-columns", String(sliderColumns(this.sliders[name].length, room, item, gap, most)));
    }
    if (this.sliderGrids[this.tab]) this.shade(this.sliderGrids[this.tab]);
  }

  // A soft edge where the row goes on beyond the bar, on the side it goes on.
  shade(grid) {
    const left = grid.scrollLeft;
    grid.classList.toggle("ep-more-before", left > 1);
    grid.classList.toggle("ep-more-after", left + grid.clientWidth < grid.scrollWidth - 1);
  }

  tabKey(event, name) {
    const names = Object.keys(this.tabButtons);
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    this.openTab(names[(names.indexOf(name) + step + names.length) % names.length]);
  }

  syncControls() {
    for (const [name, sliders] of Object.entries(this.sliders)) {
      sliders.forEach(({ input, output }, index) => {
        setValue(input, this.values[name][index]);
        output.textContent = formatFixed(this.values[name][index], 2);
      });
    }
    this.toggle.checked = this.scalar;
    const figures = this.el.querySelectorAll(".ep-caption");
    Object.keys(this.spec.figures).forEach((name, index) => {
      figures[index].textContent = this.spec.captions[name];
    });
  }

  setStale(stale) {
    this.el.classList.toggle("ep-stale", stale);
    this.status.textContent = stale ? "Captions, tables and the link update when you let go." : "";
  }

  // --- input: mark, coalesce, paint -----------------------------------------------
  slide(group, index, input, output, event) {
    const value = Number(input.value);
    input.setAttribute("value", input.value);
    this.values[group][index] = value;
    output.textContent = formatFixed(value, 2);
    this.changed(group, event);
  }

  changed(kind, event) {
    this.unsent = true;
    this.setStale(true);
    this.unhover();
    if (!this.spec.drag_repaint) return; // beyond DRAG_REPAINT_MAX_N tokens the panels repaint on release
    for (const name of AFFECTS[kind]) this.dirty.add(name);
    this.pendingInputs.push(event ? event.timeStamp : performance.now());
    if (!this.frame) this.frame = requestAnimationFrame((time) => this.paint(time));
  }

  // An open hover label would show the numbers from before the move: it closes (the cell
  // outline stays), and pointing or tapping again shows the live numbers.
  unhover() {
    for (const plot of Object.values(this.plots)) {
      const layer = plot.querySelector && plot.querySelector(".hoverlayer");
      if (layer && layer.childElementCount) window.Plotly.Fx.unhover(plot);
    }
  }

  // Every panel that shows numbers, painted again on the next frame from the sliders' values.
  repaintValues() {
    for (const names of Object.values(AFFECTS)) for (const name of names) this.dirty.add(name);
    if (!this.frame) this.frame = requestAnimationFrame((time) => this.paint(time));
  }

  inputs() {
    const column = (name) => {
      const base = this.spec[MATRIX[name]];
      const values = this.values[name];
      return values.length ? base.map((row, r) => [values[r], ...row.slice(1)]) : base; // sliders set column 0
    };
    return { queries: column("q"), keys: column("keys"), table: column("a") };
  }

  paint(frameTime) {
    this.frame = 0;
    const inputs = this.pendingInputs;
    this.pendingInputs = [];
    const names = [...this.dirty];
    this.dirty.clear();
    const started = performance.now();
    const computed = this.compute();
    for (const name of names) delete this.figureText[name]; // shows the slider's values, not the spec's
    const updates = names.map((name) => this.traceUpdate(name, computed)); // numbers, cell text, hover data
    const built = performance.now();
    for (const [index, name] of names.entries()) {
      if (redrawCells(this.plots[name], updates[index])) this.report("restyle", { panel: name });
    }
    const title = this.spec.bias_titles[this.scalar ? "scalar" : "shaw"];
    if (names.includes("bias") && this.plots.bias.layout.title.text !== title) {
      window.Plotly.relayout(this.plots.bias, { "title.text": title }); // only when the toggle flips
    }
    const drawnAt = performance.now();
    requestAnimationFrame(() => {
      const presentedAt = performance.now(); // the next frame: the new data has been painted
      const timing = { computeMs: built - started, drawMs: drawnAt - built };
      this.report("paint", { inputs, frameTime, drawnAt, presentedAt, panels: names.length, ...timing });
    });
  }

  // The numbers of every panel for the values shown now (attention.js, mirroring relpos.core).
  compute() {
    const { queries, keys, table } = this.inputs();
    return { queries, keys, table, result: attend(queries, keys, table, this.scalar) };
  }

  // A value panel's cells: z, the cell text (when Python prints it) and the hover data.
  cellsOf(name, computed) {
    const matrix = computed.result[name];
    const cells = { z: matrix };
    const decimals = this.spec.decimals[name];
    if (decimals !== null && decimals !== undefined) {
      cells.text = matrix.map((row) => row.map((v) => formatFixed(v, decimals)));
    }
    const recipe = this.hoverRecipe(name);
    if (recipe) {
      const logits = computed.result[LOGITS[name]];
      cells.customdata = hoverData(recipe.fields, recipe.text, { ...computed, logits, z: matrix });
    }
    return cells;
  }

  // The cells as a Plotly.restyle update (one trace), with the hover template if the toggle flipped.
  traceUpdate(name, computed) {
    const update = Object.fromEntries(Object.entries(this.cellsOf(name, computed)).map(([key, value]) => [key, [value]]));
    const recipe = this.hoverRecipe(name);
    if (recipe && recipe.template && this.plots[name].data[0].hovertemplate !== recipe.template) {
      update.hovertemplate = recipe.template; // the other bias's arithmetic
    }
    return update;
  }

  // Python's fields for a panel's hover; the score panels' follow the bias toggle.
  hoverRecipe(name) {
    const hover = this.spec.hover || {};
    const recipe = hover.fields && hover.fields[name];
    if (!recipe || !SCORE_PANELS.includes(name)) return recipe || null;
    const mode = hover.scores[this.scalar ? "scalar" : "shaw"];
    return { fields: mode.fields, text: recipe.text, template: mode.template };
  }

  // --- release: hand the values to Python ------------------------------------------
  release() {
    clearTimeout(this.sendTimer);
    this.sendTimer = setTimeout(() => this.send(), SEND_DELAY_MS);
  }

  send() {
    if (this.frame) {
      this.release(); // a repaint is still due: the learner sees it before the server hears of it
      return;
    }
    this.unsent = false;
    this.sentSeq += 1;
    const message = { seq: this.sentSeq, bias: this.scalar ? "scalar" : "shaw" };
    for (const [name, values] of Object.entries(this.values)) if (values.length) message[name] = values.slice();
    const { queries, keys, table } = this.inputs();
    this.sentInputs = JSON.stringify([queries, keys, table, this.scalar]);
    this.report("send", { at: performance.now(), seq: this.sentSeq });
    if (this.setStateValue) this.setStateValue("values", message);
  }
}

// One panel per component key: a remount re-attaches it (values, plots, focus and all).
// Kept on the window under a registered symbol, so a re-imported module finds it too.
const REGISTRY = Symbol.for("relpos.explorer_panel.panels");
const panels = (window[REGISTRY] = window[REGISTRY] || new Map());

function sameRange(a, b) {
  return !!a && !!b && a[0] === b[0] && a[1] === b[1];
}

// A link in the page's text to a slider: href "#slider=" and the slider's label, as in
// content/explorer_questions.md ("the aᴷ₊₂ slider"). Followed in the panel that has that
// slider (ExplorerPanel.showSlider); the address bar keeps the lesson link (no #fragment).
const SLIDER_LINK = "#slider=";
const FOUND_MS = 2500; // how long the slider a link brought into view stays marked
const LINKS = Symbol.for("relpos.explorer_panel.sliderLinks");
if (!window[LINKS]) {
  window[LINKS] = true;
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element && event.target.closest(`a[href^="${SLIDER_LINK}"]`);
      if (!link) return;
      event.preventDefault();
      event.stopPropagation();
      const label = decodeURIComponent(link.getAttribute("href").slice(SLIDER_LINK.length));
      for (const panel of panels.values()) if (panel.el.isConnected && panel.showSlider(label)) return;
    },
    true,
  );
}

export default function (component) {
  const { parentElement, data, setStateValue } = component;
  const id = component.key || component.name || "relpos.explorer_panel";
  let panel = panels.get(id);
  if (!panel) {
    panel = new ExplorerPanel(data.dom);
    panels.set(id, panel);
  }
  panel.attach(parentElement);
  panel.load(data, setStateValue);
  return () => panel.detach(parentElement);
}
