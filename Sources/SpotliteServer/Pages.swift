import Foundation
import HTTPTypes
import Hummingbird
import Indexer
import SearchIndex
import TrackerStore

/// The search page at `/` (search as you type, hits with snippets, facets, keyboard navigation) and a page per
/// item and project (`/items/{uuid}`, `/projects/{uuid}`): plain HTML, a little JavaScript, no build step. Every
/// text from the store is escaped (server side) or set as text (in the page's script), never as markup.
struct Pages: Sendable {
    let backend: Backend

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.html(Self.searchPage) }
        router.get("/items/:uuid") { _, context in try await page(.item, context) }
        router.get("/projects/:uuid") { _, context in try await page(.project, context) }
        router.get("/messages/:uuid") { _, context in try await page(.message, context) }
    }

    func page(_ kind: TrackerURI.Kind, _ context: BasicRequestContext) async throws -> Response {
        let (uri, entity) = try await backend.row(kind, context)
        switch entity {
        case .item(let item, let project):
            let messages = try await backend.run { try backend.reader.store.read { try $0.messages(onItems: [item.id]) } }
            return Self.html(Self.itemPage(item, project: project, uri: uri, messages: messages))
        case .message(let message, let project, let item):
            return Self.html(Self.messagePage(message, project: project, item: item, uri: uri))
        case .project(let project):
            var options = SearchOptions()
            options.snippets = false
            options.request.limit = 200
            options.request.sort = .modified
            let outcome = try await backend.search("kind:item project:\"\(uri)\"", options: options)
            let messages = try await backend.run { try backend.reader.store.read { try $0.messages(onProjects: [project.id]) } }
            return Self.html(Self.projectPage(project, uri: uri, items: outcome, messages: messages))
        }
    }

    static func html(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8",
                // Only this page's own script and style; nothing from elsewhere, no inline event handlers.
                .contentSecurityPolicy: "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `text` with HTML's special characters escaped.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static let style = """
        <style>
        body { font: 15px/1.45 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
        h1 { font-size: 1.4rem; } a { color: #0645ad; text-decoration: none; } a:hover { text-decoration: underline; }
        input#q { width: 100%; font-size: 1.1rem; padding: .5rem; box-sizing: border-box; }
        #status { color: #666; margin: .5rem 0; min-height: 1.2em; }
        ol#hits { list-style: none; padding: 0; } ol#hits li { padding: .5rem; border-radius: 4px; }
        ol#hits li.selected { background: #eef3ff; }
        .meta { color: #666; font-size: .85rem; } .snippet { color: #333; } mark { background: #fff3a0; }
        #facets span { margin-right: 1rem; color: #555; font-size: .85rem; }
        dl { display: grid; grid-template-columns: 8rem 1fr; } dt { color: #666; }
        .detail { white-space: pre-wrap; border-left: 3px solid #ddd; padding-left: 1rem; }
        </style>
        """

    static let searchPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Spotlite</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">\(style)</head>
        <body>
        <h1>Spotlite</h1>
        <input id="q" type="search" placeholder="Search items and projects (try: leaking tap)" autofocus autocomplete="off">
        <div id="status"></div>
        <div id="facets"></div>
        <ol id="hits"></ol>
        <script>
        "use strict";
        const box = document.getElementById("q"), list = document.getElementById("hits");
        const status = document.getElementById("status"), facets = document.getElementById("facets");
        // A token for a server that asks for one: /#token=… (kept out of server logs and history requests).
        const token = new URLSearchParams(location.hash.slice(1)).get("token");
        let selected = -1, timer = null, asked = 0;
        function element(tag, text, className) {
          const node = document.createElement(tag);
          if (text !== undefined) node.textContent = text;
          if (className) node.className = className;
          return node;
        }
        function pathOf(uri) {
          const parts = uri.split("/");
          return "/" + ({project: "projects", message: "messages"}[parts[3]] || "items") + "/" + parts[4];
        }
        // The snippet with each highlighted word in <mark>, built from text nodes only.
        function snippet(text, words) {
          const node = element("div", undefined, "snippet");
          if (!text) return node;
          const lower = text.toLowerCase();
          let at = 0;
          while (at < text.length) {
            let next = -1, word = "";
            for (const w of words) {
              const i = lower.indexOf(w.toLowerCase(), at);
              if (i >= 0 && (next < 0 || i < next)) { next = i; word = w; }
            }
            if (next < 0 || !word) { node.append(text.slice(at)); break; }
            node.append(text.slice(at, next));
            node.append(element("mark", text.slice(next, next + word.length)));
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
            const response = await fetch(url, token ? {headers: {Authorization: "Bearer " + token}} : {});
            answer = await response.json();
            if (mine !== asked) return;  // a newer search is on its way
            if (!response.ok) { status.textContent = answer.detail || response.statusText; list.replaceChildren(); return; }
          } catch (error) { status.textContent = "cannot reach the server: " + error; return; }
          const hits = answer.hits;
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
        const initial = new URLSearchParams(location.search).get("q");
        if (initial) { box.value = initial; search(); }
        </script>
        </body></html>
        """

    /// The start of a row's page, through its heading: `heading` is its title (escaped here).
    static func rowPageStart(_ heading: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escaped(heading)) — Spotlite</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">\(style)</head>
        <body>
        <p><a href="/">← Search</a></p>
        <h1 id="title">\(escaped(heading))</h1>
        """
    }

    /// The messages on an item or a project, oldest first, each linking to its own page.
    static func messageList(_ messages: [Message]) -> String {
        guard !messages.isEmpty else { return "" }
        var rows = ""
        for message in messages {
            let author = message.author.isEmpty ? "someone" : message.author
            rows += "<li><a href=\"/messages/\(escaped(message.id))\">\(escaped(author))</a>"
                + " <span class=\"meta\">\(escaped(message.createdAt))</span><div class=\"detail\">"
                + "\(escaped(message.text))</div></li>\n"
        }
        return "<h2>Messages</h2>\n<ul id=\"messages\">\n\(rows)</ul>"
    }

    static func messagePage(_ message: Message, project: Project, item: Item?, uri: TrackerURI) -> String {
        let author = message.author.isEmpty ? "someone" : message.author
        let on = item.map { "<a id=\"item\" href=\"/items/\(escaped($0.id))\">\(escaped($0.title))</a> in " } ?? ""
        return """
            \(rowPageStart("Message from " + author))
            <dl>
            <dt>on</dt><dd>\(on)<a id="project" href="/projects/\(escaped(project.id))">\(escaped(project.title))</a></dd>
            <dt>created</dt><dd>\(escaped(message.createdAt))</dd>
            <dt>modified</dt><dd>\(escaped(message.modifiedAt))</dd>
            <dt>uri</dt><dd><code id="uri">\(escaped(uri.description))</code></dd>
            </dl>
            <div class="detail" id="detail">\(escaped(message.text))</div>
            </body></html>
            """
    }

    static func itemPage(_ item: Item, project: Project, uri: TrackerURI, messages: [Message] = []) -> String {
        let projectURI = TrackerURI(storeID: uri.storeID, kind: .project, entityID: project.id)
        let priority = [1: "low", 2: "medium", 3: "high"][item.priority] ?? "?"
        return """
            \(rowPageStart(item.title))
            <dl>
            <dt>project</dt><dd><a id="project" href="/projects/\(escaped(project.id))">\(escaped(project.title))</a></dd>
            <dt>priority</dt><dd>\(item.priority) (\(priority))</dd>
            <dt>status</dt><dd>\(item.isCompleted ? "completed" : "open")</dd>
            <dt>created</dt><dd>\(escaped(item.createdAt))</dd>
            <dt>modified</dt><dd>\(escaped(item.modifiedAt))</dd>
            <dt>uri</dt><dd><code id="uri">\(escaped(uri.description))</code></dd>
            <dt>project uri</dt><dd><code>\(escaped(projectURI.description))</code></dd>
            </dl>
            <div class="detail" id="detail">\(escaped(item.detail))</div>
            \(messageList(messages))
            </body></html>
            """
    }

    static func projectPage(_ project: Project, uri: TrackerURI, items: SearchOutcome, messages: [Message] = []) -> String {
        var rows = ""
        for hit in items.hits {
            guard case .item(let item, _) = hit.entity else { continue }
            rows += "<li><a href=\"/items/\(escaped(item.id))\">\(escaped(item.title))</a>"
                + " <span class=\"meta\">\(item.isCompleted ? "done" : "open") · P\(item.priority)</span></li>\n"
        }
        return """
            \(rowPageStart(project.title))
            <dl>
            <dt>status</dt><dd>\(project.isClosed ? "closed" : "open")</dd>
            <dt>items</dt><dd>\(items.total)</dd>
            <dt>uri</dt><dd><code id="uri">\(escaped(uri.description))</code></dd>
            </dl>
            <div class="detail">\(escaped(project.detail))</div>
            <h2>Items, latest changed first</h2>
            <ul id="items">
            \(rows)</ul>
            \(messageList(messages))
            </body></html>
            """
    }
}
