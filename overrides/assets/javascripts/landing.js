// Links that land: a section of another page, opened through Material's
// instant navigation (a link in the text, a search result, "Next"), shows
// its heading just under the header, and the address names that section.
//
// Material records the scroll position (100 ms after a scroll) and, with
// navigation.tracking, the section in view (500 ms after) in the current
// history entry. When the reader followed a link within that time (a tap
// on "Next" as it comes into view, a search result on a phone, whose
// search gives the old page its position back as it closes), the entry
// was already the new page's: it got the previous page's #section in its
// address, and its position, from which Material opened the new page
// there (a chapter at its end) instead of at its top or its section. So:
// - from the moment the address turns to another page until that page is
//   shown, history.replaceState writes nothing (what it would write is the
//   old page's);
// - until the reader scrolls the page shown (a wheel, a touch, a key, a
//   click), no other section is written into its address: it keeps the
//   one it was opened at (Material's tracking of the old page writes late);
// - when the tracking writes the section in view, the entry keeps the
//   position Material recorded, so that going forward (or back) to the
//   page returns to where the reader was, not to its top; and that
//   position is kept as the block the reader was reading too, to which
//   the page returns (see place and restore below).
// - a section reached by a link is held where the jump put it for a while
//   (see hold below), and the search's hold on a phone's page
//   is let go when the new page comes (see the document$ subscription).
// The book's content-visibility (book.css), suspected first, moved a target
// only where a block above it was replaced after the jump (the search's
// highlighting): the races above were the cause of the other misses.
// tests/browser/test_landing.py reproduces each case, at 390 and 1280 px.
(() => {
  const push = history.pushState.bind(history);
  const replace = history.replaceState.bind(history);
  let shown = location.pathname; // the page on screen
  let leaving = null; // "push" or "pop": the address is another page's already
  let reading = false; // the reader has scrolled the page shown

  // Where the reader is, in the page's own terms: the article's block at
  // the header's bottom edge, by its index, and how far into it. An offset
  // from the top (Material's record) points elsewhere when the page is
  // shown again, since the blocks above have their estimated heights then
  // (content-visibility: auto, book.css): 600 px away on a phone.
  const isOffset = (state) =>
    state !== null && typeof state === "object" &&
    typeof state.x === "number" && typeof state.y === "number";
  const line = () => document.querySelector(".md-header")?.getBoundingClientRect().bottom ?? 0;
  const blocks = () => document.querySelector("article.md-content__inner")?.children ?? [];
  const place = () => {
    const all = blocks();
    if (!all.length) return null;
    const top = line();
    let low = 0;
    let high = all.length - 1; // the last block that starts above the line
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (all[middle].getBoundingClientRect().top <= top) low = middle;
      else high = middle - 1;
    }
    return { block: low, into: top - all[low].getBoundingClientRect().top };
  };
  // Back or forward to a page: once Material has scrolled to the offset it
  // recorded, put the recorded block back at the line, frame after frame,
  // until it stays for half a second (the blocks around it get their real
  // heights) or the reader scrolls.
  const restore = (saved) => {
    let still = 0;
    let frames = 0;
    const step = () => {
      const block = blocks()[saved.block];
      if (reading || !block || frames++ > 600) return;
      const off = block.getBoundingClientRect().top + saved.into - line();
      if (Math.abs(off) > 1) {
        window.scrollBy(0, off);
        still = 0;
      } else if (++still >= 30) {
        return;
      }
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  };

  // A section reached by a link: hold its heading where the jump put it,
  // frame after frame, for ten seconds or until the reader scrolls. What
  // moved it: the words a search result highlights on the page it opens
  // (?h=; Material wraps them in <mark> once it has read the index, which
  // takes a while on a slow phone), which replace blocks above the
  // section; a new block has no remembered height, so content-visibility
  // (book.css) gives it the estimated one, and the heading moved by up to
  // three screens. A frame that finds the heading in place costs one
  // measure.
  let holding = null;
  const hold = (target) => {
    let place = null;
    const until = performance.now() + 10000;
    const step = () => {
      if (holding !== target || reading || !target.isConnected) return;
      if (performance.now() > until) return;
      const top = target.getBoundingClientRect().top;
      if (place === null || Math.abs(top - place) > 0.5) {
        target.scrollIntoView();
        place = target.getBoundingClientRect().top;
      }
      requestAnimationFrame(step);
    };
    holding = target;
    requestAnimationFrame(step);
  };

  const otherPage = (url) =>
    url !== undefined && url !== null && new URL(url, location.href).pathname !== shown;

  history.pushState = function (state, title, url) {
    if (otherPage(url)) leaving = "push";
    return push(state, title, url);
  };
  history.replaceState = function (state, title, url) {
    if (leaving) return undefined; // the old page's, late
    if (url === undefined && isOffset(state)) {
      // Material's record of the position. While the search is open on a
      // phone, the page is held still (body[data-md-scrolllock], its offset
      // in body.style.top) and Material's offset reads 0: a search result
      // followed from there recorded the old page's top for "back".
      const { body } = document;
      const locked = body.hasAttribute("data-md-scrolllock");
      const y = locked ? -parseInt(body.style.top || "0", 10) || 0 : state.y;
      state = { ...state, y, place: place() };
    }
    if (url !== undefined && url !== null) {
      const next = new URL(url, location.href);
      if (
        next.pathname === location.pathname &&
        next.search === location.search &&
        next.hash !== location.hash
      ) {
        if (!reading) return undefined; // a section the reader has not scrolled to
        // The tracking writes the section with an empty state ({}), over
        // the position Material recorded for back and forward, which then
        // reopened the page at its top: the entry keeps its position.
        if (state && typeof state === "object" && !Object.keys(state).length) {
          return replace(history.state, title, url);
        }
      }
    }
    return replace(state, title, url);
  };
  addEventListener("popstate", () => {
    // Back to the page still shown (before the other one came): no swap.
    // An entry never left has no recorded position (null): it is the one
    // just pushed (the search steps back to it as it closes on a phone).
    if (location.pathname === shown) leaving = null;
    else leaving = history.state === null ? "push" : "pop";
  });

  const read = () => {
    reading = true;
  };
  for (const type of ["wheel", "touchstart", "keydown", "mousedown"]) {
    addEventListener(type, read, { capture: true, passive: true });
  }

  document$.subscribe(() => {
    const arrived = leaving;
    leaving = null;
    reading = false;
    shown = location.pathname;
    // A search result chosen on a phone: the search, closing, holds the
    // page still for 100 ms more, then gives it back the offset it had,
    // which a page come sooner got instead of its section. Let go now, and
    // go to the section (held still, the page could not scroll to it).
    const { body } = document;
    if (body.hasAttribute("data-md-scrolllock")) {
      body.removeAttribute("data-md-scrolllock");
      body.style.top = "";
    }
    holding = null;
    if (arrived === "push" && location.hash && history.state === null) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) hold(target);
    }
    const saved = history.state?.place;
    if (arrived === "pop" && saved) restore(saved);
  });
})();
