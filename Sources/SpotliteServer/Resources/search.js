// The search page of `spotlite serve` (served at /assets/search.js; the page allows no other script).
// Every text from the store is set as text (textContent), never as markup, with its control characters shown as
// escapes, as the command line shows them.
"use strict";
const box = document.getElementById("q"), list = document.getElementById("hits");
const status = document.getElementById("status"), facets = document.getElementById("facets");
let selected = -1, timer = null, asked = 0;

// Characters that act rather than print (C0 and C1 controls, DEL, bidirectional overrides and isolates) as
// visible escapes: \x1b, \u202e.
const controls = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
function visible(text) {
  return String(text).replace(controls, character => {
    const code = character.charCodeAt(0);
    if (code === 9) return "\\t";
    if (code === 10) return "\\n";
    if (code === 13) return "\\r";
    return code < 0x20 || code === 0x7f ? "\\x" + code.toString(16).padStart(2, "0")
                                        : "\\u" + code.toString(16).padStart(4, "0");
  });
}
function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = visible(text);
  if (className) node.className = className;
  return node;
}
function pathOf(uri) {
  const parts = uri.split("/");
  return "/" + ({project: "projects", message: "messages"}[parts[3]] || "items") + "/" + encodeURIComponent(parts[4]);
}
// The snippet with each highlighted word in <mark>, built from text nodes only.
function snippet(text, words) {
  const node = element("div", undefined, "snippet");
  if (!text) return node;
  text = visible(text);
  const lower = text.toLowerCase();
  let at = 0;
  while (at < text.length) {
    let next = -1, word = "";
    for (const w of words) {
      const i = lower.indexOf(w.toLowerCase(), at);
      if (w && i >= 0 && (next < 0 || i < next)) { next = i; word = w; }
    }
    if (next < 0 || !word) { node.append(text.slice(at)); break; }
    node.append(text.slice(at, next));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(next, next + word.length);
    node.append(mark);
    at = next + word.length;
  }
  return node;
}
function select(index) {
  const items = list.children;
  if (items.length === 0) { selected = -1; return; }
  selected = Math.max(0, Math.min(items.length - 1, index));
  for (let i = 0; i < items.length; i++) items[i].classList.toggle("selected", i === selected);
  items[selected].scrollIntoView({block: "nearest"});
}
async function search() {
  const text = box.value.trim();
  const mine = ++asked;
  if (!text) { list.replaceChildren(); facets.replaceChildren(); status.textContent = ""; return; }
  const url = "/v1/search?partial=true&limit=20&facets=project,status&q=" + encodeURIComponent(text);
  let answer;
  try {
    const response = await fetch(url);
    answer = await response.json();
    if (mine !== asked) return;  // a newer search is on its way
    if (!response.ok) { status.textContent = visible(answer.detail || response.statusText); list.replaceChildren(); return; }
  } catch (error) { status.textContent = "cannot reach the server: " + error; return; }
  const hits = answer.hits;
  list.dataset.query = text;  // what the hits shown answer (a newer answer replaces them)
  status.textContent = hits.length === 0 ? "no matches" :
    "hits " + (answer.offset + 1) + "–" + (answer.offset + hits.length) + " of " +
    (answer.total_is_exact ? "" : "about ") + answer.total;
  list.replaceChildren(...hits.map(hit => {
    const item = element("li");
    const link = element("a", hit.title); link.href = pathOf(hit.uri);
    item.append(link);
    const meta = [hit.kind === "item" ? hit.project.title : "project", hit.completed ? "done" : "open",
                  hit.priority ? "P" + hit.priority : ""].filter(Boolean).join(" · ");
    item.append(element("div", meta, "meta"));
    item.append(snippet(hit.snippet, hit.highlights));
    item.addEventListener("click", event => { if (event.target.tagName !== "A") location.href = link.href; });
    return item;
  }));
  facets.replaceChildren(...(answer.facets.project || []).slice(0, 8).map(value =>
    element("span", value.label + " (" + value.count + ")")));
  selected = -1;
  if (hits.length > 0) select(0);
}
box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 120); });
box.addEventListener("keydown", event => {
  if (event.key === "ArrowDown") { select(selected + 1); event.preventDefault(); }
  else if (event.key === "ArrowUp") { select(selected - 1); event.preventDefault(); }
  else if (event.key === "Enter" && selected >= 0) {
    const link = list.children[selected].querySelector("a");
    if (link) location.href = link.href;
  } else if (event.key === "Escape") { box.value = ""; search(); }
});

// A server that needs its token is opened as /#token=…: the token (never sent in an address, so kept out of logs
// and history) is exchanged once for a session cookie, which the browser then sends with every request, the row
// pages' links included, and the address loses it.
async function start() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (token) {
    history.replaceState(null, "", location.pathname + location.search);
    try {
      const response = await fetch("/v1/session", {method: "POST", headers: {Authorization: "Bearer " + token}});
      if (!response.ok) status.textContent = "the server refused the token in the address (" + response.status + ")";
    } catch (error) { status.textContent = "cannot reach the server: " + error; }
  }
  const initial = new URLSearchParams(location.search).get("q");
  if (initial) { box.value = initial; search(); }
}
start();
