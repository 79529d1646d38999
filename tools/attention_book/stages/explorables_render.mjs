// Draw the explorables' default state for stages/explorables.py, once per
// edition's build, with the same modules the reader's browser runs.
//
// Reads one JSON request on stdin, {"folder": "...", "figures": [{"name",
// "words", "data"}, ...]}, and writes one JSON answer on stdout: a list of
// {"html": "..."} or {"error": "..."}, in order. For each figure it imports
// <folder>/<name>.js, calls its render(words, data), puts that HTML in a
// document of happy-dom (a DOM without a screen, pinned by package-lock.json)
// and calls the module's mount() on it, as the browser does after the page
// loads, and core.js's sayLabels() as register() does; the figure's HTML
// after that is the answer. Its controls stay
// disabled: only the browser's register() enables them.
//
// With --lines, it answers many requests in one process (the tests draw
// dozens of states, and starting Node with happy-dom costs more than a
// drawing): one request per line of stdin, one answer per line of stdout,
// until stdin closes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { Window } from "happy-dom";

const window = new Window();

async function answer(request) {
  const core = await import(pathToFileURL(join(request.folder, "core.js")).href);
  const answers = [];
  for (const { name, words, data } of request.figures) {
    try {
      const module = await import(pathToFileURL(join(request.folder, `${name}.js`)).href);
      const body = window.document.body;
      body.innerHTML = module.render(words, data);
      // happy-dom selects the wrong option of a parsed <select> whose selected
      // option is not the first two (capricorn86/happy-dom#2372, open): select
      // again the option the HTML marks, as a browser's parser does.
      for (const option of body.querySelectorAll("option[selected]")) option.selected = true;
      const root = body.querySelector(`.explorable[data-explorable="${name}"]`);
      if (!root) throw new Error(`render() of ${name}.js draws no .explorable[data-explorable="${name}"]`);
      module.mount(root);
      core.sayLabels(root);
      answers.push({ html: root.outerHTML });
    } catch (error) {
      answers.push({ error: `${name}.js: ${error && error.stack ? error.stack : error}` });
    }
  }
  return answers;
}

if (process.argv.includes("--lines")) {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim()) process.stdout.write(JSON.stringify(await answer(JSON.parse(line))) + "\n");
  }
} else {
  process.stdout.write(JSON.stringify(await answer(JSON.parse(readFileSync(0, "utf8")))));
}
await window.happyDOM.close();
