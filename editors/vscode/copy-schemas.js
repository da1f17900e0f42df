// Copies rulekit's JSON Schemas next to the extension (packaged by vsce, never committed).
"use strict";

const fs = require("fs");
const path = require("path");

const from = path.join(__dirname, "..", "..", "rulekit", "schema");
const to = path.join(__dirname, "schemas");
fs.mkdirSync(to, { recursive: true });
for (const name of fs.readdirSync(from)) {
  if (name.endsWith(".schema.json")) fs.copyFileSync(path.join(from, name), path.join(to, name));
}
