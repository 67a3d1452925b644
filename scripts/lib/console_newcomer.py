"""Checks of the web console for someone who never read the seed apps (issue 24), used by
scripts/console-browser-check.py: one gesture makes one event, no control is drawn empty, the
font screen holds at its largest size, and every rule and mode is said in words.
"""
import http.client
import threading
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By


class EventCounter:
    """A profile's event stream read over plain HTTP, beside the browsers: what every device
    would receive. Counts events by type from the moment it is open."""

    def __init__(self, port, profile, types="refresh"):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.connection.request("GET", f"/v1/profiles/{profile}/events?types={types}",
                                headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise RuntimeError(f"event stream answered {self.response.status}")
        self.events = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        kind = None
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line == "" and kind:
                    with self.lock:
                        self.events.append((time.monotonic(), kind))
                    kind = None
        except (OSError, ValueError, AttributeError):
            pass  # closed by close(): http.client drops its file object mid-read

    def count(self, kind):
        with self.lock:
            return sum(1 for _, seen in self.events if seen == kind)

    def close(self):
        self.connection.sock and self.connection.sock.close()
        self.connection.close()


def drag_slider(driver, element_id, steps=6, step_px=12):
    """One gesture with the mouse: press on the slider's thumb area, move in several steps
    (each an `input` event), release."""
    slider = driver.find_element(By.ID, element_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
    actions = ActionChains(driver, duration=40)
    actions.move_to_element_with_offset(slider, -slider.size["width"] // 4, 0).click_and_hold()
    for _ in range(steps):
        actions.move_by_offset(step_px, 0)
    actions.pause(0.3).release().perform()


# Every visible control that says nothing: a button or link with neither text nor a label, a
# menu with no choice, a bar's back button without a title or a tooltip.
EMPTY_CONTROLS_JS = """
const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const named = (e) => (e.textContent.trim() || e.getAttribute('aria-label') || e.getAttribute('title') || '').length > 0;
const describe = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`;
const empty = [];
for (const e of document.querySelectorAll('button, a[href], [role=button], .bar-item')) {
  if (visible(e) && !named(e)) empty.push(`${describe(e)}: no text, label or title`);
}
for (const e of document.querySelectorAll('select')) {
  if (visible(e) && e.options.length === 0) empty.push(`${describe(e)}: a menu with nothing to choose`);
}
for (const e of document.querySelectorAll('.nav-back')) {
  if (visible(e) && !(e.getAttribute('title') || '').trim()) empty.push(`${describe(e)}: a back button without a title`);
}
return empty;
"""


def empty_controls(driver):
    return driver.execute_script(EMPTY_CONTROLS_JS)


# The seed apps' screens at the current size: in each phone, does the body's last line end above
# the home indicator, and is nothing wider than the screen? (Nothing scrolls: what a screen holds
# is on it.)
SCREENS_LAYOUT_JS = """
return [...document.querySelectorAll('#screens .phone')].map((phone) => {
  const body = phone.querySelector('.screen-body');
  const lines = [...body.querySelectorAll('p, .cell, .font-readout, .counter-meta')];
  const last = Math.max(...lines.map((line) => line.getBoundingClientRect().bottom));
  const indicator = phone.querySelector('.home-indicator').getBoundingClientRect();
  return {
    phone: phone.id, lastBottom: Math.round(last), indicatorTop: Math.round(indicator.top),
    overflowX: body.scrollWidth - body.clientWidth, scrolled: body.scrollHeight - body.clientHeight,
    fontSize: getComputedStyle(body.querySelector('p, .cell') || body).fontSize,
  };
});
"""


def screens_layout(driver):
    return driver.execute_script(SCREENS_LAYOUT_JS)


def rules_in_words(driver):
    """Each line of “The bar, and why”: (name, the plain sentence, the API's name); a line whose
    sentence is empty or is only the API's name fails the check."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#bar-rules dd')].map((dd) => {
          const code = dd.querySelector('.rule-code');
          const plain = [...dd.childNodes].filter((n) => n !== code).map((n) => n.textContent).join('').trim();
          return [dd.previousElementSibling.textContent, plain, code ? code.textContent : ''];
        });""")
