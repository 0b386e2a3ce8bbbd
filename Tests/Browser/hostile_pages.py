"""The hostile-string corpus in a real browser: Debian's chromium, headless, driven by Playwright.

Usage: hostile_pages.py BASE_URL TOKEN PATHS_FILE SCREENSHOT_PATH
The server needs TOKEN (or "-" for none). Opens the search page as /#token=TOKEN (the page trades it for a session
cookie and drops it from the address), searches for the hostile rows, then opens every row page PATHS_FILE lists
(one path a line) by navigating to it, as a link would, with the cookie alone. On every page: no script ran (no
dialog, no Content-Security-Policy violation), no element the store's text could have made (img, svg, iframe,
object, embed, an inline script, an on* handler), and no raw control character in the text shown. Saves a
screenshot of the first row page. Exits 0 when all hold; prints what failed and exits 1 otherwise.
"""
import re
import sys

from playwright.sync_api import sync_playwright, expect

CHROMIUM = "/usr/bin/chromium"
CONTROLS = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]")

# Runs before any page script: records CSP violations where the test can read them.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  event => window.__violations.push(event.violatedDirective + " " + event.blockedURI));
"""

# What the store's text could have turned into, had it been read as markup.
INJECTED = """() => {
  const found = [...document.querySelectorAll("img, svg, iframe, object, embed, script:not([src])")]
    .map(node => node.outerHTML.slice(0, 80));
  for (const node of document.querySelectorAll("*"))
    for (const attribute of node.attributes)
      if (attribute.name.startsWith("on")) found.push(node.tagName + " " + attribute.name);
  return found;
}"""


def check(page, where, dialogs):
    injected = page.evaluate(INJECTED)
    if injected:
        raise AssertionError(f"{where}: markup from the store: {injected[:3]}")
    violations = page.evaluate("window.__violations")
    if violations:
        raise AssertionError(f"{where}: the policy blocked {violations[:3]}")
    text = page.evaluate("document.body.innerText + document.title")
    raw = CONTROLS.search(text)
    if raw:
        raise AssertionError(f"{where}: a raw control character U+{ord(raw.group()):04X} is shown")
    if dialogs:
        raise AssertionError(f"{where}: a script ran: {dialogs[:3]}")


def main(base, token, paths_file, screenshot):
    paths = [line.strip() for line in open(paths_file) if line.strip()]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        context = browser.new_context()
        context.add_init_script(WATCH)
        page = context.new_page()
        dialogs = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

        page.goto(base + "/" + ("" if token == "-" else "#token=" + token))
        if token != "-":
            page.wait_for_function("!location.hash")
            cookies = context.cookies()
            session = [cookie for cookie in cookies if cookie["name"].startswith("spotlite_session")]
            if not session or not session[0]["httpOnly"] or session[0]["sameSite"] != "Strict":
                raise AssertionError(f"no HttpOnly, SameSite=Strict session cookie: {cookies}")
        box = page.locator("#q")
        box.fill("hostile")
        hits = page.locator("#hits li")
        expect(hits.first).to_be_visible(timeout=10_000)
        expect(page.locator("#status")).to_contain_text("hits 1–")
        check(page, "the search page", dialogs)

        for number, path in enumerate(paths):
            response = page.goto(base + path)
            if response is None or response.status != 200:
                raise AssertionError(f"{path}: status {response.status if response else 'none'}")
            check(page, path, dialogs)
            if number == 0:
                page.screenshot(path=screenshot, full_page=True)
        browser.close()


if __name__ == "__main__":
    try:
        main(*sys.argv[1:5])
    except Exception as error:  # one line for the test's message
        print("browser test failed:", str(error).splitlines()[0] if str(error) else repr(error))
        sys.exit(1)
    print("browser test passed")
