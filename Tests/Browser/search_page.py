"""The search page in a real browser: Debian's chromium, headless, driven by Playwright.

Usage: search_page.py BASE_URL SCREENSHOT_PATH
Types a query, sees the hits appear and update as it types more, moves through them with the keyboard, opens an
item, checks that a title holding markup shows as text, and saves a screenshot. Exits 0 when all hold; prints
what failed and exits 1 otherwise.
"""
import sys

from playwright.sync_api import sync_playwright, expect

CHROMIUM = "/usr/bin/chromium"


def main(base, screenshot):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        alerts = []
        page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
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

        page.goto(base + "/?q=leaking")
        expect(hits.first).to_contain_text("leaking", ignore_case=True, timeout=10_000)
        page.screenshot(path=screenshot, full_page=True)
        browser.close()
        if alerts:
            raise AssertionError("a script ran: " + repr(alerts))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as error:  # one line for the test's message
        print("browser test failed:", str(error).splitlines()[0] if str(error) else repr(error))
        import os
        if os.environ.get("SPOTLITE_BROWSER_DEBUG"): print(str(error))
        sys.exit(1)
    print("browser test passed")
