// The search page of `spotlite serve` (served at /assets/search.js; the page allows no other script).
// Every text from the store is set as text (textContent), never as markup, with its control characters shown as
// escapes, as the command line shows them.
//
// The page's state is its address: ?q= the typed query, &f= each filter chip (a query term such as is:open or
// project:"tracker://…"), &s= the one store searched (a server started with --stores searches them all unless a
// store chip narrows it), &n= how many hits are shown. Back and forward restore a search; an address can be shared.
"use strict";
const box = document.getElementById("q"), list = document.getElementById("hits");
const status = document.getElementById("status"), facets = document.getElementById("facets");
const chips = document.getElementById("chips"), suggestion = document.getElementById("suggestion");
const more = document.getElementById("more");
const pageSize = 20;
// The stores of `serve --stores` (none: the server searches its own store only) and the server's own store's UUID.
const main = document.querySelector("main");
const stores = (main.dataset.stores || "").split(",").filter(Boolean), home = main.dataset.home || "";
let selected = -1, timer = null, asked = 0, filters = [], shown = pageSize;

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
// A row's page, carrying the search it was opened from so that its "← Search" link returns to it.
function pathOf(uri) {
  const parts = uri.split("/");
  const kind = {project: "projects", message: "messages"}[parts[3]] || "items";
  const store = parts[2] && parts[2] !== home ? "&store=" + encodeURIComponent(parts[2]) : "";
  return "/" + kind + "/" + encodeURIComponent(parts[4]) + "?back=" + encodeURIComponent(location.search) + store;
}

// The snippet with each highlighted word in <mark>, built from text nodes only. A word is marked where it stands
// whole (no letter or digit on either side), as the command line marks words: "the" never inside "gather".
const wordCharacter = /[\p{L}\p{N}_]/u;
function snippet(text, words) {
  const node = element("div", undefined, "snippet");
  if (!text) return node;
  text = visible(text);
  const lower = text.toLowerCase();
  const wanted = [...new Set((words || []).map(w => visible(w).toLowerCase()).filter(Boolean))];
  const whole = (at, length) => !wordCharacter.test(lower.charAt(at - 1)) &&
                                !wordCharacter.test(lower.charAt(at + length));
  let at = 0;
  while (at < text.length) {
    let next = -1, length = 0;
    for (const word of wanted) {
      for (let i = lower.indexOf(word, at); i >= 0; i = lower.indexOf(word, i + 1)) {
        if (!whole(i, word.length)) continue;
        if (next < 0 || i < next || (i === next && word.length > length)) { next = i; length = word.length; }
        break;
      }
    }
    if (next < 0) { node.append(text.slice(at)); break; }
    node.append(text.slice(at, next));
    node.append(element("mark", text.slice(next, next + length)));
    at = next + length;
  }
  return node;
}

// "3 days ago", with the exact UTC time on hover.
function when(iso) {
  const node = element("time", iso);
  const time = Date.parse(iso);
  if (isNaN(time)) return node;
  node.dateTime = iso;
  node.title = iso.replace("T", " ").replace("Z", " UTC");
  const seconds = (Date.now() - time) / 1000;
  const units = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400], ["hour", 3600],
                 ["minute", 60]];
  const format = new Intl.RelativeTimeFormat("en", {numeric: "auto"});
  const [unit, size] = units.find(([, size]) => Math.abs(seconds) >= size) || ["second", 1];
  node.textContent = format.format(-Math.round(seconds / size), unit);
  return node;
}

// What a hit is, in a line: its project (or item, for a message), status and priority.
function meta(hit) {
  const parts = [];
  if (hit.kind === "message") {
    parts.push("message" + (hit.author ? " from " + hit.author : ""));
    parts.push("on " + (hit.item ? hit.item.title : hit.project.title));
  } else if (hit.kind === "project") {
    parts.push("project", hit.completed ? "closed" : "open");
  } else {
    parts.push(hit.project.title, hit.completed ? "done" : "open", "P" + hit.priority);
  }
  if (hit.store) parts.push(hit.store);
  const node = element("div", parts.join(" · ") + " · ", "meta");
  node.append(when(hit.modified));
  return node;
}

function select(index) {
  const items = list.children;
  if (items.length === 0) { selected = -1; return; }
  selected = Math.max(0, Math.min(items.length - 1, index));
  for (let i = 0; i < items.length; i++) items[i].classList.toggle("selected", i === selected);
  items[selected].scrollIntoView({block: "nearest"});
}

// The address of the current search; `push` makes it a step of the history, else it replaces the current step.
function remember(push) {
  const params = new URLSearchParams();
  if (box.value.trim()) params.set("q", box.value.trim());
  for (const filter of filters) params.append(filter.store ? "s" : "f", filter.store || filter.term);
  if (shown > pageSize) params.set("n", String(shown));
  const address = location.pathname + (params.toString() ? "?" + params : "");
  if (address === location.pathname + location.search) return;
  const state = {filters};
  if (push) history.pushState(state, "", address); else history.replaceState(state, "", address);
}

// A facet value as a filter: the query term it adds (or, for a store, the store it narrows the search to), and the
// chip's words.
function filterOf(facet, value) {
  switch (facet) {
    case "store": return {store: value.label, label: "store: " + value.label};
    case "project": return {term: 'project:"' + value.value + '"', label: "project: " + value.label};
    case "status": return {term: "is:" + value.value, label: value.label};
    case "priority": return {term: "priority:" + value.value, label: "priority " + value.label};
  }
  return null;
}
function drawChips() {
  chips.replaceChildren(...filters.map((filter, index) => {
    const chip = element("button", filter.label + " ×", "chip");
    chip.type = "button";
    chip.setAttribute("aria-label", "remove the filter " + filter.label);
    chip.addEventListener("click", () => { filters.splice(index, 1); shown = pageSize; run(true); });
    return chip;
  }));
}
const facetNames = ["project", "status", "priority"].concat(stores.length ? ["store"] : []);
function drawFacets(answer) {
  const groups = [];
  const same = (a, b) => a.term === b.term && a.store === b.store;
  for (const facet of facetNames) {
    const values = (answer.facets[facet] || []).filter(v => !filters.some(f => same(f, filterOf(facet, v))));
    if (values.length === 0) continue;
    const group = element("div", undefined, "facet");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", facet);
    group.append(element("span", facet, "facet-name"));
    for (const value of values.slice(0, 8)) {
      const button = element("button", (facet === "priority" ? "P" : "") + value.label + " (" + value.count + ")");
      button.type = "button";
      button.addEventListener("click", () => { filters.push(filterOf(facet, value)); shown = pageSize; run(true); });
      group.append(button);
    }
    groups.push(group);
  }
  facets.replaceChildren(...groups);
}

async function search() {
  const text = box.value.trim();
  const mine = ++asked;
  drawChips();
  if (!text && !filters.some(f => f.term)) {
    stopFollowing();
    list.replaceChildren(); facets.replaceChildren(); suggestion.replaceChildren(); status.textContent = "";
    more.hidden = true; return;
  }
  const query = [text, ...filters.map(f => f.term)].filter(Boolean).join(" ");
  const narrowed = filters.find(f => f.store);
  const across = stores.length ? "&stores=" + encodeURIComponent(narrowed ? narrowed.store : "all") : "";
  const url = "/v1/search?partial=true&facets=" + facetNames.join(",") + across + "&limit=" + shown + "&q=" +
              encodeURIComponent(query);
  let answer;
  try {
    const response = await fetch(url);
    answer = await response.json();
    if (mine !== asked) return;  // a newer search is on its way
    if (!response.ok) {
      status.textContent = visible(answer.detail || response.statusText);
      list.replaceChildren(); facets.replaceChildren(); more.hidden = true;
      return;
    }
  } catch (error) { status.textContent = "cannot reach the server: " + error; return; }
  const hits = answer.hits;
  list.dataset.query = text;  // what the hits shown answer (a newer answer replaces them)
  status.textContent = hits.length === 0 ? "no matches" :
    "hits 1–" + hits.length + " of " + (answer.total_is_exact ? "" : "about ") + answer.total;
  suggestion.replaceChildren();
  if (answer.suggestion) {
    const link = element("a", answer.suggestion);
    const params = new URLSearchParams({q: answer.suggestion});
    link.href = "/?" + params;
    link.addEventListener("click", event => { event.preventDefault(); box.value = answer.suggestion; run(true); });
    suggestion.append("Did you mean ", link, "?");
  }
  list.replaceChildren(...hits.map(hit => {
    const item = element("li");
    const link = element("a", hit.title); link.href = pathOf(hit.uri);
    item.append(link, meta(hit), snippet(hit.snippet, hit.highlights));
    item.addEventListener("click", event => { if (event.target.tagName !== "A") location.href = link.href; });
    return item;
  }));
  more.hidden = hits.length >= answer.total || hits.length < shown;
  drawFacets(answer);
  follow(query);
  selected = -1;
  if (hits.length > 0) select(0);
}

// Runs the search of the page's state, remembering it in the address.
function run(push) { remember(push); search(); }

// Live results: once a search has settled for a moment, the page subscribes to its query (POST
// /v1/subscriptions) and follows its events, searching again when a row enters, changes in or leaves the results,
// whoever wrote it. A subscription the page made is deleted when the query changes or the page goes; one that
// existed before (the same query saved by a tool) is only followed. Without the right to subscribe (a limit, a
// token) the results simply stay as they were.
let live = null, csrf = null, settle = null;
function stopFollowing() {
  clearTimeout(settle);
  if (!live) return;
  live.source.close();
  if (live.made) {
    const headers = csrf ? {"X-CSRF-Token": csrf} : {};
    fetch("/v1/subscriptions/" + encodeURIComponent(live.id), {method: "DELETE", headers, keepalive: true})
      .catch(() => {});
  }
  live = null;
  list.dataset.live = "off";
}
function follow(query) {
  if (live && live.query === query) return;
  stopFollowing();
  if (!query) return;
  settle = setTimeout(async () => {
    const headers = {"Content-Type": "application/json"};
    if (csrf) headers["X-CSRF-Token"] = csrf;
    let response, subscription;
    try {
      response = await fetch("/v1/subscriptions", {method: "POST", headers, body: JSON.stringify({query})});
      if (!response.ok) return;
      subscription = await response.json();
    } catch (error) { return; }
    // From the subscription's position when it answered, not from wherever it stands when the stream opens: a
    // change in between, or while a broken stream reconnects before its first event (no Last-Event-ID yet), is
    // still sent.
    const source = new EventSource("/v1/subscriptions/" + encodeURIComponent(subscription.id) + "/events?after="
                                   + encodeURIComponent(subscription.position));
    live = {id: subscription.id, made: response.status === 201, query, source};
    let again = null;
    const refresh = () => { clearTimeout(again); again = setTimeout(search, 150); };
    for (const type of ["added", "changed", "removed", "reset"]) source.addEventListener(type, refresh);
    source.addEventListener("open", () => { list.dataset.live = "on"; });
  }, 1000);
}
window.addEventListener("pagehide", stopFollowing);

box.addEventListener("input", () => {
  clearTimeout(timer);
  shown = pageSize;
  timer = setTimeout(() => run(false), 120);
});
box.addEventListener("keydown", event => {
  if (event.key === "ArrowDown") { select(selected + 1); event.preventDefault(); }
  else if (event.key === "ArrowUp") { select(selected - 1); event.preventDefault(); }
  else if (event.key === "Enter" && selected >= 0) {
    const link = list.children[selected].querySelector("a");
    remember(true);
    if (link) location.href = link.href;
  } else if (event.key === "Escape") { box.value = ""; filters = []; shown = pageSize; run(true); }
});
// "/" anywhere but in a text field puts the cursor in the search box.
document.addEventListener("keydown", event => {
  if (event.key === "/" && document.activeElement !== box && !event.ctrlKey && !event.metaKey) {
    box.focus(); box.select(); event.preventDefault();
  }
});
more.addEventListener("click", () => { shown += pageSize; run(true); });

// The state an address holds: query, filters, hits shown.
function restore() {
  const params = new URLSearchParams(location.search);
  box.value = params.get("q") || "";
  const kept = (history.state && history.state.filters) || [];
  filters = params.getAll("f").map(term => kept.find(f => f.term === term) || {term, label: term});
  const store = params.get("s");
  if (store && stores.includes(store)) filters.push({store, label: "store: " + store});
  shown = Math.max(pageSize, Math.min(1000, parseInt(params.get("n"), 10) || pageSize));
  search();
}
window.addEventListener("popstate", restore);

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
      else csrf = (await response.json()).csrf;
    } catch (error) { status.textContent = "cannot reach the server: " + error; }
  }
  if (!csrf) {
    // A page opened again in a session made before: its CSRF token, for the subscriptions it makes.
    try { csrf = (await (await fetch("/v1/session")).json()).csrf; } catch (error) { csrf = null; }
  }
  restore();
}
start();
