// Render the math that pymdownx.arithmatex (generic mode) wraps in
// <span|div class="arithmatex">, with the \( \) and \[ \] delimiters only:
// a dollar sign in prose stays a dollar sign. Runs on every page load,
// including Material's instant navigation (document$).
document$.subscribe(({ body }) => {
  for (const element of body.querySelectorAll(".arithmatex")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  }
});
