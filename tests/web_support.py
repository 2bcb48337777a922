"""A live ``mapgen serve`` on loopback and a headless Chromium for the browser tests and screenshots.

Chromium and its driver come from the system (Debian's ``chromium`` and ``chromium-driver``); nothing is
downloaded. ``chromium_paths()`` is None when either is missing.
"""

from __future__ import annotations

import os
import shutil

from mapgen.web.live import live_server

__all__ = ["BROWSER", "axe_script", "chrome", "chromium_paths", "console_errors", "live_server"]

#: the xdist group of every test that drives the browser: one worker runs them all, with one Chromium
BROWSER = "browser"


def chromium_paths() -> tuple[str, str] | None:
    browser = next(
        (p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), shutil.which("google-chrome")) if p),
        None,
    )
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def axe_script() -> str | None:
    """axe-core's ``axe.min.js`` from its npm package (``.ci/install-axe`` puts it in a cache folder), or None."""
    from pathlib import Path

    env = os.environ.get("MAPGEN_AXE")
    cache = os.environ.get("MAPGEN_AXE_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mapgen-axe"
    )
    for path in (env, str(Path(cache) / "node_modules" / "axe-core" / "axe.min.js")):
        if path and Path(path).is_file():
            return Path(path).read_text(encoding="utf-8")
    return None


def console_errors(d) -> list[str]:
    """The page's console errors since the last call (Chromium's SEVERE log entries)."""
    return [e["message"] for e in d.get_log("browser") if e.get("level") == "SEVERE"]


def chrome(width: int = 1280, height: int = 900, downloads: str | None = None):
    """A headless Chromium driven through the system chromedriver (never a downloaded one)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not fetch anything
    browser, driver = chromium_paths()
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
        "--lang=en-GB",
    ):
        opts.add_argument(arg)
    # the studio warns before leaving with unsaved edits: tests that navigate on accept that question
    opts.set_capability("unhandledPromptBehavior", "accept")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console errors, read by the tests
    if downloads:
        opts.add_experimental_option(
            "prefs", {"download.default_directory": downloads, "download.prompt_for_download": False}
        )
    d = webdriver.Chrome(service=Service(driver), options=opts)
    d.set_window_size(width, height)
    # the page's viewport exactly width x height (the window's own frame takes no room from it); a phone-sized
    # one is emulated as a phone (touch, mobile viewport)
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700},
    )
    if width < 700:
        d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    if downloads:
        d.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return d


def screenshots(folder: str, *, keep_all: bool = False) -> list[str]:
    """The pictures in the README: the table helper on a phone and the studio on a desktop, mid-use.

    ``keep_all`` also saves the other size of each page (for checking readability).
    """
    import time
    from pathlib import Path

    from selenium.webdriver.common.by import By

    def until(d, predicate, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate(d):
                return
            time.sleep(0.2)

    revealed = "A7Wa,B7Sk,C7Ti,D7Wo,E7Wa,F7Fo,G7Hi0,A6Wo,B6Ft,C6Fo,D6Fo,E6Wa,F6Sk,G6Ti,B5Ti,D5Ro,E5Wo,E4Hi1,B4Ft,A5Hi1,G5Hi1,A1Sk"
    helper = f"/helper#ch=fauna&from=fauna-1&peak=F2&fp=Ti-..-Vi/Sk-Ft-../..-..-Hi&r={revealed}&heat=Sk"
    shots = [
        ("helper", 390, 1100, True),
        ("studio", 1280, 1020, True),
        ("helper", 1280, 900, False),
        ("studio", 390, 1500, False),
    ]
    out = []
    with live_server() as url:
        for page, w, h, readme in shots:
            if not (readme or keep_all):
                continue
            d = chrome(w, h)
            try:
                if page == "helper":
                    d.get(url + helper)
                    until(d, lambda d: "(exact)" in d.find_element(By.ID, "count").text)
                    d.find_element(By.ID, "hint").click()
                    until(d, lambda d: "must be" in d.find_element(By.ID, "hint-text").text)
                else:
                    d.get(url + "/studio")
                    until(d, lambda d: "Valid" in d.find_element(By.ID, "verdict").text)
                    d.find_element(By.CSS_SELECTOR, '.brush[data-code="Ft"]').click()
                    d.find_element(By.CSS_SELECTOR, '.cell[data-cell="B2"]').click()
                    d.find_element(By.CSS_SELECTOR, '.brush[data-code="Sk"]').click()
                    d.find_element(By.CSS_SELECTOR, '.cell[data-cell="G6"]').click()
                    until(d, lambda d: "broken" in d.find_element(By.ID, "verdict").text)
                time.sleep(0.5)
                name = f"serve-{page}.png" if readme else f"serve-{page}-{w}.png"
                path = str(Path(folder) / name)
                d.save_screenshot(path)
                out.append(path)
            finally:
                d.quit()
    return out


def start_the_draws_runs() -> list[str]:
    """In a web worker process: start the draws' process for sampler runs (as a table answer from the pool of
    draws does) and give the names of the OS semaphores its executor's queues hold."""
    from mapgen.web.draws import POOLS

    runs = POOLS.runner()
    assert runs.submit(os.getpid).result(120) != os.getpid()
    calls, results = runs._pool._call_queue, runs._pool._result_queue
    return [lock._semlock.name for lock in (calls._rlock, calls._wlock, calls._sem, results._rlock, results._wlock)]


if __name__ == "__main__":  # python -m tests.web_support docs/images [--all]
    import sys

    for p in screenshots(sys.argv[1], keep_all="--all" in sys.argv):
        print(p)
