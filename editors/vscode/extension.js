// Starts `rulekit lsp` for the YAML files of rulekit rulesets (docs/editor.md).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("rulekit").get("command");
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    "rulekit",
    "rulekit",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "yaml" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.yaml") },
    }
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
