// Transitions off while the reader changes the colour scheme, so that every
// colour changes at once. Material's own rule for this depends on an
// attribute its script also sets as every page starts, which made the
// browser style the whole page twice more during a load; the build keys the
// rule on data-book-color-switching instead (stages/book.py), set here only
// when a palette toggle changes, before Material's own handler applies the
// scheme, and removed once a frame has been drawn with it.
document.addEventListener(
  "change",
  (event) => {
    if (!(event.target instanceof Element)) return;
    if (!event.target.closest("[data-md-component=palette]")) return;
    document.body.setAttribute("data-book-color-switching", "");
    requestAnimationFrame(() =>
      setTimeout(() => document.body.removeAttribute("data-book-color-switching")),
    );
  },
  true,
);
