"""The link a folder's QR code holds opens ``mapgen serve``'s helper on that map's briefing (headless Chromium).

Skipped only when Chromium or its driver is not installed (``.ci/run`` installs both).
"""

from __future__ import annotations

import time

import pytest

import maps
from mapgen.web.links import helper_url
from tests.web_support import BROWSER, chromium_paths

# base_url and driver (the desktop browser): tests/conftest.py, one of each per test run
pytestmark = [
    pytest.mark.skipif(chromium_paths() is None, reason="chromium and chromium-driver are not installed"),
    pytest.mark.xdist_group(BROWSER),  # on the worker that has the browser
]


def wait_for(predicate, seconds: float = 90.0, what: str = "the page"):  # generous: CI machines are busy
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("name", ["fauna-1", "flora-1", "training-1"])
def test_a_folder_link_opens_the_helper_on_its_map_s_briefing(driver, base_url, name):
    from selenium.webdriver.common.by import By

    m = maps.load(name)
    b = m.board
    d = driver
    d.get("about:blank")  # a new page load, not a hash change on the last one
    d.get(helper_url(m, base_url))
    summary = wait_for(
        lambda: (t := d.find_element(By.ID, "briefing-summary").text).startswith("Briefing:") and t,
        what="the briefing",
    )
    fire = "" if m.briefing.greek_fire is None else f", Greek Fire {b.name(m.briefing.greek_fire)}"
    start = "" if m.briefing.start is None else f", Start {b.name(m.briefing.start)}"  # Flora's start cell
    assert summary == f"Briefing: {m.chapter}, Peak {b.name(m.briefing.peak)}{start}{fire}"
    wait_for(lambda: "maps fit" in d.find_element(By.ID, "count").text, what="the first count")
    badge = d.find_element(By.CSS_SELECTOR, f'.cell[data-cell="{b.name(m.briefing.peak)}"] .badge').text
    assert "Peak" in badge
    if m.briefing.start is not None:  # Flora's start Fort and Greek Fire came through the link too
        start = d.find_element(By.CSS_SELECTOR, f'.cell[data-cell="{b.name(m.briefing.start)}"] .badge')
        assert "Start" in start.text
        gf = d.find_element(By.CSS_SELECTOR, f'.cell[data-cell="{b.name(m.briefing.greek_fire)}"] .badge')
        assert gf.text == "Fire" and "Greek Fire" in gf.get_attribute("title")  # short on the cell, whole in its title
    if m.briefing.fort_pattern is not None:  # the mini map too: the helper's map text holds it
        text = d.execute_script("return mapText();")
        assert m.briefing.fort_pattern.text() in text
