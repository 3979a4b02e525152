"""Drive the browser table page with headless Debian chromium through selenium.

Uses /usr/bin/chromium and /usr/bin/chromedriver (Debian's chromium and chromium-driver), so
selenium-manager never runs and nothing is downloaded. Every wait is bounded.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlparse

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT_SECONDS = 30.0
"""A bound on any wait for the page, generous for a busy machine: waits end on what they see."""
T = TypeVar("T")


def new_browser() -> webdriver.Chrome:
    options = Options()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1700",
        "--lang=en-US",
    ):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    browser.set_page_load_timeout(WAIT_SECONDS)
    return browser


def wait_for(what: str, probe: Callable[[], T | None], seconds: float = WAIT_SECONDS) -> T:
    """``probe()`` once it is truthy; fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class Table:
    """One tab showing the page."""

    def __init__(self, browser: webdriver.Chrome, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url

    def open(self) -> None:
        self.browser.get(self.base_url)
        wait_for(
            "the page",
            lambda: (
                self.browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
            ),
        )

    def create(
        self,
        game: str,
        seats: list[str],
        clock_seconds: float | None = None,
        options: dict[str, str] | None = None,
    ) -> None:
        """Create a game from the lobby; ``clock_seconds`` fills "seconds per decision",
        ``options`` the option fields (by name: a number or a choice's value)."""
        self.open()
        Select(self.browser.find_element(By.ID, "game-type")).select_by_value(game)
        for name, value in (options or {}).items():
            field = wait_for(
                f"the option {name}",
                lambda name=name: self.elements(f".game-option[data-name='{name}']"),
            )[0]
            if field.tag_name == "select":
                Select(field).select_by_value(value)
            else:
                field.clear()
                field.send_keys(value)
        for index, kind in enumerate(seats):
            element = self.browser.find_element(
                By.CSS_SELECTOR, f"select.seat-type[data-seat='{index}']"
            )
            Select(element).select_by_value(kind)
        if clock_seconds is not None:
            self.browser.find_element(By.ID, "clock-seconds").send_keys(str(clock_seconds))
        self.browser.find_element(By.ID, "create").click()
        wait_for("the table", lambda: self.status("version"))

    def join(self, game_id: str, seat: int, token: str) -> None:
        self.open()
        for field, value in (
            ("join-game", game_id),
            ("join-seat", str(seat)),
            ("join-token", token),
        ):
            element = self.browser.find_element(By.ID, field)
            element.clear()
            element.send_keys(value)
        self.browser.find_element(By.ID, "join").click()

    def status(self, name: str) -> str:
        value = self.browser.find_element(By.ID, "status").get_attribute(f"data-{name}")
        return value or ""

    def version(self) -> int:
        return int(self.status("version") or 0)

    def finished(self) -> bool:
        return self.status("status") == "FINISHED"

    def my_turn(self) -> bool:
        return self.status("my-turn") == "true"

    def wait_turn_or_end(self) -> None:
        wait_for("my turn or the end", lambda: self.my_turn() or self.finished())

    def seat_tokens(self) -> dict[int, str]:
        items = self.browser.find_elements(By.CSS_SELECTOR, "#seat-tokens li")
        # Each seat's token travels only in its invite link, never as text on the page.
        return {
            int(item.get_attribute("data-seat") or 0): parse_qs(
                urlparse(item.get_attribute("data-link") or "").fragment
            )["token"][0]
            for item in items
        }

    def page_text(self) -> str:
        return self.browser.find_element(By.TAG_NAME, "body").text

    def game_id(self) -> str:
        return dict(
            part.split("=", 1)
            for part in self.browser.execute_script("return location.hash.slice(1)").split("&")
        )["game"]

    def log_lines(self) -> list[tuple[int, str]]:
        """The move log as (version, text), oldest first (the page puts the newest on top)."""
        lines = []
        for item in reversed(self.elements("#events li")):
            try:
                lines.append((int(item.get_attribute("data-version") or 0), item.text))
            except StaleElementReferenceException:  # the log is only prepended to; skip it
                continue
        return lines

    def elements(self, selector: str) -> list[WebElement]:
        return self.browser.find_elements(By.CSS_SELECTOR, selector)

    def texts(self, selector: str) -> list[str]:
        """The texts of what ``selector`` finds now, less elements re-rendered meanwhile.

        A countdown is redrawn every tick, so an element found a moment ago may be gone.
        """
        texts = []
        for element in self.elements(selector):
            try:
                texts.append(element.text)
            except StaleElementReferenceException:
                continue
        return texts

    def error(self) -> dict[str, str]:
        box = self.browser.find_element(By.ID, "error")
        return {
            "reason": box.get_attribute("data-reason") or "",
            "rule_id": box.get_attribute("data-rule-id") or "",
            "shown": box.text if box.is_displayed() else "",
        }

    def play_one(self) -> None:
        """Make the first legal move the page offers (choose-N cards, a card, or a button)."""
        before = self.version()
        for attempt in range(3):
            try:
                self._click_first_legal()
                break
            except StaleElementReferenceException:  # redrawn between finding and clicking
                if attempt == 2:
                    raise
        wait_for("the move to be applied", lambda: self.version() > before or self.error()["shown"])
        assert not self.error()["shown"], self.error()

    def _click_first_legal(self) -> None:
        count = int(self.browser.find_element(By.ID, "choice").get_attribute("data-count") or 0)
        if count and self.elements("#hand button.choosable"):
            for _ in range(count):  # each click redraws the hand: find the next card anew
                wait_for(
                    "a card to choose",
                    lambda: self.elements("#hand button.choosable:not(.selected)"),
                )[0].click()
            wait_for(
                "the send button",
                lambda: self.browser.find_element(By.ID, "choice-submit").is_enabled(),
            )
            self.browser.find_element(By.ID, "choice-submit").click()
            return
        playable = self.elements("#hand button.playable")
        legal = self.elements("#legal button.legal")
        if not playable and not legal and self.elements("#hand button.pickable"):
            # Guandan: pick a card, then play the single it makes (a lead may always be one).
            self.elements("#hand button.pickable")[0].click()
            legal = wait_for(
                "a play of the picked card", lambda: self.elements("#legal button.legal")
            )
        target = playable[0] if playable else legal[0]
        target.click()

    def screenshot(self, name: str) -> None:
        folder = os.environ.get("WEB_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.browser.save_screenshot(str(Path(folder) / f"{name}.png"))
