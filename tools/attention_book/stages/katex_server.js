// Typeset TeX with KaTeX for stages/katex.py, one process for a whole build.
//
// Reads one JSON request per line on stdin, {"tex": "...", "display": bool,
// "output": "htmlAndMathml" or "mathml"},
// and answers each with one JSON line on stdout, in order: {"html": "..."} or
// {"error": "..."}. KaTeX is the version pinned in package-lock.json, loaded
// from node_modules next to this file. Strict: a formula KaTeX cannot parse,
// or one it would only warn about (strict: "error"), is an error, never a red
// fallback in the page.
"use strict";

const readline = require("node:readline");
const katex = require("katex");

const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = {
      html: katex.renderToString(request.tex, {
        displayMode: Boolean(request.display),
        output: request.output === "mathml" ? "mathml" : "htmlAndMathml",
        throwOnError: true,
        strict: "error",
        trust: false,
      }),
    };
  } catch (error) {
    answer = { error: String(error && error.message ? error.message : error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
