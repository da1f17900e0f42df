"""``rulekit lsp``: a Language Server Protocol server for ruleset folders, modules, variants and
scenario files (docs/editor.md).

:mod:`.project` loads and checks a ruleset with the editor's unsaved texts, :mod:`.index` finds
the names written in its files, :mod:`.features` answers completion, hover, definition,
references, rename and code actions, and :mod:`.server` speaks the protocol (pygls).
"""
