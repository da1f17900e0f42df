"use strict";
// Text from the rules and the log reaches the page only through textContent: never innerHTML,
// except for the pictures, which are SVG that rulekit/tools/svg.py escaped on the server.
const DATA = JSON.parse(document.getElementById("data").textContent);
const last = DATA.steps.length - 1;
let current = -1;

function el(tag, props, ...children) {
  // an element with properties (className, id, textContent...) and child nodes or texts
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) node.append(child);
  return node;
}

function ruleItem(key) {
  const r = DATA.rules[key] || {kind: "rule", name: key, cite: "", doc: ""};
  const li = el("li", {}, `${r.kind} `, el("b", {textContent: r.name}));
  if (r.cite) li.append(" ", el("span", {className: "cite", textContent: `[${r.cite}]`}));
  if (r.doc) li.title = r.doc;
  return li;
}

const log = document.getElementById("log");
DATA.steps.forEach((step, i) => {
  const li = el("li");
  li.dataset.step = i;
  if (i === 0) {
    li.textContent = "0. set-up";
  } else {
    const triggers = step.fired.filter((k) => k.startsWith("trigger:")).map((k) => DATA.rules[k] ? DATA.rules[k].name : k);
    li.textContent = `${i}. ${step.action.player} ${step.action.text}`;
    if (triggers.length) li.append(" ", el("span", {className: "fired", textContent: `\u2192 ${triggers.join(", ")}`}));
  }
  li.addEventListener("click", () => show(i));
  log.appendChild(li);
});
const chart = document.getElementById("chart");
const cursor = document.getElementById("cursor");
function show(i) {
  i = Math.max(0, Math.min(last, i | 0));
  if (i === current) return;
  const step = DATA.steps[i];
  // the one innerHTML: SVG pieces that rulekit/tools/svg.py wrote with every text and attribute escaped
  document.getElementById("board").innerHTML = step.frame.map((k) => DATA.chunks[k]).join("\n");
  const info = document.getElementById("step-info");
  const title = el("b", {id: "step-title"});
  if (i === 0) {
    title.textContent = "Set-up";
  } else {
    title.append(`Step ${i}: ${step.action.player} plays `, el("code", {textContent: step.action.text}));
  }
  const parts = [el("div", {}, title)];
  if (step.fired.length) {
    parts.push(el("div", {textContent: "Rules applied:"}), el("ul", {className: "rules"}, ...step.fired.map(ruleItem)));
  }
  if (step.notes.length) {
    parts.push(el("div", {textContent: "Notes:"}), el("ul", {}, ...step.notes.map((n) => el("li", {textContent: n}))));
  }
  parts.push(el("div", {}, "Scores: ", el("span", {id: "scores", textContent: step.scores.map((s, p) => `P${p + 1} ${s === null ? "?" : s}`).join(", ")})));
  parts.push(el("div", {className: "decision", id: "decision", textContent: step.decision}));
  if (step.errors.length) {
    parts.push(el("div", {className: "errors"}, ...step.errors.map((e) => el("div", {textContent: e}))));
  }
  info.replaceChildren(...parts);
  document.getElementById("counter").textContent = `${i} / ${last}`;
  document.getElementById("slider").value = i;
  document.getElementById("jump").value = i;
  for (const li of log.querySelectorAll("li.current")) li.classList.remove("current");
  const li = log.children[i];
  li.classList.add("current");
  li.scrollIntoView({block: "nearest"});
  if (cursor) {
    const left = 40, width = chart.viewBox.baseVal.width - 52;
    const x = left + width * i / Math.max(1, last);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }
  current = i;
  document.body.dataset.step = i;
}
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev").addEventListener("click", () => show(current - 1));
document.getElementById("next").addEventListener("click", () => show(current + 1));
document.getElementById("last").addEventListener("click", () => show(last));
document.getElementById("go").addEventListener("click", () => show(Number(document.getElementById("jump").value)));
document.getElementById("jump").addEventListener("keydown", (e) => { if (e.key === "Enter") show(Number(e.target.value)); });
document.getElementById("slider").addEventListener("input", (e) => show(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type === "number") return;
  const moves = {ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10};
  if (e.key in moves) { show(current + moves[e.key]); e.preventDefault(); }
  else if (e.key === "Home") { show(0); e.preventDefault(); }
  else if (e.key === "End") { show(last); e.preventDefault(); }
});
show(0);
