// Actions built by clicks (rulekit/tools/clicks.py, docs/viewer.md#play-by-clicks): a shape
// with data-bind ({TARGET: VALUE}) is a choice; the server answers, from the legal-action
// listing, which shapes and control values can still complete a legal action, the single
// completion, the rules that apply and a preview. The page keeps the choices and draws the
// answer; it decides nothing about the game. Text reaches the page through textContent only,
// except the pictures (server-escaped SVG). Included in serve.html's one script.
const clicks = {choices: [], answer: null, pending: 0, drawn: 0};

function bindKey(binds) {
  return JSON.stringify(Object.entries(binds).sort());
}

function bindText(binds) {
  return Object.entries(binds).map(([t, v]) => `${t} = ${v}`).join(", ");
}

function completions(binds) {
  // the candidates a click on a shape with these bindings keeps
  if (!clicks.answer) return [];
  return clicks.answer.candidates.filter((c) => Object.entries(binds).some(([t, v]) => c.pairs[t] === v));
}

function clicksStart() {
  // after every render of the page: wire the bound shapes, then ask what is open
  clicks.choices = [];
  clicks.answer = null;
  for (const el of document.querySelectorAll("#board [data-bind]")) {
    el.addEventListener("click", (e) => { e.stopPropagation(); clicksClick(JSON.parse(el.dataset.bind), el); });
  }
  for (const el of document.querySelectorAll("#board [data-bind], #board [data-ref]")) {
    el.addEventListener("mousemove", (e) => showTip(el, e));
    el.addEventListener("mouseleave", hideTip);
  }
  clicksNote(null);
  if (snapshot.your_turn) {
    clicksUpdate([], null);
  } else {
    clicksDraw(null);
  }
}

async function clicksUpdate(choices, el) {
  const mine = ++clicks.pending;
  const response = await fetch("/api/choose", {method: "POST",
    headers: {...auth, "Content-Type": "application/json"},
    body: JSON.stringify({choices: choices, seat: snapshot.seat})});
  const answer = await response.json();
  if (mine !== clicks.pending) return;  // a later click has been sent meanwhile
  if (!response.ok || !answer.ok) {
    setMessage(answer.error, "error");
    return;
  }
  clicks.choices = answer.choices;
  clicks.answer = answer;
  clicksDraw(answer);
  if (answer.refused) {
    setMessage(answer.refused, "error");
    clicksNote(el, answer.refused);
  } else {
    clicksNote(null);
    if (answer.restarted) setMessage("started a new action with that click", "info");
    if (answer.replaced) setMessage("changed your choice", "info");
  }
  if (answer.auto && answer.complete) await play(answer.complete);
}

function clicksClick(binds, el) {
  hideTip();
  if (!snapshot || !snapshot.your_turn) { setMessage("it is not your turn", "error"); return; }
  if (clicks.choices.some((c) => bindKey(c) === bindKey(binds))) return;  // chosen already
  clicksUpdate([...clicks.choices, binds], el);
}

function clicksCancel() {
  if (!snapshot || !snapshot.your_turn) return;
  setMessage("", "");
  clicksUpdate([], null);
}

function clicksDraw(answer) {
  const open = new Set();
  if (answer) for (const [t, values] of Object.entries(answer.open)) for (const v of values) open.add(t + "\u0000" + v);
  const chosen = new Set(clicks.choices.map(bindKey));
  for (const el of document.querySelectorAll("#board [data-bind]")) {
    const binds = JSON.parse(el.dataset.bind);
    const isChosen = chosen.has(bindKey(binds));
    el.classList.toggle("chosen", isChosen);
    el.classList.toggle("clickable", Boolean(answer) && !isChosen &&
      Object.entries(binds).some(([t, v]) => open.has(t + "\u0000" + v)));
  }
  const box = document.getElementById("clicks");
  box.replaceChildren();
  // for tests and tools: which state and which answer the page shows now
  box.dataset.moves = String(snapshot.moves);
  box.dataset.drawn = String(++clicks.drawn);
  if (!answer) {
    document.getElementById("preview").replaceChildren();
    return;
  }
  for (const control of answer.controls) {
    const row = elem("div", {className: "control-row"}, elem("span", {className: "control-label", textContent: control.label + ": "}));
    for (const value of control.values) {
      const binds = {[control.target]: value};
      const button = elem("button", {className: "control clickable", textContent: value});
      button.dataset.bind = JSON.stringify(binds);
      button.addEventListener("click", () => clicksClick(binds, button));
      button.addEventListener("mousemove", (e) => showTip(button, e));
      button.addEventListener("mouseleave", hideTip);
      row.append(button);
    }
    box.append(row);
  }
  if (clicks.choices.length) {
    box.append(elem("div", {id: "chosen", textContent: "chosen: " + clicks.choices.map(bindText).join("; ") + " (Escape cancels)"}));
  }
  if (answer.complete && !answer.auto) {
    const offer = elem("button", {id: "play-complete", textContent: "play " + answer.complete});
    offer.addEventListener("click", () => play(answer.complete));
    box.append(offer);
  }
  const rules = elem("ul", {id: "rules"});
  for (const rule of answer.rules) {
    rules.append(elem("li", {textContent: `${rule.action}${rule.cite ? " [" + rule.cite + "]" : ""}` +
      `${rule.count > 1 ? " ×" + rule.count : ""}: ${rule.doc}`}));
  }
  if (clicks.choices.length) box.append(elem("div", {className: "rules-head", textContent: "the rules that apply:"}), rules);
  const preview = document.getElementById("preview");
  preview.replaceChildren();
  if (answer.preview) {
    const s = answer.preview;
    const triggers = s.triggers.map((t) => t.name + (t.cite ? ` [${t.cite}]` : "")).join(", ");
    preview.append(elem("div", {className: "caption", textContent: `preview: after ${s.text}` +
      (triggers ? ` · then ${triggers}` : "") + (s.guessed ? " (what is hidden or left to chance is a guess)" : "")}));
    const picture = elem("div", {className: "picture"});
    picture.innerHTML = s.svg;  // server-escaped SVG, as the board
    preview.append(picture);
  }
  // the text list keeps only the actions the clicks allow
  const texts = new Set(answer.candidates.map((c) => c.text));
  const filtering = clicks.choices.length > 0;
  for (const li of document.querySelectorAll("#actions li[data-refs]")) {
    const button = li.querySelector("button");
    li.classList.toggle("dim", filtering && !texts.has(button.dataset.action));
  }
  document.getElementById("filter-note").textContent = filtering ? `(${texts.size} with your clicks; Escape shows all)` : "";
}

function clicksNote(el, text) {
  // a refused click's rule, next to the shape clicked
  const note = document.getElementById("click-note");
  if (!el || !text) { note.hidden = true; return; }
  const box = el.getBoundingClientRect();
  note.textContent = text;
  note.style.left = `${Math.round(box.right + window.scrollX + 6)}px`;
  note.style.top = `${Math.round(box.top + window.scrollY)}px`;
  note.hidden = false;
}

function showTip(el, event) {
  // what the shape is (its title in the view), what it binds, and what a click completes
  const tip = document.getElementById("tip");
  const lines = [];
  const title = el.querySelector("title");
  if (title) lines.push(title.textContent);
  if (el.dataset.bind) {
    const binds = JSON.parse(el.dataset.bind);
    lines.push(bindText(binds));
    if (el.classList.contains("clickable")) {
      const found = completions(binds);
      if (found.length === 1) lines.push("click: " + found[0].text);
      else if (found.length > 1) lines.push(`click: ${found[0].text} or ${found.length - 1} more`);
    }
  } else if (el.dataset.ref) {
    lines.push("value: " + el.dataset.ref);
  }
  tip.textContent = lines.join("\n");
  tip.style.left = `${Math.round(event.pageX + 14)}px`;
  tip.style.top = `${Math.round(event.pageY + 14)}px`;
  tip.hidden = lines.length === 0;
}

function hideTip() {
  document.getElementById("tip").hidden = true;
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && snapshot && snapshot.clicks) clicksCancel();
});
