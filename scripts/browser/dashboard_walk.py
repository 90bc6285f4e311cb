"""Walks `funnel dashboard` in headless Chromium as a person would, and prints what it saw as JSON.

Usage: python dashboard_walk.py URL VIEWER SECRET FLOW SCREENSHOT_DIR FILTERS_JSON

Signs in through the form, opens the home page, follows the flow's link, fills the filter form
with FILTERS_JSON ({"per": "user", "since": "2026-01-12", ...}) and submits it, then reads the
numbers shown (the totals and the step table's text, not the data-value attributes); then opens
trends, the week-over-week comparison, the users who dropped, correlation and discovery by their
links. Writes a screenshot of each page at laptop width, and of the home, filtered flow and
discovery pages at phone width, and measures whether a page is wider than the window. The caller
compares the numbers with the CLI's JSON. Exit status 1 with the error on stderr when a step fails.
"""

import json
import os
import sys
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base, viewer, secret, flow, shots = sys.argv[1:6]
filters = json.loads(sys.argv[6])
base = base.rstrip("/")
os.makedirs(shots, exist_ok=True)

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--hide-scrollbars", "--window-size=1280,900", "--lang=en-US"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(120)
wait = WebDriverWait(driver, 60)
seen = {"screenshots": [], "pages": []}


def path():
    return urllib.parse.urlsplit(driver.current_url).path


def overflow():
    """How many CSS pixels the page is wider than the window (0: no sideways scrolling)."""
    return driver.execute_script(
        "return Math.max(0, document.documentElement.scrollWidth - window.innerWidth);")


def too_wide():
    """The elements reaching past the window's right edge outside a box that scrolls, to say why."""
    return driver.execute_script("""
        const out = [];
        const clipped = (e) => {
          for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
            if (getComputedStyle(a).overflowX !== 'visible') return true;
          return false;
        };
        for (const e of document.body.querySelectorAll('*')) {
          if (clipped(e)) continue;
          const r = e.getBoundingClientRect();
          if (r.right > window.innerWidth + 1) out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
            + (e.className && typeof e.className === 'string' ? '.' + e.className : '') + ' ' + Math.round(r.right));
          if (out.length >= 5) break;
        }
        return out;""")


def shoot(name, width):
    """A full-page screenshot at `width` (the window is made as tall as the page)."""
    driver.set_window_size(width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight;")
    driver.set_window_size(width, min(max(height, 600), 8000))
    file = os.path.join(shots, name)
    driver.save_screenshot(file)
    seen["screenshots"].append(file)
    seen["pages"].append({"screenshot": file, "path": path(), "width": width, "overflow": overflow(),
                          "too_wide": too_wide()})
    driver.set_window_size(1280, 900)


try:
    # Not signed in: the home page sends the browser to the sign-in form.
    driver.get(base + "/")
    wait.until(lambda d: path() == "/login")
    shoot("01-login.png", 1280)
    driver.find_element(By.NAME, "name").send_keys(viewer)
    driver.find_element(By.NAME, "secret").send_keys(secret)
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button[type=submit]").click()
    wait.until(lambda d: path() == "/" and d.find_elements(By.ID, "flows"))
    seen["home_title"] = driver.title
    seen["home_flows"] = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#flows li > a:first-child")]
    seen["home_sparklines"] = len(driver.find_elements(By.CSS_SELECTOR, "#flows svg"))
    seen["home_subtitle"] = driver.find_element(By.CSS_SELECTOR, "header").text
    shoot("02-home.png", 1280)

    # Follow the flow's link, as a person clicks it.
    driver.find_element(By.CSS_SELECTOR, "#flows li > a[href='/flows/%s']:first-child" % flow).click()
    wait.until(lambda d: path() == "/flows/" + flow and d.find_elements(By.CSS_SELECTOR, "ul.kpis"))
    shoot("03-flow.png", 1280)

    # Change the filters in the form and submit it.
    form = driver.find_element(By.CSS_SELECTOR, "#filters form")
    for name, value in filters.items():
        field = form.find_element(By.NAME, name)
        if field.tag_name == "select":
            Select(field).select_by_visible_text(value)
        else:
            field.clear()
            field.send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: "per=" in d.current_url and d.find_elements(By.CSS_SELECTOR, "ul.kpis"))
    seen["filtered_url"] = driver.current_url
    seen["filtered_query"] = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))

    # The numbers shown: the totals (label -> text) and the step table (step -> column -> text).
    seen["totals"] = {
        item.find_element(By.CLASS_NAME, "label").text: item.find_element(By.CLASS_NAME, "value").text
        for item in driver.find_elements(By.CSS_SELECTOR, "ul.kpis li")
    }
    table = driver.find_element(By.CSS_SELECTOR, "table[data-table=steps]")
    header = [cell.text for cell in table.find_elements(By.CSS_SELECTOR, "thead th")]
    seen["steps"] = {}
    for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
        cells = [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
        seen["steps"][row.get_attribute("data-key")] = dict(zip(header, cells))
    seen["step_order"] = [row.get_attribute("data-key") for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    seen["subtitle"] = driver.find_element(By.CSS_SELECTOR, "header").text
    shoot("04-flow-filtered.png", 1280)
    shoot("05-flow-filtered-phone.png", 390)

    driver.get(base + "/")
    wait.until(lambda d: d.find_elements(By.ID, "flows"))
    shoot("06-home-phone.png", 390)

    # The other reports, reached by their links from the filtered flow page; each must show a table.
    seen["reports"] = {}
    for number, text in enumerate(["trends by week", "this week against the last", "who dropped", "correlation"]):
        driver.get(seen["filtered_url"])
        driver.find_element(By.LINK_TEXT, text).click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "main table"))
        seen["reports"][text] = {"path": path(), "title": driver.title}
        shoot("%02d-%s.png" % (7 + number, path().rsplit("/", 1)[-1]), 1280)
        if text == "trends by week":  # its own form: by day instead
            Select(driver.find_element(By.CSS_SELECTOR, "#filters select[name=interval]")).select_by_visible_text("day")
            driver.find_element(By.CSS_SELECTOR, "#filters button[type=submit]").click()
            wait.until(lambda d: "interval=day" in d.current_url and d.find_elements(By.CSS_SELECTOR, "main table"))
            seen["trends_by_day"] = {
                "query": dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query)),
                "periods": len(driver.find_elements(By.CSS_SELECTOR, "main table tbody tr")),
            }
    driver.get(base + "/")
    driver.find_element(By.LINK_TEXT, "Feature discovery, all time").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "main table"))
    seen["reports"]["discovery"] = {"path": path(), "title": driver.title}
    shoot("11-discovery.png", 1280)
    shoot("12-discovery-phone.png", 390)
except Exception as error:  # the walk's step and the page it was on, for the test's message
    print("browser walk failed at %s: %r" % (driver.current_url, error), file=sys.stderr)
    try:
        driver.save_screenshot(os.path.join(shots, "failed.png"))
        print("screenshot of the failure: %s" % os.path.join(shots, "failed.png"), file=sys.stderr)
    finally:
        driver.quit()
    sys.exit(1)
driver.quit()
print(json.dumps(seen, indent=2, sort_keys=True))
