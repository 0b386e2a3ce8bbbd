"""The search page in a real browser: Debian's chromium, headless, driven by Playwright.

Usage: search_page.py BASE_URL SCREENSHOT_PATH [WRITER]
The server runs with `--stores all` over the samples store ("default") and a store "library" holding the project
"Town library" and its item "Lisbon guidebook due back". WRITER, a JSON list, is a command that adds the item
"Zeppelin seen over the garden" to the served store: the page must show it by itself.
Types a query, sees the hits appear and update as it types more, moves through them with the keyboard, opens an
item and comes back to its search, pages, filters by facets (chips, the address, back), follows "did you mean",
sees messages as messages and dates as relative ones, narrows to a store and opens a row of another store, opens a
missing row's page, passes axe-core's accessibility rules, and saves screenshots at 420 and 1,400 px (SCREENSHOT_PATH, and beside it -420.png and -1400.png). Exits 0 when all hold; prints
what failed and exits 1 otherwise.
"""
import json
import re
import subprocess
import sys
import time

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright, expect

CHROMIUM = "/usr/bin/chromium"

# Run in the page: each visible element holding text of its own whose colour against its (first opaque ancestor's)
# background is below 4.5:1, described.
CONTRAST = """() => {
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
                                      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = e => {
    for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0.5) return c; }
    return [255, 255, 255];
  };
  const low = [];
  for (const e of document.querySelectorAll("body *")) {
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !e.getClientRects().length) continue;
    const a = lum(rgb(getComputedStyle(e).color)), b = lum(background(e).slice(0, 3));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) low.push(e.tagName + "." + e.className + " '" + e.textContent.trim().slice(0, 30) + "' " + ratio.toFixed(2));
  }
  return low;
}"""


def axe_findings(page, where):
    """Fails on any finding of axe-core's rules run in the page (serious or not: landmarks too)."""
    serious = Axe().run(page).response["violations"]
    if serious:
        raise AssertionError("axe-core on %s: " % where + "; ".join(
            "%s (%s): %s" % (v["id"], v["impact"], ", ".join(str(n["target"]) for n in v["nodes"][:3]))
            for v in serious))


def live_state(page, requests):
    """What the live step's parts saw, for a failure's message: the list's state, the server's subscriptions and
    index, the page's requests to the API since the search box last changed."""
    state = page.evaluate("""async () => {
      const list = document.getElementById("hits");
      const get = async path => { try { const r = await fetch(path); return r.status + " " + await r.text(); }
                                  catch (error) { return String(error); } };
      return {live: list.dataset.live, query: list.dataset.query, shown: list.children.length,
              subscriptions: await get("/v1/subscriptions"), status: await get("/v1/status")};
    }""")
    return json.dumps(state) + "; requests: " + "; ".join(requests[-12:])


def main(base, screenshot, writer):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        alerts = []
        page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
        # The page's calls to the API, timed, for the live step's failure message.
        started = time.monotonic()
        requests = []
        page.on("response", lambda r: "/v1/" in r.url and requests.append(
            "%.1f s %d %s" % (time.monotonic() - started, r.status, r.url[len(base):])))
        page.on("requestfailed", lambda r: "/v1/" in r.url and requests.append(
            "%.1f s failed %s: %s" % (time.monotonic() - started, r.url[len(base):], r.failure)))
        page.goto(base + "/")
        box = page.locator("#q")
        expect(box).to_be_focused()

        # Search as you type: the last word is a prefix, the hits follow each keystroke.
        box.type("leak", delay=40)
        hits = page.locator("#hits li")
        expect(hits.first).to_contain_text("leaking", ignore_case=True, timeout=10_000)
        expect(page.locator("#status")).to_contain_text("hits 1–")
        box.type("ing ho", delay=40)
        expect(hits.first.locator("a")).to_have_text("Fix the leaking hose", timeout=10_000)
        expect(hits).to_have_count(1)
        # The words that matched are marked in the snippet (`leaks`, by its stem; `hose`, by the prefix `ho`).
        expect(hits.first.locator("mark").first).to_be_visible()

        # A title made of markup is text, on the page and in the hit list; no script runs.
        box.fill("")
        box.type("alert", delay=40)
        expect(page.locator("#hits")).to_have_attribute("data-query", "alert", timeout=10_000)
        expect(hits.first.locator("a")).to_have_text("<script>alert(1)</script>", timeout=10_000)

        # Keyboard: down, up, Enter opens the selected hit's page.
        box.fill("")
        box.type("paint", delay=40)
        # The hits of the whole word, not of a prefix typed on the way (Enter opens what is shown).
        expect(page.locator("#hits")).to_have_attribute("data-query", "paint", timeout=10_000)
        expect(hits.first).to_have_class("selected", timeout=10_000)
        count = hits.count()
        if count > 1:
            box.press("ArrowDown")
            expect(hits.nth(1)).to_have_class("selected")
            box.press("ArrowUp")
        expect(hits.first).to_have_class("selected")
        title = hits.first.locator("a").inner_text()
        box.press("Enter")
        page.wait_for_url("**/items/*")
        expect(page.locator("#title")).to_have_text(title)
        expect(page.locator("#uri")).to_contain_text("tracker://")
        # The item links to its project, whose page lists it.
        page.locator("#project").click()
        page.wait_for_url("**/projects/*")
        expect(page.locator("#items")).to_contain_text(title)

        # "← Search" on a row page returns to the search it was opened from.
        page.goto(base + "/?q=leaking")
        expect(hits.first).to_contain_text("leaking", ignore_case=True, timeout=10_000)
        hits.first.locator("a").click()
        page.wait_for_url("**/items/*")
        page.locator("#back").click()
        page.wait_for_url("**/?q=leaking")
        expect(box).to_have_value("leaking")
        expect(hits.first).to_contain_text("leaking", ignore_case=True, timeout=10_000)

        # Highlights are whole words, as the command line marks them: never "the" inside "gather" or "them".
        box.fill("the")
        expect(page.locator("#hits")).to_have_attribute("data-query", "the", timeout=10_000)
        for mark in page.locator("#hits mark").all():
            around = mark.evaluate(
                "m => [(m.previousSibling && m.previousSibling.textContent.slice(-1)) || '',"
                " (m.nextSibling && m.nextSibling.textContent.charAt(0)) || '']")
            if any(ch.isalnum() for ch in around):
                raise AssertionError("a mark inside a word: " + repr(around) + " " + mark.inner_text())

        # Paging: 20 at first, more on asking, the count in the address (back restores it).
        expect(hits).to_have_count(20, timeout=10_000)
        expect(page.locator("#status")).to_contain_text("of 45")
        page.locator("#more").click()
        expect(hits).to_have_count(40, timeout=10_000)
        expect(page).to_have_url(re.compile(r"n=40"))

        # Facets filter when clicked and show as removable chips; the address holds them; back undoes them.
        box.fill("tap")
        expect(page.locator("#hits")).to_have_attribute("data-query", "tap", timeout=10_000)
        before = hits.count()
        page.locator('#facets [aria-label="project"] button', has_text="Garden").click()
        expect(page.locator("#chips button")).to_have_text(re.compile("project: Garden"), timeout=10_000)
        expect(page).to_have_url(re.compile(r"f=project"))
        expect(hits.first.locator(".meta")).to_contain_text("Garden", timeout=10_000)
        if hits.count() >= before:
            raise AssertionError("a project filter kept every hit")
        page.go_back()
        expect(page.locator("#chips button")).to_have_count(0, timeout=10_000)
        page.locator('#facets [aria-label="status"] button').first.click()
        expect(page.locator("#chips button")).to_have_count(1, timeout=10_000)
        page.locator("#chips button").click()
        expect(page.locator("#chips button")).to_have_count(0, timeout=10_000)
        for group in ("project", "status", "priority"):
            expect(page.locator('#facets [aria-label="%s"]' % group)).to_have_count(1)

        # With --stores, a store facet: its chip narrows the search to one store (the address holds it), and a hit of
        # another store opens its page in that store, whose links stay there.
        box.fill("lisbon")
        expect(page.locator('#facets [aria-label="store"] button')).to_have_count(2, timeout=10_000)
        page.locator('#facets [aria-label="store"] button', has_text="library").click()
        expect(page.locator("#chips button")).to_have_text("store: library ×", timeout=10_000)
        expect(page).to_have_url(re.compile(r"s=library"))
        expect(hits).to_have_count(1, timeout=10_000)
        hits.first.locator("a").click()
        page.wait_for_url("**/items/*store=*")
        expect(page.locator("#title")).to_have_text("Lisbon guidebook due back")
        page.locator("#project").click()
        page.wait_for_url("**/projects/*store=*")
        expect(page.locator("#title")).to_have_text("Town library")
        expect(page.locator("#items")).to_contain_text("Lisbon guidebook due back")
        page.go_back()
        page.locator("#back").click()
        expect(page.locator("#chips button")).to_have_text("store: library ×", timeout=10_000)
        expect(hits).to_have_count(1, timeout=10_000)
        page.locator("#chips button").click()
        expect(hits).to_have_count(3, timeout=10_000)

        # Esc clears the search; back brings it again, forward clears it again.
        box.fill("tap")
        expect(page.locator("#hits")).to_have_attribute("data-query", "tap", timeout=10_000)
        box.press("Escape")
        expect(box).to_have_value("")
        expect(hits).to_have_count(0, timeout=10_000)
        page.go_back()
        expect(box).to_have_value("tap", timeout=10_000)
        expect(hits.first).to_be_visible(timeout=10_000)
        page.go_forward()
        expect(box).to_have_value("", timeout=10_000)
        expect(hits).to_have_count(0, timeout=10_000)

        # "Did you mean" is a link that searches the suggestion.
        box.fill("tomatoex")
        expect(page.locator("#suggestion a")).to_have_text("tomato", timeout=10_000)
        page.locator("#suggestion a").click()
        expect(box).to_have_value("tomato")
        expect(hits.first).to_contain_text("omato", timeout=10_000)

        # A message is shown as a message, with what it is on.
        box.fill("kind:message")
        expect(hits.first.locator(".meta")).to_contain_text("message from", timeout=10_000)
        # Dates read relatively, the exact time on hover.
        expect(hits.first.locator("time")).to_have_attribute("title", re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"))

        # "/" brings the cursor back to the search box.
        page.locator("h1").click()
        page.keyboard.press("/")
        expect(box).to_be_focused()

        # A row that is not there is a page saying so, not problem JSON.
        response = page.goto(base + "/items/00000000-0000-4000-8000-000000000000")
        if response.status != 404:
            raise AssertionError("a missing row's page answered %d" % response.status)
        expect(page.locator("#problem")).to_contain_text("not in this store")
        axe_findings(page, "a missing row's page")

        # Every control has a name a screen reader can say.
        page.goto(base + "/?q=tap")
        expect(hits.first).to_be_visible(timeout=10_000)
        for control in page.locator("button, input, a").all():
            if not control.evaluate("c => (c.getAttribute('aria-label') || c.textContent || '').trim()"):
                raise AssertionError("a control without a name: " + control.evaluate("c => c.outerHTML"))

        # Live: a search that has settled follows its query's events; a row written elsewhere appears by itself,
        # and the subscription the page made goes when the query changes.
        if writer:
            box.fill("zeppelin")
            expect(page.locator("#status")).to_have_text("no matches", timeout=10_000)
            expect(page.locator("#hits")).to_have_attribute("data-live", "on", timeout=15_000)
            subprocess.run(writer, check=True, stdout=subprocess.DEVNULL)
            written = time.monotonic()
            requests.append("%.1f s the writer's row committed" % (written - started))
            try:
                expect(hits.first.locator("a")).to_have_text("Zeppelin seen over the garden", timeout=30_000)
            except AssertionError as failure:
                raise AssertionError("the written row was not shown %.1f s after the writer: %s" % (
                    time.monotonic() - written, live_state(page, requests))) from failure
            box.fill("tap")
            expect(page.locator("#hits")).to_have_attribute("data-query", "tap", timeout=10_000)
            # A refused poll (the server busy on a loaded machine) is "not yet", not a failure of the page.
            page.wait_for_function(
                "async () => { const r = await fetch('/v1/subscriptions'); if (!r.ok) return false;"
                " return !((await r.json()).subscriptions || [{query: 'zeppelin'}])"
                ".some(s => s.query === 'zeppelin') }", timeout=15_000, polling=500)

        # Text contrast (WCAG AA): every element with text of its own reads at 4.5:1 or more against its background.
        box.fill("tap")
        expect(hits.first).to_be_visible(timeout=10_000)
        page.locator('#facets [aria-label="status"] button').first.click()
        expect(page.locator("#chips button")).to_have_count(1, timeout=10_000)
        low = page.evaluate(CONTRAST)
        if low:
            raise AssertionError("text below 4.5:1 contrast: " + "; ".join(low[:5]))
        # axe-core's rules (labels, roles, contrast, landmarks…) find nothing on the search page with hits, facets
        # and a chip, nor on a row page.
        axe_findings(page, "the search page")
        hits.first.locator("a").click()
        page.wait_for_url("**/items/*")
        axe_findings(page, "an item's page")

        # Screenshots at a phone's width and a desktop's.
        for width in (420, 1400):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(base + "/?q=tap")
            expect(hits.first).to_be_visible(timeout=10_000)
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if overflow > 0:
                raise AssertionError("at %d px the page is %d px too wide" % (width, overflow))
            page.screenshot(path=screenshot.replace(".png", "-%d.png" % width), full_page=True)
        page.screenshot(path=screenshot, full_page=True)
        browser.close()
        if alerts:
            raise AssertionError("a script ran: " + repr(alerts))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]) if len(sys.argv) > 3 else None)
    except Exception as error:  # one line for the test's message
        print("browser test failed:", str(error).splitlines()[0] if str(error) else repr(error))
        import os
        if os.environ.get("SPOTLITE_BROWSER_DEBUG"): print(str(error))
        sys.exit(1)
    print("browser test passed")
