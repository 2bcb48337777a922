"""``mapgen serve`` in a real headless Chromium (Selenium): the table helper and the studio as a person uses them.

Skipped only when Chromium or its driver is not installed (``.ci/run`` installs both).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import maps
from tests.web_support import chrome, chromium_paths, live_server

pytestmark = [
    pytest.mark.slow,  # a browser: seconds per test
    pytest.mark.skipif(chromium_paths() is None, reason="chromium and chromium-driver are not installed"),
]

FAUNA_1 = "ch=fauna&from=fauna-1&peak=F2&fp=Ti-..-Vi/Sk-Ft-../..-..-Hi"


@pytest.fixture(scope="module")
def base_url():
    with live_server() as url:
        yield url


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def driver(downloads):
    d = chrome(1280, 900, downloads=str(downloads))
    yield d
    d.quit()


def wait_for(predicate, seconds: float = 90.0, what: str = "the page"):  # generous: CI machines are busy
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def settled(d) -> None:
    """Wait until the page has no answer on its way (``body.busy``: the helper's table request, the studio's
    validation). Each answer redraws the board, replacing every cell button: an element found before it
    and used after it is stale. That was this file's race (a tap's count arriving between finding a cell
    and clicking it), so the tests touch the board only when it is settled."""
    wait_for(lambda: "busy" not in (d.execute_script("return document.body.className") or ""), what="the answers")


def cell(d, name):
    from selenium.webdriver.common.by import By

    return d.find_element(By.CSS_SELECTOR, f'.cell[data-cell="{name}"]')


def text_of(d, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return d.find_element(By.ID, element_id).text


def test_helper_taps_show_forced_cells_a_count_and_a_hint(driver, base_url):
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/helper#{FAUNA_1}")
    wait_for(lambda: "maps fit" in text_of(driver, "count"), what="the first count")
    # Reveal column 7 of fauna-1 by tapping each Path and picking its terrain from the palette.
    column_7 = {"A7": "Wa", "B7": "Sk", "C7": "Ti", "D7": "Wo", "E7": "Wa", "F7": "Fo", "G7": "Hi0"}
    for name, code in column_7.items():
        settled(driver)
        cell(driver, name).click()
        palette = driver.find_element(By.ID, "palette")
        wait_for(palette.is_displayed, what="the palette")
        driver.find_element(By.CSS_SELECTOR, f'#terrains button[data-code="{code[:2]}"]').click()
        if code.startswith("Hi"):
            driver.find_element(By.CSS_SELECTOR, f'#hill-numbers button[data-number="{code[2:]}"]').click()
        wait_for(lambda sheet=palette: not sheet.is_displayed(), what="the palette to close")
        settled(driver)
        assert code in cell(driver, name).text
    assert "r=" in driver.current_url and "G7Hi0" in driver.current_url  # the state lives in the URL
    # Forced cells appear on their tokens (beyond the Peak), and the count is labelled.
    settled(driver)
    wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, ".cell.forced")) >= 2, what="forced cells")
    assert "F2" in [e.get_attribute("data-cell") for e in driver.find_elements(By.CSS_SELECTOR, ".cell.forced")]
    wait_for(lambda: "(exact)" in text_of(driver, "count") or "(estimate" in text_of(driver, "count"), what="a count")
    # Hint: the easiest deduction, in words, marked on the board.
    driver.find_element(By.ID, "hint").click()
    hinted = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".cell.hinted"), what="a hint")[0]
    name = hinted.get_attribute("data-cell")
    m = maps.load("fauna-1")
    assert name in text_of(driver, "hint-text") and m.at(name).label in text_of(driver, "hint-text")
    assert name not in column_7 and name != "F2"  # an unrevealed cell, and not the Peak everyone knows
    # Undo takes the last tap back.
    driver.find_element(By.ID, "undo").click()
    settled(driver)
    assert "Hi0" not in cell(driver, "G7").text
    assert "G7Hi0" not in driver.current_url


def test_helper_state_reloads_from_the_url(driver, base_url):
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/helper#{FAUNA_1}&r=A7Wa,B7Sk,C7Ti,D7Wo,E7Wa,F7Fo,G7Hi0,A6Wo,B6Ft&heat=Ft")
    driver.refresh()
    wait_for(lambda: "B6" in text_of(driver, "target") or "Fort" in text_of(driver, "target"), what="the target")
    settled(driver)
    assert "Ft" in cell(driver, "B6").text and "Hi0" in cell(driver, "G7").text
    assert driver.find_element(By.ID, "heat").get_attribute("value") == "Ft"


def test_studio_shows_a_violation_and_repair_mends_it(driver, base_url):
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/studio")
    wait_for(lambda: "Valid" in text_of(driver, "verdict"), what="the shipped map to validate")
    settled(driver)
    driver.find_element(By.CSS_SELECTOR, '.brush[data-code="Ft"]').click()
    cell(driver, "B2").click()  # a fourth Fort: F2 broken
    settled(driver)
    wait_for(lambda: "broken rule" in text_of(driver, "verdict"), what="the violation")
    rules = [e.get_attribute("data-rule") for e in driver.find_elements(By.CSS_SELECTOR, "li.violation")]
    assert "F2" in rules
    broken = [e.get_attribute("data-cell") for e in driver.find_elements(By.CSS_SELECTOR, ".cell.broken")]
    assert "B2" in broken and "F2" in cell(driver, "B2").text
    driver.find_element(By.ID, "repair").click()
    wait_for(lambda: "Valid" in text_of(driver, "verdict"), what="the repair")
    settled(driver)
    assert driver.find_elements(By.CSS_SELECTOR, ".cell.broken") == []
    assert "Ft" not in cell(driver, "B2").text
    assert "changed" in cell(driver, "B2").get_attribute("class")
    assert "B2" in text_of(driver, "changes") and "F2" in text_of(driver, "changes")


def test_studio_downloads_a_png(driver, base_url, downloads):
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/studio")
    wait_for(lambda: "Valid" in text_of(driver, "verdict"), what="the map")
    driver.find_element(By.ID, "dl-png").click()
    png = wait_for(lambda: next((p for p in Path(downloads).glob("*.png")), None), 120, "the PNG download")
    wait_for(lambda: png.stat().st_size > 1000 and png.read_bytes().startswith(b"\x89PNG"), 30, "the whole file")


def test_studio_fill_the_rest_completes_a_sketch(driver, base_url):
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/studio")
    wait_for(lambda: "Valid" in text_of(driver, "verdict"), what="the map")
    settled(driver)
    driver.find_element(By.CSS_SELECTOR, '.brush[data-code=".."]').click()
    for name in ("A1", "A2", "C3", "D4"):
        cell(driver, name).click()
    wait_for(lambda: "4 blank cells" in text_of(driver, "verdict"), what="the blank cells")
    driver.find_element(By.ID, "fill").click()
    wait_for(lambda: "Valid" in text_of(driver, "verdict"), what="the filled map")


def test_phone_sized_helper_has_large_tap_targets(base_url):
    from selenium.webdriver.common.by import By

    d = chrome(390, 844)
    try:
        d.get(f"{base_url}/helper#{FAUNA_1}")
        wait_for(lambda: "maps fit" in text_of(d, "count"), what="the count")
        settled(d)
        sizes = [e.size for e in d.find_elements(By.CSS_SELECTOR, ".cell")]
        assert len(sizes) == 49 and min(s["width"] for s in sizes) >= 40 and min(s["height"] for s in sizes) >= 40
        assert d.execute_script("return document.documentElement.scrollWidth") <= 390  # no sideways scrolling
        cell(d, "C4").click()
        buttons = [e.size for e in d.find_elements(By.CSS_SELECTOR, "#terrains button")]
        assert len(buttons) == 11 and min(s["height"] for s in buttons) >= 56
    finally:
        d.quit()


def test_studio_generates_a_map_and_playtests_it_with_progress_then_plots(driver, base_url):
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/studio#map=training-1")
    wait_for(lambda: "training-1" in text_of(driver, "briefing-summary"), what="training-1")
    settled(driver)  # the verdict shown is training-1's, not the page's previous map's (no reload: a new #hash)
    assert "Valid" in text_of(driver, "verdict")
    before = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".cell")]
    seed = driver.find_element(By.ID, "seed")
    seed.clear()
    seed.send_keys("12")
    driver.find_element(By.ID, "generate").click()
    wait_for(lambda: "Generated training map, seed 12" in text_of(driver, "message"), what="the new map")
    settled(driver)
    assert "Valid" in text_of(driver, "verdict")
    assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".cell")] != before
    games = driver.find_element(By.ID, "games")
    games.clear()
    games.send_keys("40")
    driver.find_element(By.ID, "playtest").click()
    wait_for(lambda: driver.find_element(By.ID, "job").is_displayed(), what="the progress bar")
    plot = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#job-result img.plot"), 240, "the plots")[0]
    wait_for(
        lambda: driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", plot),
        what="the plot image to load",
    )
    assert "Wins " in text_of(driver, "job-result") and "/40 = " in text_of(driver, "job-result")
    assert not driver.find_element(By.ID, "job").is_displayed()
