// relpos page helpers, installed once per browser tab by relpos.server.page_helpers.
// Static code, no user text. It adds the app-wide style sheet (CSS below), then does these
// jobs, redone after every render:
// 1. Formulas fit their column: a display formula wider than its box is scaled down to
//    fit (to 60 % at most); one still too wide scrolls sideways and becomes a focusable,
//    named region, so keyboard users can scroll it too (axe: scrollable-region-focusable).
// 2. After Enter in a text field the field lets go of the focus, so the arrow keys and a
//    presentation clicker step through the lesson again.
// 3. Presenter mode: after Previous / Next the current stop's heading is in view, below
//    the sticky navigation bar. A lesson link that names a stop, opened on a phone, lands
//    on that stop (the server marks the run with data-relpos-land, relpos.ui.layout.land_on):
//    its navigation bar, with the heading under it, is kept at the top of the screen while
//    the page settles, until the reader scrolls, taps or types (landOnStop).
// 4. Heatmap cell numbers never show below 10 px (hideTinyNumbers).
// 5. The window's width is kept in a cookie (rememberWidth), so the server knows a phone
//    before it draws anything: a presenter link opened on a phone gets the phone layout
//    from its first run (relpos.ui.layout.phone_screen). Nothing here clicks a widget.
// 6. Presenter mode (relpos.ui.presenter.PRESENTER_CSS sets --relpos-presenter) folds the
//    sidebar whenever a page enters it, in every tab (Streamlit remembers an open sidebar),
//    and the control that switched it on lets go of the focus: a clicker's Page Down then
//    steps the lesson instead of scrolling (presenterMode).
// 7. A text field where a number is typed (relpos.state.keys.NUMBER_FIELDS) gets a
//    phone's decimal keyboard (inputmode="decimal"), not the letters (numberKeyboards);
//    not on Apple's phones and tablets, whose decimal pad cannot type a minus sign.
// 8. Presenter mode's "Copy link" button (data-relpos-copy-link) copies the address bar,
//    which always holds the lesson link of what is on screen, in the browser (no rerun).
// 9. A clicker's presses (Page Up / Page Down, and the arrow keys) step the lesson one stop
//    each, in order, and Page Up / Page Down work while a field has the focus (pressClicker).
// 10. Clicks on Previous / Next join the clicker's queue: two quick clicks, two stops (queueNavClick).
(() => {
  if (window.__relposPageHelpers) return;
  window.__relposPageHelpers = true;
  const MIN_SCALE = 0.6;
  // Streamlit's elements, by the names used below: relpos.server.page_helpers fills in their CSS
  // selectors from relpos.server.internals (data-testid values, st-key classes), which are
  // checked against the pinned Streamlit.
  const ST = /*SELECTORS*/{};

  // App-wide CSS (the colours text needs come with every run instead, relpos.ui.theme):
  // * a clearly visible keyboard focus ring on toggles and checkboxes (Streamlit's is faint),
  //   dark blue on the light theme, light blue on the dark one: light-dark() picks by the
  //   colour scheme Streamlit gives its app element;
  // * a formula box scrolls sideways only once fitFormulas has made it a focusable region:
  //   a box React has just drawn is never a scroll region without keyboard access, not even
  //   for the frame before it is fitted (axe: scrollable-region-focusable);
  // * a touch swipe that starts on a chart scrolls the page (charts never zoom or pan by
  //   dragging; see relpos.ui.charts.chart), a tap still shows the hover text;
  const style = document.createElement('style');
  style.id = 'relpos-page-helpers-css';
  style.textContent = `
${ST.checkbox} label:has(input:focus-visible) {
  outline: 3px solid light-dark(#1c4f9c, #85b8f8); outline-offset: 3px; border-radius: 6px;
}
.katex-display:not([data-relpos-scroll]) { overflow-x: hidden !important; overflow-y: hidden !important; }
.katex-display[data-relpos-scroll] { overflow-y: hidden !important; }
${ST.chart} .js-plotly-plot .draglayer,
${ST.chart} .js-plotly-plot .draglayer *,
${ST.chart} .js-plotly-plot .nsewdrag { touch-action: pan-x pan-y !important; }
`;
  document.head.appendChild(style);

  // Each formula box is marked data-relpos-fitted once fitted: a box React has just
  // replaced is not, so a check (a screenshot, axe-core) can wait until every box is.
  const fitFormulas = () => {
    for (const box of document.querySelectorAll(`${ST.main} .katex-display, ${ST.sidebar} .katex-display`)) {
      box.dataset.relposFitted = '1';
      box.style.fontSize = '';
      if (box.scrollWidth <= box.clientWidth + 1) {
        if (box.dataset.relposScroll) {
          box.removeAttribute('tabindex');
          box.removeAttribute('role');
          box.removeAttribute('aria-label');
          delete box.dataset.relposScroll;
        }
        // fits (or a sub-pixel overhang): never a scroll region without keyboard access
        box.style.overflowX = 'hidden';
        continue;
      }
      const scale = Math.max(MIN_SCALE, (box.clientWidth - 2) / box.scrollWidth);
      box.style.fontSize = scale.toFixed(3) + 'em';
      if (box.scrollWidth > box.clientWidth + 1) {
        box.style.overflowX = 'auto';
        box.setAttribute('tabindex', '0');
        box.setAttribute('role', 'region');
        box.setAttribute('aria-label', 'Formula, scrolls sideways');
        box.dataset.relposScroll = '1';
      } else {
        box.style.overflowX = 'hidden';
      }
    }
  };

  // 4. Cell numbers Plotly shrank to fit small cells (many cells, a narrow column, or
  //    200 % zoom) are hidden below MIN_CELL_PX instead of shown as unreadable specks:
  //    the colours stay, a hover or tap shows the number, and "Numbers as tables" lists them.
  const MIN_CELL_PX = 10;
  const hideTinyNumbers = () => {
    for (const text of document.querySelectorAll(`${ST.main} .js-plotly-plot :is(.hm, g.textpoint) text`)) {
      const tiny = parseFloat(getComputedStyle(text).fontSize) < MIN_CELL_PX;
      if (tiny !== (text.style.visibility === 'hidden')) text.style.visibility = tiny ? 'hidden' : '';
    }
  };

  // 5. The width in CSS px, for the server's next run (a link opened in this browser, a
  //    reload). Clicking the Presenter toggle from here instead would rerun the page while
  //    its first run is still drawing the fields.
  let lastWidth = null;
  const rememberWidth = () => {
    const width = Math.round(window.innerWidth);
    if (width === lastWidth) return;
    lastWidth = width;
    document.cookie = `relpos-width=${width}; path=/; max-age=31536000; SameSite=Lax`;
  };

  // Streamlit scrolls inside its main area, not the window: the nearest scroller of an element.
  const scrollerOf = (element) => {
    let scroller = element.parentElement;
    while (scroller && !(scroller.scrollHeight > scroller.clientHeight
        && /(auto|scroll)/.test(getComputedStyle(scroller).overflowY))) scroller = scroller.parentElement;
    return scroller || document.scrollingElement;
  };

  // 3. The st-key class to land on once the server's mark has been seen (null: no mark yet;
  //    false: landed and left to the reader, who has scrolled, tapped or typed since).
  let landing = null;
  const landOnStop = () => {
    const mark = document.querySelector('[data-relpos-land]');
    if (landing === null && mark) landing = mark.dataset.relposLand;
    const target = landing && document.querySelector(`.${CSS.escape(landing)}`);
    if (!target) return;
    // kept below Streamlit's header, which is drawn over the top of the page
    const header = document.querySelector(ST.header);
    const below = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    const by = target.getBoundingClientRect().top - below - 8;
    if (Math.abs(by) > 1) scrollerOf(target).scrollBy(0, by);
  };
  const leaveToReader = () => { if (landing) landing = false; };
  for (const kind of ['touchstart', 'wheel', 'keydown', 'mousedown']) {
    window.addEventListener(kind, leaveToReader, { capture: true, passive: true });
  }

  let lastStop = null;
  const keepStopInView = () => {
    const heading = document.getElementById('current-stop');
    const bar = document.querySelector(ST.lessonNav);
    if (!heading || !bar) { lastStop = null; return; }
    const text = heading.textContent;
    if (text === lastStop) return;
    const first = lastStop === null;
    lastStop = text;
    if (first) return;
    const barBottom = bar.getBoundingClientRect().bottom;
    const top = heading.getBoundingClientRect().top;
    if (top >= barBottom && top <= window.innerHeight * 0.6) return;
    scrollerOf(heading).scrollBy(0, top - barBottom - 12);
  };

  // 6. Presenter mode, entered by a page load or by its toggle.
  let wasPresenter = false;
  const presenterMode = () => {
    const presenter = getComputedStyle(document.documentElement).getPropertyValue('--relpos-presenter').trim() === '1';
    if (presenter === wasPresenter) return;
    wasPresenter = presenter;
    if (!presenter) return;
    const sidebar = document.querySelector(ST.sidebar);
    const fold = document.querySelector(`${ST.sidebarFold} button`);
    if (sidebar && fold && sidebar.getAttribute('aria-expanded') !== 'false' && sidebar.dataset.collapsed !== 'true') {
      fold.click(); // the sidebar's own arrow: no rerun, and the teacher can open it again
    }
    const focused = document.activeElement;
    if (focused instanceof HTMLInputElement && focused.type === 'checkbox') focused.blur();
  };

  // 7. NUMBER_FIELDS is replaced by relpos.server.page_helpers with the fields' st-key classes.
  const NUMBER_FIELDS = /*NUMBER_FIELDS*/[];
  const numberSelector = NUMBER_FIELDS.map((prefix) => `[class*="${prefix}"] input[type=text]`).join(', ');
  // Apple's decimal pad has no minus key, and an aᴷ entry or a score is often negative:
  // an iPhone or iPad keeps its full keyboard (Android's decimal keyboard has the minus).
  const APPLE_TOUCH = /iPhone|iPad|iPod/.test(navigator.userAgent)
    || (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1);
  const numberKeyboards = () => {
    if (!numberSelector || APPLE_TOUCH) return;
    for (const input of document.querySelectorAll(numberSelector)) {
      if (input.getAttribute('inputmode') !== 'decimal') input.setAttribute('inputmode', 'decimal');
    }
  };

  // 8. Copies with the clipboard API where the page may (https, localhost), else the old way.
  const copyLink = async (button) => {
    const link = window.location.href;
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(link);
        copied = true;
      }
    } catch (error) { copied = false; }
    if (!copied) {
      const box = document.createElement('textarea');
      box.value = link;
      box.setAttribute('readonly', '');
      box.style.cssText = 'position: fixed; top: 0; left: -9999px;';
      document.body.appendChild(box);
      box.select();
      try { copied = document.execCommand('copy'); } catch (error) { copied = false; }
      box.remove();
    }
    const label = button.querySelector('[data-relpos-copy-label]');
    if (label) {
      label.textContent = copied ? 'Link copied' : 'Copy failed: use the address bar';
      clearTimeout(button.relposTimer);
      button.relposTimer = setTimeout(() => { label.textContent = ''; }, 2500);
    }
    button.blur(); // the clicker steps the lesson again
  };
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element && event.target.closest('[data-relpos-copy-link]');
    if (button) copyLink(button);
  });

  // 9. The lesson's clicker keys, taken before Streamlit's shortcuts see them. Each press is
  //    queued, and pressed on the lesson's hidden clicker button only once the last press
  //    has moved the lesson: the navigation bar names another stop and the row and key
  //    pickers show it too (or after PRESS_WAIT_MS). A second press sent sooner was lost or
  //    undone: sent before the first one's run had started, the two reached the server as
  //    one rerun request, which Streamlit merges into one button press (a second press
  //    within about 0.6 s on a busy server); sent before the pickers had their new values,
  //    it carried their old ones, which put the lesson back. A press takes its turn with the
  //    class's event receivers (events.js, streamlitTurn): Streamlit sends the widget changes
  //    of one task as one rerun, of one fragment only. Page Up / Page Down also step the
  //    lesson while a text or number field has the focus (Streamlit's shortcuts skip key
  //    presses in fields: the teacher who typed a quiz seed found the clicker dead): the
  //    field lets go. The arrow keys keep their use in a field or on a slider.
  const CLICKER_KEYS = { PageDown: 'Page Down', PageUp: 'Page Up', ArrowRight: 'Page Down', ArrowLeft: 'Page Up' };
  const PRESS_WAIT_MS = 15000;
  const PRESS_POLL_MS = 50;
  const MAX_PRESSES = 20;
  const presses = [];
  let inFlight = null; // the press on its way: where the lesson was, and when
  let pressTimer = null;
  const lessonPlace = () => document.querySelector(ST.lessonNav)?.textContent ?? '';
  // whether the row and key pickers show the stop the navigation bar names
  const pickersAgree = () => {
    const named = lessonPlace().match(/pair \((\d+), (\d+)\)|row (\d+), softmax/);
    if (!named) return true;
    const wanted = named[3] ? [`i = ${named[3]}`, 'softmax'] : [`i = ${named[1]}`, `j = ${named[2]}`];
    const shown = new Set([...document.querySelectorAll('[aria-checked=true]')].map((node) => node.textContent.trim()));
    return wanted.every((label) => shown.has(label));
  };
  const clickerButton = (label) => [...document.querySelectorAll(`${ST.clicker} button`)]
    .find((candidate) => candidate.textContent.startsWith(label));
  const nextPress = () => {
    clearTimeout(pressTimer);
    if (inFlight) {
      const waited = performance.now() - inFlight.at;
      if ((lessonPlace() === inFlight.place || !pickersAgree()) && waited < PRESS_WAIT_MS) {
        pressTimer = setTimeout(nextPress, PRESS_POLL_MS);
        return;
      }
      inFlight = null;
    }
    while (presses.length) {
      const button = clickerButton(presses.shift());
      if (!button || button.disabled) continue; // the lesson's first or last stop: nothing to step
      inFlight = { place: lessonPlace(), at: performance.now() };
      pressTimer = setTimeout(nextPress, PRESS_POLL_MS);
      const turn = window[Symbol.for('relpos.streamlitTurn')];
      if (turn) turn(() => button.click());
      else button.click();
      return;
    }
  };
  const pressClicker = (event) => {
    const label = CLICKER_KEYS[event.key];
    if (!label || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    if (!document.querySelector(ST.clicker)) return; // not the walkthrough
    const field = event.target instanceof Element ? event.target : null;
    const typing = field && (field.matches('input, textarea, select') || field.isContentEditable);
    if (event.key.startsWith('Arrow') && (typing || field?.closest('[role=slider]'))) return;
    if (!event.key.startsWith('Arrow') && typing
        && !field.closest(`${ST.numberInput}, ${ST.textInput}`)) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.repeat || presses.length >= MAX_PRESSES) return; // a held key is not a clicker
    if (typing) field.blur();
    presses.push(label);
    nextPress();
  };

  // 10. Previous / Next clicked (a mouse, a tap, Enter on the focused button) join the same
  //    queue: a double-click on Next steps two stops, as two clicker presses do. Sent as they
  //    came, the second click reached the server before the first one's run had started and
  //    Streamlit merged the two into one press. The queue presses the hidden clicker buttons,
  //    whose clicks are the script's own (not trusted) and pass.
  const NAV_LABELS = { Next: 'Page Down', Previous: 'Page Up' };
  const queueNavClick = (event) => {
    if (!event.isTrusted || event.button !== 0) return;
    const button = event.target instanceof Element ? event.target.closest(`${ST.lessonNav} button`) : null;
    if (!button || button.disabled || button.closest(ST.clicker) || !document.querySelector(ST.clicker)) return;
    const label = NAV_LABELS[button.textContent.trim().match(/^(Next|Previous)/)?.[1]];
    if (!label) return;
    event.preventDefault();
    event.stopPropagation();
    if (presses.length >= MAX_PRESSES) return;
    presses.push(label);
    nextPress();
  };
  window.addEventListener('click', queueNavClick, true);

  // The root element's data-relpos-layout says "settled" once the last render's formulas
  // were fitted for the final time, and "fitting" until then: a screenshot or a
  // measurement taken before that may see a formula (and what follows it) move.
  const layoutState = (state) => { document.documentElement.dataset.relposLayout = state; };
  let pending = false;
  let refitTimer = null;
  const refresh = () => {
    layoutState('fitting');
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fitFormulas();
      landOnStop();
      keepStopInView();
      hideTinyNumbers();
      presenterMode();
      numberKeyboards();
      // late layout (web fonts, charts sizing themselves) can widen a formula: fit once more
      clearTimeout(refitTimer);
      refitTimer = setTimeout(() => { fitFormulas(); landOnStop(); layoutState('settled'); }, 600);
    });
  };
  new MutationObserver(refresh).observe(document.body, { subtree: true, childList: true, characterData: true });
  window.addEventListener('resize', refresh);
  window.addEventListener('resize', rememberWidth);
  rememberWidth();
  // KaTeX's web fonts arrive after the first fit and widen the formulas: fit again
  if (document.fonts) {
    document.fonts.addEventListener('loadingdone', refresh);
    document.fonts.ready.then(refresh);
  }
  document.addEventListener('keydown', (event) => {
    const field = event.target;
    if (event.key === 'Enter' && field instanceof HTMLInputElement && field.type === 'text'
        && field.closest(ST.textInput) && !field.closest(ST.form)) {
      setTimeout(() => field.blur(), 0);
    }
    pressClicker(event);
  }, true);
  refresh();
})();
