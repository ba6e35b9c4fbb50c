#!/usr/bin/python3
"""heapq report in a real browser: headless Chromium driven by Selenium opens the reports of
a leaking sample (ObjectSpace and memprof dumps) and of hostile dumps, and checks that the
page loads without console errors, names the leak, zooms when a box of the dominator view is
clicked, sorts a table, and runs no script from the dump. Screenshots go to OUTDIR.

Usage: check_report.py HEAPQ SOURCE_DIR OUTDIR      (ctest runs it; exit 77 = skipped)
       check_report.py --open REPORT.html            (prints how long the report takes to open)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(why):
    print("\n*** SKIPPED: the browser test did not run: %s ***\n" % why, flush=True)
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
except ImportError as e:
    skip("python3-selenium is missing (%s); sh scripts/install-deps installs it" % e)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def browser(profile):
    if not os.path.exists(CHROMIUM) or not os.path.exists(DRIVER):
        skip("chromium or chromium-driver is missing; sh scripts/install-deps installs them")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1600", "--user-data-dir=" + profile]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The sanitizer build preloads ASan for Ruby's sake (a sanitized memprof extension); the
    # browser must not inherit it.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    try:
        return webdriver.Chrome(service=Service(DRIVER, env=env), options=options)
    except Exception as e:  # a machine where Chromium cannot start
        skip("Chromium did not start: %s" % str(e).splitlines()[0])


failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def open_report(driver, path):
    start = time.monotonic()
    driver.get("file://" + os.path.abspath(path))
    driver.find_element(By.CSS_SELECTOR, "#icicle .cell")  # the script has drawn the icicle
    seconds = time.monotonic() - start
    load = driver.execute_script(
        "var t = performance.getEntriesByType('navigation')[0]; return t ? t.loadEventEnd : null;")
    return seconds, load


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def check_icicle(driver, name):
    # The widest box of the second row that has boxes of its own in the third (a leaf, such as
    # memprof's tracker, cannot be zoomed into).
    index = driver.execute_script("""
        var cells = Array.from(document.querySelectorAll('#icicle .cell'));
        var best = null, width = 0;
        cells.forEach(function (c) {
          if (c.style.top !== '22px' || c.classList.contains('more') || c.offsetWidth <= width) return;
          var parent = c.offsetLeft, end = c.offsetLeft + c.offsetWidth;
          if (cells.some(function (d) { return d.style.top === '44px' && d.offsetLeft >= parent && d.offsetLeft < end; })) {
            best = c; width = c.offsetWidth;
          }
        });
        return best ? best.dataset.index : null;""")
    check(index is not None, name + ": the dominator view has boxes below the roots")
    if index is None:
        return
    cell = driver.find_element(By.CSS_SELECTOR, '#icicle .cell[data-index="%s"]' % index)
    ActionChains(driver).move_to_element(cell).perform()
    tip = driver.find_element(By.ID, "tip")
    check(tip.is_displayed() and "retains" in tip.text and "path:" in tip.text,
          name + ": hovering a box shows its size and path")
    cell.click()
    zoom = driver.find_element(By.ID, "icicle").get_attribute("data-zoom")
    crumbs = driver.find_elements(By.CSS_SELECTOR, "#crumbs button")
    top = driver.find_element(By.CSS_SELECTOR, "#icicle .cell.zoom")
    check(zoom == index and len(crumbs) == 2 and top.get_attribute("data-index") == index,
          name + ": clicking a box zooms into it (zoom %s, %d crumbs)" % (zoom, len(crumbs)))
    top.click()
    check(driver.find_element(By.ID, "icicle").get_attribute("data-zoom") == "0",
          name + ": clicking the top box zooms out")


def check_sorting(driver, name):
    th = driver.find_element(By.XPATH, "(//section[@id='tables']//table)[1]//th[normalize-space()='objects']")
    th.click()
    values = driver.execute_script("""
        return Array.prototype.map.call(document.querySelectorAll('#tables table')[0].tBodies[0].rows,
                                        function (r) { return Number(r.cells[1].dataset.sort); });""")
    check(th.get_attribute("aria-sort") == "descending" and values == sorted(values, reverse=True),
          name + ": a click on a column heading sorts the table by it")


def check_report(driver, path, name, leak_class, shots):
    seconds, load = open_report(driver, path)
    print("      %s opened in %.2f s (load event at %s ms)" % (name, seconds, load))
    errors = console_errors(driver)
    check(not errors, name + ": no console errors %s" % errors)
    check(len(driver.find_elements(By.CSS_SELECTOR, "#leaks article h3")) > 0, name + ": a leak is in the page")
    held = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "#leaks article:first-of-type td")]
    check(any(leak_class in td for td in held), name + ": the first leak holds %r: %s" % (leak_class, held[:10]))
    check(len(driver.find_elements(By.CSS_SELECTOR, "#leaks svg")) > 0, name + ": leaks have retention trees")
    check_icicle(driver, name)
    check_sorting(driver, name)
    shot = os.path.join(shots, "report-%s.png" % name)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(shot)
    print("      screenshot: " + shot)
    check(not console_errors(driver), name + ": no console errors after clicking")


def run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        print("FAIL  %s: %s%s" % (" ".join(command), result.stdout, result.stderr))
        sys.exit(1)
    return result.stdout


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--open":
        profile = tempfile.mkdtemp(prefix="heapq-chromium-")
        driver = browser(profile)
        try:
            seconds, load = open_report(driver, sys.argv[2])
            print(json.dumps({"seconds": round(seconds, 2), "load_event_ms": load, "console_errors": console_errors(driver)}))
        finally:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)
        return 0
    heapq, source, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="heapq-browser-")
    profile = os.path.join(work, "profile")
    driver = browser(profile)
    try:
        sample = os.path.join(source, "samples", "memo_cache.rb")
        kinds = [("objectspace", [], [])]
        ext = os.environ.get("MEMPROF_EXT_DIR")
        if ext:
            kinds.append(("memprof", ["-I", ext], ["--memprof"]))
        else:
            print("note: MEMPROF_EXT_DIR is not set: memprof dumps not checked")
        for kind, load_path, flags in kinds:
            dumps = run(["ruby", *load_path, sample, os.path.join(work, kind), *flags]).split()
            report = os.path.join(outdir, "report-memo_cache-%s.html" % kind)
            run([heapq, "--quiet", "report", "-o", report, *dumps])
            check_report(driver, report, "memo_cache-" + kind, "Pricing::Quote", outdir)

        hostile = run(["ruby", os.path.join(source, "tests", "e2e", "hostile_dumps.rb"), work]).split()
        report = os.path.join(outdir, "report-hostile.html")
        run([heapq, "--quiet", "report", "-o", report, *hostile])
        leak_class = "Leak<script>window.__heapq_pwned = 1</script>\"'</svg>]]>\\{}|<>&amp;"
        check_report(driver, report, "hostile", leak_class, outdir)
        check(driver.execute_script("return window.__heapq_pwned === undefined"), "hostile: no script from the dump ran")
        counts = driver.execute_script("""return [document.querySelectorAll('script').length,
                                                  document.querySelectorAll('img').length,
                                                  document.querySelectorAll('svg script, svg foreignObject').length];""")
        check(counts == [2, 0, 0], "hostile: the page has only its own two scripts, no img (%s)" % counts)
        texts = driver.execute_script("return document.body.textContent")
        check("onerror=\"window.__heapq_pwned = 1\"" in texts, "hostile: the markup in the dump reads as text")
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("all browser checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
