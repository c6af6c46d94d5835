#!/usr/bin/python3
"""The lab page in a real browser: headless Chromium driven by Selenium opens the page that
`smsim serve` serves, moves the warps slider with the keyboard, and checks that the numbers and
the timeline picture change and equal what `smsim run` prints and draws for the same setting.
Then a second column (compare), a sweep, and a pasted GPU file with an error in it.

    tests/serve/browser.py SMSIM [SCREENSHOT.png]

Exits 77 (skipped) where Chromium, its driver or Selenium is missing: `tools/dev` installs all
three, so `tools/dev test` always runs it.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def main():
    smsim = os.path.abspath(sys.argv[1])
    shot = sys.argv[2] if len(sys.argv) > 2 else None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        print("skipped: no python3-selenium")
        return SKIP
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        print("skipped: no chromium or chromedriver")
        return SKIP

    work = tempfile.mkdtemp(prefix="smsim-browser-")
    port_file = os.path.join(work, "port")
    server = subprocess.Popen([smsim, "serve", "--port", "0", "--port-file", port_file,
                               "--jobs", "2"], cwd=work, stdout=subprocess.PIPE, text=True)
    driver = None
    try:
        for _ in range(200):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        url = "http://127.0.0.1:%s/" % open(port_file).read().strip()

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1400,2400", "--user-data-dir=" + os.path.join(work, "profile")):
            options.add_argument(a)
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        driver.set_script_timeout(60)
        wait = WebDriverWait(driver, 60)
        driver.get(url)

        def column_done(col, key="state"):
            wait.until(lambda d: d.find_element(By.ID, col).get_attribute("data-" + key)
                       in ("done", "error"))
            status = driver.find_element(By.CSS_SELECTOR, "#%s .status" % col).text
            assert driver.find_element(By.ID, col).get_attribute("data-" + key) == "done", status

        def number(col, key):
            text = driver.find_element(By.CSS_SELECTOR, '#%s [data-key="%s"]' % (col, key)).text
            return float(re.match(r"[0-9.,e+-]+", text).group(0).replace(",", ""))

        def picture(col):
            # the bytes behind the timeline's blob URL, as the browser holds them
            return driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "fetch(document.querySelector('#%s .timeline').src).then(r => r.text()).then(done, e => done(String(e)));"
                % col)

        def cli(warps, svg_path):
            out = subprocess.run([smsim, "run", "h100", "mix", "--set", "warps_per_sm=%d" % warps,
                                  "--json", "--trace", svg_path], cwd=work, check=True,
                                 capture_output=True, text=True).stdout
            return json.loads(out[:out.rindex("}") + 1])

        column_done("column-a")
        cycles32 = number("column-a", "cycles")
        svg32 = picture("column-a")
        ref32 = cli(32, os.path.join(work, "w32.svg"))
        assert cycles32 == ref32["cycles"], (cycles32, ref32["cycles"])
        assert svg32 == open(os.path.join(work, "w32.svg")).read(), "the picture at 32 warps"

        # the warps slider, by keyboard: Home (1 warp), then 7 steps right: 8 warps
        slider = driver.find_element(By.ID, "column-a-param-warps_per_sm")
        slider.send_keys(Keys.HOME)
        for _ in range(7):
            slider.send_keys(Keys.ARROW_RIGHT)
        assert slider.get_attribute("value") == "8", slider.get_attribute("value")
        wait.until(lambda d: number("column-a", "cycles") != cycles32)
        column_done("column-a")
        ref8 = cli(8, os.path.join(work, "w8.svg"))
        cycles8 = number("column-a", "cycles")
        assert cycles8 == ref8["cycles"], (cycles8, ref8["cycles"])
        ipc8 = number("column-a", "ipc")
        assert abs(ipc8 - ref8["ipc"]["total"]) <= 1e-3 * ref8["ipc"]["total"], (ipc8, ref8["ipc"])
        svg8 = picture("column-a")
        assert svg8 != svg32, "the picture did not change with the warps"
        assert svg8 == open(os.path.join(work, "w8.svg")).read(), "the picture at 8 warps"
        share = driver.find_element(By.CSS_SELECTOR,
                                    '#column-a tr[data-state="long_scoreboard"] .share').text
        want = "%.1f %%" % (ref8["warp_states"]["long_scoreboard"]["share"] * 100)
        assert share == want, (share, want)
        little = driver.find_element(By.CSS_SELECTOR, '#column-a [data-little="run"]').text
        assert little.startswith("64.1 "), little

        # a second column, then a sweep with the setting marked
        driver.find_element(By.ID, "compare").click()
        column_done("column-b")
        assert number("column-b", "cycles") == cycles32
        driver.find_element(By.CSS_SELECTOR, "#column-a .sweep").click()
        column_done("column-a", "sweep")
        caption = driver.find_element(By.CSS_SELECTOR, "#column-a .sweep-caption").text
        assert caption.startswith("64 runs"), caption

        # a pasted GPU file with an unknown key: its file:line:col error on the page
        driver.find_element(By.CSS_SELECTOR, "#column-b details.paste summary").click()
        driver.find_element(By.CSS_SELECTOR, "#column-b .gpu-yaml").send_keys(
            "schedulers: 4\nwarp_size: 32\n")
        driver.find_element(By.CSS_SELECTOR, "#column-b .use-yaml").click()
        wait.until(lambda d: "pasted.yaml:2:1" in
                   d.find_element(By.CSS_SELECTOR, "#column-b .status").text)

        if shot:
            driver.find_element(By.CSS_SELECTOR, "#column-b details.paste summary").click()
            driver.find_element(By.ID, "compare").click()
            driver.execute_script("window.scrollTo(0, 0)")
            driver.set_window_size(1280, 1500)
            time.sleep(0.5)
            driver.save_screenshot(shot)
        print("ok: cycles %d at 32 warps and %d at 8, as smsim run; pictures equal to "
              "smsim run --trace (sha256 %s); sweep: %s" %
              (cycles32, cycles8, hashlib.sha256(svg8.encode()).hexdigest()[:12], caption))
        return 0
    finally:
        if driver:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
