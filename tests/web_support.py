"""A live ``mapgen serve`` on loopback and a headless Chromium for the browser tests and screenshots.

Chromium and its driver come from the system (Debian's ``chromium`` and ``chromium-driver``); nothing is
downloaded. ``chromium_paths()`` is None when either is missing.
"""

from __future__ import annotations

import os
import shutil

from mapgen.web.live import live_server

__all__ = ["chrome", "chromium_paths", "live_server"]


def chromium_paths() -> tuple[str, str] | None:
    browser = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                                shutil.which("google-chrome")) if p), None)
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def chrome(width: int = 1280, height: int = 900, downloads: str | None = None):
    """A headless Chromium driven through the system chromedriver (never a downloaded one)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not fetch anything
    browser, driver = chromium_paths()
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--force-device-scale-factor=1", "--lang=en-GB"):
        opts.add_argument(arg)
    if downloads:
        opts.add_experimental_option("prefs", {"download.default_directory": downloads,
                                               "download.prompt_for_download": False})
    d = webdriver.Chrome(service=Service(driver), options=opts)
    d.set_window_size(width, height)
    if downloads:
        d.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return d
