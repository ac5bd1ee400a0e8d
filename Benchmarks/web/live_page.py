#!/usr/bin/env python3
"""Keeps recorderd's Devices page open in a headless Chromium for SECONDS and measures the live
plot's latency: for every point a WebSocket message brings, the browser's clock at arrival
(performance.timeOrigin + performance.now(), wall time) minus the sample's own time (its
CLOCK_MONOTONIC uptime turned into wall time with the offset read here). Prints one JSON line:
count, p50, p99, max in ms, and the points the canvas drew.

  live_page.py BASE SECONDS"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

RECORD = """
window.__arrivals = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new Native(url, protocols);
  socket.addEventListener("message", (event) => {
    const now = performance.timeOrigin + performance.now();
    const m = JSON.parse(event.data);
    if (m.type === "data") for (const p of m.points) window.__arrivals.push([now, p[1]]);
  });
  return socket;
};
window.WebSocket.prototype = Native.prototype;
"""


def main(base, seconds):
    options = Options()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1366,900"]:
        options.add_argument(a)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD})
        driver.get(base + "/devices")
        # The offset of wall time over CLOCK_MONOTONIC, read as close together as Python can.
        offsets = []
        for _ in range(50):
            a = time.time()
            m = time.clock_gettime(time.CLOCK_MONOTONIC)
            b = time.time()
            offsets.append(((a + b) / 2 - m, b - a))
        offset = min(offsets, key=lambda o: o[1])[0]
        end = time.monotonic() + float(seconds)
        while time.monotonic() < end:
            time.sleep(1)  # the page runs; nothing to synchronise with
        arrivals = driver.execute_script("return window.__arrivals")
        drawn = int(driver.find_element(By.CSS_SELECTOR, "canvas.live").get_attribute("data-drawn") or 0)
    finally:
        driver.quit()
    latencies = sorted((now / 1000.0 - (uptime + offset)) * 1000.0 for now, uptime in arrivals)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(json.dumps({"count": len(latencies), "p50": round(pick(0.5), 1), "p99": round(pick(0.99), 1),
                      "max": round(latencies[-1], 1), "drawn": drawn}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
