// zhlint over many files in one node process (attention_book.prose_lint).
// Argument: a JSON file {"config": <zhlint rc>, "files": ["path", ...]}.
// Prints a JSON list of {"file", "result": <the text as zhlint would fix it>,
// "validations": [{name, index, length, message}]}.
import { readFileSync } from "node:fs";
import { runWithConfig } from "zhlint";
import * as messages from "zhlint/lib/rules/messages.js";

// zhlint names a finding by its message only: the message's constant,
// CONTENT_SPACE_MIXED_WIDTH, becomes the rule's name, content-space-mixed-width.
const ruleOf = Object.fromEntries(
  Object.entries(messages).map(([key, text]) => [text, key.toLowerCase().replaceAll("_", "-")]),
);

const request = JSON.parse(readFileSync(process.argv[2], "utf-8"));
// zhlint logs to the console (a bad rc entry): keep stdout for the JSON.
console.log = console.warn = (...words) => process.stderr.write(words.join(" ") + "\n");
const results = request.files.map((file) => {
  let output;
  try {
    output = runWithConfig(readFileSync(file, "utf-8"), request.config);
  } catch (error) {
    const message = `zhlint could not read the page: ${error.message}`;
    return { file, validations: [{ name: "crash", index: 0, length: 0, message }] };
  }
  return {
    file,
    result: output.result,
    validations: output.validations.map(({ index, length, message }) => ({
      name: ruleOf[message] ?? "zhlint", index, length, message,
    })),
  };
});
process.stdout.write(JSON.stringify(results));
